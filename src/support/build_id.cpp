#include "support/build_id.hpp"

#include "support/hash.hpp"

#if defined(__linux__)
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#endif

#include <cstdint>
#include <cstring>

namespace tack::support {

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

#else

std::string build_id_of(const void*) {
    return "";
}

#endif

}  // namespace tack::support
