// A stand-in libocloc (Intel's offline compiler) for the Level Zero backend on the simulated
// driver of tests/unit/level_zero/fake_ze.hpp, loaded only where TACK_OCLOC_LIBRARY names it.
// It takes what the runtime gives the real library (`ocloc compile -file kernel.cl -device
// 0x<id> -spv_only -options ...`, one in-memory NUL-terminated source) and refuses anything
// else, as ocloc would. Its "SPIR-V" is the OpenCL C itself: the simulated driver runs a
// module's source on PoCL, which compiles it there and reports its errors at the launch.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

/// The value after `flag` in argv, or nullptr.
const char* option(unsigned argc, const char** argv, std::string_view flag) {
    for (unsigned i = 0; i + 1 < argc; ++i)
        if (flag == argv[i]) return argv[i + 1];
    return nullptr;
}

bool has(unsigned argc, const char** argv, std::string_view flag) {
    for (unsigned i = 0; i < argc; ++i)
        if (flag == argv[i]) return true;
    return false;
}

char* copy_of(std::string_view s) {
    auto* out = static_cast<char*>(std::malloc(s.size() + 1));
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
    return out;
}

/// Hands `files` (name, contents) to the caller in ocloc's output layout.
void outputs(const std::vector<std::pair<std::string, std::string>>& files, uint32_t* n,
             uint8_t*** data, uint64_t** lengths, char*** names) {
    *n = static_cast<uint32_t>(files.size());
    *data = static_cast<uint8_t**>(std::calloc(files.size(), sizeof(uint8_t*)));
    *lengths = static_cast<uint64_t*>(std::calloc(files.size(), sizeof(uint64_t)));
    *names = static_cast<char**>(std::calloc(files.size(), sizeof(char*)));
    for (std::size_t i = 0; i < files.size(); ++i) {
        (*data)[i] = reinterpret_cast<uint8_t*>(copy_of(files[i].second));
        (*lengths)[i] = files[i].second.size();
        (*names)[i] = copy_of(files[i].first);
    }
}

}  // namespace

extern "C" {

int oclocInvoke(unsigned argc, const char** argv, uint32_t num_sources, const uint8_t** sources,
                const uint64_t* source_lengths, const char** source_names, uint32_t,
                const uint8_t**, const uint64_t*, const char**, uint32_t* num_outputs,
                uint8_t*** data_outputs, uint64_t** length_outputs, char*** name_outputs) {
    auto fail = [&](const std::string& why) {
        outputs({{"stdout.log", "ocloc stand-in: " + why + "\n"}}, num_outputs, data_outputs,
                length_outputs, name_outputs);
        return -5150;  // OCLOC_INVALID_COMMAND_LINE
    };
    if (argc < 2 || std::string_view(argv[1]) != "compile") return fail("not a compile command");
    const char* file = option(argc, argv, "-file");
    if (!file || !option(argc, argv, "-device") || !has(argc, argv, "-spv_only"))
        return fail("expected -file, -device and -spv_only");
    if (num_sources != 1 || std::string_view(source_names[0]) != file)
        return fail(std::string("no in-memory source named ") + file);
    // In-memory sources are C strings: the length counts the terminating NUL.
    std::string_view text(reinterpret_cast<const char*>(sources[0]), source_lengths[0]);
    if (text.empty() || text.back() != '\0') return fail("the source is not NUL-terminated");
    text.remove_suffix(1);
    if (text.find("__kernel") == std::string_view::npos) return fail("the source has no kernel");
    outputs({{"kernel.spv", std::string(text)}, {"stdout.log", ""}}, num_outputs, data_outputs,
            length_outputs, name_outputs);
    return 0;
}

int oclocFreeOutput(uint32_t* n, uint8_t*** data, uint64_t** lengths, char*** names) {
    for (uint32_t i = 0; i < *n; ++i) {
        std::free((*data)[i]);
        std::free((*names)[i]);
    }
    std::free(*data);
    std::free(*lengths);
    std::free(*names);
    *n = 0;
    return 0;
}

int oclocVersion() {
    return 0x10000;  // "1.0": the stand-in's own, so its binaries key apart from a real ocloc's
}

}  // extern "C"
