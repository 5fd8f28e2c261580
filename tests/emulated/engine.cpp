#include "engine.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

extern char** environ;

namespace tack_emu {

void complain(const std::string& what) {
    std::fprintf(stderr, "tack-emu: %s\n", what.c_str());
}

// --- memory -------------------------------------------------------------------------------------

namespace {

std::size_t page_round(std::size_t bytes) {
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
}

std::size_t env_size_mb(const char* name, std::size_t fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    return std::size_t(std::strtoull(v, nullptr, 10)) << 20;
}

}  // namespace

bool feature_on(const char* variable) {
    const char* v = std::getenv(variable);
    return !v || std::string_view(v) != "0";
}

Memory& Memory::get() {
    static Memory* m = new Memory();  // never destroyed: a stream may still run at exit
    return *m;
}

Memory::Memory() : capacity_(env_size_mb("TACK_EMU_MEMORY_MB", std::size_t(8192) << 20)) {}

void* Memory::allocate(std::size_t bytes, Kind kind) {
    std::size_t mapped = page_round(bytes);
    {
        std::lock_guard lock(mutex_);
        if (bytes == 0 || mapped > capacity_ - used_) return nullptr;
        used_ += mapped;
    }
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    std::lock_guard lock(mutex_);
    if (p == MAP_FAILED) {
        used_ -= mapped;
        return nullptr;
    }
    live_[reinterpret_cast<std::uintptr_t>(p)] = bytes;
    if (kind != Kind::Device) kinds_[reinterpret_cast<std::uintptr_t>(p)] = kind;
    return p;
}

Memory::Kind Memory::kind_of(const void* p) const {
    std::lock_guard lock(mutex_);
    auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = live_.upper_bound(a);
    if (it == live_.begin()) return Kind::Device;
    --it;
    auto k = kinds_.find(it->first);
    return k == kinds_.end() ? Kind::Device : k->second;
}

bool Memory::release(void* p) {
    std::size_t bytes;
    {
        std::lock_guard lock(mutex_);
        auto it = live_.find(reinterpret_cast<std::uintptr_t>(p));
        if (it == live_.end() || adopted_.count(it->first)) return false;
        bytes = it->second;
        kinds_.erase(it->first);
        live_.erase(it);
        used_ -= page_round(bytes);
    }
    munmap(p, page_round(bytes));
    return true;
}

void Memory::adopt(void* p, std::size_t bytes) {
    std::lock_guard lock(mutex_);
    live_[reinterpret_cast<std::uintptr_t>(p)] = bytes;
    adopted_.insert(reinterpret_cast<std::uintptr_t>(p));
}

bool Memory::forget(void* p) {
    std::lock_guard lock(mutex_);
    auto a = reinterpret_cast<std::uintptr_t>(p);
    if (adopted_.erase(a) == 0) return false;
    live_.erase(a);
    return true;
}

bool Memory::contains(const void* p, std::size_t bytes) const {
    auto a = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(mutex_);
    auto it = live_.upper_bound(a);
    if (it == live_.begin()) return false;
    --it;
    return a >= it->first && bytes <= it->second && a - it->first <= it->second - bytes;
}

std::size_t Memory::in_use() const {
    std::lock_guard lock(mutex_);
    return used_;
}

// --- textures -----------------------------------------------------------------------------------

Textures& Textures::get() {
    static Textures* t = new Textures();
    return *t;
}

Array3D* Textures::create_array(std::size_t w, std::size_t h, std::size_t d) {
    auto a = std::make_unique<Array3D>(Array3D{w, h, d, std::vector<float>(w * h * d)});
    std::lock_guard lock(mutex_);
    Array3D* raw = a.get();
    arrays_[raw] = std::move(a);
    return raw;
}

bool Textures::destroy_array(Array3D* a) {
    std::lock_guard lock(mutex_);
    return arrays_.erase(a) == 1;
}

bool Textures::is_array(const Array3D* a) const {
    std::lock_guard lock(mutex_);
    return arrays_.count(a) == 1;
}

tack_emu_texture* Textures::create_texture(Array3D* a, bool normalized) {
    auto t = std::make_unique<tack_emu_texture>();
    t->magic = kTackEmuTextureMagic;
    t->texels = a->texels.data();
    t->width = (long long)a->width;
    t->height = (long long)a->height;
    t->depth = (long long)a->depth;
    t->normalized = normalized;
    std::lock_guard lock(mutex_);
    tack_emu_texture* raw = t.get();
    textures_[raw] = std::move(t);
    return raw;
}

bool Textures::destroy_texture(tack_emu_texture* t) {
    std::lock_guard lock(mutex_);
    auto it = textures_.find(t);
    if (it == textures_.end()) return false;
    it->second->magic = 0;  // a kernel still holding the handle traps instead of reading it
    // Kept (not freed) so that a stale handle reads a dead record, never freed memory.
    dead_.push_back(std::move(it->second));
    textures_.erase(it);
    return true;
}

bool Textures::is_texture(const void* t) const {
    std::lock_guard lock(mutex_);
    return textures_.count(static_cast<const tack_emu_texture*>(t)) == 1;
}

// --- streams ------------------------------------------------------------------------------------

Stream::Stream() : worker_([this] { run(); }) {}

Stream::~Stream() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
}

