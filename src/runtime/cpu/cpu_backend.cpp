#include "runtime/cpu/cpu_backend.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "codegen/llvm/llvm_codegen.hpp"
#include "ir/ir.hpp"
#include "runtime/cpu/algorithms.hpp"
#include "runtime/cpu/cost_model.hpp"
#include "runtime/cpu/cpu_info.hpp"
#include "runtime/cpu/graph_replay.hpp"
#include "runtime/errors.hpp"
#include "runtime/graph/graph.hpp"
#include "runtime/host_ops.hpp"
#include "support/env.hpp"
#include "support/interrupt.hpp"

namespace tack::runtime::cpu {

namespace {

namespace llvm_cpu = codegen::llvm_cpu;

std::shared_ptr<Backend> create(const DeviceOptions& options);

constexpr std::string_view kOptions[] = {"num_threads"};
const BackendEntry kEntry{"cpu", kOptions, &create};

class CpuVariant : public Variant {
  public:
    CpuVariant(std::vector<uint8_t> object, std::unique_ptr<llvm_cpu::LoadedObject> loaded,
               llvm_cpu::LoadedObject::EntryFn entry, llvm_cpu::LoadedObject::ResultFn result)
        : object_(std::move(object)), loaded_(std::move(loaded)), entry_(entry), result_(result) {}
    /// The entry whose stores to a write-only output bypass the caches, for launches that write
    /// more than the last-level cache holds (a later read would miss anyway, and the stores then
    /// neither read the lines first nor evict the inputs): triad moves 12 bytes per element
    /// instead of 16.
    void set_streaming(llvm_cpu::LoadedObject::EntryFn entry, int elem_bytes) {
        streaming_entry_ = entry;
        streaming_min_elems_ = entry ? last_level_cache_bytes() / elem_bytes : 0;
    }
    llvm_cpu::LoadedObject::EntryFn entry_for(int64_t total) const {
        return streaming_entry_ && total >= streaming_min_elems_ ? streaming_entry_ : entry_;
    }
    const std::vector<uint8_t>& object() const { return object_; }
    llvm_cpu::LoadedObject::EntryFn entry() const { return entry_; }
    llvm_cpu::LoadedObject::ResultFn result() const { return result_; }
    CostModel& cost() const { return cost_; }
    /// The word a call of `kernel` sets when the heap cannot hold its large local arrays
    /// (codegen/llvm/local_arrays.cpp); nullptr when it has none.
    void set_failure_word(std::atomic<std::int32_t>* word, std::string kernel) {
        failure_ = word;
        name_ = std::move(kernel);
    }
    bool has_heap_arrays() const { return failure_ != nullptr; }
    /// Clears the word; true when a call of the last launch could not allocate.
    bool take_failure() const {
        return failure_ && failure_->exchange(0, std::memory_order_relaxed) != 0;
    }
    /// After a launch: RuntimeError when a call could not allocate (the word is cleared).
    void check_allocations() const {
        if (!take_failure()) return;
        throw RuntimeError("Kernel '" + name_ +
                           "': out of memory for its local arrays (those past 64 KiB come "
                           "from the heap on the CPU); the threads that could not allocate "
                           "ran none of their iterations");
    }

  private:
    std::vector<uint8_t> object_;  // kept for the disk cache
    std::unique_ptr<llvm_cpu::LoadedObject> loaded_;
    llvm_cpu::LoadedObject::EntryFn entry_;
    llvm_cpu::LoadedObject::ResultFn result_;  // null unless the kernel returns a value
    llvm_cpu::LoadedObject::EntryFn streaming_entry_ = nullptr;
    int64_t streaming_min_elems_ = 0;
    std::atomic<std::int32_t>* failure_ = nullptr;
    std::string name_;
    mutable CostModel cost_;  // learned per variant; safe to update from several threads
};

struct RangeContext {
    llvm_cpu::LoadedObject::EntryFn entry;
    const uint64_t* slots;
};

void run_range(void* ctx, int64_t start, int64_t end) {
    auto* c = static_cast<RangeContext*>(ctx);
    c->entry(c->slots, start, end);
}

struct HostTasks {
    void (*task)(void* ctx, int index);
    void* ctx;
};

void run_host_range(void* ctx, int64_t start, int64_t end) {
    auto* t = static_cast<HostTasks*>(ctx);
    for (int64_t i = start; i < end; ++i)
        t->task(t->ctx, static_cast<int>(i));
}

// A graph's fill as a phase: reads the node's bits at each replay (a parameter may set them).
void run_fill(void* ctx, int64_t start, int64_t end) {
    const auto& f = *static_cast<const GraphFill*>(ctx);
    auto elem = static_cast<size_t>(size_bytes(f.dtype));
    fill_elements(static_cast<char*>(f.buffer->host_ptr()) + static_cast<size_t>(start) * elem,
                  f.dtype, f.bits, static_cast<size_t>(end - start));
}

// A captured graph on this device: its launches and fills as phases of one fan-out per replay
// (graph_replay.hpp). The contexts point into the record's nodes, whose slots and bits a
// parameter rewrites in place.
class CpuGraph final : public GraphExec {
  public:
    CpuGraph(ThreadPool* pool, std::vector<RangeContext> launches, std::vector<Phase> phases)
        : pool_(pool), launches_(std::move(launches)), phases_(std::move(phases)) {
        size_t next = 0;
        for (Phase& ph : phases_) {
            if (ph.fn == &run_range) ph.ctx = &launches_[next++];
        }
    }
    void replay(const GraphRecord&, int times) override { replay_phases(pool_, phases_, times); }

