#include "runtime/metal/metal_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "codegen/cfamily/dialect.hpp"
#include "runtime/errors.hpp"
#include "support/env.hpp"

namespace tack::runtime::metal {

namespace {

std::shared_ptr<Backend> create(const DeviceOptions&) {
    std::string why;
    const Messages* m = Messages::get(&why);
    if (!m) backend_unavailable("metal", why);
    AutoreleasePool pool(*m);
    Id device = m->create_device();
    if (!device) backend_unavailable("metal", "no Metal device (MTLCreateSystemDefaultDevice)");
    return std::make_shared<MetalBackend>(*m, device);
}

const BackendEntry kEntry{"metal", {}, &create};

/// A kernel's pipeline state and what it was made from (DeviceBackend::Code::function).
struct Pipeline {
    Id function = nullptr, state = nullptr;
    unsigned max_threads = 0;  // maxTotalThreadsPerThreadgroup
};

/// A mark on the queue: the batch whose completion it waits for (0: nothing to wait for).
struct Mark {
    std::uint64_t sequence = 0;
};

constexpr std::uint64_t kLaunchLimit = std::uint64_t(1) << 32;  // thread_position_in_grid: uint
constexpr std::int64_t kMaxTexture3D = 2048;

}  // namespace

const BackendEntry& backend_entry() {
    return kEntry;
}

MetalBackend::MetalBackend(const Messages& m, Id device) : m_(m), device_(device) {
    AutoreleasePool pool(m_);
    queue_ = m_.send(device_, m_.newCommandQueue);
    if (!queue_) {
        m_.release_object(device_);
        throw RuntimeError("Metal: newCommandQueue failed");
    }
    device_name_ = m_.text(m_.send(device_, m_.name));
    geometry_ = {"Metal", gpu::kCollectiveLanes, kLaunchLimit};
}

MetalBackend::~MetalBackend() {
    try {
        std::lock_guard lock(mutex_);
        wait_through(open_sequence_);
    } catch (const std::exception&) {  // an error of a queued launch nobody waited for
    }
    std::lock_guard lock(mutex_);
    for (auto& [address, block] : blocks_)
        if (block.owned) m_.release_object(block.buffer);  // wrapping fields release their own
    for (Id t : textures_)
        m_.release_object(t);
    m_.release_object(queue_);
    m_.release_object(device_);
}

bool MetalBackend::texture_in_hardware(const std::array<std::int64_t, 3>& whd) const {
    return gpu::texture_fits(whd, kMaxTexture3D);
}

const codegen::cfamily::Dialect& MetalBackend::dialect() const {
    return codegen::cfamily::metal_dialect();
}

// --- kernels -------------------------------------------------------------------------------

std::vector<std::uint8_t> MetalBackend::compile(const std::string& source,
                                                const std::string& kernel) {
    // The artifact is the source: Metal compiles it at load, and caches compiled libraries on
    // its own. TACK_DUMP_MSL writes it where the seed did.
    if (support::env_flag("TACK_DUMP_MSL")) {
        std::string path = "/tmp/tack_" + kernel + ".msl";
        std::ofstream(path) << source;
        std::fprintf(stderr, "tack: wrote the MSL of kernel '%s' to %s\n", kernel.c_str(),
                     path.c_str());
    }
    return {source.begin(), source.end()};
}

std::string MetalBackend::load_module(const std::vector<std::uint8_t>& code, void** module) {
    AutoreleasePool pool(m_);
    std::string source(code.begin(), code.end());
    Id options = m_.make(m_.compile_options);
    m_.send<void>(options, m_.setFastMathEnabled, static_cast<signed char>(0));  // CONTRACT B20
    Id text = m_.string(source);
    Id error = nullptr;
    Id library = m_.send(device_, m_.newLibraryWithSource, text, options, &error);
    m_.release_object(text);
    m_.release_object(options);
    if (!library)
        return "newLibraryWithSource:options:error: " +
               m_.describe(error, "the Metal compiler gave no reason") + "\nMSL source:\n" + source;
    *module = library;
    return "";
}

std::string MetalBackend::find_function(void* module, const std::string& entry, void** function) {
    AutoreleasePool pool(m_);
    Id name = m_.string(entry);
    Id fn = m_.send(module, m_.newFunctionWithName, name);
    m_.release_object(name);
    if (!fn) return "newFunctionWithName: the library has no function " + entry;
    Id error = nullptr;
    Id state = m_.send(device_, m_.newComputePipelineState, fn, &error);
    if (!state) {
        m_.release_object(fn);
        return "newComputePipelineStateWithFunction:error: " +
               m_.describe(error, "no reason given");
    }
    auto* p = new Pipeline{fn, state, 0};
    p->max_threads = unsigned(m_.send<unsigned long>(state, m_.maxTotalThreadsPerThreadgroup));
    *function = p;
    return "";
}

void MetalBackend::unload(Code code) noexcept {
    auto* p = static_cast<Pipeline*>(code.function);
    if (p) {
        m_.release_object(p->state);
        m_.release_object(p->function);
        delete p;
    }
    m_.release_object(code.module);
}

void MetalBackend::launch_code(Code code, const LaunchShape& shape, const char* what) {
    const auto* p = static_cast<const Pipeline*>(code.function);
    // The seed's group: min(maxTotalThreadsPerThreadgroup, 256); collectives need all 256.
    unsigned width = std::min<unsigned>(shape.group, p->max_threads);
    if (shape.complete_groups && width != shape.group)
        throw RuntimeError("Metal: " + std::string(what) + " needs threadgroups of " +
                           std::to_string(shape.group) + " threads, but the pipeline admits " +
                           std::to_string(p->max_threads) + " (maxTotalThreadsPerThreadgroup)");
    if (shape.threads == 0) return;
    std::lock_guard lock(mutex_);
    AutoreleasePool pool(m_);
    Id commands = open_commands();
    // A fresh argument buffer per launch (CONTRACT E13): one word per argument, the arrays
    // declared resident. It and every resource it names are held until the batch completes.
    std::size_t words = std::max<std::size_t>(shape.kinds.size(), 1);
    Id args = m_.send(device_, m_.newBufferWithLength, words * 8, kStorageModeShared);
    if (!args) throw std::bad_alloc();
    open_keep_.push_back(args);  // owned: released when the batch completes
    auto* out = static_cast<std::uint64_t*>(m_.send<void*>(args, m_.contents));
    std::memset(out, 0, words * 8);
    Id encoder = m_.send(commands, m_.computeCommandEncoder);
    m_.send<void>(encoder, m_.setComputePipelineState, p->state);
    for (std::size_t i = 0; i < shape.kinds.size(); ++i) {
        std::uint64_t word = 0;
        std::memcpy(&word, shape.params[i], sizeof word);
        switch (shape.kinds[i]) {
            case ArgKind::Array: {
                Block* b = block_of(word);
                if (!b) {
                    m_.send<void>(encoder, m_.endEncoding);
                    throw RuntimeError("Metal: " + std::string(what) + ": argument " +
                                       std::to_string(i) + " is not a Metal buffer of this device");
                }
                out[i] = b->gpu + (word - b->address);
                m_.send<void>(encoder, m_.useResource, b->buffer,
                              kResourceUsageRead | kResourceUsageWrite);
                hold(b->buffer);
                b->last_use = open_sequence_;
                break;
            }
            case ArgKind::Texture: {
                Id texture = reinterpret_cast<Id>(word);
                out[i] = m_.send<ResourceId>(texture, m_.gpuResourceID).impl;
                m_.send<void>(encoder, m_.useResource, texture, kResourceUsageRead);
                hold(texture);
                break;
            }
            case ArgKind::Value:
                out[i] = word;
                break;
        }
    }
    m_.send<void>(encoder, m_.setBuffer, args, 0ul, 0ul);
    m_.send<void>(encoder, m_.dispatchThreads, Size{shape.threads, 1, 1}, Size{width, 1, 1});
    m_.send<void>(encoder, m_.endEncoding);
    count_command();
}

// --- the queue -----------------------------------------------------------------------------

Id MetalBackend::open_commands() {
    if (!open_) {
        open_ = m_.send(queue_, m_.commandBuffer);  // autoreleased: kept, so retained
        if (!open_) throw RuntimeError("Metal: commandBuffer failed");
        m_.retain_object(open_);
    }
    return open_;
}

void MetalBackend::hold(Id object) {
    m_.retain_object(object);
    open_keep_.push_back(object);
}

void MetalBackend::count_command() {
    if (++open_commands_ >= kBatch) commit_open();
}

void MetalBackend::commit_open() {
    if (!open_) return;
    m_.send<void>(open_, m_.commit);
    in_flight_.push_back({open_, std::move(open_keep_), open_sequence_});
    open_keep_.clear();
    open_ = nullptr;
    open_commands_ = 0;
    ++open_sequence_;
    ++committed_;
    while (in_flight_.size() > kInFlight)
        retire_oldest();
}

void MetalBackend::retire_oldest() {
    Batch b = std::move(in_flight_.front());
    in_flight_.pop_front();
    m_.send<void>(b.commands, m_.waitUntilCompleted);
    if (m_.send<unsigned long>(b.commands, m_.status) == kCommandBufferError && failure_.empty()) {
        AutoreleasePool pool(m_);
        failure_ = m_.describe(m_.send(b.commands, m_.error), "the command buffer failed");
    }
    for (Id o : b.keep)
        m_.release_object(o);
    m_.release_object(b.commands);
    completed_ = b.sequence;
}

void MetalBackend::throw_failure() {
    if (failure_.empty()) return;
    std::string why = std::move(failure_);
    failure_.clear();
    throw RuntimeError("Metal: a queued launch failed (command buffer): " + why);
}

void MetalBackend::wait_through(std::uint64_t sequence) {
    if (open_ && sequence >= open_sequence_) commit_open();
    while (!in_flight_.empty() && in_flight_.front().sequence <= sequence)
        retire_oldest();
    throw_failure();
}

void MetalBackend::wait_for_users(std::uint64_t address) {
    Block* b = block_of(address);
    if (b && b->last_use > completed_) wait_through(b->last_use);
}

void MetalBackend::synchronize() {
    wait_for_queue(/*interruptible=*/true);  // a Ctrl-C ends tack.sync()'s wait
}

void* MetalBackend::create_event() {
    return new Mark{};
}

void MetalBackend::record_event(void* event) {
    std::lock_guard lock(mutex_);
    // The last batch with work in it: the open one (committed now) or the last committed one.
    static_cast<Mark*>(event)->sequence = open_ ? open_sequence_ : open_sequence_ - 1;
    commit_open();
}

void MetalBackend::wait_event(void* event) {
    std::lock_guard lock(mutex_);
    wait_through(static_cast<Mark*>(event)->sequence);
}

bool MetalBackend::event_done(void* event) {
    std::lock_guard lock(mutex_);
    std::uint64_t sequence = static_cast<Mark*>(event)->sequence;
    for (const Batch& b : in_flight_)
        if (b.sequence <= sequence &&
            m_.send<unsigned long>(b.commands, m_.status) < kCommandBufferCompleted)
            return false;
    return true;
}

void MetalBackend::destroy_event(void* event) noexcept {
    delete static_cast<Mark*>(event);
}

// --- memory --------------------------------------------------------------------------------

MetalBackend::Block* MetalBackend::block_of(std::uint64_t address) {
    auto it = blocks_.upper_bound(address);
    if (it == blocks_.begin()) return nullptr;
    --it;
    Block& b = it->second;
    return address < it->first + std::max<std::size_t>(b.bytes, 1) ? &b : nullptr;
}

std::uint64_t MetalBackend::allocate_block(std::size_t nbytes) {
    AutoreleasePool pool(m_);
    std::size_t bytes = std::max<std::size_t>(nbytes, 1);
    Id buffer = m_.send(device_, m_.newBufferWithLength, bytes, kStorageModeShared);
    if (!buffer) throw std::bad_alloc();
    auto address = reinterpret_cast<std::uint64_t>(m_.send<void*>(buffer, m_.contents));
    std::memset(reinterpret_cast<void*>(address), 0, bytes);  // CONTRACT E12: zero-filled
    std::uint64_t gpu = m_.send<std::uint64_t>(buffer, m_.gpuAddress);
    std::lock_guard lock(mutex_);
    blocks_[address] = {address, buffer, bytes, gpu, 0};
    return address;
}

void MetalBackend::release_block(std::uint64_t address, std::size_t) noexcept {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(address);
    if (it == blocks_.end() || !it->second.owned) return;
    m_.release_object(it->second.buffer);  // the batches using it hold their own references
    it->second.owned = false;
    if (it->second.wraps == 0) blocks_.erase(it);  // else a field wrapping its export holds it
}

std::shared_ptr<Buffer> MetalBackend::wrap_ptr(void* object, std::size_t nbytes) {
    AutoreleasePool pool(m_);
    Id buffer = object;
    // Every Objective-C object answers -respondsToSelector: (pyobjc hands out objects only).
    if (!buffer || !m_.responds(buffer, m_.contents) || !m_.responds(buffer, m_.length) ||
        !m_.responds(buffer, m_.device) || !m_.responds(buffer, m_.gpuAddress))
        throw TypeError(
            "field_from_ptr() on the Metal backend wraps an MTLBuffer object; this "
            "object does not answer -contents, -length, -device and -gpuAddress");
    if (m_.send(buffer, m_.device) != device_)
        throw ValueError(
            "field_from_ptr(): the MTLBuffer belongs to another MTLDevice than "
            "the Metal backend's '" +
            device_name_ + "'");
    auto address = reinterpret_cast<std::uint64_t>(m_.send<void*>(buffer, m_.contents));
    if (!address)
        throw ValueError(
            "field_from_ptr(): the MTLBuffer has no CPU address (private storage); "
            "Tack's Metal fields live in shared storage (MTLResourceStorageModeShared)");
    auto length = m_.send<unsigned long>(buffer, m_.length);
    if (length < nbytes)
        throw ValueError("field_from_ptr(): the MTLBuffer holds " + std::to_string(length) +
                         " bytes, but the shape needs " + std::to_string(nbytes));
    {
        std::lock_guard lock(mutex_);
        auto it = blocks_.find(address);
        if (it != blocks_.end() && it->second.buffer != buffer)
            throw RuntimeError("Metal: two buffers at one contents address");  // never: Metal
        if (it == blocks_.end()) {
            Block b{address, buffer, length, m_.send<std::uint64_t>(buffer, m_.gpuAddress), 0};
            b.owned = false;
            it = blocks_.emplace(address, b).first;
        }
        ++it->second.wraps;
        m_.retain_object(buffer);
    }
    // The reference and the count go with the field; the backend outlives its buffers, and
    // the owner is dropped with the field's buffer.
    auto self = std::static_pointer_cast<MetalBackend>(shared_from_this());
    std::shared_ptr<void> owner(buffer, [self, address](void* held) {
        self->unwrap(address);
        self->m_.release_object(held);
    });
    return device_buffer(address, nbytes, /*owned=*/false, std::move(owner));
}

void MetalBackend::unwrap(std::uint64_t address) noexcept {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(address);
    if (it == blocks_.end() || it->second.wraps == 0) return;
    if (--it->second.wraps == 0 && !it->second.owned) blocks_.erase(it);
}

std::optional<ExportedMemory> MetalBackend::export_memory(const Buffer& buffer) {
    std::lock_guard lock(mutex_);
    Block* b = block_of(buffer.address());
    if (!b || b->address != buffer.address())
        throw RuntimeError("Metal: export_memory() of memory that is not one MTLBuffer");
    wait_for_users(b->address);  // what the importer reads first is the queued launches' result
    Id held = b->buffer;
    m_.retain_object(held);
    ExportedMemory out;
    out.backend = "metal";
    out.size = buffer.nbytes();
    out.allocation_size = b->bytes;
    out.handle = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(held));
    out.handle_type = "mtl_buffer";
    out.live = true;
    auto self = std::static_pointer_cast<MetalBackend>(shared_from_this());
    out.keep = std::shared_ptr<void>(held, [self](void* o) { self->m_.release_object(o); });
    return out;
}

