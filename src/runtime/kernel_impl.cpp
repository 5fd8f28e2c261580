#include "runtime/kernel_impl.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <set>

#include "cache/disk_cache.hpp"
#include "driver/driver.hpp"
#include "runtime/capabilities.hpp"
#include "runtime/checks.hpp"
#include "runtime/debug_mode.hpp"
#include "runtime/errors.hpp"
#include "runtime/fork_guard.hpp"
#include "runtime/graph/graph.hpp"
#include "runtime/profile.hpp"
#include "runtime/registry.hpp"
#include "support/env.hpp"

namespace tack::runtime {

struct VariantSlot {
    std::vector<int64_t> extents;  // shape_sig: the extents of driver::Template::dims_used
    bool noalias = false;
    std::shared_ptr<const Variant> variant;
};

struct SignatureEntry;

// Runs one launch of a variant of `sig` (and the kernel's result into `result` when not null).
using Dispatcher = void (*)(const SignatureEntry& sig, Backend& backend, const Variant& v,
                            const LaunchArgs& launch, std::span<const detail::Arg> args,
                            void* result);

struct SignatureEntry {
    std::vector<sema::Type> sig;
    driver::Template tmpl;  // the driver's template, its facts and launch plan
    std::vector<std::unique_ptr<VariantSlot>> variants;
    // A plain template dispatches directly; a debug one through its record (debug_mode.cpp), so
    // the launch path holds no test of the mode after the lookup that keys it.
    Dispatcher dispatch = nullptr;
    std::unique_ptr<const DebugInfo> debug_info;
    /// A debug template (DECISIONS "Debug mode"), keyed apart from the plain one.
    bool debug() const { return debug_info != nullptr; }
};

struct BackendCache {
    const Backend* backend = nullptr;
    std::weak_ptr<const Backend> alive;  // a new backend at a dead one's address is another
    std::vector<std::unique_ptr<SignatureEntry>> signatures;
};

namespace {

// Extents of one call's shape signature; small enough to live on the stack in practice.
using Extents = std::vector<int64_t>;

void dispatch_plain(const SignatureEntry&, Backend& backend, const Variant& v,
                    const LaunchArgs& launch, std::span<const detail::Arg>, void* result) {
    backend.dispatch(v, launch, result);
}

void dispatch_debug(const SignatureEntry& sig, Backend& backend, const Variant& v,
                    const LaunchArgs& launch, std::span<const detail::Arg> args, void* result) {
    dispatch_checked(*sig.debug_info, backend, v, launch, args, result);
}

bool matches(const std::vector<sema::Type>& sig, std::span<const detail::Arg> args) {
    for (size_t i = 0; i < sig.size(); ++i) {
        const detail::Arg& a = args[i];
        const sema::Type& t = sig[i];
        if (a.array) {
            const Array& arr = *a.array;
            if (!t.is_buffer() || t.dtype != arr.dtype() || t.rank != arr.rank() - arr.elem_rank())
                return false;
            // Plain arrays (the common case) match without building their Type.
            bool plain = !arr.elem_rank() && !arr.is_texture();
            if (plain ? t != sema::Type::array(t.dtype, t.rank) : t != array_type(arr))
                return false;
        } else if (a.template_id >= 0 ? t.template_id != a.template_id
                                      : t != sema::Type::scalar(a.scalar.dtype)) {
            return false;
        }
    }
    return true;
}

// Every live kernel, for forget_templates (D6).
struct LiveKernels {
    std::mutex mutex;
    std::set<KernelImpl*> kernels;
};

LiveKernels& live_kernels() {
    static LiveKernels* live = new LiveKernels;  // never destroyed: kernels may outlive statics
    return *live;
}

const cache::DiskCache& disk_cache() {
    static const cache::DiskCache kCache = cache::DiskCache::from_environment();
    return kCache;
}

BackendCache* find_cache(const std::vector<std::unique_ptr<BackendCache>>& caches,
                         const Backend& backend) {
    for (const auto& c : caches) {
        if (c->backend == &backend && !c->alive.expired()) return c.get();
    }
    return nullptr;
}

SignatureEntry* find_signature(BackendCache& cache, std::span<const detail::Arg> args, bool debug) {
    for (auto& s : cache.signatures) {
        if (s->debug() == debug && matches(s->sig, args)) return s.get();
    }
    return nullptr;
}

// Compares the call's extents with each slot's shape signature without building a key.
const Variant* find_variant(const SignatureEntry& sig, std::span<const detail::Arg> args,
                            bool noalias) {
    for (const auto& v : sig.variants) {
        if (v->noalias != noalias) continue;
        bool same = true;
        const auto& dims_used = sig.tmpl.dims_used;
        for (size_t i = 0; same && i < dims_used.size(); ++i) {
            auto [p, d] = dims_used[i];
            same = v->extents[i] == args[static_cast<size_t>(p)].array->shape()[d];
        }
        if (same) return v->variant.get();
    }
    return nullptr;
}

// A profiler span (runtime/profile.hpp): records its event when it ends, if a session was open
// when it began.
class Span {
  public:
    Span(profile::Kind kind, const std::string& kernel, const Backend& backend, int64_t bytes = 0)
        : on_(profile::on()) {
        if (!on_) return;
        event_ = {.kernel = kernel,
                  .backend = std::string(backend.name()),
                  .kind = kind,
                  .start_ns = profile::now_ns(),
                  .bytes = bytes};
    }
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;
    ~Span() {
        if (!on_) return;
        event_.duration_ns = profile::now_ns() - event_.start_ns;
        profile::record(std::move(event_));
    }

