#include "runtime/gpu/device_backend.hpp"

#include <cstring>

#include "codegen/cfamily/reduction.hpp"
#include "runtime/errors.hpp"
#include "runtime/gpu/image_buffer.hpp"
#include "runtime/gpu/interruptible_wait.hpp"
#include "runtime/gpu/packs.hpp"
#include "runtime/gpu/pointers.hpp"
#include "runtime/graph/graph.hpp"
#include "runtime/result.hpp"

namespace tack::runtime::gpu {

namespace cf = codegen::cfamily;

namespace {

/// A pack buffer: its address and the size it was allocated with.
struct Block {
    std::uint64_t ptr = 0;
    std::size_t bytes = 0;
};

/// An array's device memory. Copies and fills are queued in order with the launches, and the
/// release too, so a dropped array outlives the launches that use it.
class DeviceBuffer final : public Buffer {
  public:
    DeviceBuffer(std::shared_ptr<DeviceBackend> b, std::uint64_t ptr, std::size_t nbytes,
                 bool owned, std::shared_ptr<void> owner)
        : Buffer(std::move(b), ptr, nullptr, nbytes, owned), owner(std::move(owner)) {}
    ~DeviceBuffer() override {
        if (owned() && !owner) device().release_block(address(), nbytes());
    }
    bool copies_in_queue_order() const override { return true; }
    void write(std::size_t offset, const void* src, std::size_t n) override {
        device().copy_in(address() + offset, src, n);
    }
    void read(std::size_t offset, void* dst, std::size_t n) const override {
        device().copy_out(dst, address() + offset, n);
    }

    const std::shared_ptr<void> owner;

  private:
    DeviceBackend& device() const { return static_cast<DeviceBackend&>(backend()); }
};

/// A vendor event, destroyed on every path out of its scope.
struct OwnedEvent {
    DeviceBackend& b;
    void* e;
    ~OwnedEvent() { b.destroy_event(e); }
};

/// A mark on the queue: the vendor's event, with the backend kept alive until it is destroyed.
class DeviceMark final : public QueueMark {
  public:
    explicit DeviceMark(std::shared_ptr<DeviceBackend> b)
        : b_(std::move(b)), event_{*b_, b_->create_event()} {}
    void wait() override { b_->wait_event(event_.e); }
    void* event() const { return event_.e; }