  private:
    ThreadPool* pool_;
    std::vector<RangeContext> launches_;
    std::vector<Phase> phases_;
};

class CpuBackend final : public Backend {
  public:
    CpuBackend(std::optional<int> num_threads, llvm_cpu::Lanes lanes)
        : executor_(
              translate_compile_errors([&] { return CpuExecutor::from_environment(num_threads); })),
          lanes_(lanes) {
        llvm_cpu::LoadedObject::prepare();
    }

    const BackendEntry& entry() const override { return kEntry; }
    bool specializes_disjoint() const override { return true; }
    // Every CPU device's arrays are host memory this one can run on.
    bool binds(const Buffer& buffer) const override {
        return &buffer.backend().entry() == &entry();
    }
    int num_threads() const { return executor_->num_threads(); }

    std::shared_ptr<Buffer> allocate_array(std::size_t nbytes) override {
        return HostBuffer::allocate(shared_from_this(), nbytes);
    }
    std::shared_ptr<Buffer> wrap_ptr(void* ptr, std::size_t nbytes) override {
        return HostBuffer::wrap(shared_from_this(), ptr, nbytes);
    }

    int host_threads() const override { return executor_->pool() ? num_threads() : 1; }
    void run_host_tasks(int count, void (*task)(void* ctx, int index), void* ctx) override {
        HostTasks tasks{task, ctx};
        if (count > 1 && executor_->pool()) {
            executor_->pool()->run(&run_host_range, &tasks, 0, count, nullptr, 1);
        } else {
            run_host_range(&tasks, 0, count);
        }
    }

    // The native scan of runtime/cpu/algorithms.hpp over host memory, on the pool's threads.
    std::optional<Scalar> scan_array(const Buffer& src, std::size_t src_offset, Buffer& dst,
                                     std::size_t dst_offset, DType dtype, int64_t n,
                                     bool inclusive) override {
        const auto* in = static_cast<const std::byte*>(src.host_ptr()) + src_offset;
        auto* out = static_cast<std::byte*>(dst.host_ptr()) + dst_offset;
        // Wrapped memory may be misaligned for the element type (CONTRACT D14 allows it): the
        // kernels' unaligned accesses take that.
        const auto align = static_cast<std::uintptr_t>(size_bytes(dtype));
        if (reinterpret_cast<std::uintptr_t>(in) % align ||
            reinterpret_cast<std::uintptr_t>(out) % align)
            return std::nullopt;
        HostParallelism par{host_threads(), [this](int count, HostTaskFn task, void* ctx) {
                                run_host_tasks(count, task, ctx);
                            }};
        return Scalar{dtype, scan_elements(dtype, in, out, n, inclusive, par)};
    }

    std::shared_ptr<const Variant> build_variant(const ir::Kernel& kernel,
                                                 const VariantOptions& options) override {
        auto object =
            llvm_cpu::compile_to_object(kernel, {.noalias = options.noalias, .lanes = lanes_});
        return load(std::move(object), kernel);
    }

    void execute(const Variant& variant, const uint64_t* slots, int64_t total) override {
        const auto& v = static_cast<const CpuVariant&>(variant);
        RangeContext ctx{v.entry_for(total), slots};
        if (auto* poll = support::current_interrupt_poll()) {
            try {
                executor_->dispatch_interruptible(v.cost(), &run_range, &ctx, 0, total, *poll);
            } catch (const support::Interrupted&) {
                v.take_failure();  // a failure of the stopped launch is not the next's
                throw;
            }
        } else {
            executor_->dispatch(v.cost(), &run_range, &ctx, 0, total);
        }
        v.check_allocations();
    }