  private:
    bool on_;
    profile::Event event_;
};

// The bytes of a launch's array arguments, each array once (a field passed twice is read once).
int64_t array_bytes(std::span<const detail::Arg> args) {
    int64_t bytes = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const Array* a = args[i].array;
        bool seen = false;
        for (size_t j = 0; a && j < i && !seen; ++j)
            seen = args[j].array && args[j].array->buffer() == a->buffer();
        if (a && !seen) bytes += static_cast<int64_t>(a->nbytes());
    }
    return bytes;
}

// TACK_TIME_COMPILE: the steps of one build, written to stderr as one line when it ends.
class StepTimes {
  public:
    explicit StepTimes(std::string what)
        : on_(support::env_time_compile()), what_(std::move(what)) {}
    StepTimes(const StepTimes&) = delete;
    StepTimes& operator=(const StepTimes&) = delete;
    ~StepTimes() {
        if (on_)
            std::fprintf(stderr, "tack: %s in %.3f ms:%s\n", what_.c_str(), ms(start_),
                         steps_.c_str());
    }
    template <class F>
    decltype(auto) step(const char* name, F&& f) {
        struct Done {
            StepTimes* times;
            const char* name;
            Clock::time_point t0 = Clock::now();
            ~Done() {
                if (times) times->add(name, t0);
            }
        } done{on_ ? this : nullptr, name};
        return std::forward<F>(f)();
    }

  private:
    using Clock = std::chrono::steady_clock;
    static double ms(Clock::time_point t0) {
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    }
    void add(const char* name, Clock::time_point t0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " %s %.3f", name, ms(t0));
        steps_ += buf;
    }

    bool on_;
    std::string what_;
    std::string steps_;
    Clock::time_point start_ = Clock::now();
};

}  // namespace

KernelImpl::KernelImpl(std::shared_ptr<const ModuleImpl> module, const frontend::FunctionDef* fn)
    : module_(std::move(module)), fn_(fn) {
    LiveKernels& live = live_kernels();
    std::lock_guard lock(live.mutex);
    live.kernels.insert(this);
}

KernelImpl::~KernelImpl() {
    LiveKernels& live = live_kernels();
    std::lock_guard lock(live.mutex);
    live.kernels.erase(this);
}

void forget_templates(const std::vector<int>& template_ids) {
    if (template_ids.empty()) return;
    std::set<int> ids(template_ids.begin(), template_ids.end());
    auto passes_one = [&](const std::unique_ptr<SignatureEntry>& s) {
        return std::any_of(s->sig.begin(), s->sig.end(),
                           [&](const sema::Type& a) { return ids.count(a.template_id) > 0; });
    };
    // Entries move out under the locks and are destroyed after them. No call can be using one:
    // a call holds its template instances, so their classes are alive.
    std::vector<std::unique_ptr<SignatureEntry>> dropped;
    LiveKernels& live = live_kernels();
    std::lock_guard lock(live.mutex);
    for (KernelImpl* k : live.kernels) {
        std::unique_lock kernel_lock(k->mutex_);
        for (auto& cache : k->caches_) {
            auto& sigs = cache->signatures;
            auto keep = std::stable_partition(sigs.begin(), sigs.end(),
                                              [&](const auto& s) { return !passes_one(s); });
            std::move(keep, sigs.end(), std::back_inserter(dropped));
            sigs.erase(keep, sigs.end());
        }
    }
}

