// Debug mode's host side: the thread override, the debug launcher and its messages.
#include "runtime/debug_mode.hpp"

#include <array>

#include "diag/diagnostic.hpp"
#include "runtime/result.hpp"

namespace tack::runtime {

namespace {

using Kind = passes::CheckSite::Kind;

thread_local int t_debug_override = -1;

std::string tuple_text(std::span<const int64_t> values) {
    if (values.size() == 1) return std::to_string(values[0]);
    std::string out = "(";
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + std::to_string(values[i]);
    return out + ")";
}

std::string shape_text(std::span<const int64_t> extents) {
    std::string out = "(";
    for (size_t i = 0; i < extents.size(); ++i)
        out += (i ? ", " : "") + std::to_string(extents[i]);
    return out + (extents.size() == 1 ? ",)" : ")");
}

const char* access_verb(Kind kind) {
    switch (kind) {
        case Kind::Read:
            return "read of";
        case Kind::Write:
            return "write to";
        case Kind::Update:
            return "update of";
        default:
            return "atomic update of";
    }
}

std::string array_text(const ir::Buffer& b) {
    if (b.kind == ir::BufferKind::Local) return "local array '" + b.name + "'";
    if (b.kind == ir::BufferKind::Shared) return "shared array '" + b.name + "'";
    return "'" + b.name + "'";
}

// "out-of-bounds write to 'a': index (3, 9) is outside shape (4, 8) (axis 1 has size 8)".
std::string access_message(const passes::CheckSite& s, std::span<const int64_t> values,
                           std::span<const detail::Arg> args) {
    const ir::Buffer& b = *s.buffer;
    std::vector<int64_t> storage;
    if (b.kind == ir::BufferKind::Param) {
        const Shape& shape = args[static_cast<size_t>(b.param_index)].array->shape();
        storage.assign(shape.begin(), shape.end());
    } else {
        storage = {b.size};
    }
    std::string out =
        "out-of-bounds " + std::string(access_verb(s.kind)) + " " + array_text(b) + ": ";
    if (!s.per_axis) {
        int64_t count = 1;
        for (int64_t e : storage)
            count *= e;
        return out + "flat index " + std::to_string(values[0]) + " is outside the " +
               std::to_string(count) + " elements of shape " + shape_text(storage);
    }
    std::span<const int64_t> shape(storage.data(), values.size());  // the logical axes
    out += "index " + tuple_text(values) + " is outside shape " + shape_text(shape);
    if (values.size() > 1) {
        for (size_t d = 0; d < values.size(); ++d) {
            if (values[d] < 0 || values[d] >= shape[d]) {
                out +=
                    " (axis " + std::to_string(d) + " has size " + std::to_string(shape[d]) + ")";
                break;
            }
        }
    }
    return out;
}

// "integer division or modulo by zero: 7 // 0 (i32)".
std::string division_message(const passes::CheckSite& s, int64_t dividend) {
    std::string a = is_signed(s.dtype) ? std::to_string(dividend)
                                       : std::to_string(static_cast<uint64_t>(dividend));
    return std::string("integer division or modulo by zero: ") + a +
           (s.kind == Kind::FloorDiv ? " // 0 (" : " % 0 (") + name(s.dtype) + ")";
}

std::array<int64_t, passes::kDebugRecordValues> record_values(const std::int32_t* record) {
    std::array<int64_t, passes::kDebugRecordValues> v{};
    for (size_t k = 0; k < v.size(); ++k) {
        auto low = static_cast<uint32_t>(record[2 + 2 * k]);
        auto high = static_cast<uint32_t>(record[3 + 2 * k]);
        v[k] = static_cast<int64_t>(uint64_t{low} | uint64_t{high} << 32);
    }
    return v;
}

const passes::CheckSite& site_of(const DebugInfo& info, const std::int32_t* record) {
    int32_t id = record[1];
    TACK_ASSERT(id >= 1 && static_cast<size_t>(id) <= info.sites.size(),
                "debug record of kernel '" + info.kernel + "' names no check site");
    return info.sites[static_cast<size_t>(id - 1)];
}

std::string message_of(const DebugInfo& info, const passes::CheckSite& s,
                       std::span<const int64_t> values, std::span<const detail::Arg> args) {
    bool division = s.kind == Kind::FloorDiv || s.kind == Kind::Mod;
    return "Kernel '" + info.kernel +
           "': " + (division ? division_message(s, values[0]) : access_message(s, values, args));
}

std::span<const int64_t> used_values(const passes::CheckSite& s,
                                     const std::array<int64_t, passes::kDebugRecordValues>& v) {
    return {v.data(), static_cast<size_t>(s.values)};
}

[[noreturn]] void throw_violation(const DebugInfo& info, const passes::CheckSite& s,
                                  std::span<const int64_t> values,
                                  std::span<const detail::Arg> args) {
    bool division = s.kind == Kind::FloorDiv || s.kind == Kind::Mod;
    std::string message = message_of(info, s, values, args);
    diag::Diagnostic d{division ? diag::ErrorKind::ZeroDivision : diag::ErrorKind::Index, message,
                       s.file, s.range};
    std::string path = s.file ? s.file->path() : "";
    if (division) throw KernelZeroDivisionError(message, path, d.line(), d.column(), d.render());
    throw KernelIndexError(message, path, d.line(), d.column(), d.render());
}

[[noreturn]] void throw_violation(const DebugInfo& info, const std::int32_t* record,
                                  std::span<const detail::Arg> args) {
    const passes::CheckSite& s = site_of(info, record);
    auto values = record_values(record);
    throw_violation(info, s, used_values(s, values), args);
}

// The host's part of a debug launch (runtime/result.hpp): the parallel loop's bounds before
// it, whose `//` and `%` are checked as the body's are, and the `return expr` after it, since
// both run outside the threads.
class HostChecks {
  public:
    HostChecks(const DebugInfo& info, const LaunchArgs& launch, std::span<const detail::Arg> args)
        : checks_{[args](const ir::Buffer& b, int dim) {
                      return args[static_cast<size_t>(b.param_index)]
                          .array->shape()[static_cast<size_t>(dim)];
                  },
                  [&info, args](const passes::CheckSite& s, std::span<const int64_t> values) {
                      throw_violation(info, s, values, args);
                  }},
          in_{info.checked.get(), launch.slots, launch.buffers,
              [buffers = launch.buffers](int param, std::size_t offset, void* dst,
                                         std::size_t bytes) {
                  buffers[param]->read(offset, dst, bytes);
              },
              &checks_} {}

