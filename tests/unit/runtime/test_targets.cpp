// The target table (driver/targets.cpp): one row per target, read by devices, tackc and the
// Python package's install hints (CONTRACT E1, E2).
#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/cfamily/dialect.hpp"
#include "driver/targets.hpp"
#include "runtime/registry.hpp"

namespace tack::runtime {
namespace {

using namespace driver;  // the table is the driver's; the registry is the runtime's

TEST(Targets, EveryRegisteredBackendHasARow) {
    for (const BackendEntry* entry : backend_entries())
        EXPECT_NE(target_named(entry->name), nullptr) << entry->name;
    EXPECT_NE(target_named("metal"), nullptr);  // code generation without a runtime here
}

// A row may only narrow its dialect: an atomic the row admits must be one the generator can
// write (the OpenCL dialect's 64-bit atomics need a device extension, which a row may assume).
TEST(Targets, AtomicsWithinTheDialect) {
    for (const Target& t : targets()) {
        if (t.dialect.empty()) continue;
        auto written =
            codegen::cfamily::supported_atomic_dtypes(codegen::cfamily::dialect(t.dialect));
        for (int i = 0; i < kNumDTypes; ++i) {
            auto d = static_cast<DType>(i);
            if (!t.atomics.contains(d)) continue;
            EXPECT_NE(std::find(written.begin(), written.end(), d), written.end())
                << t.name << " admits atomics on " << name(d) << " that its dialect cannot write";
        }
    }
}

// SEED-AUDIT "supported_atomic_dtypes = ATOMIC_DTYPES[target]": Level Zero generates the OpenCL
// dialect but its devices refuse 64-bit atomics, so its row is not the dialect's.
TEST(Targets, LevelZeroRowIsNotTheOpenClDialects) {
    const Capabilities l0 = capabilities_of(find_target("level_zero"));
    const Capabilities cl = capabilities_of(find_target("opencl"));
    EXPECT_EQ(l0.atomics, (DTypeSet{DType::i32, DType::u32, DType::f32}));
    EXPECT_TRUE(cl.atomics.contains(DType::i64));
    EXPECT_EQ(l0.display_name, "Level Zero");
    // Metal has no f64, so no f64 atomics either whatever the row lists.
    EXPECT_FALSE(capabilities_of(find_target("metal")).dtypes.contains(DType::f64));
}

TEST(Targets, HintsNameWhatIsMissing) {
    for (const Target& t : targets()) {
        EXPECT_FALSE(t.install_hint.empty()) << t.name;
        if (t.name != "cpu" && t.name != "metal") {
            EXPECT_EQ(t.install_hint.rfind("Requires", 0), 0u) << t.name;
        }
    }
}

TEST(Targets, UnknownTargetNamesEveryRow) {
    try {
        find_target("tpu");
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "unknown inspect target 'tpu'. Use cpu, cuda, hip, level_zero, metal or "
                     "opencl.");
    }
}

}  // namespace
}  // namespace tack::runtime
