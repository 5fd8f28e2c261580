// Generated source pinned as reviewed text (STYLE habit 9: byte-stable output). After an
// intended change, regenerate with TACK_UPDATE_GOLDEN=1 and review the diff.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kernel_zoo.hpp"

namespace tack::cfamily_test {
namespace {

void check_golden(const Kernel& k, const char* dialect, const std::string& file) {
    std::string path = std::string(TACK_SOURCE_DIR) + "/tests/golden/cfamily/" + file;
    std::string got = cf::emit(k, cf::dialect(dialect));
    if (const char* u = std::getenv("TACK_UPDATE_GOLDEN"); u && std::string(u) == "1") {
        std::ofstream(path) << got;
        return;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << "missing golden file " << path << " (TACK_UPDATE_GOLDEN=1 writes it)";
    std::stringstream want;
    want << in.rdbuf();
    EXPECT_EQ(got, want.str()) << "generated " << dialect << " source differs from " << path;
}

TEST(CFamilyGolden, SaxpyCuda) {
    check_golden(zoo_saxpy(DType::f32), "cuda", "saxpy.cuda.txt");
}
TEST(CFamilyGolden, SaxpyHip) {
    check_golden(zoo_saxpy(DType::f32), "hip", "saxpy.hip.txt");
}
TEST(CFamilyGolden, SaxpyOpenCL) {
    check_golden(zoo_saxpy(DType::f32), "opencl", "saxpy.opencl.txt");
}
TEST(CFamilyGolden, SaxpyMetal) {
    check_golden(zoo_saxpy(DType::f32), "metal", "saxpy.metal.txt");
}
TEST(CFamilyGolden, WorkgroupCuda) {
    check_golden(zoo_workgroup(), "cuda", "workgroup.cuda.txt");
}
TEST(CFamilyGolden, WorkgroupOpenCL) {
    check_golden(zoo_workgroup(), "opencl", "workgroup.opencl.txt");
}
TEST(CFamilyGolden, WorkgroupMetal) {
    check_golden(zoo_workgroup(), "metal", "workgroup.metal.txt");
}
TEST(CFamilyGolden, ControlOpenCL) {
    check_golden(zoo_control(), "opencl", "control.opencl.txt");
}

}  // namespace
}  // namespace tack::cfamily_test