void Stream::enqueue(std::function<void()> op) {
    {
        std::lock_guard lock(mutex_);
        queue_.emplace_back(++enqueued_, std::move(op));
    }
    cv_.notify_all();
}

std::uint64_t Stream::mark() {
    std::lock_guard lock(mutex_);
    return enqueued_;
}

void Stream::wait_for(std::uint64_t sequence) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return completed_ >= sequence; });
}

bool Stream::done(std::uint64_t sequence) {
    std::lock_guard lock(mutex_);
    return completed_ >= sequence;
}

void Stream::wait() {
    wait_for(mark());
}

void Stream::fail(int code) {
    std::lock_guard lock(mutex_);
    if (!failure_) failure_ = code;
}

int Stream::take_failure() {
    std::lock_guard lock(mutex_);
    return std::exchange(failure_, 0);
}

namespace {

std::mutex g_fail_mutex;
std::string g_fail_names;  // guarded by g_fail_mutex

}  // namespace

bool fails(const Function& function) {
    std::lock_guard lock(g_fail_mutex);
    return !g_fail_names.empty() && function.name.find(g_fail_names) != std::string::npos;
}

void Stream::run() {
    for (;;) {
        std::pair<std::uint64_t, std::function<void()>> op;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
            if (queue_.empty()) return;
            op = std::move(queue_.front());
            queue_.pop_front();
        }
        op.second();
        {
            std::lock_guard lock(mutex_);
            completed_ = op.first;
        }
        cv_.notify_all();
    }
}

void* Graph::add(Op op, const void* dependencies, std::size_t count, std::string* why) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < count; ++i) {
        const Node* d = static_cast<const Node* const*>(dependencies)[i];
        bool ours = false;
        for (const auto& n : nodes_)
            ours |= n.get() == d;
        if (!ours) {
            *why = "a dependency is not a node of this graph";
            return nullptr;
        }
    }
    ops_.push_back(std::move(op));
    nodes_.push_back(std::make_unique<Node>(Node{this, nodes_.size()}));
    return nodes_.back().get();
}

std::string unsupported_launch(unsigned gy, unsigned gz, unsigned by, unsigned bz, void** extra) {
    if (gy == 1 && gz == 1 && by == 1 && bz == 1 && !extra) return "";
    return "the emulated device runs one-dimensional grids given kernelParams";
}

std::string launch_op(const Function* function, unsigned grid, unsigned block, unsigned shared,
                      void** params, int fail_code, Graph::Op* op) {
    Launch launch{function, grid, block};
    auto values = std::make_shared<std::vector<std::vector<unsigned char>>>();
    std::string why = prepare_launch(launch, params, shared, values.get());
    if (!why.empty()) return why;
    if (fails(*function)) {
        *op = [fail_code](Stream& q) { q.fail(fail_code); };
    } else {
        *op = [launch, values](Stream&) { run(launch, *values); };
    }
    return "";
}

Graph::Op fill_op(void* dst, unsigned value, unsigned elem, std::size_t count) {
    return [=](Stream&) {
        auto* d = static_cast<unsigned char*>(dst);
        for (std::size_t i = 0; i < count; ++i)
            std::memcpy(d + i * elem, &value, elem);  // little-endian: the low bytes
    };
}

Graph::Exec Graph::instantiate() const {
    std::lock_guard lock(mutex_);
    return std::make_shared<const std::vector<Op>>(ops_);
}