  private:
    std::shared_ptr<DeviceBackend> b_;  // declared first: destroyed after the event
    OwnedEvent event_;
};

}  // namespace

std::shared_ptr<Buffer> DeviceBackend::device_buffer(std::uint64_t ptr, std::size_t nbytes,
                                                     bool owned, std::shared_ptr<void> owner) {
    auto self = std::static_pointer_cast<DeviceBackend>(shared_from_this());
    return std::make_shared<DeviceBuffer>(self, ptr, nbytes, owned, std::move(owner));
}

const std::shared_ptr<void>& DeviceBackend::owner_of(const Buffer& buffer) {
    static const std::shared_ptr<void> kNone;
    const auto* b = dynamic_cast<const DeviceBuffer*>(&buffer);
    return b ? b->owner : kNone;
}

std::shared_ptr<Buffer> DeviceBackend::allocate_array(std::size_t nbytes) {
    return device_buffer(allocate_block(nbytes), nbytes, true);
}

std::shared_ptr<Buffer> DeviceBackend::wrap_ptr(void* ptr, std::size_t nbytes) {
    require_device_pointer(*this, ptr, nbytes);
    return device_buffer(reinterpret_cast<std::uint64_t>(ptr), nbytes, false);
}

bool DeviceBackend::fill_array(Buffer& buffer, const void* pattern, std::size_t elem_size,
                               std::size_t count) {
    if (count == 0 || (elem_size != 1 && elem_size != 2 && elem_size != 4)) return false;
    require_linear(buffer);
    std::uint32_t v = 0;
    std::memcpy(&v, pattern, elem_size);
    fill_block(buffer.address(), v, elem_size, count);
    if (buffer.shared()) synchronize();  // another library may read it now
    return true;
}

bool DeviceBackend::copy_array(Buffer& dst, const Buffer& src, std::size_t nbytes) {
    if (nbytes == 0 || !binds(src)) return false;
    require_linear(src);
    copy_block(dst.address(), src.address(), nbytes);
    if (dst.shared() || src.shared()) synchronize();
    return true;
}

std::unique_ptr<QueueMark> DeviceBackend::mark_queue() {
    auto self = std::static_pointer_cast<DeviceBackend>(shared_from_this());
    auto mark = std::make_unique<DeviceMark>(self);  // destroys the event on any path
    record_event(mark->event());
    return mark;
}

void DeviceBackend::wait_for_queue(bool interruptible) {
    // No QueueMark: a backend waits in its destructor too, where it has no shared_ptr left.
    OwnedEvent event{*this, create_event()};
    record_event(event.e);
    if (interruptible) wait_interruptibly([&] { return event_done(event.e); });
    wait_event(event.e);
}

std::shared_ptr<Buffer> DeviceBackend::make_texture_image(const Buffer& source,
                                                          std::uint64_t address,
                                                          const std::array<std::int64_t, 3>& whd) {
    if (!texture_in_hardware(whd) || !binds(source) || as_image(source)) return nullptr;
    auto self = std::static_pointer_cast<DeviceBackend>(shared_from_this());
    auto bytes = static_cast<std::size_t>(whd[0] * whd[1] * whd[2]) * sizeof(float);
    Image image = make_image(address, whd);
    return std::make_shared<ImageBuffer>(self, image.object, bytes,
                                         [self, image] { self->destroy_image(image); });
}

namespace {

/// What each argument of a generated kernel is (launch_code's `kinds`), from its ABI.
std::vector<DeviceBackend::ArgKind> argument_kinds(const cf::KernelAbi& abi) {
    using Kind = DeviceBackend::ArgKind;
    std::vector<Kind> kinds(static_cast<std::size_t>(abi.num_args), Kind::Array);
    for (const cf::AbiParam& p : abi.params)
        if (p.is_array && p.is_texture) kinds[std::size_t(p.arg_index)] = Kind::Texture;
    if (abi.n_arg_index >= 0) kinds[std::size_t(abi.n_arg_index)] = Kind::Value;
    return kinds;
}

/// The reduction kernels' arguments (cf::array_reduction_source): x, out, the count, the stride.
constexpr DeviceBackend::ArgKind kReductionKinds[] = {
    DeviceBackend::ArgKind::Array, DeviceBackend::ArgKind::Array, DeviceBackend::ArgKind::Value,
    DeviceBackend::ArgKind::Value};

}  // namespace

/// A loaded module and its entry, with per-launch pack buffers (PackSlots). `mutex_` is the
/// seed's dispatch_lock: held from packing the scalars until the launch is queued (D16), so
/// different variants still dispatch concurrently.
class DeviceVariant final : public Variant {
  public:
    DeviceVariant(std::shared_ptr<DeviceBackend> backend, std::string name, CodeArtifact artifact,
                  DeviceBackend::Code code)
        : backend_(std::move(backend)),
          name_(std::move(name)),
          artifact_(std::move(artifact)),
          code_(code),
          kinds_(argument_kinds(artifact_.abi)),
          packs_(artifact_.abi.packs.size()) {}
    ~DeviceVariant() override {
        packs_.clear([&](Block b) { backend_->release_block(b.ptr, b.bytes); });
        try {
            backend_->synchronize();  // no queued launch uses the module any more
        } catch (const std::exception&) {
        }
        backend_->unload(code_);
    }

