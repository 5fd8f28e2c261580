// The profiler's sessions, their per-kernel sums, the table and the Chrome trace.

#include "runtime/profile.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "support/env.hpp"

namespace tack::runtime::profile {

struct Session::Impl {
    mutable std::mutex mutex;
    std::vector<Event> events;
    bool open = true;
};

namespace {

// The open sessions. `g_open` is what the hot path reads; the list changes under the mutex.
std::atomic<int> g_open{0};
std::mutex g_mutex;
std::vector<std::shared_ptr<Session::Impl>>& open_sessions() {
    static auto* sessions = new std::vector<std::shared_ptr<Session::Impl>>;  // never destroyed:
    return *sessions;  // a session may close from a static destructor at exit
}

int thread_number() {
    static std::atomic<int> next{0};
    thread_local int number = next.fetch_add(1, std::memory_order_relaxed);
    return number;
}

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::Lower:
            return "lower";
        case Kind::Build:
            return "build";
        case Kind::Launch:
            return "launch";
    }
    return "?";
}

// Kernel and backend names are identifiers, but the trace is JSON whatever they hold.
std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string micros(int64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e3);
    return buf;
}

// TACK_PROFILE: the whole process is one session, printed when it exits.
Session* g_process_session = nullptr;
void print_process_session() {
    if (!g_process_session) return;
    g_process_session->stop();
    std::string text = g_process_session->table();
    std::fprintf(stderr, "tack profile (TACK_PROFILE):\n%s", text.c_str());
}
[[maybe_unused]] const bool g_started_from_environment = [] {
    if (!support::env_profile()) return false;
    g_process_session = new Session;  // lives until exit, printed by the atexit handler
    std::atexit(print_process_session);
    return true;
}();

}  // namespace

bool on() {
    return g_open.load(std::memory_order_relaxed) > 0;
}

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void record(Event e) {
    e.thread = thread_number();
    std::vector<std::shared_ptr<Session::Impl>> sessions;
    {
        std::lock_guard lock(g_mutex);
        sessions = open_sessions();
    }
    for (const auto& s : sessions) {
        std::lock_guard lock(s->mutex);
        if (s->open) s->events.push_back(e);
    }
}

Session::Session() : impl_(std::make_shared<Impl>()) {
    std::lock_guard lock(g_mutex);
    open_sessions().push_back(impl_);
    g_open.fetch_add(1, std::memory_order_relaxed);
}

Session::~Session() {
    stop();
}

void Session::stop() {
    {
        std::lock_guard lock(impl_->mutex);
        if (!impl_->open) return;
        impl_->open = false;
    }
    std::lock_guard lock(g_mutex);
    auto& sessions = open_sessions();
    sessions.erase(std::remove(sessions.begin(), sessions.end(), impl_), sessions.end());
    g_open.fetch_sub(1, std::memory_order_relaxed);
}

bool Session::open() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->open;
}

std::vector<Event> Session::events() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->events;
}

std::vector<KernelStats> Session::kernels() const {
    std::vector<KernelStats> stats;
    std::map<std::pair<std::string, std::string>, size_t> row;
    for (const Event& e : events()) {
        auto [it, fresh] = row.try_emplace({e.kernel, e.backend}, stats.size());
        if (fresh) stats.push_back(KernelStats{.kernel = e.kernel, .backend = e.backend});
        KernelStats& s = stats[it->second];
        if (e.kind == Kind::Launch) {
            s.min_launch_ns = s.calls ? std::min(s.min_launch_ns, e.duration_ns) : e.duration_ns;
            s.max_launch_ns = std::max(s.max_launch_ns, e.duration_ns);
            ++s.calls;
            s.launch_ns += e.duration_ns;
            s.bytes += e.bytes;
        } else {
            ++s.compiles;
            s.variants += e.kind == Kind::Build;
            s.compile_ns += e.duration_ns;
        }
    }
    return stats;
}

std::string Session::table() const {
    std::vector<KernelStats> stats = kernels();
    size_t width = 6;
    for (const auto& s : stats)
        width = std::max(width, s.kernel.size());
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "%-*s %-10s %8s %11s %10s %10s %10s %11s %8s %10s\n",
                  static_cast<int>(width), "kernel", "backend", "calls", "total ms", "mean us",
                  "min us", "max us", "compile ms", "variants", "MB/call");
    out += line;
    for (const auto& s : stats) {
        double mean_us = s.calls ? static_cast<double>(s.launch_ns) / 1e3 / s.calls : 0.0;
        double mb = s.calls ? static_cast<double>(s.bytes) / 1e6 / s.calls : 0.0;
        std::snprintf(
            line, sizeof line, "%-*s %-10s %8lld %11.3f %10.2f %10.2f %10.2f %11.3f %8lld %10.3f\n",
            static_cast<int>(width), s.kernel.c_str(), s.backend.c_str(),
            static_cast<long long>(s.calls), static_cast<double>(s.launch_ns) / 1e6, mean_us,
            static_cast<double>(s.min_launch_ns) / 1e3, static_cast<double>(s.max_launch_ns) / 1e3,
            static_cast<double>(s.compile_ns) / 1e6, static_cast<long long>(s.variants), mb);
        out += line;
    }
    if (stats.empty()) out += "(no kernel was called)\n";
    return out;
}

std::string Session::chrome_trace() const {
    std::vector<Event> all = events();
    int64_t origin = all.empty() ? 0 : all.front().start_ns;
    for (const Event& e : all)
        origin = std::min(origin, e.start_ns);
    // One track (tid) per backend and host thread, named in metadata events.
    std::map<std::pair<std::string, int>, int> tracks;
    for (const Event& e : all)
        tracks.try_emplace({e.backend, e.thread}, static_cast<int>(tracks.size()) + 1);
    std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    bool first = true;
    auto add = [&](const std::string& event) {
        out += first ? "\n" : ",\n";
        out += event;
        first = false;
    };
    for (const auto& [key, tid] : tracks) {
        add("{\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(tid) +
            ",\"name\":\"thread_name\",\"args\":{\"name\":" +
            json_string(key.first + " (host thread " + std::to_string(key.second) + ")") + "}}");
    }
    for (const Event& e : all) {
        int tid = tracks.at({e.backend, e.thread});
        std::string args = "{\"backend\":" + json_string(e.backend);
        if (e.kind == Kind::Launch) args += ",\"bytes\":" + std::to_string(e.bytes);
        add("{\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(tid) +
            ",\"name\":" + json_string(e.kernel) + ",\"cat\":\"" + kind_name(e.kind) +
            "\",\"ts\":" + micros(e.start_ns - origin) + ",\"dur\":" + micros(e.duration_ns) +
            ",\"args\":" + args + "}}");
    }
    out += "\n]}\n";
    return out;
}

}  // namespace tack::runtime::profile