driver::KernelSource KernelImpl::source() const {
    return {*fn_, module_->file, *module_->env};
}

std::string KernelImpl::param_name(int i) const {
    if (static_cast<size_t>(i) < fn_->params.size())
        return fn_->params[static_cast<size_t>(i)].name;
    return "template member #" + std::to_string(i - static_cast<int>(fn_->params.size()));
}

std::optional<Scalar> KernelImpl::call(std::span<const detail::Arg> args, CallGate* gate) {
    return call_on(default_backend(), args, gate);
}

std::optional<Scalar> KernelImpl::call_on(Backend& backend, std::span<const detail::Arg> args,
                                          CallGate* gate) {
    auto release = [gate] {
        if (gate) gate->release();
    };
    require_unforked(backend);
    try {
        // Validation may ask Python about names, and call_once waits for another thread's run.
        if (!validated_done_.load(std::memory_order_acquire)) release();
        if (args.size() != fn_->params.size()) check_valid();  // located rejection first
        check_arguments(backend, args);
        check_valid();
        bool debug = debug_enabled(backend);
        // Hot path: one shared lock finds the signature and, when compiled, the variant.
        SignatureEntry* sig = nullptr;
        const Variant* found = nullptr;
        bool noalias = false;
        {
            // Never wait for the lock while holding what the gate guards: a writer may drop
            // entries under it, and what is dropped may own Python state (a method's namespace)
            // whose release takes the GIL.
            std::shared_lock lock(mutex_, std::try_to_lock);
            if (!lock.owns_lock()) {
                release();
                lock.lock();
            }
            if (BackendCache* cache = find_cache(caches_, backend))
                sig = find_signature(*cache, args, debug);
            if (sig) {
                noalias = backend.specializes_disjoint() && disjoint(*sig, args);
                found = find_variant(*sig, args, noalias);
            }
        }
        if (!sig) {
            release();
            Span span(profile::Kind::Lower, name(), backend);
            sig = &signature(cache_for(backend), backend, args, debug);
            noalias = backend.specializes_disjoint() && disjoint(*sig, args);
        }
        check_per_call(*sig, backend, args);
        int64_t total = sig->tmpl.launch.count({&sig->tmpl.kernel, args});
        const ir::ExprPtr& result = sig->tmpl.kernel.result;
        // A debug launch of no iterations still checks its loop bounds (debug_mode.cpp).
        if (total == 0 && !result && !sig->debug()) return std::nullopt;
        if (!found) release();
        const Variant& v = found ? *found : [&]() -> const Variant& {
            Span span(profile::Kind::Build, name(), backend);
            return variant(*sig, backend, args, noalias);
        }();
        // Held only across a launch whose length the cost model can know from earlier calls
        // (debug templates, which read their checks back after the launch, always release).
        if (sig->debug() || !sig->tmpl.facts.fixed_cost ||
            !(backend.inline_run_ns(v, total) < (gate ? gate->hold_below_ns() : 0.0)))
            release();

        uint64_t stack_slots[32];
        const Buffer* stack_buffers[32];
        std::vector<uint64_t> heap_slots;
        std::vector<const Buffer*> heap_buffers;
        uint64_t* slots = stack_slots;
        const Buffer** buffers = stack_buffers;
        if (args.size() > std::size(stack_slots)) {
            heap_slots.resize(args.size());
            heap_buffers.resize(args.size());
            slots = heap_slots.data();
            buffers = heap_buffers.data();
        }
        for (size_t i = 0; i < args.size(); ++i) {
            const Array* a = args[i].array;
            slots[i] = a ? a->address() : args[i].scalar.bits;
            buffers[i] = a ? a->buffer().get() : nullptr;
        }
        LaunchArgs launch{slots, buffers, total};
        if (GraphCapture* capture = capturing()) {
            record(*capture, *sig, backend, v, launch, args);
            return std::nullopt;
        }
        std::optional<Span> span;
        if (profile::on()) span.emplace(profile::Kind::Launch, name(), backend, array_bytes(args));
        if (!result) {
            sig->dispatch(*sig, backend, v, launch, args, nullptr);
            if (span) backend.synchronize();  // the span is the run, not the enqueue
            return std::nullopt;
        }
        Scalar value{result->type, 0};
        sig->dispatch(*sig, backend, v, launch, args, &value.bits);  // little-endian: low bytes
        return value;
    } catch (const diag::CompileError& e) {
        throw_public(e);
    } catch (const diag::InternalError& e) {
        throw RuntimeError("Kernel '" + name() + "' failed on " +
                           std::string(backend.display_name()) + ": " + e.what());
    }
}

