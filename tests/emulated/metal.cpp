// An emulated Metal device: a stand-in for libobjc and the Metal framework that answers the
// messages Tack's Metal backend sends (src/runtime/metal), with kernels that run on the CPU
// (engine.hpp). Objective-C is modelled as far as the backend relies on it: objc_msgSend looks
// up the receiver's method by selector and jumps to it with the caller's arguments untouched
// (as the real one does, so every message keeps its exact C signature); objects are reference
// counted, autorelease pools release what they hold when popped, and a message to a freed
// object or an unknown selector stops the process, as Cocoa does.
//
// MSL is compiled by clang as C++ behind include/metal/metal_stdlib: the emulated compiler
// rewrites threadgroup declarations into per-host-thread statics and appends, per kernel, the
// entry points the engine calls, binding each parameter by its attribute ([[buffer(i)]],
// [[texture(i)]], the thread-position built-ins). A dispatch is checked as Metal's validation
// layer checks it: a pipeline set, every buffer and texture the kernel declares bound, a bound
// buffer large enough for the argument struct, every address and texture in the argument
// buffer resident (setBuffer or useResource in this encoder), threadgroups within the
// pipeline's maximum. Command buffers run on the queue's thread when committed, in order; a
// kernel named by tack_emu_fail_kernels fails its command buffer (status Error, an NSError).
// Like a command buffer made with unretained references, a committed command buffer holds no
// reference to the resources it uses: keeping them alive is the backend's job.
#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine.hpp"

using tack_emu::complain;

namespace {

using Id = void*;
using Sel = const char*;
using Imp = void*;

struct MtlSize {
    unsigned long width, height, depth;
};
struct NsRange {
    unsigned long location, length;
};
struct ResourceId {
    std::uint64_t impl;
};

[[noreturn]] void die(const std::string& what) {
    complain(what);
    std::abort();
}

// --- selectors and classes ---------------------------------------------------------------------

Sel intern(const char* name) {
    static std::mutex mutex;
    static auto* names = new std::set<std::string>();
    std::lock_guard lock(mutex);
    return names->insert(name).first->c_str();
}

struct Class {
    std::string name;
    std::unordered_map<Sel, Imp> methods;
};

/// Every object: its class and its reference count. Class objects are objects too (their
/// class holds the class methods).
struct Object {
    const Class* isa;
    std::atomic<long> refs{1};
    explicit Object(const Class* c) : isa(c) {}
    virtual ~Object() = default;
};

std::mutex g_live_mutex;
std::set<const Object*>& live() {
    static auto* s = new std::set<const Object*>();
    return *s;
}

template <class T, class... A>
T* make(A&&... args) {
    T* o = new T(std::forward<A>(args)...);
    std::lock_guard lock(g_live_mutex);
    live().insert(o);
    return o;
}

bool is_live(const void* o) {
    std::lock_guard lock(g_live_mutex);
    return live().count(static_cast<const Object*>(o)) == 1;
}

void destroy(Object* o) {
    {
        std::lock_guard lock(g_live_mutex);
        live().erase(o);
    }
    delete o;
}

template <class T>
T* self_as(Id self) {
    return static_cast<T*>(static_cast<Object*>(self));
}

// --- autorelease pools: a stack per thread ------------------------------------------------------

thread_local std::vector<std::vector<Object*>> t_pools;
// Objects autoreleased with no pool in place are released at the thread's exit, as macOS's
// implicit per-thread pool does.
thread_local struct ImplicitPool {
    std::vector<Object*> held;
    ~ImplicitPool();
} t_implicit;

Id release_impl(Id self, Sel);
ImplicitPool::~ImplicitPool() {
    for (Object* o : held)
        release_impl(o, nullptr);
}

Id autorelease(Object* o) {
    if (!o) return nullptr;
    (t_pools.empty() ? t_implicit.held : t_pools.back()).push_back(o);
    return o;
}

// --- the methods every object answers -----------------------------------------------------------

Id retain_impl(Id self, Sel) {
    ++static_cast<Object*>(self)->refs;
    return self;
}
Id release_impl(Id self, Sel) {
    auto* o = static_cast<Object*>(self);
    if (--o->refs == 0) destroy(o);
    return nullptr;
}
Id autorelease_impl(Id self, Sel) {
    return autorelease(static_cast<Object*>(self));
}

// NSObject's -respondsToSelector: (a BOOL: signed char).
signed char responds_impl(Id self, Sel, Sel query) {
    return static_cast<Object*>(self)->isa->methods.count(query) ? 1 : 0;
}

Class* new_class(const std::string& name,
                 std::initializer_list<std::pair<const char*, Imp>> methods) {
    auto* c = new Class{name, {}};
    c->methods[intern("retain")] = reinterpret_cast<Imp>(&retain_impl);
    c->methods[intern("release")] = reinterpret_cast<Imp>(&release_impl);
    c->methods[intern("autorelease")] = reinterpret_cast<Imp>(&autorelease_impl);
    c->methods[intern("respondsToSelector:")] = reinterpret_cast<Imp>(&responds_impl);
    for (const auto& [sel, imp] : methods)
        c->methods[intern(sel)] = imp;
    return c;
}

template <class F>
Imp imp(F* f) {
    return reinterpret_cast<Imp>(f);
}

// --- Foundation: NSString, NSError -------------------------------------------------------------

const Class* string_class();
struct String : Object {
    std::string text;
    explicit String(std::string t = "") : Object(string_class()), text(std::move(t)) {}
};
Id string_init(Id self, Sel, const char* text) {
    self_as<String>(self)->text = text ? text : "";
    return self;
}
const char* string_utf8(Id self, Sel) {
    return self_as<String>(self)->text.c_str();
}
unsigned long string_length(Id self, Sel) {
    return self_as<String>(self)->text.size();
}
const Class* string_class() {
    static const Class* c = new_class("NSString", {{"initWithUTF8String:", imp(&string_init)},
                                                   {"UTF8String", imp(&string_utf8)},
                                                   {"length", imp(&string_length)}});
    return c;
}
Id autoreleased_string(const std::string& text) {
    return autorelease(make<String>(text));
}

const Class* error_class();
struct Error : Object {
    std::string description;
    long code;
    Error(std::string d, long c) : Object(error_class()), description(std::move(d)), code(c) {}
};
Id error_description(Id self, Sel) {
    return autoreleased_string(self_as<Error>(self)->description);
}
long error_code(Id self, Sel) {
    return self_as<Error>(self)->code;
}
const Class* error_class() {
    static const Class* c = new_class(
        "NSError", {{"localizedDescription", imp(&error_description)}, {"code", imp(&error_code)}});
    return c;
}
void set_error(Id* out, const std::string& what, long code) {
    if (out) *out = autorelease(make<Error>(what, code));
}

// --- resources: buffers and textures -------------------------------------------------------------

const Class* buffer_class();
// Shared storage, or private storage (no CPU address: -contents is NULL), of one device.
struct Buffer : Object {
    void* memory;
    unsigned long length;
    Id device;  // not retained, as Metal's buffers do not keep their device alive
    bool device_only;
    Buffer(void* p, unsigned long n, Id d, bool private_storage)
        : Object(buffer_class()), memory(p), length(n), device(d), device_only(private_storage) {}
    ~Buffer() override { tack_emu::Memory::get().release(memory); }
};
void* buffer_contents(Id self, Sel) {
    Buffer* b = self_as<Buffer>(self);
    return b->device_only ? nullptr : b->memory;
}
unsigned long buffer_length(Id self, Sel) {
    return self_as<Buffer>(self)->length;
}
Id buffer_device(Id self, Sel) {
    return self_as<Buffer>(self)->device;
}
// On the CPU a buffer's GPU address is its memory.
std::uint64_t buffer_gpu_address(Id self, Sel) {
    return reinterpret_cast<std::uint64_t>(self_as<Buffer>(self)->memory);
}
const Class* buffer_class() {
    static const Class* c = new_class("MTLBuffer", {{"contents", imp(&buffer_contents)},
                                                    {"length", imp(&buffer_length)},
                                                    {"device", imp(&buffer_device)},
                                                    {"gpuAddress", imp(&buffer_gpu_address)}});
    return c;
}

const Class* texture_class();
struct Texture : Object {
    tack_emu::Array3D* array;
    tack_emu_texture* record;
    explicit Texture(tack_emu::Array3D* a)
        : Object(texture_class()),
          array(a),
          record(tack_emu::Textures::get().create_texture(a, /*normalized=*/true)) {}
    ~Texture() override {
        tack_emu::Textures::get().destroy_texture(record);
        tack_emu::Textures::get().destroy_array(array);
    }
};
ResourceId texture_resource_id(Id self, Sel) {
    return {reinterpret_cast<std::uint64_t>(self_as<Texture>(self)->record)};
}
const Class* texture_class() {
    static const Class* c = new_class("MTLTexture", {{"gpuResourceID", imp(&texture_resource_id)}});
    return c;
}

const Class* descriptor_class();
struct TextureDescriptor : Object {
    unsigned long type = 2, format = 0, width = 1, height = 1, depth = 1, storage = 0, usage = 0;
    TextureDescriptor() : Object(descriptor_class()) {}
};
#define TACK_EMU_SETTER(field)                            \
    void set_##field(Id self, Sel, unsigned long value) { \
        self_as<TextureDescriptor>(self)->field = value;  \
    }