    std::shared_ptr<DeviceBackend> backend_;  // the context outlives the module
    std::string name_;
    CodeArtifact artifact_;  // the vendor's code + ABI
    DeviceBackend::Code code_;
    std::vector<DeviceBackend::ArgKind> kinds_;
    mutable std::mutex mutex_;
    mutable PackSlots<Block> packs_;  // guarded by mutex_
    std::shared_ptr<const ir::Kernel> result_kernel_;
};

DeviceBackend::Code DeviceBackend::load(const std::vector<std::uint8_t>& code,
                                        const std::string& entry, const std::string& kernel) {
    Code c;
    if (std::string e = load_module(code, &c.module); !e.empty())
        throw RuntimeError("Kernel '" + kernel + "': loading its module failed: " + e);
    if (std::string e = find_function(c.module, entry, &c.function); !e.empty()) {
        unload(c);
        throw RuntimeError("Kernel '" + kernel + "': its module has no entry " + entry + ": " + e);
    }
    return c;
}

std::shared_ptr<const Variant> DeviceBackend::make_variant(std::string name, CodeArtifact artifact,
                                                           const ir::Kernel* kernel) {
    Code code = load(artifact.code, artifact.abi.entry, kernel ? kernel->name : name);
    auto self = std::static_pointer_cast<DeviceBackend>(shared_from_this());
    auto v = std::make_shared<DeviceVariant>(self, std::move(name), std::move(artifact), code);
    if (kernel && kernel->result) v->result_kernel_ = std::make_shared<ir::Kernel>(*kernel);
    return v;
}

std::shared_ptr<const Variant> DeviceBackend::build_variant(const ir::Kernel& kernel,
                                                            const VariantOptions&) {
    auto gen = generate(kernel, dialect(), geometry_);
    CodeArtifact artifact;
    artifact.code = compile(gen.source, kernel.name);
    artifact.abi = std::move(gen.abi);
    auto v = make_variant(kernel.name, std::move(artifact), &kernel);
    ++built_;
    return v;
}

std::vector<std::uint8_t> DeviceBackend::variant_artifact(const Variant& variant) const {
    return encode_artifact(static_cast<const DeviceVariant&>(variant).artifact_);
}

std::shared_ptr<const Variant> DeviceBackend::load_variant(std::span<const std::uint8_t> bytes,
                                                           const ir::Kernel& kernel,
                                                           const VariantOptions&) {
    // Code, entry and layouts come from the cache: no code generation, no vendor compiler. The
    // checks generate() makes (D13, D12 lanes) ran when the artifact was built for this target.
    std::optional<CodeArtifact> artifact = decode_artifact(bytes);
    if (!artifact) return nullptr;
    auto v = make_variant(kernel.name, std::move(*artifact), &kernel);
    ++loaded_;
    return v;
}

void DeviceBackend::execute(const Variant&, const std::uint64_t*, std::int64_t) {
    throw diag::InternalError(std::string(display_name()) +
                              " launches bind buffers: call dispatch()");
}

void DeviceBackend::launch(const Variant& variant, const LaunchArgs& args) {
    const auto& v = static_cast<const DeviceVariant&>(variant);
    const auto& abi = v.artifact_.abi;
    check_dispatch(v.name_, abi, args.total, geometry_);  // before anything is queued
    auto packs =
        abi.pack_scalars(std::vector<std::uint64_t>(args.slots, args.slots + abi.params.size()));
    std::vector<std::uint64_t> values(static_cast<std::size_t>(abi.num_args));
    std::vector<void*> params(values.size());
    bool complete = false;
    for (std::size_t i = 0; i < abi.params.size(); ++i) {
        const cf::AbiParam& p = abi.params[i];
        if (!p.is_array) continue;
        const Buffer& b = *args.buffers[i];
        values[std::size_t(p.arg_index)] = kernel_argument(p, b, b.address(), v.name_);
        complete = complete || completes_before_return(p, b);
    }
    std::int64_t n = args.total;
    {
        std::lock_guard guard(v.mutex_);
        for (std::size_t j = 0; j < packs.size(); ++j) {
            auto make = [&](const std::vector<std::uint8_t>& bytes) {
                Block b{allocate_block(bytes.size()), bytes.size()};
                copy_in(b.ptr, bytes.data(), bytes.size());
                return b;
            };
            auto drop = [&](Block b) { release_block(b.ptr, b.bytes); };  // in queue order
            values[std::size_t(abi.packs[j].arg_index)] =
                v.packs_.bind(j, std::move(packs[j]), make, drop).ptr;
        }
        for (std::size_t a = 0; a < values.size(); ++a)
            params[a] = &values[a];
        if (abi.n_arg_index >= 0) params[std::size_t(abi.n_arg_index)] = &n;
        launch_code(v.code_,
                    {unsigned(geometry_.groups(n)), unsigned(geometry_.group), std::uint64_t(n),
                     params.data(), v.kinds_, abi.uses_collectives},
                    "the kernel launch");
    }
    if (complete) synchronize();
}

void DeviceBackend::dispatch(const Variant& variant, const LaunchArgs& args, void* result) {
    if (args.total > 0) launch(variant, args);
    if (!result) return;
    const auto& v = static_cast<const DeviceVariant&>(variant);
    if (!v.result_kernel_) throw RuntimeError("the compiled kernel has no result");
    ResultInputs in{v.result_kernel_.get(), args.slots, args.buffers,
                    [&](int param, std::size_t offset, void* dst, std::size_t bytes) {
                        copy_out(dst, args.buffers[param]->address() + offset, bytes);
                    }};
    runtime::evaluate_result(in, result);
}

std::optional<double> DeviceBackend::reduce_array(const Buffer& buffer, DType dtype,
                                                  std::int64_t count, ir::ReduceOp op) {
    if (dtype != DType::f32) return std::nullopt;  // E4: other dtypes on the host
    ReduceDecision d = plan_reduction(count, op, geometry_, ~std::uint64_t(0));
    if (d.empty) return 0.0;
    std::shared_ptr<const Variant> reducer;
    {
        std::lock_guard guard(reduce_mutex_);
        auto& slot = reducers_[static_cast<int>(op)];
        if (!slot) {
            std::string entry = cf::array_reduction_entry(op);
            CodeArtifact a;
            a.abi.entry = entry;
            a.code = compile(cf::array_reduction_source(dialect(), op), entry);
            slot = make_variant(entry, std::move(a), nullptr);
        }
        reducer = slot;
    }
    const auto& r = static_cast<const DeviceVariant&>(*reducer);
    std::uint64_t out = allocate_block(sizeof(float));
    float result = d.plan.identity;
    copy_in(out, &result, sizeof result);
    std::uint64_t in = buffer.address();
    std::int64_t n = d.plan.count, stride = d.plan.stride;
    void* params[] = {&in, &out, &n, &stride};
    launch_code(r.code_,
                {unsigned(d.plan.groups), unsigned(kCollectiveLanes),
                 d.plan.groups * kCollectiveLanes, params, kReductionKinds, true},
                "the reduction launch");
    copy_out(&result, out, sizeof result);
    release_block(out, sizeof(float));
    return static_cast<double>(result);
}

}  // namespace tack::runtime::gpu