void KernelImpl::record(GraphCapture& capture, const SignatureEntry& sig, Backend& backend,
                        const Variant& v, const LaunchArgs& launch,
                        std::span<const detail::Arg> args) const {
    require_capture_device(capture, backend);
    if (sig.tmpl.kernel.result)
        refuse_in_capture("calling kernel '" + name() + "', which returns a value to the host,");
    if (sig.debug())
        refuse_in_capture("calling kernel '" + name() +
                          "' in debug mode, whose checks are read back after every launch,");
    std::shared_ptr<const Variant> shared;
    {
        std::shared_lock lock(mutex_);
        for (const auto& slot : sig.variants) {
            if (slot->variant.get() == &v) shared = slot->variant;
        }
    }
    capture.add_launch(std::move(shared), launch, args);
}

void KernelImpl::check_arguments(Backend& backend, std::span<const detail::Arg> args) const {
    // Template instances' fields and scalars follow the declared arguments (CONTRACT A23).
    bool templates = false;
    for (size_t i = 0; i < args.size() && i < fn_->params.size(); ++i)
        templates |= args[i].template_id >= 0;
    if (templates ? args.size() < fn_->params.size() : args.size() != fn_->params.size()) {
        throw TypeError("Kernel '" + name() + "' expects " + std::to_string(fn_->params.size()) +
                        " arguments, got " + std::to_string(args.size()));
    }
    for (size_t i = 0; i < args.size(); ++i) {
        const Array* a = args[i].array;
        if (!a) continue;
        if (!a->valid()) {
            throw ValueError("Kernel '" + name() + "': parameter '" + param_name(int(i)) +
                             "' is an empty tack::Array handle");
        }
        const Buffer& buffer = *a->buffer();
        if (&buffer.backend() == &backend || backend.binds(buffer)) continue;
        const Backend& owner = buffer.backend();
        std::string where = owner.name() == backend.name()
                                ? "another " + std::string(owner.display_name()) +
                                      " device (an earlier tack.init or tack.device)"
                                : "the " + std::string(owner.display_name()) + " backend";
        throw RuntimeError("Kernel '" + name() + "': parameter '" + param_name(int(i)) +
                           "' holds an array of " + where + ", but the call runs on the " +
                           std::string(backend.display_name()) +
                           " backend; allocate it on the device the kernel runs on");
    }
}

void KernelImpl::check_valid() {
    // call_once's own fast path goes through thread-local state on every call.
    if (!validated_done_.load(std::memory_order_acquire)) {
        std::call_once(validated_, [this] {
            StepTimes times("kernel '" + name() + "': source");
            validation_errors_ = times.step("validate", [&] { return driver::validate(source()); });
            validated_done_.store(true, std::memory_order_release);
        });
    }
    if (!validation_errors_.empty()) throw_public(validation_errors_.front());
}

BackendCache& KernelImpl::cache_for(Backend& backend) {
    {
        std::shared_lock lock(mutex_);
        for (auto& c : caches_) {
            if (c->backend == &backend && !c->alive.expired()) return *c;
        }
    }
    std::unique_lock lock(mutex_);
    std::erase_if(caches_, [](const auto& c) { return c->alive.expired(); });
    for (auto& c : caches_) {
        if (c->backend == &backend) return *c;
    }
    auto c = std::make_unique<BackendCache>();
    c->backend = &backend;
    c->alive = backend.weak_from_this();
    caches_.push_back(std::move(c));
    return *caches_.back();
}

SignatureEntry& KernelImpl::signature(BackendCache& cache, Backend& backend,
                                      std::span<const detail::Arg> args, bool debug) {
    // Lowering runs outside the lock; a failed lowering stores nothing (CONTRACT D1).
    std::unique_ptr<SignatureEntry> fresh = lower(backend, signature_of(args), debug);
    std::unique_lock lock(mutex_);
    for (auto& s : cache.signatures) {
        if (s->sig == fresh->sig && s->debug() == debug) return *s;
    }
    cache.signatures.push_back(std::move(fresh));
    return *cache.signatures.back();
}