void MetalBackend::copy_in(std::uint64_t dst, const void* src, std::size_t n) {
    if (n == 0) return;
    std::lock_guard lock(mutex_);
    wait_for_users(dst);
    std::memcpy(reinterpret_cast<void*>(dst), src, n);
}

void MetalBackend::copy_out(void* dst, std::uint64_t src, std::size_t n) {
    std::lock_guard lock(mutex_);
    wait_for_users(src);
    if (n) std::memcpy(dst, reinterpret_cast<const void*>(src), n);
}

void MetalBackend::copy_block(std::uint64_t dst, std::uint64_t src, std::size_t n) {
    if (n == 0) return;
    std::lock_guard lock(mutex_);
    Block *d = block_of(dst), *s = block_of(src);
    if (!d || !s) throw RuntimeError("Metal: a device copy names memory that is not a buffer");
    AutoreleasePool pool(m_);
    Id blit = m_.send(open_commands(), m_.blitCommandEncoder);
    m_.send<void>(blit, m_.copyBuffer, s->buffer, (unsigned long)(src - s->address), d->buffer,
                  (unsigned long)(dst - d->address), (unsigned long)n);
    m_.send<void>(blit, m_.endEncoding);
    hold(s->buffer);
    hold(d->buffer);
    d->last_use = s->last_use = open_sequence_;
    count_command();
}

