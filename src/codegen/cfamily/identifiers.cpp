#include "codegen/cfamily/identifiers.hpp"

namespace tack::codegen::cfamily {

std::string kernel_entry_name(std::string_view kernel_name) {
    return "tack_kernel_" + encode_identifier(kernel_name);
}

}  // namespace tack::codegen::cfamily