namespace tack::runtime::gpu {

/// A captured graph as the vendor's executable graph. Scalars reach kernels through pack
/// arrays (CONTRACT D9's packing), one set per launch node, owned here: a parameter change
/// rewrites them with queued copies, in order with the replays before and after it, and the
/// graph itself never changes.
class VendorGraph final : public GraphExec {
  public:
    VendorGraph(std::shared_ptr<DeviceBackend> backend, const GraphRecord& record)
        : backend_(std::move(backend)) {
        DeviceBackend& b = *backend_;
        std::vector<DeviceBackend::GraphStep> steps;
        // Per launch: its argument words and the pointers to them (the driver copies both).
        std::vector<std::vector<std::uint64_t>> values;
        std::vector<std::vector<void*>> params;
        std::vector<std::int64_t> counts;
        values.reserve(record.nodes.size());
        params.reserve(record.nodes.size());
        counts.reserve(record.nodes.size());
        try {
            for (std::size_t i = 0; i < record.nodes.size(); ++i) {
                if (const auto* f = std::get_if<GraphFill>(&record.nodes[i])) {
                    require_linear(*f->buffer);
                    DeviceBackend::GraphStep s;
                    std::memcpy(&s.pattern, &f->bits, std::size_t(size_bytes(f->dtype)));
                    s.dst = f->buffer->address();
                    s.elem_size = std::size_t(size_bytes(f->dtype));
                    s.count = f->count;
                    steps.push_back(s);
                    continue;
                }
                const auto& l = std::get<GraphLaunch>(record.nodes[i]);
                const auto& v = static_cast<const DeviceVariant&>(*l.variant);
                const auto& abi = v.artifact_.abi;
                check_dispatch(v.name_, abi, l.total, b.geometry_);
                auto& vals = values.emplace_back(std::size_t(abi.num_args));
                for (std::size_t a = 0; a < abi.params.size(); ++a) {
                    const cf::AbiParam& p = abi.params[a];
                    if (p.is_array)
                        vals[std::size_t(p.arg_index)] =
                            kernel_argument(p, *l.buffers[a], l.buffers[a]->address(), v.name_);
                }
                Packs packs{i, {}};
                for (auto& bytes : pack_bytes(l)) {
                    Block block{b.allocate_block(bytes.size()), bytes.size()};
                    packs.blocks.push_back(block);
                    b.copy_in(block.ptr, bytes.data(), bytes.size());
                }
                for (std::size_t j = 0; j < packs.blocks.size(); ++j)
                    vals[std::size_t(abi.packs[j].arg_index)] = packs.blocks[j].ptr;
                packs_.push_back(std::move(packs));
                counts.push_back(l.total);
                auto& ptrs = params.emplace_back(vals.size());
                for (std::size_t a = 0; a < vals.size(); ++a)
                    ptrs[a] = &vals[a];
                ptrs[std::size_t(abi.n_arg_index)] = &counts.back();
                steps.push_back({v.code_, unsigned(b.geometry_.groups(l.total)),
                                 unsigned(b.geometry_.group), ptrs.data()});
            }
            exec_ = build(b, steps);
        } catch (...) {
            release_packs();
            throw;
        }
        version_ = record.version;
    }

