// tack::Array: creation, host transfers, views, fills, conversions and host reductions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/fork_guard.hpp"
#include "runtime/graph/graph.hpp"
#include "runtime/host_ops.hpp"
#include "runtime/registry.hpp"
#include "tack/tack.hpp"

namespace tack {

namespace {

using runtime::host_parallelism;

// Every allocation and wrap goes through here: a fork child meets the fork guard before its
// parent's driver.
std::shared_ptr<runtime::Backend> backend_for(const Device& dev) {
    auto backend = dev.valid() ? dev.backend() : runtime::default_backend_ptr();
    runtime::require_unforked(*backend);
    runtime::refuse_in_capture("allocating or wrapping an array");
    return backend;
}

void check_shape(const Shape& shape) {
    if (shape.rank() < 1 || shape.rank() > Shape::kMaxRank) {
        throw ValueError("Array shapes have 1 to 4 dimensions, got " +
                         std::to_string(shape.rank()));
    }
    for (int64_t e : shape) {
        if (e < 0) throw ValueError("Array extents must be non-negative, got " + shape.to_string());
    }
    (void)shape.size();  // throws when the element count overflows
}

// Bytes of an array, at most INT64_MAX so that every offset, span end and padded allocation
// size derived from it stays representable (issue 12: a wrapped count allocated 0 bytes).
size_t byte_count(DType dtype, const Shape& shape) {
    int64_t n = shape.size();
    int64_t bytes = 0;
    if (__builtin_mul_overflow(n, int64_t{size_bytes(dtype)}, &bytes)) {
        throw ValueError("Array of shape " + shape.to_string() + " and dtype tack." + name(dtype) +
                         " is too large: its byte count exceeds 2**63 - 1");
    }
    return static_cast<size_t>(bytes);
}

// Host-visible view of an array's elements: the storage itself where it is host memory, else
// a private copy (device memory is brought over once).
class HostView {
  public:
    explicit HostView(const Array& a) {
        runtime::require_unforked(a.buffer()->backend());
        runtime::refuse_in_capture("reading an array on the host");
        a.buffer()->backend().synchronize();  // DECISIONS G9: the host waits where it reads
        ptr_ = a.host_data();
        if (!ptr_) {
            copy_.resize(a.nbytes());
            a.buffer()->read(0, copy_.data(), copy_.size());
            ptr_ = copy_.data();
        }
    }
    const void* data() const { return ptr_; }