TACK_EMU_SETTER(type)
TACK_EMU_SETTER(format)
TACK_EMU_SETTER(width)
TACK_EMU_SETTER(height)
TACK_EMU_SETTER(depth)
TACK_EMU_SETTER(storage)
TACK_EMU_SETTER(usage)
Id init_self(Id self, Sel) {
    return self;
}
const Class* descriptor_class() {
    static const Class* c =
        new_class("MTLTextureDescriptor", {{"init", imp(&init_self)},
                                           {"setTextureType:", imp(&set_type)},
                                           {"setPixelFormat:", imp(&set_format)},
                                           {"setWidth:", imp(&set_width)},
                                           {"setHeight:", imp(&set_height)},
                                           {"setDepth:", imp(&set_depth)},
                                           {"setStorageMode:", imp(&set_storage)},
                                           {"setUsage:", imp(&set_usage)}});
    return c;
}

const Class* options_class();
struct CompileOptions : Object {
    bool fast_math = true;  // Metal's default
    CompileOptions() : Object(options_class()) {}
};
void options_set_fast_math(Id self, Sel, signed char on) {
    self_as<CompileOptions>(self)->fast_math = on != 0;
}
const Class* options_class() {
    static const Class* c = new_class(
        "MTLCompileOptions",
        {{"init", imp(&init_self)}, {"setFastMathEnabled:", imp(&options_set_fast_math)}});
    return c;
}

// --- libraries, functions, pipelines -------------------------------------------------------------

/// One argument the kernel binds (a [[buffer(i)]] or [[texture(i)]] parameter), and a word of
/// the argument struct it reads from buffer 0.
struct Binding {
    bool texture;
    unsigned index;
    unsigned bytes;  // the least a bound buffer must hold past its offset
};
struct Field {
    char kind;  // 'p' an address, 't' a texture, 'v' a value
    unsigned offset;
};

