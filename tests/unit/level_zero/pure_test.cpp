// The parts of the Level Zero backend that need no device: option validation, the ocloc
// invocation, launch limits, capabilities and the disk-cache artifact.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/level_zero/device.hpp"
#include "runtime/level_zero/module.hpp"
#include "runtime/level_zero/ocloc.hpp"
#include "runtime/level_zero/options.hpp"
#include "tack/tack.hpp"

namespace tack::level_zero_test {
namespace {

namespace l0 = runtime::level_zero;

// --- external_context -----------------------------------------------------------------------

std::string value_error(const DeviceOptions& options) {
    try {
        l0::parse_external_context(options);
    } catch (const tack::ValueError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(LevelZeroOptions, AbsentMeansOwnContext) {
    EXPECT_FALSE(l0::parse_external_context({}).has_value());
}

TEST(LevelZeroOptions, AdoptsThreeHandlesFromStruct) {
    int a, b, c;
    l0::ExternalContext ctx{&a, &b, &c};
    auto got = l0::parse_external_context({{"external_context", static_cast<void*>(&ctx)}});
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->driver, &a);
    EXPECT_EQ(got->device, &b);
    EXPECT_EQ(got->context, &c);
}

TEST(LevelZeroOptions, AdoptsThreeHandlesFromText) {
    auto got = l0::parse_external_context(
        {{"external_context", "driver=0x1000,device=0x2000,context=12288"}});
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(got->driver), 0x1000u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(got->device), 0x2000u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(got->context), 12288u);
}

TEST(LevelZeroOptions, NullOrMissingHandlesAreValueErrors) {
    int a;
    l0::ExternalContext ctx{&a, nullptr, nullptr};
    std::string msg = value_error({{"external_context", static_cast<void*>(&ctx)}});
    EXPECT_EQ(msg.rfind("external_context requires ", 0), 0u) << msg;
    EXPECT_NE(msg.find("missing or null: device, context"), std::string::npos) << msg;

    msg = value_error({{"external_context", "driver=0x1,context=0x3"}});
    EXPECT_NE(msg.find("missing or null: device"), std::string::npos) << msg;
    msg = value_error({{"external_context", "driver=0x1,device=0,context=0x3"}});
    EXPECT_NE(msg.find("missing or null: device"), std::string::npos) << msg;
}

TEST(LevelZeroOptions, MalformedValuesAreValueErrors) {
    EXPECT_NE(value_error({{"external_context", 5}}).find("another type"), std::string::npos);
    EXPECT_NE(value_error({{"external_context", static_cast<void*>(nullptr)}}).find("null pointer"),
              std::string::npos);
    EXPECT_NE(value_error({{"external_context", "driver=1,device=2,context=3,queue=4"}})
                  .find("unknown entry 'queue'"),
              std::string::npos);
    EXPECT_NE(value_error({{"external_context", "driver=x1,device=2,context=3"}})
                  .find("'driver' is not an address"),
              std::string::npos);
}

TEST(LevelZeroOptions, DeviceChecksTheOptionBeforeTheDriver) {
    // ValueError on every machine, with or without a driver (CONTRACT C2: unwrapped).
    EXPECT_THROW(tack::device("level_zero", {{"external_context", "driver=0x1"}}),
                 tack::ValueError);
    EXPECT_EQ(tack::default_device().name(), "cpu");
}

// --- ocloc ----------------------------------------------------------------------------------

TEST(LevelZeroOcloc, OptionsAreTheSeeds) {
    EXPECT_EQ(l0::opencl_build_options(), "-cl-std=CL2.0 -cl-fp32-correctly-rounded-divide-sqrt");
}

TEST(LevelZeroOcloc, Arguments) {
    std::vector<std::string> want = {
        "ocloc",     "compile",  "-file",
        "kernel.cl", "-device",  "0xbd5",
        "-spv_only", "-options", "-cl-std=CL2.0 -cl-fp32-correctly-rounded-divide-sqrt"};
    EXPECT_EQ(l0::ocloc_arguments(0x0bd5, l0::opencl_build_options()), want);
}

// A stand-in libocloc: records what it was given and answers with a .spv and a log.
struct OclocCall {
    std::vector<std::string> argv;
    std::string source_name;
    std::vector<uint8_t> source;  // exactly the bytes and length passed
    int rc = 0;
} g_call;

int fake_invoke(unsigned argc, const char** argv, uint32_t num_sources, const uint8_t** sources,
                const uint64_t* lengths, const char** names, uint32_t, const uint8_t**,
                const uint64_t*, const char**, uint32_t* num_out, uint8_t*** out,
                uint64_t** out_len, char*** out_names) {
    g_call.argv.assign(argv, argv + argc);
    if (num_sources == 1) {
        g_call.source_name = names[0];
        g_call.source.assign(sources[0], sources[0] + lengths[0]);
    }
    static uint8_t spv[] = {0x03, 0x02, 0x23, 0x07};
    static uint8_t log[] = "warning: something\n";
    static uint8_t* datas[] = {spv, log};
    static uint64_t lens[] = {4, sizeof log};
    static char n0[] = "kernel.spv", n1[] = "stdout.log";
    static char* outnames[] = {n0, n1};
    *num_out = g_call.rc == 0 ? 2 : 1;
    *out = g_call.rc == 0 ? datas : datas + 1;
    *out_len = g_call.rc == 0 ? lens : lens + 1;
    *out_names = g_call.rc == 0 ? outnames : outnames + 1;
    return g_call.rc;
}
int fake_free(uint32_t*, uint8_t***, uint64_t**, char***) {
    return 0;
}

TEST(LevelZeroOcloc, CompilesFromMemoryNulTerminated) {
    l0::OclocApi api{fake_invoke, fake_free, nullptr, "fake"};
    g_call = {};
    std::string src = "__kernel void k(long __n__) {}";
    auto got = l0::compile_to_spirv(api, src, 0x56c0, "-cl-std=CL2.0");
    EXPECT_EQ(g_call.argv, l0::ocloc_arguments(0x56c0, "-cl-std=CL2.0"));
    EXPECT_EQ(g_call.source_name, "kernel.cl");
    ASSERT_EQ(g_call.source.size(), src.size() + 1);
    EXPECT_EQ(std::memcmp(g_call.source.data(), src.c_str(), src.size() + 1), 0);
    EXPECT_EQ(got.spirv, (std::vector<uint8_t>{0x03, 0x02, 0x23, 0x07}));
    EXPECT_EQ(got.log, "warning: something");
}

TEST(LevelZeroOcloc, FailureCarriesTheLog) {
    l0::OclocApi api{fake_invoke, fake_free, nullptr, "fake"};
    g_call = {};
    g_call.rc = -11;
    auto got = l0::compile_to_spirv(api, "bad", 1, "");
    EXPECT_TRUE(got.spirv.empty());
    EXPECT_EQ(got.log, "ocloc failed (code -11):\nwarning: something");
}

// --- limits and capabilities ----------------------------------------------------------------

l0::DeviceInfo info(uint32_t size_x, uint32_t total, uint32_t count_x, bool fp64 = true) {
    l0::DeviceInfo i;
    i.max_group_size_x = size_x;
    i.max_total_group_size = total;
    i.max_group_count_x = count_x;
    i.fp64 = fp64;
    return i;
}

TEST(LevelZeroLimits, GroupSizeIsTheSmallestOf256AndTheDeviceLimits) {
    EXPECT_EQ(l0::group_size(info(1024, 1024, 1)), 256u);
    EXPECT_EQ(l0::group_size(info(128, 1024, 1)), 128u);
    EXPECT_EQ(l0::group_size(info(1024, 64, 1)), 64u);
}

TEST(LevelZeroLimits, LaunchLimitIsGroupCountTimesGroupSize) {
    EXPECT_EQ(l0::launch_limit(info(1024, 1024, 65535)), 65535ull * 256);
    EXPECT_EQ(l0::launch_limit(info(1024, 1024, 0xFFFFFFFFu)), 0xFFFFFFFFull * 256);
}

TEST(LevelZeroCapabilities, F64FollowsTheDevice) {
    DTypeSet nine{DType::i8,  DType::u8,  DType::i16, DType::u16, DType::i32,
                  DType::u32, DType::i64, DType::u64, DType::f32};
    EXPECT_EQ(l0::supported_dtypes(info(1, 1, 1, false)), nine);
    EXPECT_EQ(l0::supported_dtypes(info(1, 1, 1, true)), nine | DTypeSet{DType::f64});
}

TEST(LevelZeroCapabilities, CacheTargetNamesWhatChangesTheCode) {
    l0::DeviceInfo a = info(1024, 1024, 65535);
    a.name = "Intel(R) Data Center GPU Max 1100";
    a.device_id = 0x0bda;
    a.ip_version = 0x030f0007;
    a.driver_version = 0x01036000;
    std::string t = l0::cache_target(a, 0x10000, "-cl-std=CL2.0");
    EXPECT_EQ(t,
              "level_zero;Intel(R) Data Center GPU Max 1100;id=0xbda;ip=0x30f0007;"
              "driver=0x1036000;ocloc=65536;options=-cl-std=CL2.0;f64=1");
    l0::DeviceInfo b = a;
    b.fp64 = false;
    EXPECT_NE(l0::cache_target(b, 0x10000, "-cl-std=CL2.0"), t);
}

// --- the disk-cache artifact ----------------------------------------------------------------

TEST(LevelZeroArtifact, RoundTripsBothBinaries) {
    l0::Artifact a{{1, 2, 3}, {7, 0, 9, 9}};
    auto bytes = l0::encode_artifact(a);
    ASSERT_EQ(bytes.size(), 8u + 8 + 3 + 8 + 4);
    auto back = l0::decode_artifact(bytes);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->native, a.native);
    EXPECT_EQ(back->spirv, a.spirv);
}

TEST(LevelZeroArtifact, RejectsTruncatedOrForeignBytes) {
    auto bytes = l0::encode_artifact({{1, 2, 3}, {4}});
    EXPECT_FALSE(l0::decode_artifact(std::span(bytes).first(bytes.size() - 1)).has_value());
    bytes.push_back(0);
    EXPECT_FALSE(l0::decode_artifact(bytes).has_value());
    std::vector<uint8_t> object = {0x7f, 'E', 'L', 'F', 0, 0, 0, 0, 0, 0};
    EXPECT_FALSE(l0::decode_artifact(object).has_value());
}

}  // namespace
}  // namespace tack::level_zero_test