void MetalBackend::fill_block(std::uint64_t dst, std::uint32_t pattern, std::size_t elem_size,
                              std::size_t count) {
    std::lock_guard lock(mutex_);
    // fillBuffer:range:value: repeats one byte; wider patterns are written by the host once
    // the buffer's users are done (shared storage).
    bool one_byte = true;
    for (std::size_t k = 1; k < elem_size; ++k)
        one_byte = one_byte && ((pattern >> (8 * k)) & 0xff) == (pattern & 0xff);
    if (!one_byte) {
        wait_for_users(dst);
        auto* p = reinterpret_cast<unsigned char*>(dst);
        for (std::size_t i = 0; i < count; ++i)
            std::memcpy(p + i * elem_size, &pattern, elem_size);
        return;
    }
    Block* b = block_of(dst);
    if (!b) throw RuntimeError("Metal: a fill names memory that is not a buffer");
    AutoreleasePool pool(m_);
    Id blit = m_.send(open_commands(), m_.blitCommandEncoder);
    m_.send<void>(blit, m_.fillBuffer, b->buffer, Range{dst - b->address, count * elem_size},
                  static_cast<unsigned char>(pattern & 0xff));
    m_.send<void>(blit, m_.endEncoding);
    hold(b->buffer);
    b->last_use = open_sequence_;
    count_command();
}