/// What the emulated compiler knows of one kernel.
struct Kernel {
    std::string name;
    std::vector<Binding> bindings;
    std::vector<Field> fields;  // of the struct bound at buffer 0, where that is a struct
};

// The kernels of a source: "kernel void NAME(PARAMS) {". Each parameter is "DECL [[ATTR]]".
struct Parsed {
    Kernel kernel;
    std::string wrapper;  // the C++ appended for it
};

std::string trim(std::string s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n'))
        s.erase(0, 1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n'))
        s.pop_back();
    return s;
}

/// The struct's fields as "kind name" for `type`'s definition in `source`, or {} if none.
std::vector<std::pair<char, std::string>> struct_fields(const std::string& source,
                                                        const std::string& type) {
    std::vector<std::pair<char, std::string>> out;
    std::size_t at = source.find("struct " + type + " {");
    if (at == std::string::npos) return out;
    std::size_t end = source.find("};", at);
    std::size_t line = source.find('\n', at);
    while (line != std::string::npos && line < end) {
        std::size_t next = source.find('\n', line + 1);
        std::string field = trim(source.substr(line + 1, next - line - 1));
        line = next;
        if (field.empty() || field == "};" || field.back() != ';') continue;
        field.pop_back();
        std::string name = field.substr(field.find_last_of(" *&") + 1);
        char kind = field.find('*') != std::string::npos ? 'p'
                    : field.rfind("texture", 0) == 0     ? 't'
                                                         : 'v';
        out.push_back({kind, name});
    }
    return out;
}

bool parse_kernels(const std::string& source, std::vector<Parsed>* kernels, std::string* why) {
    const std::string decl = "kernel void ";
    for (std::size_t at = source.find(decl); at != std::string::npos;
         at = source.find(decl, at + 1)) {
        if (at > 0 && source[at - 1] != '\n') continue;
        std::size_t open = source.find('(', at), close = source.find(") {", open);
        if (open == std::string::npos || close == std::string::npos) {
            *why = "a kernel declaration without its parameter list";
            return false;
        }
        Parsed p;
        p.kernel.name = source.substr(at + decl.size(), open - at - decl.size());
        std::string params = source.substr(open + 1, close - open - 1);
        std::vector<std::string> args;
        std::string barrier = source.find("threadgroup_barrier") != std::string::npos ? "1" : "0";
        std::size_t bound = 0;
        std::string call;
        std::size_t start = 0;
        for (unsigned k = 0; start <= params.size(); ++k) {
            std::size_t comma = params.find(',', start);
            std::string one = trim(params.substr(start, comma - start));
            start = comma == std::string::npos ? params.size() + 1 : comma + 1;
            std::size_t a = one.find("[["), b = one.find("]]");
            if (a == std::string::npos || b == std::string::npos) {
                *why = "kernel " + p.kernel.name + ": parameter '" + one + "' has no attribute";
                return false;
            }
            std::string attr = one.substr(a + 2, b - a - 2);
            std::string type = "tack_emu_param<" + std::to_string(k) + ", __typeof__(" +
                               p.kernel.name + ")>::type";
            std::string arg;
            if (attr.rfind("buffer(", 0) == 0 || attr.rfind("texture(", 0) == 0) {
                bool texture = attr[0] == 't';
                unsigned index = unsigned(std::atoi(attr.c_str() + (texture ? 8 : 7)));
                p.kernel.bindings.push_back({texture, index, 0});
                arg = "tack_emu_bound<" + type + ">::get(p[" + std::to_string(bound) + "])";
                p.wrapper += "    tack_emu_metal_bytes_" + p.kernel.name + "[" +
                             std::to_string(bound) + "] = tack_emu_bound<" + type + ">::bytes;\n";
                if (!texture && index == 0) {  // the argument struct
                    std::string decl_text = trim(one.substr(0, a));
                    std::size_t amp = decl_text.find('&');
                    if (amp != std::string::npos) {
                        std::string t = trim(decl_text.substr(0, amp));
                        t = t.substr(t.find_last_of(' ') + 1);
                        for (const auto& [kind, name] : struct_fields(source, t)) {
                            p.kernel.fields.push_back({kind, 0});
                            p.wrapper += "    tack_emu_metal_offsets_" + p.kernel.name + "[" +
                                         std::to_string(p.kernel.fields.size() - 1) +
                                         "] = __builtin_offsetof(" + t + ", " + name + ");\n";
                        }
                    }
                }
                ++bound;
            } else if (attr == "thread_position_in_grid") {
                arg = "tack_emu_gid";
            } else if (attr == "threadgroup_position_in_grid") {
                arg = "blockIdx.x";
            } else if (attr == "thread_position_in_threadgroup") {
                arg = "threadIdx.x";
            } else if (attr == "threads_per_threadgroup") {
                arg = "blockDim.x";
            } else {
                *why = "kernel " + p.kernel.name + ": the emulated device has no [[" + attr + "]]";
                return false;
            }
            call += (call.empty() ? "" : ", ") + arg;
        }
        const std::string& n = p.kernel.name;
        std::string counts = std::to_string(bound);
        // Entry points: the sizes of the binding table, a call of one thread (threads past the
        // dispatch's count, p[bound], do not exist: an exact grid's last group is partial), and
        // the engine's block and thread entries.
        std::string text;
        text +=
            "extern \"C\" { __attribute__((visibility(\"default\"))) unsigned "
            "tack_emu_metal_bytes_" +
            n + "[" + std::to_string(std::max<std::size_t>(bound, 1)) + "]; }\n";
        text +=
            "extern \"C\" { __attribute__((visibility(\"default\"))) unsigned "
            "tack_emu_metal_offsets_" +
            n + "[" + std::to_string(std::max<std::size_t>(p.kernel.fields.size(), 1)) + "]; }\n";
        text +=
            "extern \"C\" __attribute__((visibility(\"default\"))) void tack_emu_metal_layout_" +
            n + "() {\n" + p.wrapper + "}\n";
        text += "static inline void tack_emu_call_" + n +
                "(void** p) {\n"
                "    const unsigned tack_emu_gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (tack_emu_gid >= *static_cast<unsigned long long*>(p[" +
                counts + "])) return;\n    " + n + "(" + call + ");\n}\n";
        text +=
            "extern \"C\" __attribute__((visibility(\"default\"))) const tack_emu_kernel_info "
            "tack_emu_info_" +
            n + " = {" + std::to_string(bound + 1) + ", nullptr, nullptr, " + barrier + "};\n";
        text += "extern \"C\" __attribute__((visibility(\"default\"))) void tack_emu_block_" + n +
                "(void** p, unsigned bx, unsigned bdim, unsigned gdim) {\n"
                "    tack_emu_set_block(bx, bdim, gdim);\n"
                "    for (unsigned t = 0; t < bdim; ++t) {\n"
                "        threadIdx = {t, 0, 0};\n"
                "        tack_emu_call_" +
                n + "(p);\n    }\n}\n";
        text += "extern \"C\" __attribute__((visibility(\"default\"))) void tack_emu_thread_" + n +
                "(void** p, unsigned bx, unsigned tx, unsigned bdim, unsigned gdim) {\n"
                "    tack_emu_set_block(bx, bdim, gdim);\n"
                "    threadIdx = {tx, 0, 0};\n"
                "    tack_emu_call_" +
                n + "(p);\n}\n";
        p.wrapper = text;
        kernels->push_back(std::move(p));
    }
    if (kernels->empty()) {
        *why = "the source declares no kernel";
        return false;
    }
    return true;
}

/// MSL as the C++ the engine compiles: group memory as per-host-thread statics (a threadgroup
/// runs on one host thread), the entry points appended.
std::string as_cpp(const std::string& source, const std::vector<Parsed>& kernels) {
    std::string out;
    std::size_t start = 0;
    while (start < source.size()) {
        std::size_t end = source.find('\n', start);
        if (end == std::string::npos) end = source.size();
        std::string line = source.substr(start, end - start);
        std::size_t lead = line.find_first_not_of(' ');
        bool declaration = line.size() >= 2 && line.compare(line.size() - 2, 2, "];") == 0;
        if (lead != std::string::npos && line.compare(lead, 12, "threadgroup ") == 0 && declaration)
            line = line.substr(0, lead) + "static thread_local " + line.substr(lead + 12);
        out += line + "\n";
        start = end + 1;
    }
    for (const Parsed& p : kernels)
        out += p.wrapper;
    return out;
}

const Class* library_class();
struct Library : Object {
    std::unique_ptr<tack_emu::Module> module;
    std::map<std::string, Kernel> kernels;
    Library() : Object(library_class()) {}
};
const Class* function_class();
struct Function : Object {
    Library* library;  // retained
    const Kernel* kernel;
    const tack_emu::Function* entry;
    std::vector<unsigned> bytes, offsets;
    Function(Library* l, const Kernel* k, const tack_emu::Function* e)
        : Object(function_class()), library(l), kernel(k), entry(e) {
        ++l->refs;
    }
    ~Function() override { release_impl(library, nullptr); }
};
const Class* function_class() {
    static const Class* c = new_class("MTLFunction", {});
    return c;
}
Id library_new_function(Id self, Sel, Id name) {
    auto* lib = self_as<Library>(self);
    const std::string& n = self_as<String>(name)->text;
    auto it = lib->kernels.find(n);
    if (it == lib->kernels.end()) return nullptr;
    const tack_emu::Function* entry = lib->module->function(n);
    auto layout = reinterpret_cast<void (*)()>(lib->module->symbol("tack_emu_metal_layout_" + n));
    auto* bytes = static_cast<unsigned*>(lib->module->symbol("tack_emu_metal_bytes_" + n));
    auto* offsets = static_cast<unsigned*>(lib->module->symbol("tack_emu_metal_offsets_" + n));
    if (!entry || !layout || !bytes || !offsets)
        die("newFunctionWithName: " + n + " lost its entry");
    layout();
    auto* f = make<Function>(lib, &it->second, entry);
    f->bytes.assign(bytes, bytes + it->second.bindings.size());
    f->offsets.assign(offsets, offsets + it->second.fields.size());
    return f;
}
const Class* library_class() {
    static const Class* c =
        new_class("MTLLibrary", {{"newFunctionWithName:", imp(&library_new_function)}});
    return c;
}

const Class* pipeline_class();
struct Pipeline : Object {
    Function* function;  // retained
    unsigned long max_threads;
    explicit Pipeline(Function* f) : Object(pipeline_class()), function(f) {
        ++f->refs;
        const char* v = std::getenv("TACK_EMU_METAL_MAX_THREADS");
        max_threads = v && *v ? std::strtoul(v, nullptr, 10) : 1024;
    }
    ~Pipeline() override { release_impl(function, nullptr); }
};
unsigned long pipeline_max_threads(Id self, Sel) {
    return self_as<Pipeline>(self)->max_threads;
}
const Class* pipeline_class() {
    static const Class* c = new_class(
        "MTLComputePipelineState", {{"maxTotalThreadsPerThreadgroup", imp(&pipeline_max_threads)}});
    return c;
}

// --- command buffers and encoders ------------------------------------------------------------

const Class* queue_class();
struct Queue : Object {
    tack_emu::Stream stream;
    Queue() : Object(queue_class()) {}
};

constexpr unsigned long kNotEnqueued = 0, kCommitted = 2, kCompleted = 4, kError = 5;

const Class* commands_class();
struct Commands : Object {
    Queue* queue;                                    // retained
    std::vector<std::function<std::string()>> work;  // "" or why the command failed
    std::atomic<unsigned long> status{kNotEnqueued};
    std::string failure;
    std::uint64_t done = 0;  // the queue's mark after it (waitUntilCompleted)
    bool encoding = false;   // an encoder is open
    explicit Commands(Queue* q) : Object(commands_class()), queue(q) { ++q->refs; }
    ~Commands() override { release_impl(queue, nullptr); }
};

const Class* compute_class();
struct ComputeEncoder : Object {
    Commands* commands;  // retained
    Pipeline* pipeline = nullptr;
    std::map<unsigned long, std::pair<Buffer*, unsigned long>>
        buffers;  // index -> (buffer, offset)
    std::set<const Object*> resident;
    bool ended = false;
    explicit ComputeEncoder(Commands* c) : Object(compute_class()), commands(c) { ++c->refs; }
    ~ComputeEncoder() override {
        if (!ended) die("a compute command encoder was released without endEncoding");
        release_impl(commands, nullptr);
    }
};
const Class* blit_class();
struct BlitEncoder : Object {
    Commands* commands;
    bool ended = false;
    explicit BlitEncoder(Commands* c) : Object(blit_class()), commands(c) { ++c->refs; }
    ~BlitEncoder() override {
        if (!ended) die("a blit command encoder was released without endEncoding");
        release_impl(commands, nullptr);
    }
};

void check_live(const Object* o, const char* what) {
    if (!o || !is_live(o)) die(std::string(what) + ": not a live object");
}

Commands* encodable(Commands* c, const char* what) {
    if (c->status != kNotEnqueued)
        die(std::string(what) + " on a command buffer already committed");
    if (c->encoding) die(std::string(what) + " while another encoder of the buffer is open");
    c->encoding = true;
    return c;
}

void compute_set_pipeline(Id self, Sel, Id pipeline) {
    check_live(static_cast<Object*>(pipeline), "setComputePipelineState:");
    self_as<ComputeEncoder>(self)->pipeline = self_as<Pipeline>(pipeline);
}
void compute_set_buffer(Id self, Sel, Id buffer, unsigned long offset, unsigned long index) {
    auto* e = self_as<ComputeEncoder>(self);
    auto* b = self_as<Buffer>(buffer);
    check_live(b, "setBuffer:offset:atIndex:");
    if (offset > b->length) die("setBuffer:offset:atIndex: offset past the buffer's length");
    e->buffers[index] = {b, offset};
    e->resident.insert(b);
}
void compute_use_resource(Id self, Sel, Id resource, unsigned long usage) {
    check_live(static_cast<Object*>(resource), "useResource:usage:");
    if (usage == 0) die("useResource:usage: with no usage");
    self_as<ComputeEncoder>(self)->resident.insert(static_cast<Object*>(resource));
}

/// Whether [address, address + 1) lies in a buffer of `resident`.
bool resident_address(const std::set<const Object*>& resident, std::uint64_t address) {
    for (const Object* o : resident) {
        if (o->isa != buffer_class()) continue;
        auto* b = static_cast<const Buffer*>(o);
        auto start = reinterpret_cast<std::uint64_t>(b->memory);
        if (address >= start && address < start + std::max<unsigned long>(b->length, 1))
            return true;
    }
    return false;
}

void compute_dispatch(Id self, Sel, MtlSize threads, MtlSize group) {
    auto* e = self_as<ComputeEncoder>(self);
    if (!e->pipeline) die("dispatchThreads: no compute pipeline state set");
    Function* f = e->pipeline->function;
    const Kernel& k = *f->kernel;
    if (threads.height != 1 || threads.depth != 1 || group.height != 1 || group.depth != 1)
        die("dispatchThreads: the emulated device runs one-dimensional grids");
    if (group.width == 0 || group.width > e->pipeline->max_threads)
        die("dispatchThreads: threadgroup of " + std::to_string(group.width) +
            " threads exceeds maxTotalThreadsPerThreadgroup " +
            std::to_string(e->pipeline->max_threads));
    if (threads.width == 0) return;
    auto values = std::make_shared<std::vector<std::vector<unsigned char>>>();
    std::vector<std::pair<Buffer*, std::size_t>> args_struct;
    for (std::size_t i = 0; i < k.bindings.size(); ++i) {
        const Binding& b = k.bindings[i];
        std::uint64_t word = 0;
        if (b.texture) {
            die("kernel " + k.name +
                ": [[texture(i)]] parameters are not modelled (Tack's MSL "
                "puts textures in the argument buffer)");
        }
        auto it = e->buffers.find(b.index);
        if (it == e->buffers.end())
            die("dispatchThreads: kernel " + k.name + " reads [[buffer(" + std::to_string(b.index) +
                ")]], which is not bound");
        auto [buffer, offset] = it->second;
        check_live(buffer, "dispatchThreads: a bound buffer");
        if (buffer->length - offset < f->bytes[i])
            die("dispatchThreads: kernel " + k.name + " reads " + std::to_string(f->bytes[i]) +
                " bytes at [[buffer(" + std::to_string(b.index) + ")]], whose buffer holds " +
                std::to_string(buffer->length - offset) + " past its offset");
        word = reinterpret_cast<std::uint64_t>(buffer->memory) + offset;
        if (b.index == 0) args_struct.push_back({buffer, offset});
        values->emplace_back(8);
        std::memcpy(values->back().data(), &word, 8);
    }
    // The argument buffer's words: every address in a resident buffer, every texture live and
    // resident (what a GPU would fault on).
    for (auto [buffer, offset] : args_struct) {
        const auto* base = static_cast<const unsigned char*>(buffer->memory) + offset;
        for (std::size_t j = 0; j < k.fields.size(); ++j) {
            std::uint64_t word;
            std::memcpy(&word, base + f->offsets[j], 8);
            char kind = k.fields[j].kind;
            if (kind == 'p' && !resident_address(e->resident, word))
                die("dispatchThreads: kernel " + k.name + ": word " + std::to_string(j) +
                    " of the argument buffer (" + std::to_string(word) +
                    ") is in no resident buffer (useResource:usage:)");
            if (kind == 't') {
                bool ok = false;
                for (const Object* o : e->resident)
                    ok = ok || (o->isa == texture_class() &&
                                reinterpret_cast<std::uint64_t>(
                                    static_cast<const Texture*>(o)->record) == word);
                if (!ok)
                    die("dispatchThreads: kernel " + k.name + ": word " + std::to_string(j) +
                        " of the argument buffer is no resident texture's gpuResourceID");
            }
        }
    }
    unsigned long long count = threads.width;
    values->emplace_back(8);
    std::memcpy(values->back().data(), &count, 8);
    unsigned long groups = (threads.width + group.width - 1) / group.width;
    tack_emu::Launch launch{f->entry, unsigned(groups), unsigned(group.width)};
    bool fail = tack_emu::fails(*f->entry);
    ++f->refs;  // the command holds its function until it has run
    e->commands->work.push_back([launch, values, fail, f, name = k.name]() -> std::string {
        std::string why = fail ? "kernel " + name + " faulted (tack_emu_fail_kernels)" : "";
        if (!fail) tack_emu::run(launch, *values);
        release_impl(f, nullptr);
        return why;
    });
}

void end_compute(Id self, Sel) {
    auto* e = self_as<ComputeEncoder>(self);
    e->ended = true;
    e->commands->encoding = false;
}
const Class* compute_class() {
    static const Class* c =
        new_class("MTLComputeCommandEncoder",
                  {{"setComputePipelineState:", imp(&compute_set_pipeline)},
                   {"setBuffer:offset:atIndex:", imp(&compute_set_buffer)},
                   {"useResource:usage:", imp(&compute_use_resource)},
                   {"dispatchThreads:threadsPerThreadgroup:", imp(&compute_dispatch)},
                   {"endEncoding", imp(&end_compute)}});
    return c;
}

void blit_copy(Id self, Sel, Id src, unsigned long so, Id dst, unsigned long dof, unsigned long n) {
    auto* s = self_as<Buffer>(src);
    auto* d = self_as<Buffer>(dst);
    check_live(s, "copyFromBuffer: source");
    check_live(d, "copyFromBuffer: destination");
    if (so + n > s->length || dof + n > d->length) die("copyFromBuffer: range past a buffer's end");
    void* to = static_cast<char*>(d->memory) + dof;
    const void* from = static_cast<const char*>(s->memory) + so;
    self_as<BlitEncoder>(self)->commands->work.push_back([=]() -> std::string {
        std::memmove(to, from, n);
        return "";
    });
}
void blit_fill(Id self, Sel, Id buffer, NsRange range, unsigned char value) {
    auto* b = self_as<Buffer>(buffer);
    check_live(b, "fillBuffer:range:value:");
    if (range.location + range.length > b->length) die("fillBuffer: range past the buffer's end");
    void* to = static_cast<char*>(b->memory) + range.location;
    self_as<BlitEncoder>(self)->commands->work.push_back([=]() -> std::string {
        std::memset(to, value, range.length);
        return "";
    });
}
void blit_to_texture(Id self, Sel, Id src, unsigned long offset, unsigned long row,
                     unsigned long image, MtlSize size, Id texture, unsigned long slice,
                     unsigned long level, MtlSize origin) {
    auto* s = self_as<Buffer>(src);
    auto* t = self_as<Texture>(texture);
    check_live(s, "copyFromBuffer:...toTexture: source");
    check_live(t, "copyFromBuffer:...toTexture: texture");
    tack_emu::Array3D* a = t->array;
    if (slice || level || origin.width || origin.height || origin.depth || size.width != a->width ||
        size.height != a->height || size.depth != a->depth)
        die("copyFromBuffer:...toTexture: the emulated device copies whole textures");
    if (row < a->width * 4 || image < row * a->height)
        die("copyFromBuffer:...toTexture: bytes per row or image too small");
    if (offset + image * (a->depth - 1) + row * (a->height - 1) + a->width * 4 > s->length)
        die("copyFromBuffer:...toTexture: the source range is past the buffer's end");
    const char* from = static_cast<const char*>(s->memory) + offset;
    self_as<BlitEncoder>(self)->commands->work.push_back([=]() -> std::string {
        for (std::size_t z = 0; z < a->depth; ++z)
            for (std::size_t y = 0; y < a->height; ++y)
                std::memcpy(&a->texels[(z * a->height + y) * a->width], from + z * image + y * row,
                            a->width * 4);
        return "";
    });
}
void end_blit(Id self, Sel) {
    auto* e = self_as<BlitEncoder>(self);
    e->ended = true;
    e->commands->encoding = false;
}
const Class* blit_class() {
    static const Class* c = new_class(
        "MTLBlitCommandEncoder",
        {{"copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:", imp(&blit_copy)},
         {"fillBuffer:range:value:", imp(&blit_fill)},
         {"copyFromBuffer:sourceOffset:sourceBytesPerRow:sourceBytesPerImage:sourceSize:"
          "toTexture:destinationSlice:destinationLevel:destinationOrigin:",
          imp(&blit_to_texture)},
         {"endEncoding", imp(&end_blit)}});
    return c;
}

Id commands_compute(Id self, Sel) {
    return autorelease(
        make<ComputeEncoder>(encodable(self_as<Commands>(self), "computeCommandEncoder")));
}
Id commands_blit(Id self, Sel) {
    return autorelease(make<BlitEncoder>(encodable(self_as<Commands>(self), "blitCommandEncoder")));
}
void commands_commit(Id self, Sel) {
    auto* c = self_as<Commands>(self);
    if (c->status != kNotEnqueued) die("commit of a command buffer already committed");
    if (c->encoding) die("commit with an encoder still open (endEncoding)");
    c->status = kCommitted;
    ++c->refs;  // the queue holds a committed buffer until it has run
    c->queue->stream.enqueue([c] {
        std::string failure;
        for (auto& w : c->work)
            if (std::string why = w(); !why.empty() && failure.empty()) failure = why;
        c->work.clear();
        c->failure = failure;
        c->status = failure.empty() ? kCompleted : kError;
        release_impl(c, nullptr);
    });
    c->done = c->queue->stream.mark();
}
void commands_wait(Id self, Sel) {
    auto* c = self_as<Commands>(self);
    if (c->status == kNotEnqueued) die("waitUntilCompleted on a command buffer never committed");
    c->queue->stream.wait_for(c->done);  // the queue's release of it included
}
unsigned long commands_status(Id self, Sel) {
    return self_as<Commands>(self)->status;
}
Id commands_error(Id self, Sel) {
    auto* c = self_as<Commands>(self);
    if (c->status != kError) return nullptr;
    return autorelease(
        make<Error>("Execution of the command buffer was aborted due to an error "
                    "during execution. (" +
                        c->failure + ")",
                    1));
}
const Class* commands_class() {
    static const Class* c =
        new_class("MTLCommandBuffer", {{"computeCommandEncoder", imp(&commands_compute)},
                                       {"blitCommandEncoder", imp(&commands_blit)},
                                       {"commit", imp(&commands_commit)},
                                       {"waitUntilCompleted", imp(&commands_wait)},
                                       {"status", imp(&commands_status)},
                                       {"error", imp(&commands_error)}});
    return c;
}

Id queue_command_buffer(Id self, Sel) {
    return autorelease(make<Commands>(self_as<Queue>(self)));
}
const Class* queue_class() {
    static const Class* c =
        new_class("MTLCommandQueue", {{"commandBuffer", imp(&queue_command_buffer)}});
    return c;
}

// --- the device --------------------------------------------------------------------------------

const Class* device_class();
struct Device : Object {
    Device() : Object(device_class()) {}
};

Id device_new_queue(Id, Sel) {
    return make<Queue>();
}
Id device_new_library(Id, Sel, Id source, Id options, Id* error) {
    if (!source || !is_live(source)) die("newLibraryWithSource: no source string");
    if (options && !is_live(options)) die("newLibraryWithSource: options freed");
    // Metal's default is fast math (nil options included): the emulated compiler then takes
    // clang's fast-math liberties, which NaN and infinity results show.
    bool fast = !options || self_as<CompileOptions>(options)->fast_math;
    const std::string& text = self_as<String>(source)->text;
    std::vector<Parsed> kernels;
    std::string why;
    if (!parse_kernels(text, &kernels, &why)) {
        set_error(error, "Compiler encountered an error: " + why, 3);
        return nullptr;
    }
    std::unique_ptr<tack_emu::Module> module = tack_emu::Module::load_cpp(
        as_cpp(text, kernels),
        fast ? std::vector<std::string>{"-I" TACK_EMU_INCLUDE_DIR "/metal", "-ffast-math"}
             : std::vector<std::string>{"-I" TACK_EMU_INCLUDE_DIR "/metal"},
        &why);
    if (!module) {
        set_error(error, "Compiler encountered an error: " + why, 3);
        return nullptr;
    }
    auto* lib = make<Library>();
    lib->module = std::move(module);
    for (Parsed& p : kernels)
        lib->kernels[p.kernel.name] = p.kernel;
    return lib;
}
Id device_new_pipeline(Id, Sel, Id function, Id*) {
    check_live(static_cast<Object*>(function), "newComputePipelineStateWithFunction:");
    return make<Pipeline>(self_as<Function>(function));
}
Id device_new_buffer(Id self, Sel, unsigned long length, unsigned long options) {
    constexpr unsigned long kShared = 0,
                            kPrivate = 2 << 4;  // MTLResourceStorageMode{Shared,Private}
    if (options != kShared && options != kPrivate)
        die("newBufferWithLength:options: the emulated device has shared and private storage only");
    if (length == 0) return nullptr;  // Metal returns nil for a zero-length buffer
    void* p = tack_emu::Memory::get().allocate(length);
    if (!p) return nullptr;
    return make<Buffer>(p, length, self, options == kPrivate);
}
Id device_new_texture(Id, Sel, Id descriptor) {
    auto* d = self_as<TextureDescriptor>(descriptor);
    check_live(d, "newTextureWithDescriptor:");
    constexpr unsigned long k3D = 7, kR32Float = 55;
    if (d->type != k3D || d->format != kR32Float)
        die("newTextureWithDescriptor: the emulated device makes 3-D R32Float textures only");
    if (d->width > 2048 || d->height > 2048 || d->depth > 2048) return nullptr;
    return make<Texture>(tack_emu::Textures::get().create_array(d->width, d->height, d->depth));
}
Id device_name(Id, Sel) {
    return autoreleased_string("Tack emulated Metal device");
}
const Class* device_class() {
    static const Class* c = new_class(
        "MTLDevice", {{"newCommandQueue", imp(&device_new_queue)},
                      {"newLibraryWithSource:options:error:", imp(&device_new_library)},
                      {"newComputePipelineStateWithFunction:error:", imp(&device_new_pipeline)},
                      {"newBufferWithLength:options:", imp(&device_new_buffer)},
                      {"newTextureWithDescriptor:", imp(&device_new_texture)},
                      {"name", imp(&device_name)}});
    return c;
}

// --- class objects ------------------------------------------------------------------------------

template <class T>
Id alloc_instance(Id, Sel) {
    return make<T>();
}
struct ClassObject : Object {
    using Object::Object;
};
Object* class_object(const char* name) {
    static std::map<std::string, Object*>* classes = [] {
        auto* m = new std::map<std::string, Object*>();
        auto add = [&](const char* n, Imp alloc) {
            (*m)[n] = make<ClassObject>(new_class(std::string(n) + " class", {{"alloc", alloc}}));
        };
        add("NSString", imp(&alloc_instance<String>));
        add("MTLCompileOptions", imp(&alloc_instance<CompileOptions>));
        add("MTLTextureDescriptor", imp(&alloc_instance<TextureDescriptor>));
        return m;
    }();
    auto it = classes->find(name);
    return it == classes->end() ? nullptr : it->second;
}

// Messages to nil return zero (integer and floating-point registers alike).
extern "C" __attribute__((visibility("hidden"))) std::uint64_t tack_emu_objc_nil() {
    return 0;
}

}  // namespace

