#pragma once
// Tack's public C++ API: devices, arrays, modules and kernels.
//
//   #include <tack/tack.hpp>
//   tack::Device dev = tack::device("cpu");                       // or {{"num_threads", 2}}
//   tack::Module mod = tack::Module::from_source(text, "k.py");   // tack::CompileError
//   tack::Kernel k = mod.kernel("saxpy");
//   tack::Array x = tack::Array::from_host(std::span<const float>(v), {n});
//   tack::Array y = tack::zeros(tack::f32, {n});
//   k(x, y, 2.0f, std::int64_t(n));
//   std::vector<float> out = y.to_host<float>();
//   tack::sync();
//
// This header is self-contained (it includes nothing under src/): the implementation types are
// only forward-declared.
//
// Scalar arguments take their Tack type from their C++ type (the C++ counterpart of
// Python, where the value decides): float -> f32, double -> f64, bool and every signed or
// unsigned integer of at most 16 bits -> i32, int32 -> i32, uint32 -> u32, int64 -> i64,
// uint64 -> u64. Unlike Python floats, a C++ float stays f32 next to f64 arrays (the C++ type
// is an explicit choice); pass a double to get f64.
//
// Errors: every exception Tack throws derives from tack::Error and from exactly one standard
// exception class, so both `catch (const tack::Error&)` and the standard catch clauses work:
// ValueError and TypeError are std::invalid_argument, NotImplementedError is std::logic_error,
// IndexError is std::out_of_range, the rest (ZeroDivisionError too) std::runtime_error. tack::Error
// itself is not a std::exception (a second std::exception base would make `catch (const
// std::exception&)` ambiguous); it declares what() and kind().

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "tack/dtype.hpp"
#include "tack/error_kind.hpp"

namespace tack {

namespace runtime {
class Backend;
class Buffer;
class KernelImpl;
struct ModuleImpl;
class GraphCapture;
class GraphImpl;
namespace profile {
class Session;
}
}  // namespace runtime

// -------------------------------------------------------------------------------------------
// Errors
// -------------------------------------------------------------------------------------------

class Error {
  public:
    virtual ~Error() = default;
    virtual const char* what() const noexcept = 0;
    virtual ErrorKind kind() const noexcept = 0;
};

template <class Std, ErrorKind K>
class BasicError : public Std, public Error {
  public:
    explicit BasicError(const std::string& message) : Std(message) {}
    const char* what() const noexcept override { return Std::what(); }
    ErrorKind kind() const noexcept override { return K; }
};

class ValueError : public BasicError<std::invalid_argument, ErrorKind::ValueError> {
    using BasicError::BasicError;
};
class TypeError : public BasicError<std::invalid_argument, ErrorKind::TypeError> {
    using BasicError::BasicError;
};
class NameError : public BasicError<std::runtime_error, ErrorKind::NameError> {
    using BasicError::BasicError;
};
class RuntimeError : public BasicError<std::runtime_error, ErrorKind::Runtime> {
    using BasicError::BasicError;
};
class NotImplementedError : public BasicError<std::logic_error, ErrorKind::NotImplemented> {
    using BasicError::BasicError;
};
class IndexError : public BasicError<std::out_of_range, ErrorKind::Index> {
    using BasicError::BasicError;
};
class ZeroDivisionError : public BasicError<std::runtime_error, ErrorKind::ZeroDivision> {
    using BasicError::BasicError;
};

/// What debug mode raises (docs/debug.md): an out-of-bounds index (Base = IndexError)
/// or an integer `//` or `%` by zero (Base = ZeroDivisionError) in a kernel launch, at a
/// position in the kernel's source. what() is the rendered diagnostic, as CompileError's
/// ("k.py:6:9: IndexError: Kernel 'k': ...\n    <line>\n    ^~~\n"); message() the bare
/// message.
template <class Base>
class KernelFault : public Base {
  public:
    KernelFault(std::string message, std::string file, int line, int column,
                const std::string& rendered)
        : Base(rendered),
          message_(std::move(message)),
          file_(std::move(file)),
          line_(line),
          column_(column) {}
    const std::string& message() const { return message_; }
    const std::string& file() const { return file_; }
    int line() const { return line_; }      // 1-based
    int column() const { return column_; }  // 1-based

