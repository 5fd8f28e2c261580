#pragma once
// Test support: build IR by hand with the make() constructors, emit OpenCL C, run it on the
// OpenCL runner (PoCL here) through the emitter's launch ABI.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codegen/cfamily/dialect.hpp"
#include "codegen/cfamily/emitter.hpp"
#include "ir/ir.hpp"
#include "runtime/opencl/runner.hpp"

namespace tack::cfamily_test {

namespace cf = tack::codegen::cfamily;
using namespace tack::ir;

class KernelBuilder {
  public:
    explicit KernelBuilder(std::string name) { k.name = std::move(name); }

    VarPtr scalar(const std::string& name, DType t) {
        auto v = var(name, t);
        k.params.push_back({name, v, nullptr});
        return v;
    }
    BufferPtr array(const std::string& name, DType t, int rank = 1) {
        auto b = std::make_shared<Buffer>();
        b->name = name;
        b->elem = t;
        b->rank = rank;
        b->kind = BufferKind::Param;
        b->param_index = static_cast<int>(k.params.size());
        b->id = next_id_++;
        k.params.push_back({name, nullptr, b});
        return b;
    }
    BufferPtr alloc(const std::string& name, DType t, int64_t size, BufferKind kind) {
        auto b = std::make_shared<Buffer>();
        b->name = name;
        b->elem = t;
        b->rank = 1;
        b->kind = kind;
        b->size = size;
        b->id = next_id_++;
        return b;
    }
    VarPtr local(const std::string& name, DType t) {
        auto v = var(name, t);
        k.locals.push_back(v);
        return v;
    }
    /// A parallel dimension range(start, end, step) with constant bounds.
    VarPtr dim(const std::string& name, int64_t start, int64_t end, int64_t step = 1) {
        auto v = var(name, DType::i64);
        k.dims.push_back(
            {v, IntImm::make_i64(start), IntImm::make_i64(end), IntImm::make_i64(step)});
        return v;
    }
    VarPtr var(const std::string& name, DType t) {
        return std::make_shared<Var>(Var{name, t, next_id_++, {}});
    }

    Kernel k;

  private:
    int next_id_ = 0;
};

// Expression shorthands.
inline ExprPtr vr(const VarPtr& v) {
    return VarRef::make(v);
}
inline ExprPtr i64c(int64_t v) {
    return IntImm::make_i64(v);
}
inline ExprPtr ic(DType t, uint64_t v) {
    return IntImm::make(t, v);
}
inline ExprPtr fc(DType t, double v) {
    return FloatImm::make(t, v);
}
inline ExprPtr ld(const BufferPtr& b, ExprPtr i) {
    return Load::make(b, std::move(i));
}
inline ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
    return Binary::make(op, std::move(a), std::move(b));
}
inline StmtPtr st(const BufferPtr& b, ExprPtr i, ExprPtr v) {
    return Store::make(b, std::move(i), std::move(v));
}

/// One host argument in parameter order: an array (bytes copied in and back) or a scalar's bits.
struct HostArg {
    void* data = nullptr;
    size_t bytes = 0;
    uint64_t bits = 0;
};
template <class T>
HostArg arr(std::vector<T>& v) {
    return {v.data(), v.size() * sizeof(T), 0};
}
template <class T>
HostArg val(T v) {
    HostArg a;
    std::memcpy(&a.bits, &v, sizeof(T));
    return a;
}

/// The shared runner, or nullptr (with the reason in `why`) when OpenCL is unavailable.
runtime::opencl::ClRunner* opencl_runner(std::string* why);

/// Generates OpenCL C for `k` (in `dialect`: "opencl", or "level_zero", whose source PoCL runs
/// too), launches it over `n` iterations; "" or the error and source.
std::string run_opencl(const Kernel& k, std::vector<HostArg> args, uint64_t n,
                       const char* dialect = "opencl");

#define TACK_REQUIRE_OPENCL()                                                  \
    do {                                                                       \
        std::string why_;                                                      \
        if (!::tack::cfamily_test::opencl_runner(&why_)) GTEST_SKIP() << why_; \
    } while (0)

/// Bit-exact comparison of two arrays, reporting the first few mismatches with their index.
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size()) return ::testing::AssertionFailure() << "size differs";
    int bad = 0;
    auto fail = ::testing::AssertionFailure();
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::memcmp(&got[i], &want[i], sizeof(T)) == 0) continue;
        if (++bad <= 8) fail << "[" << i << "] got " << +got[i] << " want " << +want[i] << "\n";
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return fail << bad << " mismatches";
}

}  // namespace tack::cfamily_test