/// The method objc_msgSend jumps to (called by the trampoline below with the receiver and the
/// selector; every other argument register is saved around the call).
extern "C" __attribute__((visibility("hidden"))) Imp tack_emu_objc_lookup(Id self, Sel sel) {
    if (!self) return reinterpret_cast<Imp>(&tack_emu_objc_nil);
    if (!is_live(self))
        die(std::string("-[? ") + (sel ? sel : "?") + "]: message sent to deallocated instance");
    const Class* c = static_cast<Object*>(self)->isa;
    auto it = c->methods.find(sel);
    if (it == c->methods.end())
        die("-[" + c->name + " " + (sel ? sel : "?") + "]: unrecognized selector sent to instance");
    return it->second;
}

#if defined(__x86_64__)
// objc_msgSend: the six integer argument registers, %rax (a variadic call's vector count) and
// the eight vector argument registers are saved, the method looked up, everything restored,
// and the method entered with the caller's stack as it was (arguments passed in memory, such
// as MTLSize, are where the method expects them).
asm(R"(
    .text
    .globl objc_msgSend
    .type objc_msgSend, @function
objc_msgSend:
    pushq %rbp
    movq %rsp, %rbp
    subq $192, %rsp
    movq %rdi, 0(%rsp)
    movq %rsi, 8(%rsp)
    movq %rdx, 16(%rsp)
    movq %rcx, 24(%rsp)
    movq %r8, 32(%rsp)
    movq %r9, 40(%rsp)
    movq %rax, 48(%rsp)
    movdqu %xmm0, 64(%rsp)
    movdqu %xmm1, 80(%rsp)
    movdqu %xmm2, 96(%rsp)
    movdqu %xmm3, 112(%rsp)
    movdqu %xmm4, 128(%rsp)
    movdqu %xmm5, 144(%rsp)
    movdqu %xmm6, 160(%rsp)
    movdqu %xmm7, 176(%rsp)
    call tack_emu_objc_lookup
    movq %rax, %r11
    movq 0(%rsp), %rdi
    movq 8(%rsp), %rsi
    movq 16(%rsp), %rdx
    movq 24(%rsp), %rcx
    movq 32(%rsp), %r8
    movq 40(%rsp), %r9
    movq 48(%rsp), %rax
    movdqu 64(%rsp), %xmm0
    movdqu 80(%rsp), %xmm1
    movdqu 96(%rsp), %xmm2
    movdqu 112(%rsp), %xmm3
    movdqu 128(%rsp), %xmm4
    movdqu 144(%rsp), %xmm5
    movdqu 160(%rsp), %xmm6
    movdqu 176(%rsp), %xmm7
    leave
    jmp *%r11
    .size objc_msgSend, .-objc_msgSend
)");
#else
#error "the emulated Metal device's objc_msgSend is written for x86-64"
#endif

extern "C" {

__attribute__((visibility("default"))) Id objc_getClass(const char* name) {
    return class_object(name);
}

__attribute__((visibility("default"))) Sel sel_registerName(const char* name) {
    return intern(name);
}

__attribute__((visibility("default"))) void* objc_autoreleasePoolPush() {
    t_pools.emplace_back();
    return reinterpret_cast<void*>(t_pools.size());
}

__attribute__((visibility("default"))) void objc_autoreleasePoolPop(void* token) {
    auto depth = reinterpret_cast<std::size_t>(token);
    if (depth == 0 || depth > t_pools.size())
        die("objc_autoreleasePoolPop: not a pool of this thread");
    while (t_pools.size() >= depth) {
        std::vector<Object*> held = std::move(t_pools.back());
        t_pools.pop_back();
        for (Object* o : held)
            release_impl(o, nullptr);
    }
}

// The Metal framework's one C function: the device is owned by the caller (+1, "Create").
__attribute__((visibility("default"))) Id MTLCreateSystemDefaultDevice() {
    if (!tack_emu::feature_on("TACK_EMU_METAL_DEVICE")) return nullptr;
    return make<Device>();
}

}  // extern "C"
