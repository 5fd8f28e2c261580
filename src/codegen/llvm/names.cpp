// Symbol names of compiled kernels (CONTRACT A10): any Python-legal name, Unicode included, maps
// to a distinct ASCII symbol that cannot collide with libm or libc.

#include "codegen/llvm/internal.hpp"
#include "support/identifiers.hpp"

namespace tack::codegen::llvm_cpu {
namespace detail {

std::string encode_name(const std::string& kernel_name) {
    return support::encode_identifier(kernel_name);
}

std::string kernel_symbol(const std::string& kernel_name) {
    return "tack_kernel_" + encode_name(kernel_name);
}
std::string entry_symbol(const std::string& kernel_name) {
    return "tack_entry_" + encode_name(kernel_name);
}
std::string result_symbol(const std::string& kernel_name) {
    return "tack_result_" + encode_name(kernel_name);
}
std::string failure_symbol(const std::string& kernel_name) {
    return "tack_failed_" + encode_name(kernel_name);
}

}  // namespace detail

std::string entry_name(const std::string& kernel_name) {
    return detail::kernel_symbol(kernel_name);
}

}  // namespace tack::codegen::llvm_cpu
