// Streaming (non-temporal) stores for write-only outputs (streaming.cpp): which kernels get the
// second entry, what its IR claims, and that it writes every element exactly as the ordinary
// entry does for aligned, misaligned (by bytes and by elements), empty and tiny ranges.

#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <sstream>
#include <vector>

#include "harness.hpp"

namespace tack::test {
namespace {

constexpr DType f32 = DType::f32;
constexpr DType f64 = DType::f64;

// a[i] = b[i] + s * c[i], over i = start0 + t (start0 = the dimension's start).
Kernel triad_kernel(const std::string& name, DType t = f32, int64_t start0 = 0) {
    KernelBuilder kb(name);
    auto a = kb.array_param("a", t);
    auto b = kb.array_param("b", t);
    auto c = kb.array_param("c", t);
    auto s = kb.scalar_param("s", t);
    auto i = kb.dim(start0, 0, 1);
    kb.k.body.push_back(
        store(a, use(i),
              bin(BinaryOp::Add, load(b, use(i)), bin(BinaryOp::Mul, use(s), load(c, use(i))))));
    return kb.k;
}

bool streams(const Kernel& k) {
    return cpu::streaming_store(k).has_value();
}

TEST(Streaming, OnlyWriteOnlyOutputsStoredAtTheLoopVariable) {
    auto triad = cpu::streaming_store(triad_kernel("t"));
    ASSERT_TRUE(triad.has_value());
    EXPECT_EQ(triad->param, 0);
    EXPECT_EQ(triad->elem_bytes, 4);
    EXPECT_EQ(cpu::streaming_store(triad_kernel("t64", f64))->elem_bytes, 8);

    {  // y[i] = a * x[i] + y[i]: y is read
        KernelBuilder kb("saxpy");
        auto x = kb.array_param("x", f32);
        auto y = kb.array_param("y", f32);
        auto i = kb.dim(0, 0, 1);
        kb.k.body.push_back(store(y, use(i), bin(BinaryOp::Add, load(x, use(i)), load(y, use(i)))));
        EXPECT_FALSE(streams(kb.k));
    }
    {  // out[i + 1] = x[i]: not at the loop variable
        KernelBuilder kb("shifted");
        auto x = kb.array_param("x", f32);
        auto out = kb.array_param("out", f32);
        auto i = kb.dim(0, 0, 1);
        kb.k.body.push_back(store(out, bin(BinaryOp::Add, use(i), c64(1)), load(x, use(i))));
        EXPECT_FALSE(streams(kb.k));
    }
    {  // a step of 2
        KernelBuilder kb("stepped");
        auto x = kb.array_param("x", f32);
        auto out = kb.array_param("out", f32);
        auto i = kb.dim(0, 0, 2);
        kb.k.body.push_back(store(out, use(i), load(x, use(i))));
        EXPECT_FALSE(streams(kb.k));
    }
    {  // a print before the loop (the streaming entry runs the prologue per part)
        Kernel k = triad_kernel("printing");
        k.prologue.push_back(Print::make({std::string("hello")}));
        EXPECT_FALSE(streams(k));
    }
    {  // two dimensions
        KernelBuilder kb("rows");
        auto x = kb.array_param("x", f32);
        auto out = kb.array_param("out", f32);
        auto i = kb.dim(0, 0, 1);
        kb.dim(0, 4, 1);
        kb.k.body.push_back(store(out, use(i), load(x, use(i))));
        EXPECT_FALSE(streams(kb.k));
    }
}

TEST(Streaming, IrMarksOnlyTheStreamingCopyWithProvenAlignment) {
    std::string ir = cpu::emit_llvm_ir(triad_kernel("ir_triad"), {false}, true);
    size_t nt_kernel = ir.find("define internal fastcc void @tack_ntkernel_ir__triad");
    if (nt_kernel == std::string::npos) nt_kernel = ir.find("@tack_ntkernel_ir__triad(");
    ASSERT_NE(nt_kernel, std::string::npos) << ir;
    ASSERT_NE(ir.find("define void @tack_ntentry_ir__triad"), std::string::npos);
    EXPECT_NE(ir.find("@llvm.x86.sse.sfence"), std::string::npos);
    // Vector streaming stores claim their width (32 bytes with AVX2, 64 with AVX-512: the host
    // decides); nothing in the ordinary entry streams.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        ir, m, std::regex(R"(store <(\d+) x float> [^,]+, ptr [^,]+, align (\d+), !nontemporal)")))
        << ir;
    EXPECT_GE(std::stoi(m[1]), 4);
    EXPECT_EQ(std::stoi(m[2]), 4 * std::stoi(m[1])) << m[0];
    size_t entry = ir.find("define void @tack_entry_ir__triad");
    size_t entry_end = ir.find("\n}\n", entry);
    EXPECT_EQ(ir.substr(entry, entry_end - entry).find("nontemporal"), std::string::npos);
    std::istringstream lines(ir);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("!nontemporal") == std::string::npos) continue;
        bool vector = line.find("store <") != std::string::npos;
        if (!vector) EXPECT_NE(line.find("align 1,"), std::string::npos) << line;
    }
}

