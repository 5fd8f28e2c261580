#include "runtime/errors.hpp"

namespace tack::runtime {

void backend_unavailable(std::string_view backend, const std::string& why) {
    throw RuntimeError("Cannot initialize '" + std::string(backend) + "' backend: " + why);
}

}  // namespace tack::runtime
