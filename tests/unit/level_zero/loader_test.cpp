// The real loader on this machine: libze1 is installed without any driver, so the backend must
// refuse cleanly with an explanation; and every name of the function table must exist in it.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "driver/targets.hpp"
#include "runtime/level_zero/level_zero_backend.hpp"
#include "runtime/level_zero/ze_api.hpp"
#include "tack/tack.hpp"

namespace tack::level_zero_test {
namespace {

namespace l0 = runtime::level_zero;

void* open_loader() {
    void* lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib ? lib : dlopen("libze_loader.so", RTLD_NOW | RTLD_LOCAL);
}

// Independent of the backend: does zeInit find a driver here?
bool driver_present(void* lib) {
    using Init = ze_result_t (*)(ze_init_flags_t);
    auto init = reinterpret_cast<Init>(dlsym(lib, "zeInit"));
    return init && init(0) == ZE_RESULT_SUCCESS;
}

TEST(LevelZeroLoader, DeviceFailsCleanlyWithoutDriver) {
    void* lib = open_loader();
    if (lib && driver_present(lib)) GTEST_SKIP() << "a Level Zero driver is installed here";
    try {
        tack::device("level_zero");
        FAIL() << "tack::device(\"level_zero\") succeeded without a driver";
    } catch (const tack::RuntimeError& e) {
        std::string msg = e.what();
        EXPECT_EQ(msg.rfind("Cannot initialize 'level_zero' backend: ", 0), 0u) << msg;
        if (lib) {
            EXPECT_NE(msg.find("libze_loader.so.1 loaded but zeInit found no driver"),
                      std::string::npos)
                << msg;
            EXPECT_NE(msg.find("(is intel-level-zero-gpu / the Intel compute runtime installed?)"),
                      std::string::npos)
                << msg;
            EXPECT_NE(msg.find("[zeInit: ZE_RESULT_"), std::string::npos) << msg;
        } else {
            EXPECT_NE(msg.find("libze_loader.so.1 was not found"), std::string::npos) << msg;
        }
    }
    // The failed device did not replace the default.
    EXPECT_EQ(tack::default_device().name(), "cpu");
}

TEST(LevelZeroLoader, BackendIsRegistered) {
    auto names = tack::available_backends();
    EXPECT_NE(std::find(names.begin(), names.end(), "level_zero"), names.end());
    const auto& entry = l0::backend_entry();
    EXPECT_EQ(entry.name, "level_zero");
    EXPECT_EQ(tack::driver::find_target(entry.name).display_name, "Level Zero");
    ASSERT_EQ(entry.device_options.size(), 1u);
    EXPECT_EQ(entry.device_options[0], "external_context");
}

TEST(LevelZeroLoader, EveryRequiredSymbolResolves) {
    void* lib = open_loader();
    if (!lib) GTEST_SKIP() << "no Level Zero loader installed";
    ASSERT_GE(l0::ze_required_functions().size(), 30u);
    for (std::string_view name : l0::ze_required_functions())
        EXPECT_NE(dlsym(lib, std::string(name).c_str()), nullptr) << name;
    std::string why;
    const l0::ZeApi* api = l0::ze_api(&why);
    ASSERT_NE(api, nullptr) << why;
    EXPECT_EQ(api->library, "libze_loader.so.1");
    EXPECT_NE(api->zeMemFreeExt, nullptr);
    EXPECT_NE(api->zeModuleGetNativeBinary, nullptr);
    // Optional entries are resolved exactly when the loader has them.
    bool has_sync = dlsym(lib, "zeCommandListHostSynchronize") != nullptr;
    EXPECT_EQ(api->zeCommandListHostSynchronize != nullptr, has_sync);
}

TEST(LevelZeroLoader, TableListsTheEntryPointsTheSeedUses) {
    auto names = l0::ze_required_functions();
    for (std::string_view want :
         {"zeInit", "zeDriverGet", "zeDeviceGetProperties", "zeDeviceGetComputeProperties",
          "zeDeviceGetModuleProperties", "zeDeviceGetImageProperties",
          "zeDeviceGetCommandQueueGroupProperties", "zeCommandListCreateImmediate",
          "zeCommandListAppendBarrier", "zeCommandListAppendLaunchKernel", "zeMemAllocDevice",
          "zeMemFreeExt", "zeModuleCreate", "zeModuleGetNativeBinary", "zeKernelCreate",
          "zeKernelSetArgumentValue"})
        EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
    auto optional = l0::ze_optional_functions();
    ASSERT_EQ(optional.size(), 2u);
    EXPECT_EQ(optional[0], "zeCommandListHostSynchronize");
    EXPECT_EQ(optional[1], "zeMemGetAllocProperties");
}

TEST(LevelZeroLoader, ResultNames) {
    EXPECT_EQ(l0::ze_result_name(ZE_RESULT_ERROR_UNINITIALIZED),
              "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)");
    EXPECT_EQ(l0::ze_result_name(static_cast<ze_result_t>(0x7abc)), "Level Zero error 0x7abc");
}

}  // namespace
}  // namespace tack::level_zero_test
