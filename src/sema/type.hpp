#pragma once
// The one type of the front half: what a kernel argument is (dispatch's signature, CONTRACT D3
// param_sig) and what a name holds while lowering. Vectors, matrices, textures and templates
// are kinds of it, not flags beside a DType; the IR below sema knows scalars and buffers only
// (lowering scalarizes vectors into one expression per component, row-major).

#include <cstdint>
#include <string>

#include "tack/dtype.hpp"

namespace tack::sema {

/// The component shape of a value (CONTRACT A28): a scalar, an n-vector or an n x m matrix.
/// A vector or matrix Type has it as its own shape, an array as its element's.
struct Shape {
    int rows = 0;  // 0: a scalar
    int cols = 0;  // 0: a vector (or a scalar)
    bool is_scalar() const { return rows == 0; }
    bool is_vector() const { return rows > 0 && cols == 0; }
    bool is_matrix() const { return cols > 0; }
    int count() const { return is_scalar() ? 1 : is_vector() ? rows : rows * cols; }
    /// How many storage extents the shape adds: 0, 1 (n) or 2 (n, m).
    int rank() const { return is_scalar() ? 0 : is_vector() ? 1 : 2; }
    /// "scalar", "3-vector", "2x3 matrix" (the words of the shape errors).
    std::string text() const;
    bool operator==(const Shape&) const = default;
};

/// Make one with the factories, which keep kind and shape in step.
struct Type {
    enum class Kind : std::uint8_t {
        Scalar,
        Vector,
        Matrix,
        Array,     // a field of `dtype` elements of `shape`, `rank` logical dimensions
        Texture,   // a 3-D f32 texture, read only through sample() (CONTRACT A39)
        Template,  // a @tack.data_oriented instance (sema/templates.hpp), passing nothing itself
    };
    Kind kind = Kind::Scalar;
    DType dtype = DType::f32;  // the components' type (an array's: its elements')
    Shape shape;               // Vector, Matrix: the value's; Array: the element's
    int rank = 0;              // Array, Texture: logical dimensions (0: a single vector field)
    int template_id = -1;      // Template: its interned view

    static Type scalar(DType d) { return {Kind::Scalar, d, {}, 0, -1}; }
    /// A scalar, vector or matrix, as `s` says.
    static Type value(DType d, Shape s) {
        return {s.is_scalar()   ? Kind::Scalar
                : s.is_vector() ? Kind::Vector
                                : Kind::Matrix,
                d, s, 0, -1};
    }
    static Type array(DType d, int rank, Shape element = {}) {
        return {Kind::Array, d, element, rank, -1};
    }
    static Type texture() { return {Kind::Texture, DType::f32, {}, 3, -1}; }
    static Type of_template(int id) { return {Kind::Template, DType::f32, {}, 0, id}; }

    bool is_value() const { return kind <= Kind::Matrix; }
    /// An array or a texture: a buffer parameter of the kernel.
    bool is_buffer() const { return kind == Kind::Array || kind == Kind::Texture; }
    bool is_template() const { return kind == Kind::Template; }
    /// The buffer's storage rank: logical dimensions plus the element's.
    int storage_rank() const { return rank + shape.rank(); }
    bool operator==(const Type&) const = default;
};

}  // namespace tack::sema
