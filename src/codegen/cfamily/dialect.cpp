#include "codegen/cfamily/dialect.hpp"

#include <string>

#include "diag/diagnostic.hpp"

namespace tack::codegen::cfamily {

const Dialect& dialect(std::string_view name) {
    for (const Dialect* d : {&cuda_dialect(), &hip_dialect(), &opencl_dialect(),
                             &level_zero_dialect(), &metal_dialect()})
        if (d->name == name) return *d;
    throw diag::InternalError("internal error: no C-family dialect named '" + std::string(name) +
                              "'");
}

std::vector<DType> supported_atomic_dtypes(const Dialect& d, bool int64_atomics) {
    std::vector<DType> out;
    for (int i = 0; i < kNumDTypes; ++i) {
        auto t = static_cast<DType>(i);
        bool wide_int = is_integer(t) && bits(t) == 64;
        if (d.atomic_ok[i] && (int64_atomics || !wide_int || !d.int64_atomics_optional))
            out.push_back(t);
    }
    return out;
}

}  // namespace tack::codegen::cfamily
