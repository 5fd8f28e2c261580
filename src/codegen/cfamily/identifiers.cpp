#include "codegen/cfamily/identifiers.hpp"

namespace tack::codegen::cfamily {

namespace {
bool is_plain(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
}  // namespace

std::string encode_identifier(std::string_view name) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(name.size());
    for (unsigned char c : name) {
        if (is_plain(c)) {
            out += static_cast<char>(c);
        } else if (c == '_') {
            out += "__";
        } else {
            out += '_';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

std::string kernel_entry_name(std::string_view kernel_name) {
    return "tack_kernel_" + encode_identifier(kernel_name);
}

}  // namespace tack::codegen::cfamily