  private:
    std::string message_;
    std::string file_;
    int line_;
    int column_;
};
using KernelIndexError = KernelFault<IndexError>;
using KernelZeroDivisionError = KernelFault<ZeroDivisionError>;

/// A user error in kernel source, with its position. what() is the rendered text
/// ("k.py:3:9: TypeError: ...\n    <line>\n    ^~~\n"); message() the bare message.
class CompileError : public std::runtime_error, public Error {
  public:
    CompileError(ErrorKind kind, std::string message, std::string file, int line, int column,
                 const std::string& rendered)
        : std::runtime_error(rendered),
          kind_(kind),
          message_(std::move(message)),
          file_(std::move(file)),
          line_(line),
          column_(column) {}
    const char* what() const noexcept override { return std::runtime_error::what(); }
    ErrorKind kind() const noexcept override { return kind_; }
    const std::string& message() const { return message_; }
    const std::string& file() const { return file_; }
    int line() const { return line_; }      // 1-based, 0 when unknown
    int column() const { return column_; }  // 1-based, 0 when unknown
    const char* rendered() const noexcept { return what(); }

  private:
    ErrorKind kind_;
    std::string message_;
    std::string file_;
    int line_;
    int column_;
};

// -------------------------------------------------------------------------------------------
// Devices
// -------------------------------------------------------------------------------------------

/// One device option value (`{{"num_threads", 2}}`).
class OptionValue {
  public:
    using Storage = std::variant<std::int64_t, double, bool, std::string, void*>;
    template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) OptionValue(T v)
        : value_(static_cast<std::int64_t>(v)) {}
    template <class T>
    requires std::is_floating_point_v<T> OptionValue(T v) : value_(static_cast<double>(v)) {}
    OptionValue(bool v) : value_(v) {}
    OptionValue(const char* v) : value_(std::string(v)) {}
    OptionValue(std::string v) : value_(std::move(v)) {}
    OptionValue(void* v) : value_(v) {}
    const Storage& value() const { return value_; }

  private:
    Storage value_;
};
using DeviceOptions = std::map<std::string, OptionValue>;

/// A backend instance. Cheap to copy (shared handle). A default-constructed Device means "the
/// current default device" wherever a Device parameter is optional.
class Device {
  public:
    Device() = default;
    explicit Device(std::shared_ptr<runtime::Backend> backend);

    bool valid() const { return backend_ != nullptr; }
    std::string name() const;          // "cpu"
    std::string display_name() const;  // "CPU"
    DTypeSet supported_dtypes() const;
    bool supports_f64() const;
    DTypeSet supported_atomic_dtypes() const;
    bool supports_device_reductions() const;
    bool supports_workgroups() const;
    std::vector<std::string> device_memory_spaces() const;
    std::vector<std::string> device_options() const;
    /// Waits for every launch queued on this device (a no-op on the CPU).
    void synchronize() const;
    /// Whether launches here run debug variants when no DebugScope says otherwise: the `debug`
    /// option (`tack::init("cpu", {{"debug", true}})`), else TACK_DEBUG when it was built.
    bool debug() const;

    bool operator==(const Device& o) const { return backend_ == o.backend_; }
    /// For bindings and tools.
    const std::shared_ptr<runtime::Backend>& backend() const { return backend_; }

  private:
    std::shared_ptr<runtime::Backend> backend_;
};

/// Makes `name`'s device the default and returns it. With no options it is the one device of
/// that name in the process; with options a new one is built. Options are checked against the
/// backend's device_options before anything is constructed (ValueError naming the option);
/// every backend also takes `debug` (bool), see DebugScope.
Device device(std::string_view name, const DeviceOptions& options = {});
/// Builds a new backend on every call and makes it the default.
Device init(std::string_view arch = "cpu", const DeviceOptions& options = {});
/// The default device (the CPU when none was chosen).
Device default_device();
/// Names of the backends compiled into this library, sorted.
std::vector<std::string> available_backends();
/// Waits for every live device.
void sync();

/// Debug mode for the kernels the calling thread launches while the scope lives, whatever each
/// device's debug() says (docs/debug.md). Debug variants are compiled apart from the
/// plain ones and check every field, local-array and shared-array index and every integer `//`
/// and `%`; a launch waits for its device and throws KernelIndexError or
/// KernelZeroDivisionError for its first violation (the faulting access is skipped, the other
/// threads run on). Scopes nest; each restores the mode it found.
class DebugScope {
  public:
    explicit DebugScope(bool enabled = true);
    ~DebugScope();
    DebugScope(const DebugScope&) = delete;
    DebugScope& operator=(const DebugScope&) = delete;

  private:
    int previous_;
};

