// The shared dispatch path against a fake backend: capability-driven checks (CONTRACT D8, D11,
// D14), slot packing, launch counts and the variant key, with no code generator involved.
#include <gtest/gtest.h>

#include <cstring>

#include "frontend/parser.hpp"
#include "runtime/backend.hpp"
#include "runtime/kernel_impl.hpp"

namespace tack::runtime {
namespace {

std::shared_ptr<Backend> create_fake(const DeviceOptions&);
constexpr std::string_view kNoOptions[] = {""};
const BackendEntry kFakeEntry{"fake", std::span(kNoOptions, 0), &create_fake};

struct FakeVariant : Variant {
    std::string kernel;
    bool noalias;
};

// Looks like a GPU without f64: nine dtypes, i32/u32/f32 atomics, workgroups supported.
class FakeBackend : public Backend {
  public:
    const BackendEntry& entry() const override { return kFakeEntry; }
    DTypeSet supported_dtypes() const override { return DTypeSet::all().without(DType::f64); }
    DTypeSet target_atomic_dtypes() const override {
        return {DType::i32, DType::u32, DType::f32, DType::f64};
    }
    bool supports_workgroups() const override { return workgroups; }
    std::shared_ptr<Buffer> allocate_array(size_t nbytes) override {
        return HostBuffer::allocate(shared_from_this(), nbytes);
    }
    std::shared_ptr<Buffer> wrap_ptr(void* p, size_t nbytes) override {
        return HostBuffer::wrap(shared_from_this(), p, nbytes);
    }
    std::shared_ptr<const Variant> build_variant(const ir::Kernel& k,
                                                 const VariantOptions& o) override {
        ++builds;
        auto v = std::make_shared<FakeVariant>();
        v->kernel = k.name;
        v->noalias = o.noalias;
        return v;
    }
    void execute(const Variant& v, const uint64_t* slots, int64_t total) override {
        last_noalias = static_cast<const FakeVariant&>(v).noalias;
        last_slots.assign(slots, slots + nparams);
        last_total = total;
        ++launches;
    }
    bool specializes_disjoint() const override { return true; }

    bool workgroups = true;
    size_t nparams = 0;
    int builds = 0, launches = 0;
    int64_t last_total = -1;
    bool last_noalias = false;
    std::vector<uint64_t> last_slots;
};

std::shared_ptr<Backend> create_fake(const DeviceOptions&) {
    return std::make_shared<FakeBackend>();
}

struct Fixture {
    std::shared_ptr<FakeBackend> backend = std::make_shared<FakeBackend>();
    std::shared_ptr<KernelImpl> kernel;

    Fixture(const std::string& src, const char* name, size_t nparams) {
        auto file = std::make_shared<diag::SourceFile>("k.py", "import tack\n" + src);
        auto parsed = frontend::parse_module(file);
        EXPECT_TRUE(parsed.errors.empty());
        auto m = std::make_shared<ModuleImpl>();
        m->file = file;
        m->module = std::make_shared<const frontend::Module>(std::move(parsed.module));
        m->env = std::make_shared<sema::ModuleEnvironment>(m->module);
        kernel = std::make_shared<KernelImpl>(m, m->module->find(name));
        backend->nparams = nparams;
    }
    template <class... A>
    void call(const A&... args) {
        const detail::Arg packed[] = {detail::make_arg(args)...};
        kernel->call_on(*backend, packed);
    }
    Array array(DType t, Shape s) { return zeros(t, s, Device(backend)); }
};

const char* kScale = R"(
@tack.kernel
def scale(x, out, s, n):
    for i in range(1, n, 2):
        out[i] = x[i] * s
)";

TEST(Dispatch, PacksSlotsAndCountsSteppedRanges) {
    Fixture f(kScale, "scale", 4);
    Array x = f.array(DType::f32, 16), out = f.array(DType::f32, 16);
    f.call(x, out, 2.5f, std::int64_t(10));  // i = 1, 3, 5, 7, 9
    EXPECT_EQ(f.backend->last_total, 5);
    ASSERT_EQ(f.backend->last_slots.size(), 4u);
    EXPECT_EQ(f.backend->last_slots[0], x.address());
    EXPECT_EQ(f.backend->last_slots[1], out.address());
    float s;
    auto bits = static_cast<uint32_t>(f.backend->last_slots[2]);
    std::memcpy(&s, &bits, 4);
    EXPECT_EQ(s, 2.5f);
    EXPECT_EQ(f.backend->last_slots[3], 10u);
    EXPECT_TRUE(f.backend->last_noalias);
    f.call(x, out, 2.5f, std::int64_t(11));
    EXPECT_EQ(f.backend->last_total, 5);
    f.call(x, out, 2.5f, std::int64_t(12));
    EXPECT_EQ(f.backend->last_total, 6);
    f.call(x, out, 2.5f, std::int64_t(1));  // empty: no launch
    EXPECT_EQ(f.backend->launches, 3);
    EXPECT_EQ(f.backend->builds, 1);
    f.call(x, x, 2.5f, std::int64_t(4));  // aliased: the may-alias variant
    EXPECT_FALSE(f.backend->last_noalias);
    EXPECT_EQ(f.backend->builds, 2);
    EXPECT_EQ(f.kernel->num_variants(*f.backend), 2u);
}

TEST(Dispatch, ShapeSignatureKeysOnlyExtentsThatReachCode) {
    Fixture f(R"(
@tack.kernel
def rev(x, out):
    for i in range(out.shape[0]):
        out[i] = x[x.shape[0] - 1 - i]
)",
              "rev", 2);
    for (int n : {8, 16, 32}) {
        f.call(f.array(DType::f32, n), f.array(DType::f32, n));
        EXPECT_EQ(f.backend->last_total, n);
    }
    EXPECT_EQ(f.backend->builds, 3);  // CONTRACT D5: x.shape[0] reaches code
    Fixture g(R"(
@tack.kernel
def copy(x, out):
    for i in range(out.shape[0]):
        out[i] = x[i]
)",
              "copy", 2);
    for (int n : {8, 16, 32})
        g.call(g.array(DType::f32, n), g.array(DType::f32, n));
    EXPECT_EQ(g.backend->builds, 1);  // only the loop end: never recompiles
}