    void loop_bounds() const {
        for (const ir::LoopDim& d : in_.kernel->dims) {
            for (const ir::ExprPtr& e : {d.start, d.end, d.step})
                evaluate(in_, e);
        }
    }
    void result(void* out) const { evaluate_result(in_, out); }

  private:
    ResultChecks checks_;
    ResultInputs in_;
};

}  // namespace

int exchange_thread_debug(int state) {
    int previous = t_debug_override;
    t_debug_override = state;
    return previous;
}

bool debug_enabled(const Backend& backend) {
    int o = t_debug_override;
    return o < 0 ? backend.debug() : o != 0;
}

std::string violation_message(const DebugInfo& info, const std::int32_t* record,
                              std::span<const detail::Arg> args) {
    const passes::CheckSite& s = site_of(info, record);
    auto values = record_values(record);
    return message_of(info, s, used_values(s, values), args);
}

void dispatch_checked(const DebugInfo& info, Backend& backend, const Variant& variant,
                      const LaunchArgs& launch, std::span<const detail::Arg> args, void* result) {
    auto n = static_cast<size_t>(info.errors_param);
    TACK_ASSERT(args.size() == n, "debug launch of kernel '" + info.kernel + "' with " +
                                      std::to_string(args.size()) + " arguments");
    HostChecks host(info, launch, args);
    host.loop_bounds();
    // A fresh zero-filled record per launch: concurrent launches never share one.
    std::shared_ptr<Buffer> record = backend.allocate_array(passes::kDebugRecordWords * 4);
    std::vector<uint64_t> slots(launch.slots, launch.slots + n);
    std::vector<const Buffer*> buffers(launch.buffers, launch.buffers + n);
    slots.push_back(record->address());
    buffers.push_back(record.get());
    for (auto [p, dim] : info.extents) {
        const Array& a = *args[static_cast<size_t>(p)].array;
        slots.push_back(static_cast<uint64_t>(dim < 0 ? a.size() : a.shape()[dim]));
        buffers.push_back(nullptr);
    }
    backend.dispatch(variant, {slots.data(), buffers.data(), launch.total}, nullptr);
    backend.synchronize();
    std::int32_t words[passes::kDebugRecordWords];
    record->read(0, words, sizeof words);
    if (words[0] != 0) throw_violation(info, words, args);
    if (result) host.result(result);
}

}  // namespace tack::runtime
