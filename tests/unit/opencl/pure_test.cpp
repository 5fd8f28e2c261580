// The OpenCL backend's pure rules (no device needed): capabilities from a device description,
// launch limits, the CONTRACT D10/D12 messages, option parsing and the cache target.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/opencl/device.hpp"
#include "tack/tack.hpp"

namespace tack::runtime::opencl {
namespace {

DeviceDesc desc(bool fp64, bool int64_atomics, std::size_t group, cl_uint bits = 64) {
    DeviceDesc d;
    d.name = "dev";
    d.driver = "1.0";
    d.fp64 = fp64;
    d.int64_atomics = int64_atomics;
    d.max_work_group_size = group;
    d.address_bits = bits;
    return d;
}

TEST(OpenClRules, DtypesAndAtomicsFollowTheExtensions) {
    EXPECT_EQ(supported_dtypes(desc(true, false, 256)), DTypeSet::all());
    EXPECT_EQ(supported_dtypes(desc(false, false, 256)), DTypeSet::all().without(DType::f64));
    EXPECT_EQ(atomic_dtypes(desc(false, false, 256)),
              (DTypeSet{DType::i32, DType::u32, DType::f32}));
    EXPECT_EQ(atomic_dtypes(desc(false, true, 256)),
              (DTypeSet{DType::i32, DType::u32, DType::f32, DType::i64, DType::u64}));
}

TEST(OpenClRules, GroupSizeAndLaunchLimit) {
    EXPECT_EQ(group_size(desc(false, false, 4096)), 256u);
    EXPECT_EQ(group_size(desc(false, false, 128)), 128u);
    EXPECT_EQ(launch_limit(desc(false, false, 256, 32)), (std::uint64_t(1) << 32) - 256);
    EXPECT_EQ(launch_limit(desc(false, false, 256, 64)), (std::uint64_t(1) << 63) - 256);
}

TEST(OpenClRules, DeviceChoice) {
    ::unsetenv("TACK_OPENCL_DEVICE");
    DeviceChoice c = choose_device({});
    EXPECT_FALSE(c.platform.has_value());
    EXPECT_EQ(c.device, 0);
    c = choose_device({{"device", 2}});
    EXPECT_EQ(c.platform, 0);
    EXPECT_EQ(c.device, 2);
    c = choose_device({{"platform", 1}});
    EXPECT_EQ(c.platform, 1);
    EXPECT_EQ(c.device, 0);
    EXPECT_THROW(choose_device({{"device", -1}}), ValueError);
    EXPECT_THROW(choose_device({{"platform", 1.5}}), ValueError);
    ::setenv("TACK_OPENCL_DEVICE", "3", 1);
    EXPECT_EQ(choose_device({}).device, 3);
    EXPECT_EQ(choose_device({{"device", 1}}).device, 1);  // options win
    ::setenv("TACK_OPENCL_DEVICE", "x", 1);
    EXPECT_THROW(choose_device({}), ValueError);
    ::setenv("TACK_OPENCL_DEVICE", "-2", 1);
    EXPECT_THROW(choose_device({}), ValueError);
    ::unsetenv("TACK_OPENCL_DEVICE");
}

TEST(OpenClRules, CacheTargetNamesDeviceDriverAndOptions) {
    std::string a = cache_target(desc(true, true, 256));
    EXPECT_NE(a.find("device=dev"), std::string::npos);
    EXPECT_NE(a.find("driver=1.0"), std::string::npos);
    EXPECT_NE(a.find("-cl-fp32-correctly-rounded-divide-sqrt"), std::string::npos);
    DeviceDesc other = desc(true, true, 256);
    other.driver = "1.1";
    EXPECT_NE(cache_target(other), a);
}

}  // namespace
}  // namespace tack::runtime::opencl
