// Symbol names of compiled kernels (CONTRACT A10): any Python-legal name, Unicode included, maps
// to a distinct ASCII symbol that cannot collide with libm or libc.

#include <cstdio>

#include "codegen/llvm/internal.hpp"

namespace tack::codegen::llvm_cpu {
namespace detail {

std::string encode_name(const std::string& kernel_name) {
    std::string out;
    out.reserve(kernel_name.size() + 8);
    for (unsigned char c : kernel_name) {
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum) {
            out += static_cast<char>(c);
        } else if (c == '_') {
            out += "__";
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "_%02X", c);
            out += hex;
        }
    }
    return out;
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

}  // namespace detail

std::string entry_name(const std::string& kernel_name) {
    return detail::kernel_symbol(kernel_name);
}

}  // namespace tack::codegen::llvm_cpu