void Graph::launch(const Exec& exec, Stream& q) {
    q.enqueue([exec, &q] {
        for (const Op& op : *exec)
            op(q);
    });
}

std::string queue_copy_into_array(Stream& q, Array3D* a, const void* src, std::size_t pitch,
                                  std::size_t rows) {
    const std::size_t row = a->width * sizeof(float);
    if (pitch < row || rows < a->height) return "the source's pitch or rows are short of a row";
    std::size_t span = pitch * rows * (a->depth - 1) + pitch * (a->height - 1) + row;
    if (!Memory::get().contains(src, span))
        return std::to_string(span) + " bytes at a device address outside every live allocation";
    q.enqueue([=] {
        auto* bytes = static_cast<const unsigned char*>(src);
        for (std::size_t z = 0; z < a->depth; ++z)
            for (std::size_t y = 0; y < a->height; ++y)
                std::memcpy(&a->texels[(z * a->height + y) * a->width],
                            bytes + (z * rows + y) * pitch, row);
    });
    return "";
}

// --- embedding the source -----------------------------------------------------------------------

namespace {

constexpr const char* kPtxTag = "// tack-emu-source ";
constexpr char kElfTag[8] = {'T', 'A', 'C', 'K', 'E', 'M', 'U', '1'};

std::string to_hex(const std::string& s) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(s.size() * 2);
    for (unsigned char c : s) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// The end of a code object: an ELF64 file's section header table is the last thing a linker
// writes; an offload bundle lists each entry's offset and size.
std::size_t code_object_size(const unsigned char* image) {
    static const char kBundle[] = "__CLANG_OFFLOAD_BUNDLE__";
    if (std::memcmp(image, kBundle, sizeof kBundle - 1) == 0) {
        std::uint64_t count, end = 24 + 8;
        std::memcpy(&count, image + 24, 8);
        const unsigned char* entry = image + 32;
        for (std::uint64_t i = 0; i < count; ++i) {
            std::uint64_t offset, size, id;
            std::memcpy(&offset, entry, 8);
            std::memcpy(&size, entry + 8, 8);
            std::memcpy(&id, entry + 16, 8);
            entry += 24 + id;
            end = std::max<std::uint64_t>({end, offset + size, std::uint64_t(entry - image)});
        }
        return std::size_t(end);
    }
    std::uint64_t shoff;
    std::uint16_t shentsize, shnum;
    std::memcpy(&shoff, image + 0x28, 8);
    std::memcpy(&shentsize, image + 0x3a, 2);
    std::memcpy(&shnum, image + 0x3c, 2);
    return std::size_t(shoff) + std::size_t(shentsize) * shnum;
}

}  // namespace

std::string embed_source_in_ptx(const std::string& ptx, const std::string& source) {
    std::string out = ptx;
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out + kPtxTag + to_hex(source) + "\n";
}

bool source_from_ptx(const char* ptx, std::string* source, std::string* why) {
    const char* at = std::strstr(ptx, kPtxTag);
    if (!at) {
        *why =
            "the PTX was not made by the emulated NVRTC (it carries no source); the emulated "
            "device runs only modules its own NVRTC compiled";
        return false;
    }
    source->clear();
    for (const char* p = at + std::strlen(kPtxTag); p[0] && p[0] != '\n'; p += 2) {
        int hi = hex_value(p[0]), lo = p[1] ? hex_value(p[1]) : -1;
        if (hi < 0 || lo < 0) {
            *why = "the PTX's embedded source is damaged";
            return false;
        }
        *source += char(hi * 16 + lo);
    }
    return true;
}

std::vector<char> embed_source_in_code_object(const std::vector<char>& code,
                                              const std::string& source) {
    std::vector<char> out = code;
    std::uint64_t n = source.size();
    out.insert(out.end(), kElfTag, kElfTag + 8);
    out.insert(out.end(), reinterpret_cast<const char*>(&n), reinterpret_cast<const char*>(&n) + 8);
    out.insert(out.end(), source.begin(), source.end());
    return out;
}

bool source_from_code_object(const unsigned char* image, std::string* source, std::string* why) {
    const unsigned char* tag = image + code_object_size(image);
    if (std::memcmp(tag, kElfTag, 8) != 0) {
        *why =
            "the code object was not made by the emulated hipRTC (it carries no source); the "
            "emulated device runs only modules its own hipRTC compiled";
        return false;
    }
    std::uint64_t n;
    std::memcpy(&n, tag + 8, 8);
    source->assign(reinterpret_cast<const char*>(tag + 16), std::size_t(n));
    return true;
}

