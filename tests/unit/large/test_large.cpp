// Arrays past 2^31 elements: indices, extents and the launch count are 64-bit end to end.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "tack/tack.hpp"

namespace {

// MemAvailable from /proc/meminfo in bytes (0 when unreadable).
std::uint64_t mem_available() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit) {
        if (key == "MemAvailable:") return kb * 1024;
    }
    return 0;
}

TEST(Large, U8ArrayLongerThan2To31) {
    constexpr std::uint64_t kNeeded = 6ull << 30;
    if (mem_available() < kNeeded)
        GTEST_SKIP() << "needs 6 GiB of MemAvailable for a 2 GiB array, have "
                     << (mem_available() >> 20) << " MiB";
    constexpr std::int64_t n = (std::int64_t(1) << 31) + 16;
    tack::Kernel k = tack::Module::from_source(R"(import tack

@tack.kernel
def index_bytes(out):
    for i in range(out.shape[0]):
        out[i] = tack.u8(i)
)",
                                               "large.py")
                         .kernel("index_bytes");
    tack::Array out = tack::zeros(tack::DType::u8, {n});
    k(out);
    tack::sync();
    const std::int64_t probes[] = {0,
                                   1,
                                   255,
                                   256,
                                   257,
                                   (std::int64_t(1) << 31) - 1,
                                   std::int64_t(1) << 31,
                                   (std::int64_t(1) << 31) + 5,
                                   n - 1};
    for (std::int64_t i : probes) {
        // u8(i) keeps the low 8 bits (CONTRACT B9: integer casts wrap).
        EXPECT_EQ(out.get<std::uint8_t>({i}), static_cast<std::uint8_t>(i & 0xff)) << i;
    }
    // One more check independent of i & 0xff arithmetic: 2^31 + 5 is 5 mod 256.
    EXPECT_EQ(out.get<std::uint8_t>({(std::int64_t(1) << 31) + 5}), 5);
}

}  // namespace
