// Tack's own object loader (codegen/llvm/elf_loader.hpp): the kernels it loads compute what the
// JITLink-loaded copy computes (libm calls through its stubs included), it refuses what it does
// not handle so that JITLink takes over, and no damaged object crashes it.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <elf.h>

#include "codegen/llvm/elf_loader.hpp"
#include "harness.hpp"

namespace tack::test {
namespace {

constexpr DType f64 = DType::f64;

// out[i] = fmod(sin(x[i]) * 7 + pow(x[i], 3), 1.5) + floor(x[i]): libm calls, constants in
// .rodata, and several relocations of each kind the code generator emits.
Kernel libm_kernel() {
    KernelBuilder kb("libm_mix");
    auto x = kb.array_param("x", f64);
    auto out = kb.array_param("out", f64);
    auto i = kb.dim(0, 0, 1);
    ExprPtr xi = load(x, use(i));
    ExprPtr s = bin(BinaryOp::Mul, Call::make(MathFn::Sin, {xi}), cf(f64, 7.0));
    ExprPtr p = Call::make(MathFn::Pow, {xi, cf(f64, 3.0)});
    ExprPtr m = Call::make(MathFn::Fmod, {bin(BinaryOp::Add, s, p), cf(f64, 1.5)});
    kb.k.body.push_back(store(out, use(i), bin(BinaryOp::Add, m, Call::make(MathFn::Floor, {xi}))));
    return kb.k;
}

double libm_reference(double x) {
    return std::fmod(std::sin(x) * 7.0 + std::pow(x, 3.0), 1.5) + std::floor(x);
}

std::vector<uint8_t> object_of(const Kernel& k) {
    cpu::CpuCodegenOptions opts;
    opts.lanes = lanes_from_environment();
    return cpu::compile_to_object(k, opts);
}

std::vector<double> run(const cpu::LoadedObject& object, const std::string& name,
                        const std::vector<double>& x) {
    std::vector<double> out(x.size(), -1.0);
    auto entry = object.entry(name);
    EXPECT_NE(entry, nullptr);
    if (!entry) return out;
    std::vector<uint64_t> slots = {slot(x.data()), slot(out.data())};
    entry(slots.data(), 0, int64_t(x.size()));
    return out;
}

TEST(ElfLoader, LoadsWhatTheCodeGeneratorWritesAndMatchesJitLink) {
    Kernel k = libm_kernel();
    std::vector<uint8_t> object = object_of(k);
    auto own = cpu::load_elf_object(object);
    ASSERT_NE(own, nullptr) << "the loader refused an object of our own code generator";
    ::setenv("TACK_CPU_LOADER", "orc", 1);
    auto orc = cpu::LoadedObject::load(object);
    ::unsetenv("TACK_CPU_LOADER");
    std::vector<double> x;
    for (int n = 0; n < 1000; ++n)
        x.push_back(-20.0 + 0.0401 * n);
    std::vector<double> a = run(*own, k.name, x), b = run(*orc, k.name, x);
    for (size_t n = 0; n < x.size(); ++n) {
        EXPECT_EQ(std::memcmp(&a[n], &b[n], sizeof(double)), 0) << "x = " << x[n];
        EXPECT_NEAR(a[n], libm_reference(x[n]), 1e-9) << "x = " << x[n];
    }
    EXPECT_EQ(own->entry("no_such_kernel"), nullptr);
    EXPECT_EQ(own->result(k.name), nullptr);  // the kernel has no result
}

TEST(ElfLoader, ManyObjectsLiveAndDieIndependently) {
    Kernel k = libm_kernel();
    std::vector<uint8_t> object = object_of(k);
    std::vector<std::unique_ptr<cpu::LoadedObject>> loaded;
    for (int n = 0; n < 64; ++n)
        loaded.push_back(cpu::load_elf_object(object));
    std::vector<double> x = {0.5, 1.5, -2.25};
    for (size_t n = 0; n < loaded.size(); n += 2)
        loaded[n].reset();
    for (size_t n = 1; n < loaded.size(); n += 2) {
        ASSERT_NE(loaded[n], nullptr);
        std::vector<double> out = run(*loaded[n], k.name, x);
        for (size_t j = 0; j < x.size(); ++j)
            EXPECT_NEAR(out[j], libm_reference(x[j]), 1e-12);
    }
}

template <class T>
void patch(std::vector<uint8_t>& bytes, uint64_t offset, const T& value) {
    std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

TEST(ElfLoader, RefusesWhatItDoesNotHandle) {
    std::vector<uint8_t> object = object_of(libm_kernel());
    Elf64_Ehdr eh;
    std::memcpy(&eh, object.data(), sizeof eh);
    {  // another architecture
        auto bytes = object;
        Elf64_Half machine = EM_AARCH64;
        patch(bytes, offsetof(Elf64_Ehdr, e_machine), machine);
        EXPECT_EQ(cpu::load_elf_object(bytes), nullptr);
    }
    {  // a shared object, not a relocatable one
        auto bytes = object;
        Elf64_Half type = ET_DYN;
        patch(bytes, offsetof(Elf64_Ehdr, e_type), type);
        EXPECT_EQ(cpu::load_elf_object(bytes), nullptr);
    }
    // Per section: a COMDAT group, TLS, and a relocation kind it does not know.
    for (int what = 0; what < 3; ++what) {
        auto bytes = object;
        bool changed = false;
        for (int s = 1; s < eh.e_shnum && !changed; ++s) {
            uint64_t at = eh.e_shoff + uint64_t(s) * sizeof(Elf64_Shdr);
            Elf64_Shdr sh;
            std::memcpy(&sh, bytes.data() + at, sizeof sh);
            if (what == 0 && sh.sh_type == SHT_PROGBITS && !(sh.sh_flags & SHF_ALLOC)) {
                sh.sh_type = SHT_GROUP;
            } else if (what == 1 && (sh.sh_flags & SHF_ALLOC) && !(sh.sh_flags & SHF_EXECINSTR)) {
                sh.sh_flags |= SHF_TLS;
            } else if (what == 2 && sh.sh_type == SHT_RELA && sh.sh_size >= sizeof(Elf64_Rela)) {
                Elf64_Rela r;
                std::memcpy(&r, bytes.data() + sh.sh_offset, sizeof r);
                r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), R_X86_64_TPOFF32);
                patch(bytes, sh.sh_offset, r);
                changed = true;
                continue;
            } else {
                continue;
            }
            patch(bytes, at, sh);
            changed = true;
        }
        ASSERT_TRUE(changed) << "the object has no section to alter for case " << what;
        EXPECT_EQ(cpu::load_elf_object(bytes), nullptr) << "case " << what;
    }
}

// Every prefix, and many random byte changes: refused or loaded, never a crash (ASan and UBSan
// builds run this too). The loaded ones are not run: their code may be anything.
TEST(ElfLoader, DamagedObjectsNeverCrashIt) {
    std::vector<uint8_t> object = object_of(libm_kernel());
    for (size_t n = 0; n < object.size(); n += (n < 256 ? 1 : 7)) {
        std::vector<uint8_t> prefix(object.begin(), object.begin() + std::ptrdiff_t(n));
        EXPECT_EQ(cpu::load_elf_object(prefix), nullptr) << n << " bytes";
    }
    std::mt19937 rng(12);
    int loaded = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        auto bytes = object;
        int changes = 1 + int(rng() % 4);
        for (int c = 0; c < changes; ++c) {
            // Mostly the headers and tables, where a change matters to the loader.
            size_t at = rng() % 2 ? rng() % 64 : rng() % bytes.size();
            bytes[at] = uint8_t(rng());
        }
        loaded += cpu::load_elf_object(bytes) != nullptr;
    }
    EXPECT_GT(loaded, 0);  // changes to code bytes or padding still load
}

}  // namespace
}  // namespace tack::test
