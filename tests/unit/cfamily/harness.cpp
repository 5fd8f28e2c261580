#include "harness.hpp"

#include <cstdio>
#include <cstdlib>

namespace tack::cfamily_test {

runtime::opencl::ClRunner* opencl_runner(std::string* why) {
    static std::string reason;
    static std::unique_ptr<runtime::opencl::ClRunner> runner =
        runtime::opencl::ClRunner::create(&reason);
    if (!runner && why) *why = reason;
    return runner.get();
}

std::string run_opencl(const Kernel& k, std::vector<HostArg> args, uint64_t n,
                       const char* dialect) {
    std::string why;
    auto* runner = opencl_runner(&why);
    if (!runner) return why;
    cf::GeneratedSource gen = cf::generate(k, cf::dialect(dialect));
    const cf::KernelAbi& abi = gen.abi;
    std::vector<uint64_t> bits;
    for (const auto& a : args)
        bits.push_back(a.bits);
    std::vector<std::vector<uint8_t>> packs = abi.pack_scalars(bits);
    std::vector<runtime::opencl::ClArg> cl(abi.num_args);
    for (size_t i = 0; i < abi.params.size(); ++i) {
        if (abi.params[i].is_array)
            cl[abi.params[i].arg_index] =
                runtime::opencl::ClArg::buffer(args[i].data, args[i].bytes);
    }
    for (size_t j = 0; j < abi.packs.size(); ++j)
        cl[abi.packs[j].arg_index] =
            runtime::opencl::ClArg::buffer(packs[j].data(), packs[j].size(), false);
    int64_t n64 = static_cast<int64_t>(n);
    cl[abi.n_arg_index] = runtime::opencl::ClArg::value(&n64, sizeof n64);
    if (std::getenv("TACK_CFAMILY_DUMP")) std::fprintf(stderr, "%s\n", gen.source.c_str());
    std::string error = runner->run(gen.source, abi.entry, cl, n);
    if (!error.empty()) error += "\n--- generated source ---\n" + gen.source;
    return error;
}

}  // namespace tack::cfamily_test
