// Properties of the emitted text and ABI that need no device: identifier encoding, argument
// layout, the guard, #line directives, dialect tables and the errors users can cause.
#include <cstring>
#include <set>

#include "codegen/cfamily/identifiers.hpp"
#include "diag/diagnostic.hpp"
#include "kernel_zoo.hpp"

namespace tack::cfamily_test {
namespace {

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

TEST(CFamilyEmitter, IdentifierEncodingIsInjectiveAndPlain) {
    EXPECT_EQ(cf::encode_identifier("saxpy"), "saxpy");
    EXPECT_EQ(cf::encode_identifier("my_kernel"), "my__kernel");
    EXPECT_EQ(cf::encode_identifier("a b"), "a_20b");
    EXPECT_EQ(cf::encode_identifier("\xc3\xa9t\xc3\xa9"), "_C3_A9t_C3_A9");  // "été"
    EXPECT_EQ(cf::kernel_entry_name("control flow"), "tack_kernel_control_20flow");
    // Names that a naive encoding would merge stay distinct.
    std::set<std::string> seen;
    for (const char* n : {"a_b", "a__b", "a_5Fb",
                          "a\x5f"
                          "b",
                          "a b", "a_20b", "_", "__", "x1"})
        seen.insert(cf::encode_identifier(n));
    EXPECT_EQ(seen.size(), 8u);  // "a_b" and "a\x5fb" are the same name
}

TEST(CFamilyEmitter, TargetKeywordsAreNeverBareIdentifiers) {
    KernelBuilder b("float");
    auto out = b.array("threadIdx", DType::f32);
    auto v = b.scalar("int", DType::f32);
    auto i = b.dim("sin", 0, 0);
    b.k.body = {st(out, vr(i), vr(v))};
    std::string src = cf::emit(b.k, cf::dialect("cuda"));
    EXPECT_TRUE(contains(src, "tack_kernel_float("));
    EXPECT_TRUE(contains(src, "float* tack_var_threadIdx"));
    EXPECT_TRUE(contains(src, "float tack_var_int = __pack_f32__[0];"));
    EXPECT_TRUE(contains(src, "tack_var_threadIdx[tack_var_sin] = tack_var_int;"));
}

TEST(CFamilyEmitter, RepeatedNamesGetDistinctSuffixes) {
    KernelBuilder b("shadow");
    auto out = b.array("out", DType::i32);
    auto i = b.dim("i", 0, 0);
    auto x1 = b.local("x", DType::i32);
    auto x2 = b.local("x", DType::i32);  // same name after inlining, another variable
    b.k.body = {Assign::make(x1, ic(DType::i32, 1)), Assign::make(x2, ic(DType::i32, 2)),
                st(out, vr(i), bin(BinaryOp::Add, vr(x1), vr(x2)))};
    std::string src = cf::emit(b.k, cf::dialect("opencl"));
    std::string n1 = "tack_var_x_v" + std::to_string(x1->id);
    std::string n2 = "tack_var_x_v" + std::to_string(x2->id);
    EXPECT_TRUE(contains(src, n1 + " = 1;")) << src;
    EXPECT_TRUE(contains(src, n2 + " = 2;")) << src;
}

TEST(CFamilyEmitter, AbiOrdersArraysThenPacksThenCount) {
    KernelBuilder b("abi");
    auto s0 = b.scalar("s0", DType::f32);
    auto a0 = b.array("a0", DType::i32);
    auto s1 = b.scalar("s1", DType::i64);
    auto s2 = b.scalar("s2", DType::f32);
    auto a1 = b.array("a1", DType::f64, 2);
    auto i = b.dim("i", 0, 0);
    b.k.body = {st(a0, vr(i), Cast::make(DType::i32, bin(BinaryOp::Add, vr(s0), vr(s2)))),
                st(a1, vr(i), Cast::make(DType::f64, vr(s1)))};
    cf::GeneratedSource g = cf::generate(b.k, cf::dialect("cuda"));
    const cf::KernelAbi& abi = g.abi;
    EXPECT_EQ(abi.entry, "tack_kernel_abi");
    ASSERT_EQ(abi.params.size(), 5u);
    EXPECT_EQ(abi.params[1].arg_index, 0);  // a0
    EXPECT_EQ(abi.params[4].arg_index, 1);  // a1
    EXPECT_EQ(abi.params[0].pack_slot, 0);  // s0: f32 slot 0
    EXPECT_EQ(abi.params[3].pack_slot, 1);  // s2: f32 slot 1
    EXPECT_EQ(abi.params[2].pack_slot, 0);  // s1: i64 slot 0
    ASSERT_EQ(abi.packs.size(), 2u);        // DType order: i64 before f32
    EXPECT_EQ(abi.packs[0].dtype, DType::i64);
    EXPECT_EQ(abi.packs[0].arg_index, 2);
    EXPECT_EQ(abi.packs[1].dtype, DType::f32);
    EXPECT_EQ(abi.packs[1].count, 2);
    EXPECT_EQ(abi.packs[1].arg_index, 3);
    EXPECT_EQ(abi.n_arg_index, 4);
    EXPECT_EQ(abi.num_args, 5);
    EXPECT_TRUE(abi.uses_f64);
    EXPECT_FALSE(abi.uses_collectives);
    float f0 = 1.5f, f2 = -2.0f;
    uint32_t b0, b2;
    std::memcpy(&b0, &f0, 4);
    std::memcpy(&b2, &f2, 4);
    auto packs = abi.pack_scalars({b0, 0, uint64_t(-7), b2, 0});
    ASSERT_EQ(packs.size(), 2u);
    int64_t got_i64;
    float got_f[2];
    std::memcpy(&got_i64, packs[0].data(), 8);
    std::memcpy(got_f, packs[1].data(), 8);
    EXPECT_EQ(got_i64, -7);
    EXPECT_EQ(got_f[0], 1.5f);
    EXPECT_EQ(got_f[1], -2.0f);
    EXPECT_TRUE(contains(g.source, "const long long* __pack_i64__,"));
    EXPECT_TRUE(contains(g.source, "float tack_var_s2 = __pack_f32__[1];"));
}

TEST(CFamilyEmitter, GuardOnlyWithoutCollectives) {
    const std::string guard = "if (tack_idx >= __n__) return;";
    for (const char* d : {"cuda", "hip", "opencl"}) {
        std::string plain = cf::emit(zoo_saxpy(DType::f32), cf::dialect(d));
        std::string wg = cf::emit(zoo_workgroup(), cf::dialect(d));
        EXPECT_TRUE(contains(plain, guard)) << d;
        EXPECT_FALSE(contains(wg, guard)) << d;
        EXPECT_TRUE(cf::generate(zoo_workgroup(), cf::dialect(d)).abi.uses_collectives);
    }
    // Metal dispatches exactly n threads (CONTRACT E6): no guard, no __n__ argument, the index
    // is the thread's position in the grid, widened.
    for (const auto& k : {zoo_saxpy(DType::f32), zoo_workgroup()}) {
        cf::GeneratedSource metal = cf::generate(k, cf::dialect("metal"));
        EXPECT_FALSE(contains(metal.source, "__n__"));
        EXPECT_TRUE(contains(metal.source, "const long tack_idx = (long)tack_gid;"));
        EXPECT_EQ(metal.abi.n_arg_index, -1);
    }
    // Elsewhere the index is 64-bit, from the group id, never a 32-bit global id.
    std::string cl = cf::emit(zoo_saxpy(DType::f32), cf::dialect("opencl"));
    EXPECT_TRUE(contains(cl, "(long)get_group_id(0) * (long)get_local_size(0) + tack_lid"));
    EXPECT_FALSE(contains(cl, "get_global_id"));
}

TEST(CFamilyEmitter, LineDirectivesPointAtTheUsersFile) {
    std::string src = cf::emit(zoo_saxpy(DType::f32), cf::dialect("cuda"));
    EXPECT_TRUE(contains(src, "#line 4 \"examples/saxpy.py\"\n")) << src;
}

TEST(CFamilyEmitter, ProductsOutsideSumsAreRoundedOnCudaOnly) {
    KernelBuilder b("fma");
    auto x = b.array("x", DType::f32);
    auto y = b.array("y", DType::f64);
    auto i = b.dim("i", 0, 0);
    auto p = b.local("p", DType::f32);
    auto xi = ld(x, vr(i));
    b.k.body = {Assign::make(p, bin(BinaryOp::Mul, xi, xi)),
                st(x, vr(i), bin(BinaryOp::Add, bin(BinaryOp::Mul, xi, xi), vr(p))),
                st(y, vr(i), bin(BinaryOp::Mul, ld(y, vr(i)), ld(y, vr(i))))};
    std::string cuda = cf::emit(b.k, cf::dialect("cuda"));
    EXPECT_TRUE(contains(cuda, "tack_var_p = __fmul_rn(tack_var_x[tack_var_i], "));
    EXPECT_TRUE(contains(cuda, "((tack_var_x[tack_var_i] * tack_var_x[tack_var_i]) + tack_var_p)"));
    EXPECT_TRUE(contains(cuda, "__dmul_rn("));
    for (const char* d : {"hip", "opencl"})
        EXPECT_FALSE(contains(cf::emit(b.k, cf::dialect(d)), "mul_rn")) << d;
    EXPECT_TRUE(contains(cf::emit(b.k, cf::dialect("opencl")), "#pragma OPENCL FP_CONTRACT OFF"));
    EXPECT_EQ(cf::dialect("hip").compile_options, "-ffp-contract=on");
}

TEST(CFamilyEmitter, HelpersOnlyWhenUsed) {
    std::string src = cf::emit(zoo_saxpy(DType::f32), cf::dialect("opencl"));
    EXPECT_FALSE(contains(src, "static inline"));
    std::string ints = cf::emit(zoo_integer(DType::i8), cf::dialect("opencl"));
    EXPECT_TRUE(contains(ints, "tack_floordiv_i8("));
    EXPECT_FALSE(contains(ints, "tack_floordiv_i16("));
}

TEST(CFamilyEmitter, OutputIsDeterministic) {
    for (const char* d : {"cuda", "hip", "opencl", "metal"})
        EXPECT_EQ(cf::emit(zoo_control(), cf::dialect(d)), cf::emit(zoo_control(), cf::dialect(d)));
}

TEST(CFamilyEmitter, PrintIsPrintfExceptOnMetal) {
    // The CPU's formats: integers widened to 64 bits, floats %.9g / %.17g.
    EXPECT_TRUE(contains(cf::emit(zoo_control(), cf::dialect("cuda")),
                         "printf(\"acc 100%% \\\"done\\\" %lld %lld %.9g %llu\\n\""));
    EXPECT_TRUE(contains(cf::emit(zoo_control(), cf::dialect("opencl")),
                         "%ld %ld %.9g %lu\\n\", (long)tack_var_acc, (long)tack_var_lo"));
    std::string metal = cf::emit(zoo_control(), cf::dialect("metal"));
    EXPECT_FALSE(contains(metal, "printf"));
    EXPECT_TRUE(contains(metal, "/* print: not available on Metal */"));
}

TEST(CFamilyEmitter, SupportedAtomicDtypesPerDialect) {
    using V = std::vector<DType>;
    V cuda = {DType::i32, DType::u32, DType::i64, DType::u64, DType::f32, DType::f64};
    EXPECT_EQ(cf::supported_atomic_dtypes(cf::dialect("cuda")), cuda);
    EXPECT_EQ(cf::supported_atomic_dtypes(cf::dialect("hip")), cuda);
    EXPECT_EQ(cf::supported_atomic_dtypes(cf::dialect("metal")),
              (V{DType::i32, DType::u32, DType::f32}));
    EXPECT_EQ(cf::supported_atomic_dtypes(cf::dialect("opencl"), false),
              (V{DType::i32, DType::u32, DType::f32}));
    EXPECT_EQ(cf::supported_atomic_dtypes(cf::dialect("opencl"), true),
              (V{DType::i32, DType::u32, DType::i64, DType::u64, DType::f32}));
}

TEST(CFamilyEmitter, UserErrorsAreTypeErrors) {
    try {
        cf::emit(zoo_saxpy(DType::f64), cf::dialect("metal"));
        ADD_FAILURE() << "f64 on Metal was accepted";
    } catch (const diag::CompileError& e) {
        EXPECT_EQ(e.first().kind, diag::ErrorKind::TypeError);
        EXPECT_EQ(e.first().message, "Kernel 'saxpy': tack.f64 is not supported on Metal");
    }
    try {
        cf::emit(zoo_atomics({DType::i64}), cf::dialect("metal"));
        ADD_FAILURE() << "i64 atomics on Metal were accepted";
    } catch (const diag::CompileError& e) {
        EXPECT_EQ(e.first().message,
                  "Kernel 'atomics': metal atomic_add does not support target dtype tack.i64");
    }
    EXPECT_THROW(cf::dialect("vulkan"), diag::InternalError);
}

// CONTRACT E15 and B17, Apple's back-end workarounds: a kernel whose sequential loop stores gets
// its body as a noinline function (group memory declared in the entry, passed down), and 64-bit
// adds inside loops go through a noinline helper. Other dialects and loop-free kernels keep the
// body in the entry.
TEST(CFamilyEmitter, MetalLoopsThatStoreGetABodyOfTheirOwn) {
    std::string control = cf::emit(zoo_control(), cf::dialect("metal"));
    EXPECT_TRUE(contains(control, "static __attribute__((noinline)) void tack_body_"));
    EXPECT_TRUE(
        contains(control, "(tack_args, tack_gid, tack_group_id, tack_local_id, tack_group_size);"));
    EXPECT_TRUE(contains(control, "static __attribute__((noinline)) ulong tack_loop_add_u64("));
    std::string saxpy = cf::emit(zoo_saxpy(DType::f32), cf::dialect("metal"));
    EXPECT_FALSE(contains(saxpy, "tack_body_"));
    EXPECT_FALSE(contains(saxpy, "noinline"));
    for (const char* d : {"cuda", "hip", "opencl"})
        EXPECT_FALSE(contains(cf::emit(zoo_control(), cf::dialect(d)), "tack_body_")) << d;
}

}  // namespace
}  // namespace tack::cfamily_test
