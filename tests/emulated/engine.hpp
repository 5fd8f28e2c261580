#pragma once
// The emulated GPU both stand-in drivers are built on (cuda_driver.cpp, hip_runtime.cpp): device
// memory with the checks a driver makes, streams that are real queues (one worker thread each),
// modules compiled from the CUDA C / HIP C the vendor compiler was given, and launches that run
// every GPU thread on the CPU. Test infrastructure: the runtime loads a stand-in only when
// TACK_CUDA_LIBRARY / TACK_HIP_LIBRARY (and the compiler variables) name it.
//
// How a kernel reaches the CPU: the stand-in NVRTC / hipRTC compiles with the real vendor
// compiler and hands back its PTX / code object with the source appended (embed_source); the
// stand-in driver's module load takes the source back out (extract_source), so a module read
// from Tack's disk cache in a new process runs too. The source is compiled as C++ by clang
// behind include/tack_emu_kernel.h into a shared object, cached by content under
// TACK_EMU_CACHE (default $XDG_CACHE_HOME/tack-emu, else ~/.cache/tack-emu).

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "include/tack_emu_abi.h"

namespace tack_emu {

/// Writes "tack-emu: <what>" to stderr: every refusal says why, as a driver's error log would.
void complain(const std::string& what);

/// What the emulated device reports, for tests of the paths a real device would choose: a
/// variable set to 0 turns the feature off (TACK_EMU_MEMORY_POOLS: stream-ordered allocation;
/// TACK_EMU_IMAGES: texture hardware, HIP's image support). Anything else leaves it on.
bool feature_on(const char* variable);

// --- memory ---------------------------------------------------------------------------------

/// Device allocations: page-mapped host memory (freed memory is unmapped, so a kernel that runs
/// after its buffer was freed faults instead of reading stale data), within a fixed device
/// capacity (TACK_EMU_MEMORY_MB, default 8192): an allocation past it fails as out of memory.
class Memory {
  public:
    /// What an allocation is, as the driver's pointer attributes tell: device memory, pinned host
    /// memory (cuMemAllocHost, hipHostMalloc) or managed memory (cuMemAllocManaged,
    /// hipMallocManaged). On the CPU all three are the same mapping.
    enum class Kind { Device, Pinned, Managed };
    static Memory& get();
    /// nullptr when the device is full or the mapping fails.
    void* allocate(std::size_t bytes, Kind kind = Kind::Device);
    /// The kind of the live allocation holding `p` (check contains() first).
    Kind kind_of(const void* p) const;
    /// false when `p` is not the start of a live allocation.
    bool release(void* p);
    /// Memory mapped by the caller (cuMemMap) counts as an allocation until forget(p).
    void adopt(void* p, std::size_t bytes);
    bool forget(void* p);
    /// Whether [p, p + bytes) lies inside one live allocation.
    bool contains(const void* p, std::size_t bytes) const;
    std::size_t capacity() const { return capacity_; }
    std::size_t in_use() const;

  private:
    Memory();
    mutable std::mutex mutex_;
    std::map<std::uintptr_t, std::size_t> live_;  // start -> size
    std::map<std::uintptr_t, Kind> kinds_;        // start -> kind, where not Device
    std::set<std::uintptr_t> adopted_;
    std::size_t capacity_, used_ = 0;
};

// --- textures -------------------------------------------------------------------------------

/// A 3-D float array (cuArray3DCreate / hipMalloc3DArray) and the texture objects over it: the
/// kernel-side record is tack_emu_texture; the handle a kernel receives is its address.
struct Array3D {
    std::size_t width, height, depth;
    std::vector<float> texels;
};
class Textures {
  public:
    static Textures& get();
    Array3D* create_array(std::size_t w, std::size_t h, std::size_t d);
    bool destroy_array(Array3D* a);
    bool is_array(const Array3D* a) const;
    tack_emu_texture* create_texture(Array3D* a, bool normalized);
    bool destroy_texture(tack_emu_texture* t);
    bool is_texture(const void* t) const;

