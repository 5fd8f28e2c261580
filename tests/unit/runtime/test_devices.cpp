// Devices: registry, options, capabilities (CONTRACT C1-C2, E1-E2).
#include <gtest/gtest.h>

#include <thread>

#include "tack/tack.hpp"

namespace {

TEST(Devices, CpuCapabilities) {
    tack::Device cpu = tack::device("cpu");
    EXPECT_EQ(cpu.name(), "cpu");
    EXPECT_EQ(cpu.display_name(), "CPU");
    EXPECT_EQ(cpu.supported_dtypes(), tack::DTypeSet::all());
    EXPECT_TRUE(cpu.supports_f64());
    EXPECT_EQ(cpu.supported_atomic_dtypes(), tack::DTypeSet::all());
    EXPECT_FALSE(cpu.supports_device_reductions());
    EXPECT_FALSE(cpu.supports_workgroups());
    EXPECT_TRUE(cpu.device_memory_spaces().empty());
    EXPECT_EQ(cpu.device_options(), std::vector<std::string>{"num_threads"});
}

TEST(Devices, PlainDeviceIsOnePerProcess) {
    tack::Device a = tack::device("cpu");
    tack::Device b = tack::device("cpu");
    EXPECT_EQ(a, b);
    EXPECT_EQ(tack::default_device(), a);
    tack::Device c = tack::device("cpu", {{"num_threads", 2}});
    EXPECT_FALSE(c == a);
    EXPECT_EQ(tack::default_device(), c);
    tack::device("cpu");
    EXPECT_EQ(tack::default_device(), a);
}

TEST(Devices, UnknownArchitecture) {
    try {
        tack::device("vulkan");
        FAIL();
    } catch (const tack::ValueError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("Unknown architecture: 'vulkan'. Available: ", 0), 0u)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos);
    }
}

TEST(Devices, BadOptionNamedBeforeConstruction) {
    tack::Device before = tack::default_device();
    try {
        tack::device("cpu", {{"num_thread", 2}});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(),
                     "The 'cpu' backend does not accept the option(s) num_thread. Accepted: "
                     "num_threads.");
    }
    EXPECT_EQ(tack::default_device(), before);
    EXPECT_THROW(tack::device("cpu", {{"num_threads", "two"}}), tack::ValueError);
    EXPECT_THROW(tack::init("cpu", {{"threads", 1}}), tack::ValueError);
}

TEST(Devices, InitBuildsANewBackendEachCall) {
    tack::Device a = tack::init("cpu", {{"num_threads", 1}});
    tack::Device b = tack::init("cpu");
    EXPECT_FALSE(a == b);
    EXPECT_EQ(tack::default_device(), b);
    tack::device("cpu");
}

TEST(Devices, ArraysKeepTheirDevice) {
    tack::Device c = tack::device("cpu", {{"num_threads", 1}});
    tack::Array a = tack::zeros(tack::f32, {4}, c);
    tack::device("cpu");
    EXPECT_EQ(a.device(), c);
    tack::sync();
    c.synchronize();
}

TEST(Devices, AvailableBackends) {
    auto names = tack::available_backends();
    EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

}  // namespace