// --- compiling modules --------------------------------------------------------------------------

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string content_hash(const std::string& text) {
    // Two FNV-1a streams with different bases: 128 bits names a cache entry.
    std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
    for (unsigned char c : text) {
        a = (a ^ c) * 0x100000001b3ull;
        b = (b ^ c) * 0x100000001b3ull;
        b ^= b >> 29;
    }
    char out[33];
    std::snprintf(out, sizeof out, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
    return out;
}

std::string cache_dir() {
    std::string dir;
    if (const char* v = std::getenv("TACK_EMU_CACHE"); v && *v)
        dir = v;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        dir = std::string(x) + "/tack-emu";
    else if (const char* h = std::getenv("HOME"); h && *h)
        dir = std::string(h) + "/.cache/tack-emu";
    else
        dir = "/tmp/tack-emu-" + std::to_string(getuid());
    // mkdir -p
    for (std::size_t i = 1; i <= dir.size(); ++i)
        if (i == dir.size() || dir[i] == '/') mkdir(dir.substr(0, i).c_str(), 0755);
    return dir;
}

std::string compiler() {
    if (const char* v = std::getenv("TACK_EMU_CXX"); v && *v) return v;
    return TACK_EMU_DEFAULT_CXX;
}

// How a module is compiled; the include flags are added where it is compiled (they name this
// checkout's folders, so they stay out of the cache key: the headers' text is in it instead).
const std::vector<std::string>& code_flags() {
    static const std::vector<std::string> flags = {
        "-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden",
        // Exact products and sums (the vendor options --fmad / -ffp-contract=on only permit
        // contraction), IEEE division and square root, denormals kept.
        "-ffp-contract=off", "-fno-math-errno", "-w"};
    return flags;
}

// The device headers a module compiles against, as the cache key sees them.
const std::string& headers_text() {
    static const std::string text = read_file(TACK_EMU_INCLUDE_DIR "/tack_emu_kernel.h") +
                                    read_file(TACK_EMU_INCLUDE_DIR "/tack_emu_abi.h") +
                                    read_file(TACK_EMU_INCLUDE_DIR "/hip/hip_runtime.h") +
                                    read_file(TACK_EMU_INCLUDE_DIR "/metal/metal_stdlib");
    return text;
}

std::atomic<unsigned> g_temp_counter{0};

std::string temp_name(const std::string& path) {
    return path + ".tmp" + std::to_string(getpid()) + "." + std::to_string(g_temp_counter++);
}

}  // namespace

