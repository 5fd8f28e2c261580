#pragma once
// What differs between the systems Tack builds on (Linux, macOS), in one place: every call that
// exists on one system only is in platform.cpp, behind a function here with a portable answer
// elsewhere ("unknown", "not done"). Callers never test __linux__ or __APPLE__ themselves.
// (The CPU backend's own ELF loader is the one exception: it is the Linux path of a choice that
// falls back to LLVM's JITLink, codegen/llvm/elf_loader.cpp.)

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tack::support::platform {

// --- CPUs ------------------------------------------------------------------------------------

/// The CPUs the calling thread may run on (its affinity mask); empty where the system does not
/// say (macOS has no affinity masks).
std::vector<int> allowed_cpus();
/// Confines the calling thread to `cpus`; false where the system refuses or has no affinity.
bool set_allowed_cpus(const std::vector<int>& cpus);
/// The CPU the calling thread runs on, or -1.
int current_cpu();
/// Logical CPUs sharing CPU 0's core (hyperthreads), or 0 when unknown.
int siblings_per_core();
/// The largest cache of the highest level CPU 0 reports, in bytes, or 0 when unknown.
std::int64_t last_level_cache_bytes();
/// Online logical CPUs, or 0 when unknown.
int online_cpus();

// --- waiting -------------------------------------------------------------------------------

/// Sleeps while `word` holds `expected` (a futex on Linux, std::atomic::wait elsewhere); may
/// return spuriously.
void wait_while(std::atomic<std::uint32_t>& word, std::uint32_t expected);
/// Wakes every thread sleeping in wait_while on `word`.
void wake_all(std::atomic<std::uint32_t>& word);

// --- memory and objects --------------------------------------------------------------------

/// Advice that [p, p + bytes) be backed by huge pages (Linux's transparent huge pages); a hint
/// with no effect where there are none.
void advise_huge_pages(void* p, std::size_t bytes);
/// Lowercase hex of the build id of the loaded object holding `address` (ELF's
/// NT_GNU_BUILD_ID on Linux, LC_UUID on macOS); "" where there is none.
std::string build_id_of(const void* address);
/// Lowercase hex of the LC_UUID of the 64-bit Mach-O image whose header is at `header` (host
/// byte order, load commands following it), or "" (another magic, no LC_UUID). What
/// build_id_of reads on macOS; public so that it is tested where no Mach-O is loaded.
std::string macho_uuid(const void* header);

// --- text ----------------------------------------------------------------------------------

/// The correctly rounded double of a decimal or hexadecimal floating literal (no underscores,
/// the whole of `text`), independent of the process locale. `*out_of_range` is set when the
/// value overflows or underflows (`*value` is then unspecified). false when `text` is not a
/// number. (std::from_chars for double, where the standard library has it; strtod_l in the C
/// locale where it does not: libc++ before 20.)
bool parse_double(std::string_view text, double* value, bool* out_of_range);

}  // namespace tack::support::platform