// -------------------------------------------------------------------------------------------
// Arrays
// -------------------------------------------------------------------------------------------

/// An array shape: 1 to 4 non-negative extents. `{n}`, `{rows, cols}` work with any integer
/// type for the extents.
class Shape {
  public:
    static constexpr int kMaxRank = 4;
    /// A vector or matrix array's storage shape: its element shape follows the elements'.
    static constexpr int kMaxStorageRank = kMaxRank + 2;
    Shape() = default;
    template <class... Ts>
    requires(sizeof...(Ts) >= 1 && sizeof...(Ts) <= kMaxRank && (std::is_integral_v<Ts> && ...))
        Shape(Ts... extents)
        : rank_(sizeof...(Ts)), dims_{static_cast<std::int64_t>(extents)...} {}
    explicit Shape(std::span<const std::int64_t> extents);

    int rank() const { return rank_; }
    std::int64_t operator[](int d) const { return dims_[static_cast<size_t>(d)]; }
    std::int64_t size() const;
    const std::int64_t* begin() const { return dims_.data(); }
    const std::int64_t* end() const { return dims_.data() + rank_; }
    /// "(8,)", "(4, 8)".
    std::string to_string() const;
    bool operator==(const Shape& o) const;

  private:
    int rank_ = 0;
    std::array<std::int64_t, kMaxStorageRank> dims_{};
};

/// The Tack dtype of a C++ element type.
template <class T>
constexpr DType dtype_of() {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "Tack arrays hold the ten numeric types");
    if constexpr (std::is_floating_point_v<T>) {
        static_assert(sizeof(T) == 4 || sizeof(T) == 8, "f32 or f64");
        return sizeof(T) == 4 ? DType::f32 : DType::f64;
    } else {
        constexpr DType kSigned[] = {DType::i8,  DType::i16, DType::i16, DType::i32,
                                     DType::i32, DType::i32, DType::i32, DType::i64};
        constexpr DType kUnsigned[] = {DType::u8,  DType::u16, DType::u16, DType::u32,
                                       DType::u32, DType::u32, DType::u32, DType::u64};
        return std::is_signed_v<T> ? kSigned[sizeof(T) - 1] : kUnsigned[sizeof(T) - 1];
    }
}

/// A scalar of one of the ten types: integers as their bits modulo 2^N, zero-extended; f32 as
/// its IEEE bits in the low 32 bits; f64 as its 64 bits (the kernel calling convention).
struct Scalar {
    DType dtype = DType::i32;
    std::uint64_t bits = 0;

    /// The Tack scalar for a C++ value (see the header comment for the type rules).
    template <class T>
    static Scalar of(T v);
    /// The value as a double (integers exactly up to 2^53).
    double to_double() const;
    /// The value as T, which must be the scalar's own type (TypeError otherwise).
    template <class T>
    T as() const;
};

/// A scalar argument recorded as a parameter of the graph being captured (Capture::param): each
/// replay passes the graph's current value, converted as the capture converted this one.
struct GraphParam {
    int index = -1;
    Scalar value;
};

class Array {
  public:
    Array() = default;

    template <class T>
    static Array from_host(std::span<const T> data, const Shape& shape, const Device& dev = {}) {
        return from_host_bytes(dtype_of<T>(), data.data(), data.size(), shape, dev);
    }
    template <class T>
    static Array from_host(const std::vector<T>& data, const Shape& shape, const Device& dev = {}) {
        return from_host(std::span<const T>(data), shape, dev);
    }
    /// Zero-copy wrap of host memory; never freed by Tack. Read-only unless
    /// `writable`.
    static Array from_ptr(void* ptr, DType dtype, const Shape& shape, bool writable = false,
                          const Device& dev = {});

    bool valid() const { return buffer_ != nullptr; }
    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    int rank() const { return shape_.rank(); }
    std::int64_t size() const { return shape_.size(); }
    std::size_t nbytes() const { return static_cast<std::size_t>(size()) * size_bytes(dtype_); }
    bool writable() const { return writable_; }
    Device device() const;
    /// The address kernels receive (host or device address).
    std::uint64_t address() const { return address_; }
    /// Host pointer to the first element, or nullptr when the storage is device-only.
    void* host_data() const;
    /// Byte range [begin, end) of the storage this array covers (for aliasing checks).
    std::uint64_t span_begin() const { return address_; }
    std::uint64_t span_end() const { return address_ + nbytes(); }
    /// Whether both arrays view the same storage object.
    bool same_storage(const Array& o) const { return buffer_ == o.buffer_; }
    const std::shared_ptr<runtime::Buffer>& buffer() const { return buffer_; }
    /// Waits for the work queued on this array's device (launches, fills, copies); a queued
    /// launch's error is raised here. Reads wait by themselves: this is for handing the memory
    /// to code that does not go through Tack.
    void synchronize() const;