    ~VendorGraph() override {
        try {
            backend_->synchronize();  // no queued replay uses the graph any more
        } catch (const std::exception&) {
        }
        backend_->destroy_graph(exec_);
        release_packs();
    }

    void replay(const GraphRecord& record, int times) override {
        if (record.version != version_) {  // a parameter changed: new pack contents, queued
            for (const Packs& packs : packs_) {
                const auto& l = std::get<GraphLaunch>(record.nodes[packs.node]);
                auto bytes = pack_bytes(l);
                for (std::size_t j = 0; j < bytes.size(); ++j)
                    backend_->copy_in(packs.blocks[j].ptr, bytes[j].data(), bytes[j].size());
            }
            version_ = record.version;
        }
        for (int t = 0; t < times; ++t)
            backend_->launch_graph(exec_);
    }

    /// Whether every node of `record` can be a node of a vendor graph.
    static bool fits(const GraphRecord& record) {
        for (const auto& p : record.params) {
            for (const auto& use : p.uses) {
                if (std::holds_alternative<GraphFill>(record.nodes[use.node])) return false;
            }
        }
        for (const GraphNode& node : record.nodes) {
            if (const auto* f = std::get_if<GraphFill>(&node)) {
                auto elem = size_bytes(f->dtype);
                if (f->count == 0 || elem > 4 || f->buffer->shared()) return false;
                continue;
            }
            const auto& l = std::get<GraphLaunch>(node);
            const auto& abi = static_cast<const DeviceVariant&>(*l.variant).artifact_.abi;
            for (std::size_t a = 0; a < abi.params.size(); ++a) {
                if (abi.params[a].is_array && completes_before_return(abi.params[a], *l.buffers[a]))
                    return false;
            }
        }
        return true;
    }

  private:
    // One chain: each node after the one before.
    static void* build(DeviceBackend& b, const std::vector<DeviceBackend::GraphStep>& steps) {
        void* graph = b.graph_create();
        try {
            void* last = nullptr;
            for (const auto& step : steps)
                last = b.graph_add(graph, last, step);
        } catch (...) {
            b.graph_discard(graph);
            throw;
        }
        return b.graph_instantiate(graph);
    }

    struct Packs {
        std::size_t node;
        std::vector<Block> blocks;  // in abi.packs order
    };

    static std::vector<std::vector<std::uint8_t>> pack_bytes(const GraphLaunch& l) {
        const auto& abi = static_cast<const DeviceVariant&>(*l.variant).artifact_.abi;
        return abi.pack_scalars(
            std::vector<std::uint64_t>(l.slots.begin(), l.slots.begin() + abi.params.size()));
    }

    void release_packs() noexcept {
        for (const Packs& packs : packs_) {
            for (const Block& b : packs.blocks)
                backend_->release_block(b.ptr, b.bytes);  // in queue order, after the replays
        }
        packs_.clear();
    }

    std::shared_ptr<DeviceBackend> backend_;
    void* exec_ = nullptr;
    std::vector<Packs> packs_;
    std::uint64_t version_ = 0;
};

std::unique_ptr<GraphExec> DeviceBackend::instantiate_graph(const GraphRecord& record) {
    if (!has_graphs() || record.nodes.empty() || !VendorGraph::fits(record)) return replay_loop();
    auto self = std::static_pointer_cast<DeviceBackend>(shared_from_this());
    auto graph = std::make_unique<VendorGraph>(self, record);
    ++graphs_;
    return graph;
}

}  // namespace tack::runtime::gpu