// Head and tail call the ordinary entry: inlining the kernel there had the vectorizer compile
// it twice more (four vectorized bodies per streaming variant instead of two).
TEST(Streaming, HeadAndTailCallTheOrdinaryEntry) {
    std::string ir = cpu::emit_llvm_ir(triad_kernel("ht_triad"), {false}, true);
    size_t nt_entry = ir.find("define void @tack_ntentry_ht__triad");
    ASSERT_NE(nt_entry, std::string::npos) << ir;
    std::string body = ir.substr(nt_entry, ir.find("\n}\n", nt_entry) - nt_entry);
    size_t calls = 0;
    for (size_t at = body.find("call void @tack_entry_ht__triad("); at != std::string::npos;
         at = body.find("call void @tack_entry_ht__triad(", at + 1))
        ++calls;
    EXPECT_EQ(calls, 2u) << body;
    EXPECT_EQ(body.find(" x float>"), std::string::npos) << "no vector loop inlined: " << body;
}

template <class T>
void check_triad(const Compiled& c, cpu::LoadedObject::EntryFn streaming, int byte_offset,
                 int64_t n, int64_t start, int64_t end, int64_t start0 = 0) {
    // Storage with room to misalign `a` by byte_offset from a 64-byte boundary.
    std::vector<uint8_t> raw(size_t(n + start0 + 32) * sizeof(T) + 128);
    uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw.data()) + 63) & ~uintptr_t(63);
    auto* a = reinterpret_cast<T*>(aligned + uintptr_t(byte_offset));
    std::vector<T> b(size_t(n + start0)), c_(size_t(n + start0));
    std::vector<T> want(size_t(n + start0)), got(size_t(n + start0));
    for (int64_t i = 0; i < n + start0; ++i) {
        b[size_t(i)] = T(i % 97) * T(0.5);
        c_[size_t(i)] = T(3 - i % 13);
    }
    T s = T(1.5);
    for (auto* entry : {c.entry, streaming}) {
        for (int64_t i = 0; i < n + start0; ++i) {
            T v = T(-7);
            std::memcpy(reinterpret_cast<uint8_t*>(a) + i * int64_t(sizeof(T)), &v, sizeof(T));
        }
        std::vector<uint64_t> slots = {slot(a), slot(b.data()), slot(c_.data()), scalar_slot(s)};
        entry(slots.data(), start, end);
        auto& out = entry == c.entry ? want : got;
        for (int64_t i = 0; i < n + start0; ++i)
            std::memcpy(&out[size_t(i)], reinterpret_cast<uint8_t*>(a) + i * int64_t(sizeof(T)),
                        sizeof(T));
    }
    for (int64_t i = 0; i < n + start0; ++i) {
        T expected =
            (i >= start0 + start && i < start0 + end) ? b[size_t(i)] + s * c_[size_t(i)] : T(-7);
        ASSERT_EQ(want[size_t(i)], expected) << "ordinary entry, index " << i;
        ASSERT_EQ(got[size_t(i)], expected)
            << "streaming entry, index " << i << " offset " << byte_offset << " range [" << start
            << ", " << end << ")";
    }
}

TEST(Streaming, EveryElementOnceAtEveryAlignmentAndRange) {
    for (DType t : {f32, f64}) {
        for (int64_t start0 : {int64_t(0), int64_t(3)}) {
            Kernel k =
                triad_kernel(std::string("run_") + name(t) + std::to_string(start0), t, start0);
            Compiled c = compile(k);
            auto streaming = c.object->streaming_entry(k.name);
            ASSERT_NE(streaming, nullptr);
            const int64_t n = 1000;
            struct Range {
                int64_t start, end;
            };
            for (Range r : {Range{0, n}, Range{0, 0}, Range{5, 5}, Range{0, 1}, Range{0, 3},
                            Range{1, 17}, Range{13, 14}, Range{7, 999}, Range{16, 80},
                            Range{17, 81}, Range{0, 63}, Range{500, 1000}}) {
                for (int offset : {0, 4, 8, 12, 60, 1, 3}) {
                    if (t == f32) {
                        check_triad<float>(c, streaming, offset, n, r.start, r.end, start0);
                    } else {
                        check_triad<double>(c, streaming, offset, n, r.start, r.end, start0);
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace tack::test