    /// A view with another shape over the same storage (element count must match).
    Array reshape(const Shape& shape) const;
    /// How many trailing extents of shape() are the element shape: 0 for scalar elements, 1
    /// for vectors (the last extent is the width), 2 for matrices (rows, columns). Kernels see
    /// an array of rank rank() - elem_rank() whose elements are vectors or matrices
    /// (docs/vectors.md); the storage stays row-major with the components innermost.
    int elem_rank() const { return elem_rank_; }
    /// Whether kernels receive this array as a 3-D texture: f32 storage of
    /// shape (D, H, W), x fastest, that kernels read only through `tex.sample(u, v, w)`.
    bool is_texture() const { return texture_; }
    /// A texture of a rank-3 f32 array (ValueError otherwise). A texture is a snapshot: a
    /// device that samples in hardware (CUDA, HIP) makes its image from this storage now and
    /// the texture holds the image alone; elsewhere it is a view of this storage, so view
    /// storage nothing writes afterwards, or use texture_snapshot().
    Array as_texture() const;
    /// A texture that later writes to this array never reach, as tack.texture3d makes: the
    /// device's image where it samples in hardware (one copy of the texels), else a view of a
    /// copy().
    Array texture_snapshot() const;
    /// A view of the same storage as `elements`-shaped vectors (elem_dims = {n}) or matrices
    /// ({n, m}); `elements` may be empty (a single vector). ValueError on a size mismatch.
    Array with_elements(std::span<const std::int64_t> elements,
                        std::span<const std::int64_t> elem_dims) const;
    /// Sets every element to `value`, converted with the kernel language's cast rules.
    template <class T>
    void fill(T value) const {
        fill_scalar(Scalar::of(value));
    }
    void fill_scalar(Scalar value) const;
    /// While capturing a graph, a fill whose value is the parameter's at each replay.
    void fill(const GraphParam& value) const;
    /// A new array with the same contents and element shape on the default device.
    Array copy() const;
    /// A new array of the same element shape converted component-wise with the kernel
    /// language's cast rules.
    Array astype(DType dtype) const;

    template <class T>
    std::vector<T> to_host() const {
        check_host_type(dtype_of<T>(), "to_host");
        std::vector<T> out(static_cast<std::size_t>(size()));
        read_bytes(out.data(), out.size() * sizeof(T));
        return out;
    }
    /// Copies `data` (exactly size() elements of this dtype) into the array.
    template <class T>
    void copy_from_host(std::span<const T> data) const {
        check_host_type(dtype_of<T>(), "copy_from_host");
        write_bytes(data.data(), data.size());
    }
    template <class T>
    void copy_from_host(const std::vector<T>& data) const {
        copy_from_host(std::span<const T>(data));
    }

    /// Host element read: one index per dimension, negative counts from the end.
    Scalar at(std::span<const std::int64_t> index) const;
    Scalar at(std::initializer_list<std::int64_t> index) const {
        return at(std::span<const std::int64_t>(index.begin(), index.size()));
    }
    /// The element as T, which must be the array's element type.
    template <class T>
    T get(std::initializer_list<std::int64_t> index) const {
        check_host_type(dtype_of<T>(), "get");
        Scalar s = at(index);
        T out;
        std::memcpy(&out, &s.bits, sizeof(T));
        return out;
    }

    /// Reductions over every logical element, returned as double for integer arrays too.
    double sum() const;
    double min() const;
    double max() const;
    double mean() const;

  private:
    friend class runtime::KernelImpl;
    static Array from_host_bytes(DType dtype, const void* data, std::size_t count,
                                 const Shape& shape, const Device& dev);
    static Array make(std::shared_ptr<runtime::Buffer> buffer, DType dtype, const Shape& shape,
                      bool writable);
    friend Array empty_array(DType dtype, const Shape& shape, const Device& dev);
    friend Array exportable_zeros(DType dtype, const Shape& shape, const Device& dev);
    void check_host_type(DType requested, const char* what) const;
    void read_bytes(void* dst, std::size_t nbytes) const;
    void write_bytes(const void* src, std::size_t count) const;