  private:
    const void* ptr_ = nullptr;
    std::vector<unsigned char> copy_;
};

void require_writable(const Array& a, const char* what) {
    if (!a.writable()) throw RuntimeError(std::string("Cannot ") + what + " a read-only array");
}

}  // namespace

// --- Shape, Scalar --------------------------------------------------------------------------

Shape::Shape(std::span<const int64_t> extents) : rank_(static_cast<int>(extents.size())) {
    if (extents.size() > kMaxStorageRank) {
        throw ValueError("Array shapes have 1 to 4 dimensions, got " +
                         std::to_string(extents.size()));
    }
    std::copy(extents.begin(), extents.end(), dims_.begin());
}

int64_t Shape::size() const {
    // One pass (every launch asks, through the aliasing check); any zero extent makes the array
    // empty whatever the others are (NumPy agrees), so an overflow only counts without one.
    int64_t n = 1;
    bool zero = false, overflow = false;
    for (int64_t e : *this) {
        zero |= e == 0;
        overflow |= __builtin_mul_overflow(n, e, &n);
    }
    if (zero) return 0;
    if (overflow) {
        throw ValueError("Array shape " + to_string() +
                         " is too large: its element count exceeds 2**63 - 1");
    }
    return n;
}

std::string Shape::to_string() const {
    std::string out = "(";
    for (int d = 0; d < rank_; ++d)
        out += (d ? ", " : "") + std::to_string(dims_[size_t(d)]);
    return out + (rank_ == 1 ? ",)" : ")");
}

bool Shape::operator==(const Shape& o) const {
    return rank_ == o.rank_ && std::equal(begin(), end(), o.begin());
}

double Scalar::to_double() const {
    uint64_t b = runtime::convert_scalar(*this, DType::f64);
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}

// --- creation -------------------------------------------------------------------------------

Array Array::make(std::shared_ptr<runtime::Buffer> buffer, DType dtype, const Shape& shape,
                  bool writable) {
    Array a;
    a.address_ = buffer->address();
    a.buffer_ = std::move(buffer);
    a.dtype_ = dtype;
    a.shape_ = shape;
    a.writable_ = writable;
    return a;
}

Array empty_array(DType dtype, const Shape& shape, const Device& dev) {
    check_shape(shape);
    size_t nbytes = byte_count(dtype, shape);
    return Array::make(backend_for(dev)->allocate_array(nbytes), dtype, shape, true);
}

Array exportable_zeros(DType dtype, const Shape& shape, const Device& dev) {
    check_shape(shape);
    size_t nbytes = byte_count(dtype, shape);
    return Array::make(backend_for(dev)->allocate_exportable(nbytes), dtype, shape, true);
}

Array zeros(DType dtype, const Shape& shape, const Device& dev) {
    return empty_array(dtype, shape, dev);  // every allocation is zero-filled (CONTRACT C7)
}

Array ones(DType dtype, const Shape& shape, const Device& dev) {
    Array a = empty_array(dtype, shape, dev);
    a.fill(1);
    return a;
}

Array arange(int64_t n, DType dtype, const Device& dev) {
    if (n < 0) throw ValueError("arange needs a non-negative count, got " + std::to_string(n));
    // The array first: a count too big to allocate is its ValueError / bad_alloc, and the
    // values go over in bounded chunks rather than one host vector of n elements.
    Array a = empty_array(dtype, Shape(n), dev);
    constexpr int64_t kChunk = int64_t{1} << 16;
    std::vector<int64_t> values(static_cast<size_t>(std::min(n, kChunk)));
    std::vector<unsigned char> converted(values.size() * size_bytes(dtype));
    for (int64_t begin = 0; begin < n; begin += kChunk) {
        auto count = static_cast<size_t>(std::min(kChunk, n - begin));
        for (size_t k = 0; k < count; ++k)
            values[k] = begin + static_cast<int64_t>(k);
        runtime::convert_elements(DType::i64, values.data(), dtype, converted.data(), count);
        a.buffer()->write(static_cast<size_t>(begin) * size_bytes(dtype), converted.data(),
                          count * size_bytes(dtype));
    }
    return a;
}

Array Array::from_host_bytes(DType dtype, const void* data, size_t count, const Shape& shape,
                             const Device& dev) {
    check_shape(shape);
    if (static_cast<int64_t>(count) != shape.size()) {
        throw ValueError("Shape mismatch: array is " + shape.to_string() + ", got " +
                         std::to_string(count) + " elements");
    }
    Array a = empty_array(dtype, shape, dev);  // backend_for has met the fork guard
    a.buffer_->write(0, data, a.nbytes());
    return a;
}

Array Array::from_ptr(void* ptr, DType dtype, const Shape& shape, bool writable,
                      const Device& dev) {
    check_shape(shape);
    if (!ptr && shape.size() > 0) throw ValueError("from_ptr() needs a non-null pointer");
    size_t nbytes = byte_count(dtype, shape);
    return make(backend_for(dev)->wrap_ptr(ptr, nbytes), dtype, shape, writable);
}

// --- accessors, views -----------------------------------------------------------------------

Device Array::device() const {
    return Device(buffer_ ? buffer_->backend_ptr() : nullptr);
}

void* Array::host_data() const {
    return buffer_ ? buffer_->host_ptr() : nullptr;
}

void Array::synchronize() const {
    if (buffer_) buffer_->synchronize();
}

Array Array::reshape(const Shape& shape) const {
    check_shape(shape);
    if (shape.size() != size()) {
        throw ValueError("cannot reshape array of size " + std::to_string(size()) + " into shape " +
                         shape.to_string());
    }
    Array view = *this;
    view.shape_ = shape;
    view.elem_rank_ = 0;
    view.texture_ = false;
    return view;
}

Array Array::as_texture() const {
    if (dtype_ != DType::f32 || shape_.rank() != 3 || elem_rank_ != 0) {
        throw ValueError("a texture views an f32 array of shape (D, H, W), got " +
                         std::string(name(dtype_)) + " " + shape_.to_string());
    }
    if (texture_) return *this;  // an image already, or a view
    if (!buffer_) throw ValueError("as_texture() on an empty Array handle");
    std::array<std::int64_t, 3> whd{shape_[2], shape_[1], shape_[0]};
    if (auto image = buffer_->backend().make_texture_image(*buffer_, address_, whd)) {
        Array out = make(std::move(image), dtype_, shape_, false);
        out.texture_ = true;
        return out;
    }
    Array view = *this;
    view.texture_ = true;
    return view;
}

Array Array::texture_snapshot() const {
    Array tex = as_texture();
    return tex.buffer_ != buffer_ ? tex : copy().as_texture();
}

Array Array::with_elements(std::span<const int64_t> elements,
                           std::span<const int64_t> elem_dims) const {
    if (elem_dims.empty() || elem_dims.size() > 2 || elements.size() > Shape::kMaxRank) {
        throw ValueError(
            "with_elements: elements have 0 to 4 dimensions and a vector or matrix "
            "element shape");
    }
    std::vector<int64_t> dims(elements.begin(), elements.end());
    dims.insert(dims.end(), elem_dims.begin(), elem_dims.end());
    Shape shape{std::span<const int64_t>(dims)};
    if (shape.size() != size()) {
        throw ValueError("cannot view array of size " + std::to_string(size()) + " as elements " +
                         "of shape " + shape.to_string());
    }
    Array view = *this;
    view.shape_ = shape;
    view.elem_rank_ = static_cast<uint8_t>(elem_dims.size());
    return view;
}

void Array::check_host_type(DType requested, const char* what) const {
    if (!buffer_) throw ValueError(std::string("Array::") + what + " on an empty Array handle");
    if (requested != dtype_) {
        throw TypeError(std::string("Array::") + what + ": requested " + name(requested) +
                        " elements, but the array's dtype is " + name(dtype_));
    }
}

void Array::read_bytes(void* dst, size_t nbytes) const {
    buffer_->read_in_order(0, dst, nbytes);
}

void Array::write_bytes(const void* src, size_t count) const {
    require_writable(*this, "write to");
    if (static_cast<int64_t>(count) != size()) {
        throw ValueError("Shape mismatch: array is " + shape_.to_string() + ", got " +
                         std::to_string(count) + " elements");
    }
    buffer_->write_in_order(0, src, nbytes());
}

// --- fill, copy, astype ---------------------------------------------------------------------

namespace {
void fill_array(const Array& a, Scalar value, int param) {
    if (!a.buffer()) throw ValueError("fill() on an empty Array handle");
    require_writable(a, "fill");
    runtime::Buffer& buffer = *a.buffer();
    runtime::require_unforked(buffer.backend());
    uint64_t bits = runtime::convert_scalar(value, a.dtype());
    auto count = static_cast<size_t>(a.size());
    if (runtime::GraphCapture* capture = runtime::capturing()) {
        runtime::require_capture_device(*capture, buffer.backend());
        capture->add_fill(a.buffer(), a.dtype(), bits, count, param);
        return;
    }
    runtime::fill_buffer(buffer, a.dtype(), bits, count);
}
}  // namespace

void Array::fill_scalar(Scalar value) const {
    fill_array(*this, value, -1);
}

void Array::fill(const GraphParam& value) const {
    fill_array(*this, value.value, value.index);
}

Array Array::copy() const {
    if (!buffer_) throw ValueError("copy() on an empty Array handle");
    // The fork guard is met by empty_array (backend_for) or by astype's HostView.
    // Device memory: the backend queues the copy with its launches, with no host round trip.
    if (!host_data()) {
        Array out = empty_array(dtype_, shape_, device());
        out.elem_rank_ = elem_rank_;
        if (out.buffer_->backend().copy_array(*out.buffer_, *buffer_, nbytes())) return out;
    }
    return astype(dtype_);
}

Array Array::astype(DType dtype) const {
    if (!buffer_) throw ValueError("astype() on an empty Array handle");
    HostView src(*this);
    Array out = empty_array(dtype, shape_);
    auto count = static_cast<size_t>(size());
    if (void* p = out.host_data()) {
        runtime::convert_elements(dtype_, src.data(), dtype, p, count);
    } else {
        std::vector<unsigned char> tmp(out.nbytes());
        runtime::convert_elements(dtype_, src.data(), dtype, tmp.data(), count);
        out.buffer_->write(0, tmp.data(), tmp.size());
    }
    out.elem_rank_ = elem_rank_;  // a field of vectors stays one (a texture's copy is storage)
    return out;
}

// --- element read, reductions ---------------------------------------------------------------

Scalar Array::at(std::span<const int64_t> index) const {
    if (!buffer_) throw ValueError("at() on an empty Array handle");
    if (static_cast<int>(index.size()) != rank()) {
        throw IndexError("Array of rank " + std::to_string(rank()) + " indexed with " +
                         std::to_string(index.size()) + " indices");
    }
    int64_t flat = 0;
    for (int d = 0; d < rank(); ++d) {
        int64_t extent = shape_[d];
        int64_t i = index[static_cast<size_t>(d)];
        int64_t k = i < 0 ? i + extent : i;
        if (k < 0 || k >= extent) {
            throw IndexError("index " + std::to_string(i) + " is out of bounds for dimension " +
                             std::to_string(d) + " with extent " + std::to_string(extent));
        }
        flat = flat * extent + k;
    }
    Scalar s{dtype_, 0};
    auto elem = static_cast<size_t>(size_bytes(dtype_));
    buffer_->read_in_order(static_cast<size_t>(flat) * elem, &s.bits, elem);  // little-endian
    return s;
}

// CONTRACT C14: the device's own reduction where its backend has one for this dtype.
static std::optional<double> device_reduce(const Array& a, const runtime::Buffer& b,
                                           ir::ReduceOp op) {
    runtime::Backend& backend = b.backend();
    runtime::require_unforked(backend);
    runtime::refuse_in_capture("reducing an array to a host value");
    if (!backend.supports_device_reductions()) return std::nullopt;
    return backend.reduce_array(b, a.dtype(), a.size(), op);
}

double Array::sum() const {
    if (!buffer_) throw ValueError("sum() on an empty Array handle");
    if (size() == 0) return 0.0;  // CONTRACT C15: no read
    if (auto r = device_reduce(*this, *buffer_, ir::ReduceOp::Sum)) return *r;
    HostView v(*this);
    return runtime::sum_elements(dtype_, v.data(), static_cast<size_t>(size()),
                                 host_parallelism(buffer_->backend()));
}

double Array::mean() const {
    if (!buffer_) throw ValueError("mean() on an empty Array handle");
    if (size() == 0) return std::numeric_limits<double>::quiet_NaN();
    return sum() / static_cast<double>(size());
}

double Array::min() const {
    if (!buffer_) throw ValueError("min() on an empty Array handle");
    if (size() == 0) throw ValueError("min reduction requires a nonempty field");
    if (auto r = device_reduce(*this, *buffer_, ir::ReduceOp::Min)) return *r;
    HostView v(*this);
    return runtime::min_elements(dtype_, v.data(), static_cast<size_t>(size()),
                                 host_parallelism(buffer_->backend()));
}

double Array::max() const {
    if (!buffer_) throw ValueError("max() on an empty Array handle");
    if (size() == 0) throw ValueError("max reduction requires a nonempty field");
    if (auto r = device_reduce(*this, *buffer_, ir::ReduceOp::Max)) return *r;
    HostView v(*this);
    return runtime::max_elements(dtype_, v.data(), static_cast<size_t>(size()),
                                 host_parallelism(buffer_->backend()));
}

}  // namespace tack