bool run_tool(const std::vector<std::string>& argv, std::string* output) {
    std::string log = temp_name(cache_dir() + "/log");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    // A signal (the Ctrl-C tests' SIGINT, under Python's handler, which does not restart calls)
    // interrupts waitpid: wait again, or an unfinished module would be taken as compiled.
    int status = 0;
    while (rc == 0 && waitpid(pid, &status, 0) != pid) {
        if (errno != EINTR) rc = errno;
    }
    *output = read_file(log);
    unlink(log.c_str());
    if (rc != 0) *output = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool cached_check(const std::string& key, const std::vector<std::string>& argv,
                  const std::string& input, std::string* why) {
    std::string dir = cache_dir();
    std::string marker = dir + "/" + content_hash(key + input) + ".ok";
    if (access(marker.c_str(), F_OK) == 0) return true;
    std::string in = temp_name(dir + "/input");
    std::ofstream(in, std::ios::binary) << input;
    std::vector<std::string> args = argv;
    args.push_back(in);
    std::string output;
    bool ok = run_tool(args, &output);
    unlink(in.c_str());
    if (!ok) {
        *why = output;
        return false;
    }
    std::ofstream(marker) << "ok\n";
    return true;
}

namespace {

// The kernels of a generated source: `extern "C" __global__ void NAME(`.
std::vector<std::string> entry_names(const std::string& source) {
    std::vector<std::string> names;
    const std::string decl = "__global__ void ";
    for (std::size_t at = source.find(decl); at != std::string::npos;
         at = source.find(decl, at + 1)) {
        std::size_t start = at + decl.size(), end = source.find('(', start);
        if (end != std::string::npos) names.push_back(source.substr(start, end - start));
    }
    return names;
}

}  // namespace

struct FiberState;
namespace {
thread_local FiberState* t_fibers = nullptr;
}  // namespace

std::unique_ptr<Module> Module::load(const std::string& source, std::string* why) {
    std::string text = source + "\n";
    bool barrier = source.find("__syncthreads") != std::string::npos;
    for (const std::string& name : entry_names(source))
        text += "TACK_EMU_KERNEL(" + name + ", " + (barrier ? "1" : "0") + ")\n";
    return load_cpp(text, {"-include", TACK_EMU_INCLUDE_DIR "/tack_emu_kernel.h"}, why);
}

std::unique_ptr<Module> Module::load_cpp(const std::string& text,
                                         const std::vector<std::string>& flags, std::string* why) {
    std::string key = compiler();
    for (const std::string& f : code_flags())
        key += " " + f;
    for (const std::string& f : flags)  // code flags (-ffast-math); paths stay out of the key
        if (f.rfind("-f", 0) == 0) key += " " + f;
    std::string dir = cache_dir();
    std::string so = dir + "/" + content_hash(key + "\n" + headers_text() + "\n" + text) + ".so";
    if (access(so.c_str(), F_OK) != 0) {
        std::string src = temp_name(dir + "/module") + ".cpp";
        std::ofstream(src, std::ios::binary) << text;
        std::string out = temp_name(so);
        std::vector<std::string> argv = {compiler()};
        for (const std::string& f : code_flags())
            argv.push_back(f);
        argv.push_back("-I" TACK_EMU_INCLUDE_DIR);
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"-x", "c++", src, "-o", out});
        std::string log;
        bool ok = run_tool(argv, &log);
        unlink(src.c_str());
        if (!ok) {
            unlink(out.c_str());
            *why = "the emulated device could not compile the module for the CPU:\n" + log +
                   "\nsource:\n" + text;
            return nullptr;
        }
        rename(out.c_str(), so.c_str());  // atomic: a concurrent process sees all or nothing
    }
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        *why = std::string("dlopen of the compiled module failed: ") + dlerror();
        return nullptr;
    }
    auto set_barrier =
        reinterpret_cast<void (*)(void (*)())>(dlsym(handle, "tack_emu_set_barrier"));
    if (set_barrier) set_barrier(+[] { fiber_yield(); });
    std::unique_ptr<Module> m(new Module());
    m->handle_ = handle;
    return m;
}

void* Module::symbol(const std::string& name) const {
    return dlsym(handle_, name.c_str());
}

Module::~Module() {
    if (handle_) dlclose(handle_);
}

const Function* Module::function(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto it = functions_.find(name);
    if (it != functions_.end()) return it->second.get();
    auto f = std::make_unique<Function>();
    f->name = name;
    f->info =
        static_cast<const tack_emu_kernel_info*>(dlsym(handle_, ("tack_emu_info_" + name).c_str()));
    f->block =
        reinterpret_cast<decltype(f->block)>(dlsym(handle_, ("tack_emu_block_" + name).c_str()));
    f->thread =
        reinterpret_cast<decltype(f->thread)>(dlsym(handle_, ("tack_emu_thread_" + name).c_str()));
    if (!f->info || !f->block || !f->thread) return nullptr;
    return (functions_[name] = std::move(f)).get();
}

// --- launches -----------------------------------------------------------------------------------

std::string prepare_launch(const Launch& launch, void** params, unsigned shared_bytes,
                           std::vector<std::vector<unsigned char>>* values) {
    const Function& f = *launch.function;
    if (launch.block == 0 || launch.block > kMaxBlock)
        return "block of " + std::to_string(launch.block) + " threads (1.." +
               std::to_string(kMaxBlock) + ")";
    if (launch.grid == 0 || launch.grid > kMaxGridX)
        return "grid of " + std::to_string(launch.grid) + " blocks";
    if (shared_bytes != 0)
        return "dynamic shared memory (" + std::to_string(shared_bytes) +
               " bytes): Tack's kernels declare theirs statically";
    if (!params) return "no kernel parameters given (kernelParams is NULL)";
    values->assign(f.info->params, {});
    for (unsigned i = 0; i < f.info->params; ++i) {
        if (!params[i]) return "parameter " + std::to_string(i) + " of " + f.name + " is NULL";
        auto* bytes = static_cast<const unsigned char*>(params[i]);
        (*values)[i].assign(bytes, bytes + f.info->sizes[i]);
        if (!f.info->pointer[i]) continue;
        void* p;
        std::memcpy(&p, bytes, sizeof p);
        if (p && !Memory::get().contains(p, 0) && !Textures::get().is_texture(p)) {
            char hex[32];
            std::snprintf(hex, sizeof hex, "%p", p);
            return "parameter " + std::to_string(i) + " of " + f.name + " (" + hex +
                   ") is not inside a live device allocation: the kernel would fault";
        }
    }
    return "";
}

