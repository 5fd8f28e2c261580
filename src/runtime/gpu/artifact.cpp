#include "runtime/gpu/artifact.hpp"

#include <cstring>

namespace tack::runtime::gpu {

namespace {

// Version 2: parameters carry their texture extents (hardware textures, CONTRACT A39).
constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'G', 'P', 'U', '2'};

struct Writer {
    std::vector<std::uint8_t> out;
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i)
            out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void bytes(std::span<const std::uint8_t> b) {
        u64(b.size());
        out.insert(out.end(), b.begin(), b.end());
    }
    void text(const std::string& s) {
        bytes({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
    }
};

struct Reader {
    std::span<const std::uint8_t> in;
    std::size_t at = 0;
    bool ok = true;
    std::uint64_t u64() {
        if (in.size() - at < 8) return ok = false, 0;
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v |= std::uint64_t(in[at + i]) << (8 * i);
        at += 8;
        return v;
    }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    std::vector<std::uint8_t> bytes() {
        std::uint64_t n = u64();
        if (!ok || in.size() - at < n) return ok = false, std::vector<std::uint8_t>{};
        std::vector<std::uint8_t> b(in.begin() + at, in.begin() + at + n);
        at += n;
        return b;
    }
    std::string text() {
        auto b = bytes();
        return {b.begin(), b.end()};
    }
};

std::uint64_t flags(const codegen::cfamily::KernelAbi& abi) {
    return std::uint64_t(abi.uses_collectives) | std::uint64_t(abi.uses_workgroups) << 1 |
           std::uint64_t(abi.uses_f64) << 2 | std::uint64_t(abi.uses_int64_atomics) << 3 |
           std::uint64_t(abi.uses_print) << 4;
}

}  // namespace

std::vector<std::uint8_t> encode_artifact(const CodeArtifact& a) {
    Writer w;
    w.out.assign(kMagic, kMagic + sizeof kMagic);
    const auto& abi = a.abi;
    w.text(abi.entry);
    w.u64(abi.params.size());
    for (const auto& p : abi.params) {
        w.text(p.name);
        w.u64(p.is_array);
        w.u64(static_cast<std::uint64_t>(p.dtype));
        w.i64(p.arg_index);
        w.i64(p.pack_slot);
        w.u64(p.is_texture);
        for (std::int64_t e : p.texture_extent)
            w.i64(e);
    }
    w.u64(abi.packs.size());
    for (const auto& p : abi.packs) {
        w.u64(static_cast<std::uint64_t>(p.dtype));
        w.i64(p.count);
        w.i64(p.arg_index);
    }
    w.i64(abi.n_arg_index);
    w.i64(abi.num_args);
    w.i64(abi.group_size);
    w.u64(flags(abi));
    w.bytes(a.code);
    return std::move(w.out);
}

std::optional<CodeArtifact> decode_artifact(std::span<const std::uint8_t> bytes) {
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        return std::nullopt;
    Reader r{bytes, sizeof kMagic};
    CodeArtifact a;
    auto& abi = a.abi;
    abi.entry = r.text();
    std::uint64_t np = r.u64();
    for (std::uint64_t i = 0; r.ok && i < np; ++i) {
        codegen::cfamily::AbiParam p;
        p.name = r.text();
        p.is_array = r.u64() != 0;
        p.dtype = static_cast<DType>(r.u64());
        p.arg_index = static_cast<int>(r.i64());
        p.pack_slot = static_cast<int>(r.i64());
        p.is_texture = r.u64() != 0;
        for (auto& e : p.texture_extent)
            e = r.i64();
        abi.params.push_back(std::move(p));
    }
    std::uint64_t nk = r.u64();
    for (std::uint64_t i = 0; r.ok && i < nk; ++i) {
        codegen::cfamily::AbiPack p;
        p.dtype = static_cast<DType>(r.u64());
        p.count = static_cast<int>(r.i64());
        p.arg_index = static_cast<int>(r.i64());
        abi.packs.push_back(p);
    }
    abi.n_arg_index = static_cast<int>(r.i64());
    abi.num_args = static_cast<int>(r.i64());
    abi.group_size = static_cast<int>(r.i64());
    std::uint64_t f = r.u64();
    abi.uses_collectives = f & 1;
    abi.uses_workgroups = f & 2;
    abi.uses_f64 = f & 4;
    abi.uses_int64_atomics = f & 8;
    abi.uses_print = f & 16;
    a.code = r.bytes();
    if (!r.ok || r.at != bytes.size()) return std::nullopt;
    return a;
}

}  // namespace tack::runtime::gpu
