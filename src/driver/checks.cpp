#include "driver/checks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>

#include "driver/errors.hpp"

namespace tack::driver {

namespace {

std::string who(const frontend::FunctionDef& fn) {
    return "Kernel '" + fn.name + "'";
}

// A capability error at the construct that needs the capability: a located diagnostic (tackc
// prints it, dispatch turns it into the public class) where the IR knows the place, else the
// plain class of `kind`.
[[noreturn]] void raise_at(diag::ErrorKind kind, std::string message,
                           const diag::SourceFilePtr& file, diag::SourceRange range) {
    if (file && range.valid()) {
        message += " " + diag::at_position(*file, range);
        throw diag::CompileError(diag::Diagnostic{kind, std::move(message), file, range});
    }
    throw_public(diag::Diagnostic{kind, std::move(message), nullptr, {}});
}

// "barrier, block_sum, thread_id": each construct once, sorted, so the message is stable.
std::string construct_list(const KernelFacts& facts) {
    std::vector<std::string> names;
    for (const auto& u : facts.workgroup_uses)
        names.push_back(u.construct);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string list;
    for (const auto& n : names)
        list += (list.empty() ? "" : ", ") + n;
    return list;
}

}  // namespace

std::string dtype_text(DType t) {
    return std::string("tack.") + tack::name(t);
}

void check_dtypes(const frontend::FunctionDef& fn, const std::vector<sema::Type>& sig,
                  const Capabilities& caps) {
    for (size_t i = 0; i < sig.size(); ++i) {
        if (!sig[i].is_buffer() || caps.dtypes.contains(sig[i].dtype)) continue;
        throw TypeError(who(fn) + ": parameter '" + fn.params[i].name + "' has dtype " +
                        dtype_text(sig[i].dtype) + ", which is not supported on " +
                        std::string(caps.display_name) +
                        ". Supported dtypes: " + to_string(caps.dtypes));
    }
}

std::string workgroup_error(const frontend::FunctionDef& fn, const KernelFacts& facts,
                            const Capabilities& caps) {
    if (facts.workgroup_uses.empty() || caps.workgroups) return "";
    const WorkgroupUse& first = facts.workgroup_uses.front();
    return who(fn) + ": " + std::string(caps.display_name) +
           " backend does not support workgroup execution required by " + construct_list(facts) +
           " (" + first.construct + " at line " + std::to_string(first.line) +
           "). For scratch memory private to one iteration use `local_array` or "
           "`local_array_like`; to combine values across iterations use tack.atomic_add or "
           "tack.algorithms (inclusive_scan, reduce_by_key); or run the kernel on a backend with "
           "workgroups "
           "(opencl, cuda, hip, level_zero, metal).";
}

void check_atomic_dtypes(const frontend::FunctionDef& fn, const KernelFacts& facts,
                         const Capabilities& caps) {
    for (const auto& a : facts.atomics) {
        if (caps.atomics.contains(a.dtype)) continue;
        std::string message = who(fn) + ": " + std::string(caps.name) + " " + atomic_op_name(a.op) +
                              " does not support target dtype " + dtype_text(a.dtype);
        // Located at the call (hardening round three, defect 14: the message named no line).
        raise_at(diag::ErrorKind::TypeError, std::move(message), a.file, a.range);
    }
}

namespace {

// "512 KiB" where the size is a whole number of its largest unit, else "1.1 GiB (1200000000
// bytes)": readable, and exact either way.
std::string bytes_text(std::uint64_t n) {
    static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    std::uint64_t size = 1;
    while (unit + 1 < int(std::size(kUnits)) && n >= size * 1024) {
        size *= 1024;
        ++unit;
    }
    if (n % size == 0) return std::to_string(n / size) + " " + kUnits[unit];
    char scaled[32];
    std::snprintf(scaled, sizeof scaled, "%.1f", double(n * 10 / size) / 10);  // truncated
    return std::string(scaled) + " " + kUnits[unit] + " (" + std::to_string(n) + " bytes)";
}

}  // namespace

// Hardening round three, defect 2: an array larger than a thread's stack (cpu) or a work-item's
// private memory crashed the process. The bound is over one iteration's arrays together (they
// are all live in its frame); the error is at the array that passes it.
void check_private_bytes(const frontend::FunctionDef& fn, const KernelFacts& facts,
                         const Capabilities& caps) {
    std::uint64_t total = 0;
    for (const LocalArrayUse& a : facts.local_arrays) {
        total = a.bytes > UINT64_MAX - total ? UINT64_MAX : total + a.bytes;
        if (total <= caps.private_bytes) continue;
        std::string message = who(fn) + ": local_array '" + a.name + "' ";
        message += total == a.bytes
                       ? "needs " + bytes_text(a.bytes)
                       : "(" + bytes_text(a.bytes) + ") brings one iteration's local arrays to " +
                             bytes_text(total);
        message += ", more than the " + bytes_text(caps.private_bytes) +
                   " of local arrays one iteration may hold on " + std::string(caps.display_name);
        raise_at(diag::ErrorKind::ValueError, std::move(message), a.file, a.range);
    }
}

}  // namespace tack::driver
