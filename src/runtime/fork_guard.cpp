#include "runtime/fork_guard.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "runtime/backend.hpp"
#include "runtime/errors.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

namespace tack::runtime {

namespace {

std::atomic<bool> g_driver_opened{false};
std::atomic<bool> g_forked_after_driver{false};

void in_child() {
    if (g_driver_opened.load(std::memory_order_relaxed))
        g_forked_after_driver.store(true, std::memory_order_relaxed);
}

}  // namespace

void note_device_driver_opened() {
    static std::once_flag registered;
#if defined(__unix__) || defined(__APPLE__)
    std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, in_child); });
#endif
    g_driver_opened.store(true, std::memory_order_relaxed);
}

void require_unforked(std::string_view name) {
    if (name == "cpu" || !g_forked_after_driver.load(std::memory_order_relaxed)) return;
    throw RuntimeError(
        "Cannot use the '" + std::string(name) +
        "' backend in a process made by fork() from one that had opened a device: the "
        "driver's threads do not survive fork(). Start worker processes with multiprocessing's "
        "'spawn' or 'forkserver' start method (multiprocessing.get_context('spawn')), or use "
        "the CPU backend in the child");
}

bool lost_to_fork(const Backend& backend) {
    return g_forked_after_driver.load(std::memory_order_relaxed) && backend.name() != "cpu";
}

void require_unforked(const Backend& backend) {
    if (g_forked_after_driver.load(std::memory_order_relaxed)) require_unforked(backend.name());
}

}  // namespace tack::runtime
