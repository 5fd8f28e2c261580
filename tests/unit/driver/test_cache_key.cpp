// The disk cache's key (driver/cache_key.hpp): every part changes it, and it carries the build id
// of the compiler that generated the code.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "driver/cache_key.hpp"
#include "support/build_id.hpp"

namespace tack::driver {
namespace {

TEST(CacheKey, EveryPartChangesTheKey) {
    KeyParts base{"ir", "variant", "x86_64-znver3", "19.1.7", "O3"};
    std::string key = make_key(base);
    EXPECT_EQ(key, make_key(base));
    EXPECT_EQ(key.rfind(std::string("tack-") + TACK_VERSION + ":", 0), 0u) << key;
    std::string KeyParts::*fields[] = {&KeyParts::ir_text, &KeyParts::variant_key,
                                       &KeyParts::target_fingerprint, &KeyParts::llvm_version,
                                       &KeyParts::options};
    for (auto field : fields) {
        KeyParts changed = base;
        changed.*field += "!";
        EXPECT_NE(make_key(changed), key);
    }
    KeyParts shifted = base;  // moving a character between parts must not collide
    shifted.ir_text = "irv";
    shifted.variant_key = "ariant";
    EXPECT_NE(make_key(shifted), key);
}

// The key carries the compiler's build id (an entry another build wrote is never loaded: its
// generated code may differ at the same version). The reference is binutils' reading of this
// test binary, which links the cache statically.
std::string output_of(const std::string& command) {
    std::string text;
    if (std::FILE* pipe = ::popen(command.c_str(), "r")) {
        char chunk[4096];
        while (std::size_t n = std::fread(chunk, 1, sizeof chunk, pipe))
            text.append(chunk, n);
        ::pclose(pipe);
    }
    return text;
}

TEST(CacheKey, BuildIdIsTheLinkersOfTheObjectHoldingTheCode) {
    std::string self = std::filesystem::read_symlink("/proc/self/exe");
    std::string notes = output_of("readelf -n '" + self + "' 2>/dev/null");
    std::size_t at = notes.find("Build ID: ");
    if (at == std::string::npos) GTEST_SKIP() << "no readelf, or a binary without a build id";
    at += 10;
    std::string expected = notes.substr(at, notes.find('\n', at) - at);
    std::string id = support::build_id_of(reinterpret_cast<const void*>(&make_key));
    EXPECT_EQ(id, expected);
    EXPECT_EQ(id.size(), 40u);
    int local = 0;  // the stack is no loaded object
    EXPECT_EQ(support::build_id_of(&local), "");
}

}  // namespace
}  // namespace tack::driver
