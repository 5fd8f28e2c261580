#include "codegen/llvm/elf_loader.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "codegen/llvm/internal.hpp"

#if defined(__linux__) && defined(__x86_64__)
#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>
#define TACK_ELF_LOADER 1
#else
#define TACK_ELF_LOADER 0
#endif

namespace tack::codegen::llvm_cpu {

#if TACK_ELF_LOADER
namespace {

constexpr uint32_t kUnwindSection = 0x70000001;  // SHT_X86_64_UNWIND: .eh_frame
constexpr uint64_t kMaxBss = uint64_t(1) << 30;  // a kernel object never reserves more
// A call to a libc/libm function may land anywhere in the address space: it goes through a
// stub `jmp *0(%rip)` followed by the 8-byte address.
constexpr uint8_t kStubCode[] = {0xff, 0x25, 0x00, 0x00, 0x00, 0x00};
constexpr uint64_t kStubSize = 16;

// "Not an object this loader handles": caught at the boundary, the caller falls back to JITLink.
struct NotMine {};

void need(bool ok) {
    if (!ok) throw NotMine{};
}

uint64_t align_up(uint64_t v, uint64_t align) {
    return (v + align - 1) / align * align;
}

// One region per protection, each page-aligned in a single mapping.
enum Region { kCode, kReadOnly, kWritable, kRegions };

struct Mapping {
    void* base = nullptr;
    size_t size = 0;
    Mapping() = default;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() {
        if (base) munmap(base, size);
    }
    uint8_t* at(uint64_t offset) const { return static_cast<uint8_t*>(base) + offset; }
};

class ElfObject final : public detail::SymbolObject {
  public:
    ElfObject(Mapping& mapping, std::unordered_map<std::string, void*> symbols)
        : base_(mapping.base), size_(mapping.size), symbols_(std::move(symbols)) {
        mapping.base = nullptr;  // ours now
    }
    ~ElfObject() override { munmap(base_, size_); }

  private:
    void* symbol(const std::string& name) const override {
        auto it = symbols_.find(name);
        return it == symbols_.end() ? nullptr : it->second;
    }

    void* base_;
    size_t size_;
    std::unordered_map<std::string, void*> symbols_;  // immutable: lookups need no lock
};

class Loader {
  public:
    explicit Loader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

    std::unique_ptr<LoadedObject> load() {
        read_sections();
        read_symbols();
        plan_relocations();
        lay_out();
        map_and_copy();
        resolve_symbols();
        apply_relocations();
        fill_stubs_and_got();
        protect();
        return std::make_unique<ElfObject>(map_, std::move(exported_));
    }

  private:
    struct Placed {
        bool alloc = false;
        Region region = kReadOnly;
        uint64_t offset = 0;  // from the start of its region, until lay_out(); then absolute
    };

    template <class T>
    T read_at(uint64_t offset) const {
        need(offset <= bytes_.size() && bytes_.size() - offset >= sizeof(T));
        T out;
        std::memcpy(&out, bytes_.data() + offset, sizeof(T));
        return out;
    }

    bool in_file(uint64_t offset, uint64_t size) const {
        return offset <= bytes_.size() && size <= bytes_.size() - offset;
    }

