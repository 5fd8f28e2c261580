#pragma once
// A kernel of a parsed module and its per-device variant caches: the shared dispatch path of
// every backend (CONTRACT D1-D4, D7-D9, D14-D17).
//
// Two-level cache per backend: the argument signature (per argument: array or scalar, dtype,
// rank; CONTRACT D3 param_sig) selects a lowered IR template with the facts dispatch checks;
// the extents that reach generated code (shape_sig) plus the disjoint bit select a compiled
// variant. Scalar values and the launch length are not in the key (D2, D4). Debug mode
// (DECISIONS) keys its own templates: a debug and a plain variant never meet. Lookups hold a
// shared lock; building happens outside any lock, so two threads missing at once may both
// compile (both correct, D16) and the first stored wins.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "diag/diagnostic.hpp"
#include "driver/driver.hpp"
#include "frontend/ast.hpp"
#include "runtime/backend.hpp"
#include "sema/environment.hpp"
#include "sema/sema.hpp"
#include "tack/tack.hpp"

namespace tack::runtime {

struct ModuleImpl {
    diag::SourceFilePtr file;
    std::shared_ptr<const frontend::Module> module;
    std::shared_ptr<const sema::Environment> env;  // ModuleEnvironment, or the Python one
};

struct SignatureEntry;
struct BackendCache;
class GraphCapture;

/// What a caller holds while it calls, and gives up before anything that may take long or wait
/// for another thread: Python's GIL (python/bindings/kernels.cpp). call_on() calls release() at
/// most once: before validating, lowering or compiling, before waiting for the kernel's lock
/// (whose writers may need the GIL), and before a launch unless the backend predicts it runs on
/// the calling thread in under `hold_below_ns`; the caller takes back what it released once
/// call_on() returns. Without a gate nothing is held.
class CallGate {
  public:
    explicit CallGate(double hold_below_ns) : hold_below_ns_(hold_below_ns) {}
    virtual ~CallGate() = default;
    double hold_below_ns() const { return hold_below_ns_; }
    virtual void release() = 0;

  private:
    double hold_below_ns_;
};

class KernelImpl {
  public:
    KernelImpl(std::shared_ptr<const ModuleImpl> module, const frontend::FunctionDef* fn);
    ~KernelImpl();

    const std::string& name() const { return fn_->name; }
    /// Dispatches on the default device.
    /// The kernel's return value (DECISIONS G7) when it has one.
    std::optional<Scalar> call(std::span<const detail::Arg> args, CallGate* gate = nullptr);
    std::optional<Scalar> call_on(Backend& backend, std::span<const detail::Arg> args,
                                  CallGate* gate = nullptr);
    std::size_t num_variants(const Backend& backend) const;
    /// Lowered IR templates (argument signatures) cached for `backend`.
    std::size_t num_templates(const Backend& backend) const;
    /// Source validation, run once; throws the first located rejection. Callers run it before
    /// reporting an argument-count mismatch, so a `**kw` or keyword-only parameter is named
    /// with its position rather than as an arity TypeError (issue 12).
    void check_valid();

  private:
    void check_arguments(Backend& backend, std::span<const detail::Arg> args) const;
    /// Records the resolved launch in `capture` instead of running it (runtime/graph).
    void record(GraphCapture& capture, const SignatureEntry& sig, Backend& backend,
                const Variant& v, const LaunchArgs& launch,
                std::span<const detail::Arg> args) const;
    SignatureEntry& signature(BackendCache& cache, Backend& backend,
                              std::span<const detail::Arg> args, bool debug);
    BackendCache& cache_for(Backend& backend);
    std::unique_ptr<SignatureEntry> lower(Backend& backend, std::vector<sema::Type> sig,
                                          bool debug);
    void check_per_call(const SignatureEntry& sig, Backend& backend,
                        std::span<const detail::Arg> args) const;
    bool disjoint(const SignatureEntry& sig, std::span<const detail::Arg> args) const;
    const Variant& variant(SignatureEntry& sig, Backend& backend, std::span<const detail::Arg> args,
                           bool noalias);
    std::shared_ptr<const Variant> build(const SignatureEntry& sig, Backend& backend,
                                         std::span<const int64_t> extents, bool noalias) const;
    std::string param_name(int i) const;
    driver::KernelSource source() const;

    std::shared_ptr<const ModuleImpl> module_;
    const frontend::FunctionDef* fn_;
    std::once_flag validated_;
    std::atomic<bool> validated_done_{false};  // set once check_valid()'s call_once has run
    std::vector<diag::Diagnostic> validation_errors_;

    mutable std::shared_mutex mutex_;
    std::vector<std::unique_ptr<BackendCache>> caches_;

    friend void forget_templates(const std::vector<int>& template_ids);
};

/// Drops, from every live kernel's caches, the IR templates and variants of signatures that
/// pass one of the template views `template_ids` (their class was collected, CONTRACT D6).
void forget_templates(const std::vector<int>& template_ids);

}  // namespace tack::runtime
