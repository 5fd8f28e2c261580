// sema::Type (type.hpp): the words its errors use.

#include "sema/type.hpp"

namespace tack::sema {

std::string Shape::text() const {
    if (is_scalar()) return "scalar";
    if (is_vector()) return std::to_string(rows) + "-vector";
    return std::to_string(rows) + "x" + std::to_string(cols) + " matrix";
}

}  // namespace tack::sema
