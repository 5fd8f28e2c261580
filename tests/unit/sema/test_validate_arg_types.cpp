// parse_arg_types: the `tackc --args` signature syntax.

#include <gtest/gtest.h>

#include "sema/sema.hpp"

namespace tack::sema {
namespace {

Type array(DType t, int rank) {
    return Type::array(t, rank);
}
Type scalar(DType t) {
    return Type::scalar(t);
}

TEST(ArgTypes, ParsesArraysAndScalars) {
    EXPECT_EQ(parse_arg_types("f32[:],f32[:,:],f32"),
              (std::vector<Type>{array(DType::f32, 1), array(DType::f32, 2), scalar(DType::f32)}));
    EXPECT_EQ(parse_arg_types(" i64 , u8[ :, :, :, : ] ,float64"),
              (std::vector<Type>{scalar(DType::i64), array(DType::u8, 4), scalar(DType::f64)}));
    EXPECT_EQ(parse_arg_types("int32[:]"), (std::vector<Type>{array(DType::i32, 1)}));
    EXPECT_TRUE(parse_arg_types("").empty());
}

TEST(ArgTypes, RejectsMalformedText) {
    for (const char* bad : {"f32[", "f32[:", "f32[:,]", "f32[]", "f33", "f32,", ",f32",
                            "f32[:,:,:,:,:]", "f32[1]", "f32 f64"}) {
        try {
            parse_arg_types(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const diag::CompileError& e) {
            EXPECT_EQ(e.first().kind, diag::ErrorKind::ValueError) << bad;
            EXPECT_NE(e.first().message.find(std::string("'") + bad + "'"), std::string::npos)
                << e.first().message;
        }
    }
}

// The element shapes tack.Vector.field and tack.Matrix.field accept, and no others (hardening
// round three: f32x65[:] was accepted though Python refuses a 65-vector).
TEST(ArgTypes, VectorAndMatrixFieldsHaveThePythonLimits) {
    std::vector<Type> v = parse_arg_types("f32x64[:],f32x4x4[:,:]");
    EXPECT_EQ(v[0], Type::array(DType::f32, 1, Shape{kMaxVectorComponents, 0}));
    EXPECT_EQ(v[1], Type::array(DType::f32, 2, Shape{kMaxMatrixExtent, kMaxMatrixExtent}));
    for (const char* bad : {"f32x65[:]", "f32x0[:]", "f32x5x2[:]", "f32x2x5[:]", "f32x2x0[:]"}) {
        try {
            parse_arg_types(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const diag::CompileError& e) {
            EXPECT_NE(e.first().message.find("vectors have 1 to 64 components, matrices at most "
                                             "4x4"),
                      std::string::npos)
                << e.first().message;
        }
    }
}

TEST(ArgTypes, UnknownDtypeIsNamed) {
    try {
        parse_arg_types("f32[:],half");
        FAIL();
    } catch (const diag::CompileError& e) {
        EXPECT_EQ(e.first().message,
                  "invalid argument signature 'f32[:],half': unknown dtype 'half'");
    }
}

}  // namespace
}  // namespace tack::sema