std::unique_ptr<SignatureEntry> KernelImpl::lower(Backend& backend, std::vector<sema::Type> sig,
                                                  bool debug) {
    auto entry = std::make_unique<SignatureEntry>();
    entry->sig = sig;
    StepTimes times("kernel '" + name() + "': argument signature");
    entry->tmpl = times.step("lower", [&] {
        return driver::compile_template(source(), std::move(sig), capabilities_of(backend), debug);
    });
    entry->dispatch = dispatch_plain;
    if (entry->tmpl.debug) {
        entry->debug_info = std::make_unique<const DebugInfo>(
            DebugInfo{std::move(*entry->tmpl.debug), name(),
                      std::make_shared<const ir::Kernel>(entry->tmpl.kernel)});
        entry->dispatch = dispatch_debug;
    }
    return entry;
}

void KernelImpl::check_per_call(const SignatureEntry& sig, Backend& backend,
                                std::span<const detail::Arg> args) const {
    const driver::Template& t = sig.tmpl;
    if (!t.workgroup_error.empty()) throw NotImplementedError(t.workgroup_error);
    check_atomic_alignment(*fn_, t.facts, args);
    for (int w : t.facts.written_params) {
        if (!args[static_cast<size_t>(w)].array->writable()) {
            throw ValueError("Kernel '" + name() + "': parameter '" + param_name(w) +
                             "' may be written, but its field is read-only. "
                             "Wrap the memory as writable or pass a copy().");
        }
    }
}

bool KernelImpl::disjoint(const SignatureEntry& sig, std::span<const detail::Arg> args) const {
    return runtime::disjoint(sig.tmpl.facts, args);
}

const Variant& KernelImpl::variant(SignatureEntry& sig, Backend& backend,
                                   std::span<const detail::Arg> args, bool noalias) {
    {
        std::shared_lock lock(mutex_);
        if (const Variant* v = find_variant(sig, args, noalias)) return *v;
    }
    Extents extents;
    extents.reserve(sig.tmpl.dims_used.size());
    for (auto [p, d] : sig.tmpl.dims_used) {
        extents.push_back(args[static_cast<size_t>(p)].array->shape()[d]);
    }
    std::shared_ptr<const Variant> built = build(sig, backend, extents, noalias);
    std::unique_lock lock(mutex_);
    if (const Variant* v = find_variant(sig, args, noalias)) return *v;
    auto slot = std::make_unique<VariantSlot>();
    slot->extents = std::move(extents);
    slot->noalias = noalias;
    slot->variant = std::move(built);
    sig.variants.push_back(std::move(slot));
    return *sig.variants.back()->variant;
}

std::shared_ptr<const Variant> KernelImpl::build(const SignatureEntry& sig, Backend& backend,
                                                 std::span<const int64_t> extents,
                                                 bool noalias) const {
    passes::ShapeValues shapes;
    for (size_t i = 0; i < extents.size(); ++i)
        shapes[sig.tmpl.dims_used[i]] = extents[i];
    StepTimes times("kernel '" + name() + "': variant on " + std::string(backend.name()));
    ir::Kernel k = times.step(
        "specialize", [&] { return driver::specialize(sig.tmpl, shapes, textures_of(backend)); });
    VariantOptions options{.noalias = noalias};
    std::optional<std::string> target = backend.cache_target();
    const cache::DiskCache& disk = disk_cache();
    auto compile = [&] {
        return times.step("compile", [&] { return backend.build_variant(k, options); });
    };
    if (!target || !disk.enabled()) return compile();

    std::string key = times.step("key", [&] {
        return driver::variant_cache_key(k, noalias, sig.debug(), *target, backend.name());
    });
    if (auto bytes = times.step("disk-load", [&] { return disk.load(key); })) {
        auto v = times.step("load", [&] { return backend.load_variant(*bytes, k, options); });
        if (v) return v;
    }
    std::shared_ptr<const Variant> v = compile();
    times.step("disk-store", [&] { disk.store(key, backend.variant_artifact(*v)); });
    return v;
}

std::size_t KernelImpl::num_templates(const Backend& backend) const {
    std::shared_lock lock(mutex_);
    std::size_t n = 0;
    for (const auto& c : caches_) {
        if (c->backend == &backend && !c->alive.expired()) n += c->signatures.size();
    }
    return n;
}

std::size_t KernelImpl::num_variants(const Backend& backend) const {
    std::shared_lock lock(mutex_);
    std::size_t n = 0;
    for (const auto& c : caches_) {
        if (c->backend != &backend || c->alive.expired()) continue;
        for (const auto& s : c->signatures)
            n += s->variants.size();
    }
    return n;
}

}  // namespace tack::runtime