  private:
    mutable std::mutex mutex_;
    std::map<const Array3D*, std::unique_ptr<Array3D>> arrays_;
    std::map<const tack_emu_texture*, std::unique_ptr<tack_emu_texture>> textures_;
    std::vector<std::unique_ptr<tack_emu_texture>> dead_;
};

// --- handles --------------------------------------------------------------------------------

/// The live handles of one kind a stand-in has handed out (streams, events, modules, functions):
/// a call with any other pointer is refused, as a driver refuses a stale or foreign handle.
template <class T>
class Handles {
  public:
    T* add(T* h) {
        std::lock_guard lock(mutex_);
        live_.insert(h);
        return h;
    }
    bool live(const void* h) const {
        std::lock_guard lock(mutex_);
        return live_.count(static_cast<T*>(const_cast<void*>(h))) == 1;
    }
    /// Forgets and deletes `h`; false when it is not live.
    bool destroy(const void* h) {
        T* t = static_cast<T*>(const_cast<void*>(h));
        {
            std::lock_guard lock(mutex_);
            if (live_.erase(t) == 0) return false;
        }
        delete t;
        return true;
    }
    /// Destroys every handle `pred` selects (a module's functions when it is unloaded).
    template <class Pred>
    void destroy_if(Pred pred) {
        std::vector<T*> doomed;
        {
            std::lock_guard lock(mutex_);
            for (auto it = live_.begin(); it != live_.end();) {
                if (!pred(**it)) {
                    ++it;
                    continue;
                }
                doomed.push_back(*it);
                it = live_.erase(it);
            }
        }
        for (T* t : doomed)
            delete t;
    }
    std::vector<T*> all() const {
        std::lock_guard lock(mutex_);
        return {live_.begin(), live_.end()};
    }

  private:
    mutable std::mutex mutex_;
    std::set<T*> live_;
};

// --- streams --------------------------------------------------------------------------------

/// A queue of work run in order by its own thread: copies, fills and launches return before
/// they run, exactly as on a GPU, so the runtime's ordering, waits and deferred frees are
/// exercised. An operation that fails (a kernel that faults cannot: it takes the process down,
/// loudly) records its error, which the next wait returns.
class Stream {
  public:
    Stream();
    ~Stream();
    void enqueue(std::function<void()> op);
    /// Blocks until everything enqueued before the call has run.
    void wait();
    /// A marker: the returned sequence number completes when the work before it has.
    std::uint64_t mark();
    void wait_for(std::uint64_t sequence);
    bool done(std::uint64_t sequence);
    /// A launch's failure, reported by the next wait on the stream and then cleared (a real
    /// driver's launch errors surface the same way: at the next synchronizing call).
    void fail(int code);
    int take_failure();

  private:
    void run();
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::pair<std::uint64_t, std::function<void()>>> queue_;
    std::uint64_t enqueued_ = 0, completed_ = 0;
    int failure_ = 0;
    bool stop_ = false;
    std::thread worker_;
};

// --- graphs ---------------------------------------------------------------------------------
/// A graph (cuGraph*, hipGraph*) built node by node: each node is one operation whose
/// arguments were checked and copied when it was added, and depends on nodes of the same graph
/// added before it, so the order of insertion keeps every dependency. An executable graph is a
/// snapshot of the operations (later additions to the graph do not change it, as on a GPU);
/// a launch of it is one piece of work on a stream.
class Graph {
  public:
    using Op = std::function<void(Stream&)>;
    struct Node {
        const Graph* graph;
        std::size_t index;
    };
    /// The new node (a driver's node handle); nullptr with `*why` set when a dependency (the
    /// driver's handles) is not a node of this graph.
    void* add(Op op, const void* dependencies, std::size_t count, std::string* why);
    using Exec = std::shared_ptr<const std::vector<Op>>;
    Exec instantiate() const;
    /// Queues one run of `exec` on `q`.
    static void launch(const Exec& exec, Stream& q);