    std::shared_ptr<runtime::Buffer> buffer_;
    std::uint64_t address_ = 0;
    DType dtype_ = DType::f32;
    Shape shape_;
    bool writable_ = true;
    std::uint8_t elem_rank_ = 0;
    bool texture_ = false;
};

/// A new zero-filled array (every allocation is zero-filled, empty_array's too).
Array empty_array(DType dtype, const Shape& shape, const Device& dev = {});
Array zeros(DType dtype, const Shape& shape, const Device& dev = {});
Array ones(DType dtype, const Shape& shape, const Device& dev = {});
/// Zeros whose memory stays exportable for its whole life (export_memory hands out
/// the allocation itself, which sees every later kernel write) on CUDA; elsewhere zeros.
Array exportable_zeros(DType dtype, const Shape& shape, const Device& dev = {});
template <class T>
Array full(DType dtype, const Shape& shape, T value, const Device& dev = {}) {
    Array a = zeros(dtype, shape, dev);
    a.fill(value);
    return a;
}
/// 0, 1, ..., n-1 converted to `dtype`.
Array arange(std::int64_t n, DType dtype = DType::i32, const Device& dev = {});

// -------------------------------------------------------------------------------------------
// Modules and kernels
// -------------------------------------------------------------------------------------------

namespace detail {
/// One kernel argument: an array or a scalar.
struct Arg {
    const Array* array = nullptr;
    Scalar scalar;
    int template_id = -1;  // a template instance (Python @tack.data_oriented): expanded args follow
    int param = -1;        // a graph parameter (Capture::param): its index; `scalar` its value
};
inline Arg make_arg(const Array& a) {
    return Arg{&a, {}};
}
template <class T>
requires std::is_arithmetic_v<T> Arg make_arg(T v) {
    return Arg{nullptr, Scalar::of(v)};
}
inline Arg make_arg(const GraphParam& p) {
    return Arg{nullptr, p.value, -1, p.index};
}
}  // namespace detail

class Kernel {
  public:
    Kernel() = default;
    explicit Kernel(std::shared_ptr<runtime::KernelImpl> impl) : impl_(std::move(impl)) {}

    /// Runs the kernel on the default device with arrays and C++ scalars; returns once the
    /// launch has run (CPU) or is queued (GPU). A kernel ending in `return expr` (annotated
    /// `-> tack.f32`, `-> float` or `-> int`) returns that value; others return nullopt.
    template <class... Args>
    std::optional<Scalar> operator()(const Args&... args) const {
        if constexpr (sizeof...(Args) == 0) {
            return call({});
        } else {
            const detail::Arg packed[] = {detail::make_arg(args)...};
            return call(std::span<const detail::Arg>(packed, sizeof...(Args)));
        }
    }
    std::optional<Scalar> call(std::span<const detail::Arg> args) const;

    const std::string& name() const;
    /// Compiled variants of this kernel on `dev` (one per argument and shape signature).
    std::size_t num_variants(const Device& dev = {}) const;

  private:
    std::shared_ptr<runtime::KernelImpl> impl_;
};

/// A parsed source file holding @tack.kernel and @tack.func definitions.
class Module {
  public:
    /// Parses `text`; throws CompileError on a syntax error. `path` names the file in errors.
    static Module from_source(std::string_view text, std::string_view path = "<string>");
    static Module from_file(const std::string& path);

    /// The @tack.kernel called `name` (NameError when there is none). Source validation runs
    /// at the kernel's first call; its errors are thrown then as CompileError.
    Kernel kernel(std::string_view name) const;
    std::vector<std::string> kernel_names() const;

  private:
    std::shared_ptr<runtime::ModuleImpl> impl_;
};

// -------------------------------------------------------------------------------------------
// Launch graphs
// -------------------------------------------------------------------------------------------

/// What a Capture recorded: its launches and fills, replayed in order from C++ with no
/// dispatch per launch (what the capture resolved, compiled and checked is what runs).
class Graph {
  public:
    Graph() = default;
    /// Runs the recorded work `times` times, queued as launches are (wait with
    /// Device::synchronize or a read of an array).
    void replay(int times = 1) const;
    /// Sets a parameter for this and later replays (ValueError naming the graph's parameters
    /// when it has none called `name`; TypeError for a float given to an integer parameter).
    template <class T>
    requires std::is_arithmetic_v<T>
    void set(std::string_view name, T value) const { set_scalar(name, Scalar::of(value)); }
    void set_scalar(std::string_view name, Scalar value) const;
    /// A parameter's current value, in the dtype of the value it was captured with.
    Scalar get(std::string_view name) const;
    std::vector<std::string> param_names() const;
    /// Recorded launches and fills.
    std::size_t size() const;
    Device device() const;
    bool valid() const { return impl_ != nullptr; }