    std::unique_ptr<GraphExec> instantiate_graph(const GraphRecord& record) override {
        std::vector<RangeContext> launches;
        std::vector<Phase> phases;
        for (const GraphNode& node : record.nodes) {
            if (const auto* l = std::get_if<GraphLaunch>(&node)) {
                const auto& v = static_cast<const CpuVariant&>(*l->variant);
                if (v.has_heap_arrays()) return replay_loop();  // execute() checks each launch
                launches.push_back({v.entry_for(l->total), l->slots.data()});
                phases.push_back({&run_range, nullptr, l->total, pieces(v, l->total)});
                continue;
            }
            const auto& f = std::get<GraphFill>(node);
            if (!f.buffer->host_ptr()) return replay_loop();
            auto count = static_cast<int64_t>(f.count);
            int n = count * size_bytes(f.dtype) >= kSplitFillBytes ? num_threads() : 1;
            phases.push_back({&run_fill, const_cast<GraphFill*>(&f), count, n});
        }
        return std::make_unique<CpuGraph>(executor_->pool(), std::move(launches),
                                          std::move(phases));
    }

    double inline_run_ns(const Variant& variant, int64_t total) const override {
        return executor_->inline_ns(static_cast<const CpuVariant&>(variant).cost(), total);
    }

    void evaluate_result(const Variant& variant, const uint64_t* slots, void* out) override {
        const auto& v = static_cast<const CpuVariant&>(variant);
        if (!v.result()) throw RuntimeError("the compiled kernel has no result function");
        v.result()(slots, out);
        v.check_allocations();  // a prologue's local arrays may come from the heap too
    }

    // A forced lanes setting compiles other code for the same kernel.
    std::optional<std::string> cache_target() const override {
        static constexpr const char* kSuffix[] = {"", ";lanes off", ";lanes on"};
        return llvm_cpu::host_target_fingerprint() + kSuffix[static_cast<int>(lanes_)];
    }
    std::vector<uint8_t> variant_artifact(const Variant& variant) const override {
        return static_cast<const CpuVariant&>(variant).object();
    }
    std::shared_ptr<const Variant> load_variant(std::span<const uint8_t> bytes,
                                                const ir::Kernel& kernel,
                                                const VariantOptions&) override {
        return load(std::vector<uint8_t>(bytes.begin(), bytes.end()), kernel);
    }

  private:
    // A graph's phases split over the threads unless the cost model has measured the launch as
    // shorter than what sharing it costs (a few cache-line transfers per piece).
    static constexpr double kSplitLaunchNs = 800.0;
    static constexpr int64_t kSplitFillBytes = int64_t{1} << 16;
    int pieces(const CpuVariant& v, int64_t total) const {
        if (num_threads() < 2 || total < 2) return 1;
        double ns = executor_->inline_ns(v.cost(), total);
        return ns < kSplitLaunchNs ? 1 : num_threads();
    }

    static std::shared_ptr<const Variant> load(std::vector<uint8_t> object,
                                               const ir::Kernel& kernel) {
        auto loaded = llvm_cpu::LoadedObject::load(object);
        auto entry = loaded ? loaded->entry(kernel.name) : nullptr;
        if (!entry) {
            throw RuntimeError("Kernel '" + kernel.name +
                               "': the compiled object has no entry point");
        }
        auto result = kernel.result ? loaded->result(kernel.name) : nullptr;
        auto streamed = llvm_cpu::streaming_store(kernel);
        auto streaming = streamed ? loaded->streaming_entry(kernel.name) : nullptr;
        auto* loaded_failure = loaded->failure_word(kernel.name);
        auto v = std::make_shared<CpuVariant>(std::move(object), std::move(loaded), entry, result);
        if (streaming) v->set_streaming(streaming, streamed->elem_bytes);
        v->set_failure_word(loaded_failure, kernel.name);
        return v;
    }

    std::unique_ptr<CpuExecutor> executor_;
    llvm_cpu::Lanes lanes_;
};

std::optional<int> num_threads_option(const DeviceOptions& options) {
    auto it = options.find("num_threads");
    if (it == options.end()) return std::nullopt;
    const auto* v = std::get_if<std::int64_t>(&it->second.value());
    if (!v) throw ValueError("The 'cpu' backend's num_threads option must be an integer");
    return static_cast<int>(
        std::clamp<std::int64_t>(*v, 1, INT32_MAX));  // capped by resolve_thread_count
}

// TACK_CPU_LANES is read at each backend construction, like TACK_CPU_THREADS: a test can set
// it and init a fresh backend.
std::shared_ptr<Backend> create(const DeviceOptions& options) {
    return std::make_shared<CpuBackend>(num_threads_option(options), lanes_from_environment());
}

}  // namespace

const BackendEntry& backend_entry() {
    return kEntry;
}

codegen::llvm_cpu::Lanes lanes_from_environment() {
    std::optional<bool> lanes = translate_compile_errors([] { return support::env_cpu_lanes(); });
    if (!lanes) return llvm_cpu::Lanes::Auto;
    return *lanes ? llvm_cpu::Lanes::On : llvm_cpu::Lanes::Off;
}

}  // namespace tack::runtime::cpu
