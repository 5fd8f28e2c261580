#include "support/platform.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "support/hash.hpp"

#if defined(__linux__)
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <locale.h>
#include <unistd.h>
#endif
#if defined(__APPLE__)
#include <dlfcn.h>
#include <xlocale.h>
#endif

namespace tack::support::platform {

// --- CPUs ------------------------------------------------------------------------------------

#if defined(__linux__)

std::vector<int> allowed_cpus() {
    cpu_set_t set;
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

bool set_allowed_cpus(const std::vector<int>& cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus)
        if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
    return !cpus.empty() && sched_setaffinity(0, sizeof(set), &set) == 0;
}

int current_cpu() {
    return sched_getcpu();
}

namespace {

// Counts the CPUs in a Linux cpulist such as "0,4" or "0-1,8-9".
int count_cpulist(const std::string& list) {
    int count = 0;
    std::stringstream items(list);
    std::string item;
    while (std::getline(items, item, ',')) {
        int lo = 0, hi = 0;
        char dash = 0;
        std::stringstream range(item);
        if (!(range >> lo)) continue;
        hi = (range >> dash >> hi && dash == '-') ? hi : lo;
        count += hi >= lo ? hi - lo + 1 : 0;
    }
    return count;
}

}  // namespace

int siblings_per_core() {
    std::ifstream file("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
    std::string list;
    if (!file || !std::getline(file, list)) return 0;
    return count_cpulist(list);
}

std::int64_t last_level_cache_bytes() {
    std::int64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; ++i) {
        std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
        std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
        int level = 0;
        std::string size;
        if (!(level_file >> level) || !(size_file >> size) || size.empty()) break;
        std::int64_t bytes = std::atoll(size.c_str());
        char unit = size.back();
        bytes *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
        if (level > best_level || (level == best_level && bytes > best)) {
            best_level = level;
            best = bytes;
        }
    }
    return best;
}

#else  // no affinity masks, no topology files

std::vector<int> allowed_cpus() {
    return {};
}
bool set_allowed_cpus(const std::vector<int>&) {
    return false;
}
int current_cpu() {
    return -1;
}
int siblings_per_core() {
    return 0;
}
std::int64_t last_level_cache_bytes() {
    return 0;
}

#endif

int online_cpus() {
#if defined(__unix__) || defined(__APPLE__)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 0;
#else
    return 0;
#endif
}

// --- waiting -------------------------------------------------------------------------------

// A futex rather than std::atomic::wait on Linux: libstdc++ spins a fixed count before its own
// futex, and the thread pool keeps its own spin budget (runtime/cpu/thread_pool.cpp).
void wait_while(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected,
            nullptr, nullptr, 0);
#else
    word.wait(expected);
#endif
}

void wake_all(std::atomic<std::uint32_t>& word) {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 0x7fffffff,
            nullptr, nullptr, 0);
#else
    word.notify_all();
#endif
}

// --- memory and objects --------------------------------------------------------------------

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
#else
    (void)p;
    (void)bytes;
#endif
}

#if defined(__linux__)
namespace {

struct Search {
    const void* base;  // the object's load address (dladdr's dli_fbase)
    std::string hex;
};

// The notes of one PT_NOTE segment: each a header, its name and its descriptor, 4-aligned.
std::string build_id_in(const unsigned char* at, std::size_t size) {
    std::size_t off = 0;
    while (off + sizeof(ElfW(Nhdr)) <= size) {
        ElfW(Nhdr) note;
        std::memcpy(&note, at + off, sizeof note);
        std::size_t name = off + sizeof note;
        std::size_t desc = name + ((note.n_namesz + 3) & ~std::size_t(3));
        std::size_t next = desc + ((note.n_descsz + 3) & ~std::size_t(3));
        if (next > size) break;
        if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
            std::memcmp(at + name, "GNU", 4) == 0)
            return to_hex({at + desc, note.n_descsz});
        off = next;
    }
    return "";
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
    auto* s = static_cast<Search*>(data);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || ph.p_offset != 0) continue;
        // The segment mapping the ELF header is at the object's base.
        if (reinterpret_cast<const void*>(info->dlpi_addr + ph.p_vaddr) != s->base) return 0;
        for (int j = 0; j < info->dlpi_phnum; ++j) {
            const ElfW(Phdr)& n = info->dlpi_phdr[j];
            if (n.p_type != PT_NOTE) continue;
            s->hex = build_id_in(
                reinterpret_cast<const unsigned char*>(info->dlpi_addr + n.p_vaddr), n.p_memsz);
            if (!s->hex.empty()) return 1;
        }
        return 1;
    }
    return 0;
}

}  // namespace

std::string build_id_of(const void* address) {
    Dl_info info{};
    if (dladdr(address, &info) == 0 || !info.dli_fbase) return "";
    Search s{info.dli_fbase, {}};
    dl_iterate_phdr(visit, &s);
    return s.hex;
}
#elif defined(__APPLE__)
std::string build_id_of(const void* address) {
    Dl_info info{};
    if (dladdr(address, &info) == 0 || !info.dli_fbase) return "";
    return macho_uuid(info.dli_fbase);
}
#else
std::string build_id_of(const void*) {
    return "";
}
#endif

// Read from bytes rather than <mach-o/loader.h> so that it builds, and is tested, everywhere.
std::string macho_uuid(const void* header) {
    constexpr std::uint32_t kMagic64 = 0xfeedfacf;  // MH_MAGIC_64, in the host's byte order
    constexpr std::uint32_t kLcUuid = 0x1b;
    constexpr std::size_t kHeaderSize = 32;  // sizeof(mach_header_64)
    auto* at = static_cast<const unsigned char*>(header);
    auto word = [&](std::size_t off) {
        std::uint32_t w;
        std::memcpy(&w, at + off, sizeof w);
        return w;
    };
    if (word(0) != kMagic64) return "";
    std::uint32_t commands = word(16), size = word(20);
    std::size_t off = kHeaderSize, end = kHeaderSize + size;
    for (std::uint32_t i = 0; i < commands && off + 8 <= end; ++i) {
        std::uint32_t cmd = word(off), cmdsize = word(off + 4);
        if (cmdsize < 8 || off + cmdsize > end) break;
        if (cmd == kLcUuid && cmdsize >= 24) return to_hex({at + off + 8, 16});
        off += cmdsize;
    }
    return "";
}

// --- text ----------------------------------------------------------------------------------

bool parse_double(std::string_view text, double* value, bool* out_of_range) {
    *out_of_range = false;
#if defined(__cpp_lib_to_chars) || !defined(_LIBCPP_VERSION)
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
    if (ec == std::errc::result_out_of_range) *out_of_range = true;
    return ec != std::errc::invalid_argument && end == text.data() + text.size();
#else
    // libc++ before 20 has no floating-point from_chars: strtod in the C locale, which glibc and
    // Apple's libc round correctly too. from_chars reads hexadecimal digits without the 0x.
    static locale_t c_locale = newlocale(LC_ALL_MASK, "C", nullptr);
    std::string s(text);
    errno = 0;
    char* end = nullptr;
    *value = strtod_l(s.c_str(), &end, c_locale);
    *out_of_range = errno == ERANGE && (*value == 0 || std::isinf(*value));
    return end == s.c_str() + s.size() && !s.empty();
#endif
}

}  // namespace tack::support::platform
