// The shared GPU launch rules (runtime/gpu/launch_rules.hpp): one definition for every backend,
// with the contract's messages (CONTRACT D10, D12, D13, E4, C15).
#include <gtest/gtest.h>

#include "runtime/gpu/launch_rules.hpp"
#include "runtime/gpu/loader.hpp"
#include "tack/tack.hpp"

namespace gpu = tack::runtime::gpu;

namespace {

TEST(GpuRules, LaunchSizeNamesTheApi) {
    gpu::Geometry cl{"OpenCL", 256, 4096}, l0{"Level Zero", 256, 1024};
    EXPECT_NO_THROW(gpu::check_launch_size("k", 4096, cl));
    EXPECT_NO_THROW(gpu::check_launch_size("k", 0, gpu::Geometry{"CUDA", 256, 0}));
    try {
        gpu::check_launch_size("k", 5000, cl);
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'k': 5000 iterations exceed the 4096 that one OpenCL launch can "
                     "index; split the work across several launches.");
    }
    try {
        gpu::check_launch_size("k", 1025, l0);
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'k': 1025 iterations exceed the 1024 that one Level Zero launch can "
                     "index; split the work across several launches.");
    }
}

TEST(GpuRules, CollectivesNeedCompleteGroupsOf256Lanes) {
    try {
        gpu::check_complete_groups("k", 1000);
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'k': workgroup collectives require complete 256-lane groups; "
                     "iteration count 1000 would create a partial workgroup.");
    }
    EXPECT_NO_THROW(gpu::check_complete_groups("k", 512));
    EXPECT_NO_THROW(gpu::check_complete_groups("k", 0));
    EXPECT_NO_THROW(gpu::check_complete_groups("k", -3));
    EXPECT_NO_THROW(gpu::check_collective_lanes("g", 256));
    try {
        gpu::check_collective_lanes("g", 128);
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'g': workgroup collectives require 256 lanes; this device selects "
                     "128.");
    }
}

TEST(GpuRules, GroupsCoverTheRange) {
    gpu::Geometry g{"CUDA", 256, ~0ull};
    EXPECT_EQ(g.groups(1), 1u);
    EXPECT_EQ(g.groups(256), 1u);
    EXPECT_EQ(g.groups(257), 2u);
    EXPECT_EQ(g.groups((std::int64_t(1) << 32) + 256), (1ull << 24) + 1);
}

TEST(GpuRules, ReductionPlan) {
    gpu::Geometry g{"CUDA", 256, 1ull << 20};
    auto d = gpu::plan_reduction(1000, tack::ir::ReduceOp::Sum, g, ~0ull);
    EXPECT_FALSE(d.empty);
    EXPECT_EQ(d.plan.groups, 4u);
    EXPECT_EQ(d.plan.stride, 1024);
    EXPECT_EQ(d.plan.identity, 0.0f);
    // Capped by max_groups and by the launch limit (the kernel then strides).
    EXPECT_EQ(gpu::plan_reduction(1 << 30, tack::ir::ReduceOp::Max, g, 8).plan.groups, 8u);
    EXPECT_EQ(gpu::plan_reduction(1 << 30, tack::ir::ReduceOp::Min, g, ~0ull).plan.groups,
              (1u << 20) / 256);
    EXPECT_TRUE(gpu::plan_reduction(0, tack::ir::ReduceOp::Sum, g, 1).empty);
    EXPECT_THROW(gpu::plan_reduction(0, tack::ir::ReduceOp::Min, g, 1), tack::ValueError);
    EXPECT_THROW(gpu::plan_reduction(-1, tack::ir::ReduceOp::Max, g, 1), tack::ValueError);
}

// A library that does not exist is an explanation, never a crash. (Tests' APIs carry their own
// row, kRow, instead of naming one of gpu/libraries.cpp.)
constexpr const char* kNoSuchLibrary[] = {"libtack-no-such-library.so.1"};
constexpr const char* kLibc[] = {"libc.so.6"};

#define TACK_TEST_MISSING_FUNCTIONS(X) X(noSuchFunction, int, ())
struct MissingApi {
    TACK_GPU_API(TACK_TEST_MISSING_FUNCTIONS, TACK_GPU_NONE)
    static constexpr gpu::VendorLibrary kRow{"missing", "TACK_TEST_MISSING_LIBRARY", kNoSuchLibrary,
                                             "absent: {tried}", "{library} lacks {symbol}"};
};

// A required symbol the library lacks; an optional one that resolves is fine.
#define TACK_TEST_LACKS_FUNCTIONS(X) X(tackNoSuchSymbol, int, ())
#define TACK_TEST_LACKS_OPTIONAL(X) X(dlopen, void*, (const char*, int))
struct LacksApi {
    TACK_GPU_API(TACK_TEST_LACKS_FUNCTIONS, TACK_TEST_LACKS_OPTIONAL)
    static constexpr gpu::VendorLibrary kRow{"lacks", "TACK_TEST_LACKS_LIBRARY", kLibc,
                                             "absent: {tried}", "{library} lacks {symbol}"};
};

// The variable names the one file tried, for a driver installed where dlopen does not look.
#define TACK_TEST_OVERRIDDEN_FUNCTIONS(X) X(dlopen, void*, (const char*, int))
struct OverriddenApi {
    TACK_GPU_API(TACK_TEST_OVERRIDDEN_FUNCTIONS, TACK_GPU_NONE)
    static constexpr gpu::VendorLibrary kRow{"overridden", "TACK_TEST_OVERRIDDEN_LIBRARY",
                                             kNoSuchLibrary, "absent: {tried}",
                                             "{library} has no {symbol}"};
};
struct OverriddenMissingApi : OverriddenApi {
    static constexpr gpu::VendorLibrary kRow{"overridden_missing",
                                             "TACK_TEST_OVERRIDDEN_MISSING_LIBRARY", kLibc,
                                             "absent: {tried}", "{library} has no {symbol}"};
};

TEST(GpuLoader, AnEnvironmentVariableNamesTheOnlyFileTried) {
    setenv("TACK_TEST_OVERRIDDEN_LIBRARY", "libc.so.6", 1);
    std::string why;
    const OverriddenApi* api = gpu::load_api<OverriddenApi>(&why);
    ASSERT_NE(api, nullptr) << why;
    EXPECT_EQ(api->library, "libc.so.6");
    // Set, the usual names are not searched: the named file is missing, so the API is.
    setenv("TACK_TEST_OVERRIDDEN_MISSING_LIBRARY", "/nonexistent/libtack-stand-in.so", 1);
    EXPECT_EQ(gpu::load_api<OverriddenMissingApi>(&why), nullptr);
    EXPECT_NE(why.find("/nonexistent/libtack-stand-in.so"), std::string::npos) << why;
}

TEST(GpuLoader, MissingLibraryOrSymbolIsExplained) {
    std::string why;
    EXPECT_EQ(gpu::load_api<MissingApi>(&why), nullptr);
    EXPECT_EQ(why.rfind("absent: ", 0), 0u) << why;
    EXPECT_NE(why.find("libtack-no-such-library.so.1"), std::string::npos) << why;
    why.clear();
    EXPECT_EQ(gpu::load_api<LacksApi>(&why), nullptr);
    EXPECT_EQ(why, "libc.so.6 lacks tackNoSuchSymbol");
    EXPECT_EQ(gpu::api_function_names<LacksApi>(true),
              std::vector<std::string_view>{"tackNoSuchSymbol"});
}

}  // namespace
