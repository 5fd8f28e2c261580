// Atomics under contention and workgroup features (shared memory, barrier, thread_id, block
// reductions) in generated OpenCL C.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "harness.hpp"

namespace tack::cfamily_test {
namespace {

ExprPtr mod(ExprPtr a, int64_t b) {
    return bin(BinaryOp::Mod, std::move(a), i64c(b));
}

// 4096 lanes on 4 counters: i32/u32/i64/u64/f32 add, i32/u32/f32 min/max, i64 min/max (CAS).
TEST(CFamilyAtomic, ContentionAllOps) {
    TACK_REQUIRE_OPENCL();
    const int64_t n = 4096;
    KernelBuilder kb("atomics");
    auto ai = kb.array("ai", DType::i32), au = kb.array("au", DType::u32);
    auto al = kb.array("al", DType::i64), aq = kb.array("aq", DType::u64);
    auto af = kb.array("af", DType::f32);
    auto mi = kb.array("mi", DType::i32), xi = kb.array("xi", DType::i32);
    auto mu = kb.array("mu", DType::u32), mf = kb.array("mf", DType::f32);
    auto xf = kb.array("xf", DType::f32), ml = kb.array("ml", DType::i64);
    auto xl = kb.array("xl", DType::i64);
    auto i = kb.dim("i", 0, 0);
    auto slot = mod(vr(i), 4);
    // v = (i * 7919) % 10007 - 5000: distinct-ish, signed
    auto v64 = bin(BinaryOp::Sub, mod(bin(BinaryOp::Mul, vr(i), i64c(7919)), 10007), i64c(5000));
    auto v32 = Cast::make(DType::i32, v64);
    auto add = [&](BufferPtr b, ExprPtr v) {
        return Atomic::make(AtomicOp::Add, b, slot, std::move(v), nullptr);
    };
    auto op = [&](AtomicOp o, BufferPtr b, ExprPtr v) {
        return Atomic::make(o, b, slot, std::move(v), nullptr);
    };
    kb.k.body = {
        add(ai, ic(DType::i32, 1)),
        add(au, ic(DType::u32, 3)),
        add(al, i64c(int64_t{1} << 40)),
        add(aq, ic(DType::u64, 5)),
        add(af, fc(DType::f32, 1.0)),
        op(AtomicOp::Min, mi, v32),
        op(AtomicOp::Max, xi, v32),
        op(AtomicOp::Min, mu, Cast::make(DType::u32, v32)),
        op(AtomicOp::Min, mf, Cast::make(DType::f32, v32)),
        op(AtomicOp::Max, xf, Cast::make(DType::f32, v32)),
        op(AtomicOp::Min, ml, bin(BinaryOp::Mul, v64, i64c(int64_t{1} << 33))),
        op(AtomicOp::Max, xl, bin(BinaryOp::Mul, v64, i64c(int64_t{1} << 33))),
    };
    std::vector<int32_t> vai(4), vmi(4, INT32_MAX), vxi(4, INT32_MIN);
    std::vector<uint32_t> vau(4), vmu(4, UINT32_MAX);
    std::vector<int64_t> val_(4), vml(4, INT64_MAX), vxl(4, INT64_MIN);
    std::vector<uint64_t> vaq(4);
    std::vector<float> vaf(4), vmf(4, INFINITY), vxf(4, -INFINITY);
    ASSERT_EQ(run_opencl(kb.k,
                         {arr(vai), arr(vau), arr(val_), arr(vaq), arr(vaf), arr(vmi), arr(vxi),
                          arr(vmu), arr(vmf), arr(vxf), arr(vml), arr(vxl)},
                         n),
              "");
    std::vector<int32_t> wmi(4, INT32_MAX), wxi(4, INT32_MIN);
    std::vector<uint32_t> wmu(4, UINT32_MAX);
    std::vector<int64_t> wml(4, INT64_MAX), wxl(4, INT64_MIN);
    for (int64_t x = 0; x < n; ++x) {
        int64_t v = (x * 7919) % 10007 - 5000;
        int s = static_cast<int>(x % 4);
        wmi[s] = std::min<int32_t>(wmi[s], v);
        wxi[s] = std::max<int32_t>(wxi[s], v);
        wmu[s] = std::min<uint32_t>(wmu[s], static_cast<uint32_t>(v));
        wml[s] = std::min<int64_t>(wml[s], v * (int64_t{1} << 33));
        wxl[s] = std::max<int64_t>(wxl[s], v * (int64_t{1} << 33));
    }
    for (int s = 0; s < 4; ++s) {
        EXPECT_EQ(vai[s], 1024);
        EXPECT_EQ(vau[s], 3072u);
        EXPECT_EQ(val_[s], int64_t{1024} << 40);
        EXPECT_EQ(vaq[s], 5120u);
        EXPECT_EQ(vaf[s], 1024.0f);
        EXPECT_EQ(vmi[s], wmi[s]);
        EXPECT_EQ(vxi[s], wxi[s]);
        EXPECT_EQ(vmu[s], wmu[s]);
        EXPECT_EQ(vmf[s], static_cast<float>(wmi[s]));
        EXPECT_EQ(vxf[s], static_cast<float>(wxi[s]));
        EXPECT_EQ(vml[s], wml[s]);
        EXPECT_EQ(vxl[s], wxl[s]);
    }
}

// The old value each lane receives (DECISIONS G6): for a single counter they are a permutation
// of 0..n-1, for i32 and for f32 (through the CAS loop).
TEST(CFamilyAtomic, ResultIsOldValue) {
    TACK_REQUIRE_OPENCL();
    const int64_t n = 2000;
    KernelBuilder kb("tickets");
    auto ci = kb.array("ci", DType::i32), cf = kb.array("cf", DType::f32);
    auto oi = kb.array("oi", DType::i32), of = kb.array("of", DType::f32);
    auto i = kb.dim("i", 0, 0);
    auto ti = kb.local("ti", DType::i32);
    auto tf = kb.local("tf", DType::f32);
    kb.k.body = {Atomic::make(AtomicOp::Add, ci, i64c(0), ic(DType::i32, 1), ti),
                 Atomic::make(AtomicOp::Add, cf, i64c(0), fc(DType::f32, 1.0), tf),
                 st(oi, vr(i), vr(ti)), st(of, vr(i), vr(tf))};
    std::vector<int32_t> vci(1), voi(n);
    std::vector<float> vcf(1), vof(n);
    ASSERT_EQ(run_opencl(kb.k, {arr(vci), arr(vcf), arr(voi), arr(vof)}, n), "");
    EXPECT_EQ(vci[0], n);
    EXPECT_EQ(vcf[0], static_cast<float>(n));
    std::sort(voi.begin(), voi.end());
    std::sort(vof.begin(), vof.end());
    for (int64_t x = 0; x < n; ++x) {
        EXPECT_EQ(voi[x], x);
        EXPECT_EQ(vof[x], static_cast<float>(x));
    }
}

// A shared-memory tree sum over complete 256-lane groups: s[tid] = a[i]; barrier; then
// for k in range(8): w = 128 >> k; if tid < w: s[tid] += s[tid + w]; barrier.
TEST(CFamilyWorkgroup, SharedTreeReductionWithBarrier) {
    TACK_REQUIRE_OPENCL();
    const int64_t n = 256 * 6;
    KernelBuilder kb("tree");
    auto pa = kb.array("a", DType::f32), po = kb.array("out", DType::f32);
    auto i = kb.dim("i", 0, 0);
    auto s = kb.alloc("s", DType::f32, 256, BufferKind::Shared);
    auto k = kb.local("k", DType::i64);
    auto w = kb.local("w", DType::i64);
    auto tid = ThreadId::make();
    kb.k.body = {
        AllocArray::make(s), st(s, tid, ld(pa, vr(i))), Barrier::make(),
        For::make(
            k, i64c(0), i64c(8), i64c(1),
            {Assign::make(w, bin(BinaryOp::Shr, i64c(128), vr(k))),
             If::make(Compare::make(CompareOp::Lt, tid, vr(w)),
                      {st(s, tid,
                          bin(BinaryOp::Add, ld(s, tid), ld(s, bin(BinaryOp::Add, tid, vr(w)))))},
                      {}),
             Barrier::make()}),
        If::make(Compare::make(CompareOp::Eq, tid, i64c(0)),
                 {st(po, bin(BinaryOp::FloorDiv, vr(i), i64c(256)), ld(s, i64c(0)))}, {})};
    std::vector<float> a(n), out(n / 256, -1.0f), want(n / 256, 0.0f);
    for (int64_t x = 0; x < n; ++x) {
        a[x] = static_cast<float>((x * 37) % 101) - 50.0f;  // integers: every sum is exact
        want[x / 256] += a[x];
    }
    ASSERT_EQ(run_opencl(kb.k, {arr(a), arr(out)}, n), "");
    EXPECT_TRUE(same_bits(out, want));
}

// block_sum/min/max: every lane gets its group's value (CONTRACT A37, C17 for the extrema:
// NaN propagates, min prefers -0.0, max +0.0).
TEST(CFamilyWorkgroup, BlockReductions) {
    TACK_REQUIRE_OPENCL();
    const int64_t n = 256 * 4;
    KernelBuilder kb("blocks");
    auto pa = kb.array("a", DType::f32);
    auto ps = kb.array("sum", DType::f32), pmin = kb.array("mn", DType::f32);
    auto pmax = kb.array("mx", DType::f32);
    auto i = kb.dim("i", 0, 0);
    auto r = kb.local("r", DType::f32);
    auto x = ld(pa, vr(i));
    kb.k.body = {BlockReduce::make(ReduceOp::Sum, r, x), st(ps, vr(i), vr(r)),
                 BlockReduce::make(ReduceOp::Min, r, x), st(pmin, vr(i), vr(r)),
                 BlockReduce::make(ReduceOp::Max, r, x), st(pmax, vr(i), vr(r))};
    std::vector<float> a(n);
    for (int64_t j = 0; j < n; ++j)
        a[j] = static_cast<float>((j * 13) % 29) - 14.0f;
    // group 1 holds a NaN; group 2 only zeros of both signs; group 3 only -0.0
    a[256 + 77] = NAN;
    for (int64_t j = 512; j < 768; ++j)
        a[j] = (j % 2) ? -0.0f : 0.0f;
    for (int64_t j = 768; j < 1024; ++j)
        a[j] = -0.0f;
    std::vector<float> sum(n), mn(n), mx(n);
    ASSERT_EQ(run_opencl(kb.k, {arr(a), arr(sum), arr(mn), arr(mx)}, n), "");
    float s0 = 0, lo0 = INFINITY, hi0 = -INFINITY;
    for (int j = 0; j < 256; ++j) {
        s0 += a[j];
        lo0 = std::min(lo0, a[j]);
        hi0 = std::max(hi0, a[j]);
    }
    for (int j = 0; j < 256; ++j) {
        EXPECT_EQ(sum[j], s0);
        EXPECT_EQ(mn[j], lo0);
        EXPECT_EQ(mx[j], hi0);
        EXPECT_TRUE(std::isnan(sum[256 + j]) && std::isnan(mn[256 + j]) && std::isnan(mx[256 + j]));
        EXPECT_TRUE(mn[512 + j] == 0.0f && std::signbit(mn[512 + j]));
        EXPECT_TRUE(mx[512 + j] == 0.0f && !std::signbit(mx[512 + j]));
        EXPECT_TRUE(std::signbit(mx[768 + j]));
    }
}

}  // namespace
}  // namespace tack::cfamily_test
