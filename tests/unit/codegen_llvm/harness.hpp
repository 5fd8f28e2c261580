#pragma once
// Builds small IR kernels with the make() constructors and runs them through the compiled
// object's slots entry point.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/ir.hpp"
#include "support/env.hpp"

namespace tack::test {

using namespace tack::ir;
namespace cpu = tack::codegen::llvm_cpu;

class KernelBuilder {
  public:
    explicit KernelBuilder(std::string name) { k.name = std::move(name); }

    VarPtr scalar_param(const std::string& name, DType t) {
        auto v = new_var(name, t);
        Param p;
        p.name = name;
        p.scalar = v;
        k.params.push_back(p);
        return v;
    }
    BufferPtr array_param(const std::string& name, DType elem, int rank = 1) {
        auto b = std::make_shared<Buffer>();
        b->name = name;
        b->elem = elem;
        b->rank = rank;
        b->kind = BufferKind::Param;
        b->param_index = static_cast<int>(k.params.size());
        b->id = next_id_++;
        Param p;
        p.name = name;
        p.buffer = b;
        k.params.push_back(p);
        return b;
    }
    BufferPtr local_array(const std::string& name, DType elem, int64_t size) {
        auto b = std::make_shared<Buffer>();
        b->name = name;
        b->elem = elem;
        b->rank = 1;
        b->kind = BufferKind::Local;
        b->size = size;
        b->id = next_id_++;
        return b;
    }
    VarPtr local(const std::string& name, DType t) {
        auto v = new_var(name, t);
        k.locals.push_back(v);
        return v;
    }
    /// A parallel dimension; `end` is ignored for dims[0] by the code generator.
    VarPtr dim(int64_t start, int64_t end, int64_t step) {
        auto v = new_var("d" + std::to_string(k.dims.size()), DType::i64);
        k.dims.push_back(
            {v, IntImm::make_i64(start), IntImm::make_i64(end), IntImm::make_i64(step)});
        return v;
    }

    Kernel k;

  private:
    VarPtr new_var(const std::string& name, DType t) {
        return std::make_shared<Var>(Var{name, t, next_id_++, {}});
    }
    int next_id_ = 0;
};

inline ExprPtr use(const VarPtr& v) {
    return VarRef::make(v);
}
inline ExprPtr c64(int64_t v) {
    return IntImm::make_i64(v);
}
inline ExprPtr cint(DType t, uint64_t v) {
    return IntImm::make(t, v);
}
inline ExprPtr cf(DType t, double v) {
    return FloatImm::make(t, v);
}
inline ExprPtr load(const BufferPtr& b, ExprPtr i) {
    return Load::make(b, std::move(i));
}
inline ExprPtr bin(BinaryOp op, ExprPtr a, ExprPtr b) {
    return Binary::make(op, std::move(a), std::move(b));
}
inline StmtPtr store(const BufferPtr& b, ExprPtr i, ExprPtr v) {
    return Store::make(b, std::move(i), std::move(v));
}
inline StmtPtr assign(const VarPtr& v, ExprPtr e) {
    return Assign::make(v, std::move(e));
}

template <class T>
uint64_t slot(T* p) {
    return reinterpret_cast<uint64_t>(p);
}
template <class T>
uint64_t scalar_slot(T v) {
    uint64_t bits = 0;
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        bits = static_cast<U>(v);
    } else {
        std::memcpy(&bits, &v, sizeof v);
    }
    return bits;
}

struct Compiled {
    std::unique_ptr<cpu::LoadedObject> object;
    cpu::LoadedObject::EntryFn entry = nullptr;
    cpu::LoadedObject::ResultFn result = nullptr;
    void run(const std::vector<uint64_t>& slots, int64_t start, int64_t end) const {
        entry(slots.data(), start, end);
    }
};

/// TACK_CPU_LANES as the code generator's setting: ctest runs these tests a second time with
/// TACK_CPU_LANES=1, so every kernel that qualifies also runs as SIMD lanes.
inline cpu::Lanes lanes_from_environment() {
    std::optional<bool> on = support::env_cpu_lanes();
    if (!on) return cpu::Lanes::Auto;
    return *on ? cpu::Lanes::On : cpu::Lanes::Off;
}

inline Compiled compile(const Kernel& k, bool noalias = false) {
    Compiled c;
    cpu::CpuCodegenOptions opts;
    opts.noalias = noalias;
    opts.lanes = lanes_from_environment();
    c.object = cpu::LoadedObject::load(cpu::compile_to_object(k, opts));
    c.entry = c.object->entry(k.name);
    c.result = c.object->result(k.name);
    EXPECT_NE(c.entry, nullptr);
    return c;
}

}  // namespace tack::test
