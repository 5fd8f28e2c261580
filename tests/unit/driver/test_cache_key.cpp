// The disk cache's key (driver/cache_key.hpp): every part changes it, and it carries the build id
// of the compiler that generated the code.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "driver/cache_key.hpp"
#include "support/platform.hpp"

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
    std::string id = support::platform::build_id_of(reinterpret_cast<const void*>(&make_key));
    EXPECT_EQ(id, expected);
    EXPECT_EQ(id.size(), 40u);
    int local = 0;  // the stack is no loaded object
    EXPECT_EQ(support::platform::build_id_of(&local), "");
}

// macOS's build id: a 64-bit Mach-O header, a segment command and LC_UUID, laid out by hand as
// <mach-o/loader.h> describes them.
TEST(CacheKey, MachOBuildIdIsTheUuidLoadCommand) {
    std::vector<std::uint32_t> image = {0xfeedfacf, 0x01000007, 3, 6, 2, 72 + 24, 0, 0};
    std::vector<std::uint32_t> segment(72 / 4, 0);
    segment[0] = 0x19;  // LC_SEGMENT_64
    segment[1] = 72;
    image.insert(image.end(), segment.begin(), segment.end());
    image.insert(image.end(), {0x1b, 24, 0x33221100, 0x77665544, 0xbbaa9988, 0xffeeddcc});
    EXPECT_EQ(support::platform::macho_uuid(image.data()), "00112233445566778899aabbccddeeff");
    image[8 + 72 / 4] = 0x2;  // LC_SYMTAB: no UUID left
    EXPECT_EQ(support::platform::macho_uuid(image.data()), "");
    image[0] = 0x464c457f;  // an ELF header's first word
    EXPECT_EQ(support::platform::macho_uuid(image.data()), "");
    image = {0xfeedfacf, 0, 0, 0, 1, 1000, 0, 0, 0x1b, 24};  // sizeofcmds past the commands
    image.resize(16, 0);
    image[5] = 8;  // only the first 8 bytes of the 24-byte command are inside sizeofcmds
    EXPECT_EQ(support::platform::macho_uuid(image.data()), "");
}

}  // namespace
}  // namespace tack::driver