    void read_sections() {
        auto eh = read_at<Elf64_Ehdr>(0);
        need(std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
        need(eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB);
        need(eh.e_type == ET_REL && eh.e_machine == EM_X86_64);
        need(eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum > 0 && eh.e_shnum < SHN_LORESERVE);
        sections_.resize(eh.e_shnum);
        placed_.resize(eh.e_shnum);
        for (size_t i = 0; i < sections_.size(); ++i)
            sections_[i] = read_at<Elf64_Shdr>(eh.e_shoff + i * sizeof(Elf64_Shdr));

        uint64_t region_size[kRegions] = {};
        for (size_t i = 1; i < sections_.size(); ++i) {
            const Elf64_Shdr& s = sections_[i];
            if (!(s.sh_flags & SHF_ALLOC)) {
                need(s.sh_type != SHT_GROUP);  // COMDAT groups: JITLink's business
                if (s.sh_type == SHT_SYMTAB) {
                    need(symtab_ == 0);
                    symtab_ = i;
                }
                continue;
            }
            need(s.sh_type == SHT_PROGBITS || s.sh_type == SHT_NOBITS ||
                 s.sh_type == kUnwindSection);
            need(!(s.sh_flags & (SHF_TLS | SHF_GROUP)));
            need(!((s.sh_flags & SHF_EXECINSTR) && (s.sh_flags & SHF_WRITE)));
            uint64_t align = std::max<uint64_t>(1, s.sh_addralign);
            need((align & (align - 1)) == 0 && align <= page_);
            if (s.sh_type == SHT_NOBITS) {
                need(s.sh_size <= kMaxBss);
            } else {
                need(in_file(s.sh_offset, s.sh_size));
            }
            Region r = (s.sh_flags & SHF_EXECINSTR) ? kCode
                       : (s.sh_flags & SHF_WRITE)   ? kWritable
                                                    : kReadOnly;
            placed_[i] = {true, r, align_up(region_size[r], align)};
            region_size[r] = placed_[i].offset + s.sh_size;
        }
        std::copy(std::begin(region_size), std::end(region_size), region_size_);
        need(symtab_ != 0);
    }

    void read_symbols() {
        const Elf64_Shdr& st = sections_[symtab_];
        need(st.sh_entsize == sizeof(Elf64_Sym) && in_file(st.sh_offset, st.sh_size));
        need(st.sh_link > 0 && st.sh_link < sections_.size());
        const Elf64_Shdr& names = sections_[st.sh_link];
        need(names.sh_type == SHT_STRTAB && in_file(names.sh_offset, names.sh_size));
        strtab_ = std::string_view(reinterpret_cast<const char*>(bytes_.data()) + names.sh_offset,
                                   names.sh_size);
        size_t n = st.sh_size / sizeof(Elf64_Sym);
        symbols_.resize(n);
        for (size_t i = 0; i < n; ++i)
            symbols_[i] = read_at<Elf64_Sym>(st.sh_offset + i * sizeof(Elf64_Sym));
        for (const Elf64_Sym& sym : symbols_) {
            need(ELF64_ST_TYPE(sym.st_info) != STT_TLS && sym.st_shndx != SHN_COMMON);
            need(sym.st_shndx < sections_.size() || sym.st_shndx == SHN_ABS);
        }
    }

    std::string_view name_of(const Elf64_Sym& sym) const {
        need(sym.st_name < strtab_.size());
        std::string_view rest = strtab_.substr(sym.st_name);
        size_t end = rest.find('\0');
        need(end != std::string_view::npos);
        return rest.substr(0, end);
    }

    static bool is_external(const Elf64_Sym& sym) { return sym.st_shndx == SHN_UNDEF; }

    static bool is_got(uint32_t type) {
        return type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX ||
               type == R_X86_64_REX_GOTPCRELX;
    }

    // Which relocation sections apply, and which symbols need a stub or a GOT slot.
    void plan_relocations() {
        for (size_t i = 1; i < sections_.size(); ++i) {
            const Elf64_Shdr& s = sections_[i];
            bool applies = (s.sh_type == SHT_RELA || s.sh_type == SHT_REL) &&
                           s.sh_info < sections_.size() && placed_[s.sh_info].alloc;
            if (!applies) continue;  // e.g. relocations of debug sections, which are not loaded
            need(s.sh_type == SHT_RELA && s.sh_entsize == sizeof(Elf64_Rela));
            need(s.sh_link == symtab_ && in_file(s.sh_offset, s.sh_size));
            rela_sections_.push_back(i);
            for (uint64_t k = 0; k < s.sh_size / sizeof(Elf64_Rela); ++k) {
                auto r = read_at<Elf64_Rela>(s.sh_offset + k * sizeof(Elf64_Rela));
                uint64_t sym = ELF64_R_SYM(r.r_info);
                need(sym < symbols_.size());
                uint32_t type = ELF64_R_TYPE(r.r_info);
                if (is_got(type) && !got_.contains(sym)) got_.emplace(sym, got_.size());
                if (type == R_X86_64_PLT32 && is_external(symbols_[sym]) && !stub_.contains(sym))
                    stub_.emplace(sym, stub_.size());
            }
        }
    }

    // Regions in order code, read-only, writable, each starting on a page; stubs follow the
    // code, GOT slots the read-only data.
    void lay_out() {
        stubs_at_ = align_up(region_size_[kCode], kStubSize);
        uint64_t code_end = stubs_at_ + stub_.size() * kStubSize;
        region_base_[kCode] = 0;
        region_base_[kReadOnly] = align_up(code_end, page_);
        got_at_ = region_base_[kReadOnly] + align_up(region_size_[kReadOnly], 8);
        uint64_t ro_end = got_at_ + got_.size() * 8;
        region_base_[kWritable] = align_up(ro_end, page_);
        uint64_t total = align_up(region_base_[kWritable] + region_size_[kWritable], page_);
        need(total > 0);
        code_pages_ = region_base_[kReadOnly];
        ro_pages_ = region_base_[kWritable] - region_base_[kReadOnly];
        map_.size = total;
        for (size_t i = 1; i < placed_.size(); ++i) {
            if (placed_[i].alloc) placed_[i].offset += region_base_[placed_[i].region];
        }
    }

    void map_and_copy() {
        void* p =
            mmap(nullptr, map_.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        need(p != MAP_FAILED);
        map_.base = p;
        for (size_t i = 1; i < sections_.size(); ++i) {
            const Elf64_Shdr& s = sections_[i];
            if (placed_[i].alloc && s.sh_type != SHT_NOBITS && s.sh_size > 0)
                std::memcpy(map_.at(placed_[i].offset), bytes_.data() + s.sh_offset, s.sh_size);
        }
    }

    void resolve_symbols() {
        address_.assign(symbols_.size(), 0);
        for (size_t i = 1; i < symbols_.size(); ++i) {
            const Elf64_Sym& sym = symbols_[i];
            int bind = ELF64_ST_BIND(sym.st_info);
            if (sym.st_shndx == SHN_ABS) {
                address_[i] = sym.st_value;
            } else if (is_external(sym)) {
                std::string_view name = name_of(sym);
                if (name.empty()) continue;
                // The process's own libc and libm, as JITLink's process search would find them.
                void* found = dlsym(RTLD_DEFAULT, std::string(name).c_str());
                need(found != nullptr || bind == STB_WEAK);
                address_[i] = reinterpret_cast<uint64_t>(found);
            } else if (placed_[sym.st_shndx].alloc) {
                need(sym.st_value <= sections_[sym.st_shndx].sh_size);
                address_[i] = reinterpret_cast<uint64_t>(map_.at(placed_[sym.st_shndx].offset)) +
                              sym.st_value;
                if (bind == STB_GLOBAL || bind == STB_WEAK) {
                    std::string_view name = name_of(sym);
                    if (!name.empty())
                        exported_.emplace(std::string(name), reinterpret_cast<void*>(address_[i]));
                }
            } else {
                unplaced_.push_back(i);  // in a section that is not loaded: never a target
            }
        }
        std::sort(unplaced_.begin(), unplaced_.end());
    }

    void write(uint8_t* at, uint64_t value, int width) { std::memcpy(at, &value, size_t(width)); }

    // A 32-bit field: the value must survive truncation (sign- or zero-extended as the
    // instruction reads it).
    void write32(uint8_t* at, uint64_t value, bool is_signed) {
        bool fits = is_signed ? int64_t(value) >= INT32_MIN && int64_t(value) <= INT32_MAX
                              : value <= UINT32_MAX;
        need(fits);
        write(at, value, 4);
    }

    void apply_relocations() {
        for (size_t i : rela_sections_) {
            const Elf64_Shdr& s = sections_[i];
            const Elf64_Shdr& target = sections_[s.sh_info];
            need(target.sh_type != SHT_NOBITS);
            uint8_t* base = map_.at(placed_[s.sh_info].offset);
            for (uint64_t k = 0; k < s.sh_size / sizeof(Elf64_Rela); ++k) {
                auto r = read_at<Elf64_Rela>(s.sh_offset + k * sizeof(Elf64_Rela));
                uint64_t sym = ELF64_R_SYM(r.r_info);
                uint32_t type = ELF64_R_TYPE(r.r_info);
                if (type == R_X86_64_NONE) continue;
                need(!std::binary_search(unplaced_.begin(), unplaced_.end(), sym));
                int width = (type == R_X86_64_64 || type == R_X86_64_PC64) ? 8 : 4;
                need(target.sh_size >= uint64_t(width) && r.r_offset <= target.sh_size - width);
                uint8_t* at = base + r.r_offset;
                // Unsigned arithmetic wraps where hostile addends would overflow a signed one.
                uint64_t P = reinterpret_cast<uint64_t>(at);
                uint64_t S = address_[sym];
                uint64_t A = uint64_t(r.r_addend);
                switch (type) {
                    case R_X86_64_64:
                        write(at, S + A, 8);
                        break;
                    case R_X86_64_PC64:
                        write(at, S + A - P, 8);
                        break;
                    case R_X86_64_PC32:
                        write32(at, S + A - P, true);
                        break;
                    case R_X86_64_PLT32: {
                        auto stub = stub_.find(sym);
                        uint64_t L = stub == stub_.end()
                                         ? S
                                         : reinterpret_cast<uint64_t>(
                                               map_.at(stubs_at_ + stub->second * kStubSize));
                        write32(at, L + A - P, true);
                        break;
                    }
                    case R_X86_64_GOTPCREL:
                    case R_X86_64_GOTPCRELX:
                    case R_X86_64_REX_GOTPCRELX: {
                        uint64_t G =
                            reinterpret_cast<uint64_t>(map_.at(got_at_ + got_.at(sym) * 8));
                        write32(at, G + A - P, true);
                        break;
                    }
                    case R_X86_64_32:
                        write32(at, S + A, false);
                        break;
                    case R_X86_64_32S:
                        write32(at, S + A, true);
                        break;
                    default:
                        throw NotMine{};
                }
            }
        }
    }

    void fill_stubs_and_got() {
        for (auto [sym, index] : stub_) {
            uint8_t* at = map_.at(stubs_at_ + index * kStubSize);
            std::memcpy(at, kStubCode, sizeof(kStubCode));
            write(at + sizeof(kStubCode), address_[sym], 8);
        }
        for (auto [sym, index] : got_)
            write(map_.at(got_at_ + index * 8), address_[sym], 8);
    }

    void protect() {
        if (code_pages_ > 0) need(mprotect(map_.base, code_pages_, PROT_READ | PROT_EXEC) == 0);
        if (ro_pages_ > 0) need(mprotect(map_.at(code_pages_), ro_pages_, PROT_READ) == 0);
    }

    std::span<const uint8_t> bytes_;
    uint64_t page_ = uint64_t(sysconf(_SC_PAGESIZE));
    std::vector<Elf64_Shdr> sections_;
    std::vector<Placed> placed_;
    size_t symtab_ = 0;
    std::string_view strtab_;
    std::vector<Elf64_Sym> symbols_;
    std::vector<size_t> rela_sections_;
    std::unordered_map<uint64_t, uint64_t> stub_, got_;  // symbol index -> slot
    uint64_t region_size_[kRegions] = {};
    uint64_t region_base_[kRegions] = {};
    uint64_t stubs_at_ = 0, got_at_ = 0, code_pages_ = 0, ro_pages_ = 0;
    Mapping map_;
    std::vector<uint64_t> address_;
    std::vector<uint64_t> unplaced_;
    std::unordered_map<std::string, void*> exported_;
};

}  // namespace

std::unique_ptr<LoadedObject> load_elf_object(std::span<const uint8_t> object) {
    try {
        return Loader(object).load();
    } catch (const NotMine&) {
        return nullptr;
    }
}

#else

std::unique_ptr<LoadedObject> load_elf_object(std::span<const uint8_t>) {
    return nullptr;
}

#endif

}  // namespace tack::codegen::llvm_cpu