  private:
    friend class Capture;
    std::shared_ptr<runtime::GraphImpl> impl_;
};

/// Records, instead of running, the launches and fills the calling thread issues on `device`
/// while it lives, until finish(). Operations a graph cannot replay (allocating arrays, host
/// reads and writes, reductions to host values, kernels returning values, debug-mode launches,
/// work on another device) throw RuntimeError where they are asked for. A destroyed unfinished
/// capture records nothing.
class Capture {
  public:
    explicit Capture(const Device& device = {});
    ~Capture();
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;

    /// A graph parameter: pass it to a kernel as a scalar argument; replays pass its value.
    template <class T>
    requires std::is_arithmetic_v<T> GraphParam param(std::string_view name, T value) {
        return param_scalar(name, Scalar::of(value));
    }
    GraphParam param_scalar(std::string_view name, Scalar value);
    /// Ends the capture: the graph, ready to replay (its vendor graph, where the device has one,
    /// built now).
    Graph finish();

  private:
    std::unique_ptr<runtime::GraphCapture> capture_;
};

// -------------------------------------------------------------------------------------------
// Profiling
// -------------------------------------------------------------------------------------------

/// Collects, from construction until stop() or destruction, what every kernel call of the
/// process costs: launches (each until its device finished it: a GPU launch waits while a
/// profile is open), lowering and variant builds. Profiles may overlap; each sees every call of
/// its span. The Python form is `with tack.profile() as p:` (docs/performance.md).
class Profile {
  public:
    /// One kernel on one backend.
    struct KernelCost {
        std::string kernel, backend;
        std::int64_t calls = 0;  // launches
        std::int64_t launch_ns = 0, min_launch_ns = 0, max_launch_ns = 0;
        std::int64_t compiles = 0;  // signatures lowered plus variants built
        std::int64_t variants = 0;  // variants built (compiled or read from the disk cache)
        std::int64_t compile_ns = 0;
        std::int64_t bytes = 0;  // of the array arguments, over every launch
    };
    Profile();
    ~Profile();
    Profile(const Profile&) = delete;
    Profile& operator=(const Profile&) = delete;
    /// Ends collection (idempotent); what was collected stays readable.
    void stop();
    /// Per kernel and backend, in the order each was first called.
    std::vector<KernelCost> kernels() const;
    /// kernels() as a fixed-width table.
    std::string table() const;
    /// A Chrome / Perfetto trace (JSON): "lower", "build" and "launch" spans, a track per
    /// backend and host thread.
    std::string chrome_trace() const;

  private:
    std::unique_ptr<runtime::profile::Session> session_;
};

// -------------------------------------------------------------------------------------------
// Inline definitions
// -------------------------------------------------------------------------------------------

template <class T>
Scalar Scalar::of(T v) {
    static_assert(std::is_arithmetic_v<T>, "kernel scalars are numbers");
    if constexpr (std::is_same_v<T, bool>) {
        return {DType::i32, v ? 1u : 0u};
    } else if constexpr (std::is_same_v<T, float>) {
        std::uint32_t b;
        std::memcpy(&b, &v, 4);
        return {DType::f32, b};
    } else if constexpr (std::is_floating_point_v<T>) {
        double d = static_cast<double>(v);
        std::uint64_t b;
        std::memcpy(&b, &d, 8);
        return {DType::f64, b};
    } else if constexpr (sizeof(T) <= 2 || (sizeof(T) == 4 && std::is_signed_v<T>)) {
        return {DType::i32, static_cast<std::uint32_t>(static_cast<std::int32_t>(v))};
    } else if constexpr (sizeof(T) == 4) {
        return {DType::u32, static_cast<std::uint32_t>(v)};
    } else {
        return {std::is_signed_v<T> ? DType::i64 : DType::u64, static_cast<std::uint64_t>(v)};
    }
}

template <class T>
T Scalar::as() const {
    if (dtype_of<T>() != dtype) {
        throw TypeError(std::string("Scalar::as: requested ") + name(dtype_of<T>()) +
                        ", but the value is " + name(dtype));
    }
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}

}  // namespace tack