TEST(Dispatch, UnsupportedDtypeNamesParameterAndBackend) {
    Fixture f(kScale, "scale", 4);
    try {
        f.call(f.array(DType::f64, 4), f.array(DType::f32, 4), 1.0f, std::int64_t(4));
        FAIL();
    } catch (const TypeError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'scale': parameter 'x' has dtype tack.f64, which is not "
                     "supported on fake. Supported dtypes: i8, u8, i16, u16, i32, "
                     "u32, i64, u64, f32");
    }
    EXPECT_EQ(f.backend->builds, 0);
}

TEST(Dispatch, AtomicDtypeCheckedEvenWhenUnreachable) {
    Fixture f(R"(
@tack.kernel
def count(c, n):
    for i in range(n):
        if n < 0:
            tack.atomic_add(c, 0, 1)
)",
              "count", 2);
    try {
        f.call(f.array(DType::i64, 1), std::int64_t(0));
        FAIL();
    } catch (const CompileError& e) {  // located at the call, like the other type errors
        EXPECT_EQ(e.kind(), ErrorKind::TypeError);
        EXPECT_EQ(e.message(),
                  "Kernel 'count': fake atomic_add does not support target dtype tack.i64 at "
                  "line 7, column 13");
        EXPECT_EQ(e.line(), 7);
        EXPECT_EQ(e.column(), 13);
    }
    f.call(f.array(DType::i32, 1), std::int64_t(3));
    EXPECT_EQ(f.backend->last_total, 3);
}

TEST(Dispatch, WorkgroupsFollowTheCapabilityNotTheName) {
    const char* src = R"(
@tack.kernel
def g(x):
    for i in range(x.shape[0]):
        tack.barrier()
        x[i] = 1.0
)";
    Fixture yes(src, "g", 1);
    yes.call(yes.array(DType::f32, 256));
    EXPECT_EQ(yes.backend->launches, 1);
    Fixture no(src, "g", 1);
    no.backend->workgroups = false;
    try {
        no.call(no.array(DType::f32, 256));
        FAIL();
    } catch (const NotImplementedError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("Kernel 'g': fake backend does not support workgroup "
                                              "execution required by barrier (barrier at line 6)",
                                              0),
                  0u)
            << e.what();
    }
    EXPECT_EQ(no.backend->builds, 0);
}

TEST(Dispatch, ReadOnlyAndAlignmentRejectedBeforeLaunch) {
    Fixture f(R"(
@tack.kernel
def k(a, c):
    for i in range(a.shape[0]):
        a[i] = 1
        tack.atomic_add(c, 0, 1)
)",
              "k", 2);
    std::vector<int32_t> host(4);
    Array ro = Array::from_ptr(host.data(), DType::i32, 4, false, Device(f.backend));
    EXPECT_THROW(f.call(ro, f.array(DType::i32, 1)), ValueError);
    alignas(8) unsigned char raw[16] = {};
    Array odd = Array::from_ptr(raw + 2, DType::i32, 2, true, Device(f.backend));
    EXPECT_THROW(f.call(f.array(DType::i32, 4), odd), ValueError);
    EXPECT_EQ(f.backend->launches, 0);
}

}  // namespace
}  // namespace tack::runtime