// Fibers: one per GPU thread of a block that has a barrier. __syncthreads() yields to the
// scheduler, which resumes each live thread in turn once every one has arrived or finished.
// The switch saves the callee-saved registers on the fiber's own stack and swaps stack
// pointers (x86-64 System V): ucontext's swapcontext also saves the signal mask, a system call
// per switch that made a 2^20-element reduction take seconds.
extern "C" void tack_emu_switch(void** save_sp, void* next_sp);
asm(R"(
    .text
    .globl tack_emu_switch
    .hidden tack_emu_switch
    .type tack_emu_switch, @function
tack_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size tack_emu_switch, .-tack_emu_switch
)");

struct FiberState {
    const Launch* launch = nullptr;
    void** args = nullptr;
    unsigned bx = 0, current = 0;
    void* scheduler_sp = nullptr;
    std::vector<void*> sp;
    std::vector<char> finished;
    std::vector<char*> stacks;
    static constexpr std::size_t kStack = std::size_t(1) << 20;
};

void fiber_yield() {
    FiberState* s = t_fibers;
    tack_emu_switch(&s->sp[s->current], s->scheduler_sp);
}

namespace {

[[noreturn]] void fiber_main() {
    FiberState* s = t_fibers;
    unsigned t = s->current;
    s->launch->function->thread(s->args, s->bx, t, s->launch->block, s->launch->grid);
    s->finished[t] = 1;
    tack_emu_switch(&s->sp[t], s->scheduler_sp);  // never resumed
    __builtin_unreachable();
}

// A fresh fiber's stack: six zero registers, then fiber_main as the return address, then a
// zero "caller" so that fiber_main starts with the stack aligned as after a call.
void* fresh_fiber(char* stack) {
    auto* top = reinterpret_cast<void**>(stack + FiberState::kStack);
    *--top = nullptr;
    *--top = reinterpret_cast<void*>(&fiber_main);
    for (int i = 0; i < 6; ++i)
        *--top = nullptr;
    return top;
}

void run_block_on_fibers(FiberState& s) {
    unsigned n = s.launch->block;
    while (s.stacks.size() < n) {
        void* stack = mmap(nullptr, FiberState::kStack, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (stack == MAP_FAILED) {
            complain("cannot map a fiber stack");
            std::abort();
        }
        s.stacks.push_back(static_cast<char*>(stack));
    }
    s.sp.resize(n);
    s.finished.assign(n, 0);
    for (unsigned t = 0; t < n; ++t)
        s.sp[t] = fresh_fiber(s.stacks[t]);
    for (unsigned live = n; live > 0;) {
        live = 0;
        for (unsigned t = 0; t < n; ++t) {
            if (s.finished[t]) continue;
            s.current = t;
            tack_emu_switch(&s.scheduler_sp, s.sp[t]);
            live += !s.finished[t];
        }
    }
}

}  // namespace

void run(const Launch& launch, std::vector<std::vector<unsigned char>>& values) {
    std::vector<void*> args(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        args[i] = values[i].data();
    const Function& f = *launch.function;
    if (!f.info->barrier) {
        for (unsigned bx = 0; bx < launch.grid; ++bx)
            f.block(args.data(), bx, launch.block, launch.grid);
        return;
    }
    thread_local FiberState state;
    t_fibers = &state;
    state.launch = &launch;
    state.args = args.data();
    for (unsigned bx = 0; bx < launch.grid; ++bx) {
        state.bx = bx;
        run_block_on_fibers(state);
    }
}

}  // namespace tack_emu

/// Launches of kernels whose entry contains `name` fail on their stream ("" or nullptr: none).
/// Exported for tests; no runtime calls it.
extern "C" __attribute__((visibility("default"))) void tack_emu_fail_kernels(const char* name) {
    std::lock_guard lock(tack_emu::g_fail_mutex);
    tack_emu::g_fail_names = name ? name : "";
}