  private:
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<Node>> nodes_;
    std::vector<Op> ops_;
};

/// The one copy Tack's textures make, queued on `q`: device memory in rows of `pitch` bytes,
/// `rows` rows per slice, into the whole of `a`. "" or why not (a pitch shorter than a row,
/// fewer rows than the array's height, a source outside every live allocation).
std::string queue_copy_into_array(Stream& q, Array3D* a, const void* src, std::size_t pitch,
                                  std::size_t rows);

// --- modules and launches -------------------------------------------------------------------

/// The vendor compiler's output with the source it was compiled from. PTX is text: the source
/// follows as a comment line ("// tack-emu-source <hex>"), which ptxas ignores. A code object
/// (an ELF file, or a clang offload bundle of them) is binary with no length beside it: the
/// source follows its last byte (a "TACKEMU1" tag, the length, the text), past what a reader of
/// the format reads.
std::string embed_source_in_ptx(const std::string& ptx, const std::string& source);
std::vector<char> embed_source_in_code_object(const std::vector<char>& code,
                                              const std::string& source);
/// The embedded source; false with `*why` set when the image carries none.
bool source_from_ptx(const char* ptx, std::string* source, std::string* why);
bool source_from_code_object(const unsigned char* image, std::string* source, std::string* why);

/// One kernel of a module: its parameter list and its entry points.
struct Function {
    std::string name;
    const tack_emu_kernel_info* info = nullptr;
    void (*block)(void**, unsigned, unsigned, unsigned) = nullptr;
    void (*thread)(void**, unsigned, unsigned, unsigned, unsigned) = nullptr;
};

/// A module compiled for the CPU. `dialect` names the header's flavour ("cuda", "hip").
class Module {
  public:
    /// Compiles (or finds in the cache) and loads `source`; nullptr with `*why` set.
    static std::unique_ptr<Module> load(const std::string& source, std::string* why);
    /// The same for C++ that already has its entry points (the emulated Metal compiler's
    /// rewrite of MSL), compiled with `flags` added (include paths, -include).
    static std::unique_ptr<Module> load_cpp(const std::string& text,
                                            const std::vector<std::string>& flags,
                                            std::string* why);
    /// A symbol the module exports, or nullptr.
    void* symbol(const std::string& name) const;
    ~Module();
    /// nullptr when the module has no kernel `name`.
    const Function* function(const std::string& name);

  private:
    Module() = default;
    void* handle_ = nullptr;
    std::mutex mutex_;
    std::map<std::string, std::unique_ptr<Function>> functions_;
};

struct Launch {
    const Function* function;
    unsigned grid = 1, block = 1;
};

/// Checks a launch as a driver does (block and grid limits, dynamic shared memory, every
/// pointer argument inside a live allocation) and copies the argument values; "" or why not.
/// On success `*values` holds the bytes and `*pointers` the void** the kernel is called with.
std::string prepare_launch(const Launch& launch, void** params, unsigned shared_bytes,
                           std::vector<std::vector<unsigned char>>* values);
/// Runs every thread of the grid on the calling thread (a stream's worker).
void run(const Launch& launch, std::vector<std::vector<unsigned char>>& values);

/// Why the emulated device does not run a launch of these dimensions (it runs one-dimensional
/// grids given kernelParams), or "".
std::string unsupported_launch(unsigned gy, unsigned gz, unsigned by, unsigned bz, void** extra);
/// A launch checked (prepare_launch) and its arguments copied: the operation that runs it on a
/// stream, or fails the stream with `fail_code` where the kernel is one fails() names. "" or why
/// not.
std::string launch_op(const Function* function, unsigned grid, unsigned block, unsigned shared,
                      void** params, int fail_code, Graph::Op* op);
/// A fill of `count` elements of `elem` bytes (the low bytes of `value`) at `dst`.
Graph::Op fill_op(void* dst, unsigned value, unsigned elem, std::size_t count);

/// Whether a launch of `function` is to fail on its stream instead of running: the names set by
/// tack_emu_fail_kernels (a test's way to make a queued launch fail, as a kernel that traps or
/// reads out of bounds would on a GPU).
bool fails(const Function& function);

/// Inside a kernel with a barrier: back to the block's scheduler (__syncthreads()).
void fiber_yield();

/// Runs a tool (clang, ptxas) with its output in `*output`; true when it exits 0.
bool run_tool(const std::vector<std::string>& argv, std::string* output);
/// Runs `argv` plus a file holding `input` once per distinct (key, input): the result is kept
/// in the cache directory, so a check a vendor driver makes at load (ptxas on the PTX) costs one
/// run per module. false with the tool's output in `*why`.
bool cached_check(const std::string& key, const std::vector<std::string>& argv,
                  const std::string& input, std::string* why);

/// The device limits both stand-ins report.
inline constexpr unsigned kMaxBlock = 1024;
inline constexpr unsigned long long kMaxGridX = 2147483647ull;
inline constexpr unsigned kMaxTexture3D = 16384;
inline constexpr unsigned kMaxStaticShared = 49152;

}  // namespace tack_emu
