// tack::Profile: the C++ face of the profiler's sessions (runtime/profile.hpp).
#include "runtime/profile.hpp"

#include "tack/tack.hpp"

namespace tack {

Profile::Profile() : session_(std::make_unique<runtime::profile::Session>()) {}

Profile::~Profile() = default;

void Profile::stop() {
    session_->stop();
}

std::vector<Profile::KernelCost> Profile::kernels() const {
    return session_->kernels();
}

std::string Profile::table() const {
    return session_->table();
}

std::string Profile::chrome_trace() const {
    return session_->chrome_trace();
}

}  // namespace tack