// --- textures ------------------------------------------------------------------------------

gpu::DeviceBackend::Image MetalBackend::make_image(std::uint64_t src,
                                                   const std::array<std::int64_t, 3>& whd) {
    AutoreleasePool pool(m_);
    auto w = static_cast<unsigned long>(whd[0]), h = static_cast<unsigned long>(whd[1]),
         d = static_cast<unsigned long>(whd[2]);
    Id desc = m_.make(m_.texture_descriptor);
    m_.send<void>(desc, m_.setTextureType, kTextureType3D);
    m_.send<void>(desc, m_.setPixelFormat, kPixelFormatR32Float);
    m_.send<void>(desc, m_.setWidth, w);
    m_.send<void>(desc, m_.setHeight, h);
    m_.send<void>(desc, m_.setDepth, d);
    m_.send<void>(desc, m_.setStorageMode, kTextureStoragePrivate);
    m_.send<void>(desc, m_.setUsage, kTextureUsageShaderRead);
    Id texture = m_.send(device_, m_.newTextureWithDescriptor, desc);
    m_.release_object(desc);
    if (!texture) throw RuntimeError("Metal: newTextureWithDescriptor failed (3-D R32Float)");
    std::lock_guard lock(mutex_);
    Block* b = block_of(src);
    if (!b) {
        m_.release_object(texture);
        throw RuntimeError("Metal: a texture's source is not a buffer of this device");
    }
    Id blit = m_.send(open_commands(), m_.blitCommandEncoder);
    m_.send<void>(blit, m_.copyToTexture, b->buffer, (unsigned long)(src - b->address), w * 4,
                  w * h * 4, Size{w, h, d}, texture, 0ul, 0ul, Size{0, 0, 0});
    m_.send<void>(blit, m_.endEncoding);
    hold(b->buffer);
    hold(texture);
    b->last_use = open_sequence_;
    count_command();
    textures_.insert(texture);
    return {texture, reinterpret_cast<std::uint64_t>(texture)};
}

void MetalBackend::destroy_image(Image image) noexcept {
    std::lock_guard lock(mutex_);
    if (textures_.erase(image.array)) m_.release_object(image.array);
}

// --- graphs: none (the core replays a captured graph as a loop) -----------------------------

bool MetalBackend::has_graphs() const {
    return false;
}
void* MetalBackend::graph_create() {
    throw RuntimeError("Metal: no vendor graphs");
}
void* MetalBackend::graph_add(void*, void*, const GraphStep&) {
    throw RuntimeError("Metal: no vendor graphs");
}
void* MetalBackend::graph_instantiate(void*) {
    throw RuntimeError("Metal: no vendor graphs");
}
void MetalBackend::graph_discard(void*) noexcept {}
void MetalBackend::launch_graph(void*) {
    throw RuntimeError("Metal: no vendor graphs");
}
void MetalBackend::destroy_graph(void*) noexcept {}

}  // namespace tack::runtime::metal
