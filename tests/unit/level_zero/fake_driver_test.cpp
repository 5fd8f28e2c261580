// The Level Zero backend on a simulated driver (fake_ze.hpp): device selection, capabilities,
// the order work is queued in, and launches whose OpenCL C runs on PoCL, checked against
// hand-written loops.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "codegen/cfamily/emitter.hpp"
#include "frontend/parser.hpp"
#include "ir/ir.hpp"
#include "runtime/level_zero/level_zero_backend.hpp"
#include "runtime/level_zero/module.hpp"
#include "runtime/opencl/runner.hpp"
#include "unit/compile_helper.hpp"
#include "unit/level_zero/fake_ze.hpp"

namespace tack::level_zero_test {
namespace {

namespace l0 = runtime::level_zero;
using namespace tack::ir;

std::shared_ptr<l0::LevelZeroBackend> make_backend() {
    const l0::ZeApi& api = fake_api();
    auto handles = l0::open_device(api, std::nullopt);
    return std::make_shared<l0::LevelZeroBackend>(api, handles, l0::query_device(api, handles));
}

// saxpy(x, y, a): y[i] = a * x[i] + y[i] over range(n).
ir::Kernel saxpy() {
    ir::Kernel k;
    k.name = "saxpy";
    auto array = [&](const char* name, int id) {
        auto b = std::make_shared<ir::Buffer>();
        b->name = name;
        b->elem = DType::f32;
        b->rank = 1;
        b->kind = BufferKind::Param;
        b->param_index = static_cast<int>(k.params.size());
        b->id = id;
        k.params.push_back({name, nullptr, b});
        return b;
    };
    auto x = array("x", 0);
    auto y = array("y", 1);
    auto a = std::make_shared<Var>(Var{"a", DType::f32, 2, {}});
    k.params.push_back({"a", a, nullptr});
    auto i = std::make_shared<Var>(Var{"i", DType::i64, 3, {}});
    k.dims.push_back({i, IntImm::make_i64(0), IntImm::make_i64(0), IntImm::make_i64(1)});
    auto ax = Binary::make(BinaryOp::Mul, VarRef::make(a), Load::make(x, VarRef::make(i)));
    auto sum = Binary::make(BinaryOp::Add, ax, Load::make(y, VarRef::make(i)));
    k.body = {Store::make(y, VarRef::make(i), sum)};
    return k;
}

std::vector<uint8_t> source_artifact(const ir::Kernel& k) {
    std::string src = codegen::cfamily::generate(k, codegen::cfamily::level_zero_dialect()).source;
    std::vector<uint8_t> bytes(src.begin(), src.end());
    return l0::encode_artifact({bytes, bytes});
}

bool opencl_available(std::string* why) {
    return runtime::opencl::ClRunner::create(why) != nullptr;
}

class LevelZeroFake : public ::testing::Test {
  protected:
    void SetUp() override { reset_fake(); }
    void TearDown() override { reset_fake(); }
};

TEST_F(LevelZeroFake, PicksTheComputeGroupAndReadsTheDevice) {
    const l0::ZeApi& api = fake_api();
    auto h = l0::open_device(api, std::nullopt);
    EXPECT_FALSE(h.external);
    auto info = l0::query_device(api, h);
    EXPECT_EQ(info.name, "Fake Xe");
    EXPECT_EQ(info.device_id, 0x0bd5u);
    EXPECT_EQ(info.compute_ordinal, 1u);
    EXPECT_EQ(info.max_fill_pattern, 128u);
    EXPECT_TRUE(info.host_sync);
    EXPECT_TRUE(info.defer_free);
    EXPECT_EQ(info.max_group_count_x, 65535u);
}

TEST_F(LevelZeroFake, AdoptsAnExternalContext) {
    int d, v, c;
    auto h = l0::open_device(fake_api(), l0::ExternalContext{&d, &v, &c});
    EXPECT_TRUE(h.external);
    EXPECT_EQ(static_cast<void*>(h.driver), &d);
    EXPECT_EQ(static_cast<void*>(h.device), &v);
    EXPECT_EQ(static_cast<void*>(h.context), &c);
}

TEST_F(LevelZeroFake, Capabilities) {
    auto b = make_backend();
    EXPECT_EQ(b->name(), "level_zero");
    EXPECT_EQ(b->display_name(), "Level Zero");
    EXPECT_TRUE(b->supports_f64());
    EXPECT_EQ(b->supported_dtypes(), DTypeSet::all());
    EXPECT_EQ(b->supported_atomic_dtypes(), (DTypeSet{DType::i32, DType::u32, DType::f32}));
    EXPECT_TRUE(b->supports_device_reductions());
    EXPECT_TRUE(b->supports_workgroups());
    EXPECT_EQ(b->device_memory_spaces(), std::vector<std::string>{"level_zero"});
    EXPECT_EQ(b->cache_target()->rfind("level_zero;Fake Xe;id=0xbd5;", 0), 0u);
    EXPECT_EQ(fake().log.front(), "list ordinal=1 async");

    reset_fake();
    fake().fp64 = false;
    auto no_f64 = make_backend();
    EXPECT_FALSE(no_f64->supports_f64());
    EXPECT_EQ(no_f64->supported_dtypes(), DTypeSet::all().without(DType::f64));
}

TEST_F(LevelZeroFake, WithoutHostSynchronizeTheListIsSynchronous) {
    fake().host_sync = false;
    auto b = make_backend();
    EXPECT_FALSE(b->info().host_sync);
    EXPECT_EQ(fake().log.front(), "list ordinal=1 sync");
    auto buf = b->allocate_array(8);
    std::size_t mark = fake().log.size();
    uint64_t v = 0;
    buf->read(0, &v, 8);
    EXPECT_EQ(log_since(mark), "copy");  // a synchronous append has completed: no marker
    EXPECT_EQ(v, 0u);
}

TEST_F(LevelZeroFake, MemoryIsZeroFilledOrderedAndFreedDeferred) {
    auto b = make_backend();
    std::size_t mark = fake().log.size();
    auto buf = b->allocate_array(10 * sizeof(int32_t));
    EXPECT_EQ(log_since(mark), "fill barrier");
    EXPECT_EQ(buf->host_ptr(), nullptr);
    std::vector<int32_t> got(10, -1);
    buf->read(0, got.data(), 40);
    EXPECT_EQ(got, std::vector<int32_t>(10, 0));

    std::vector<int32_t> in = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    mark = fake().log.size();
    buf->write(0, in.data(), 40);
    in[0] = 99;  // the queued copy read a private snapshot
    EXPECT_EQ(log_since(mark), "copy barrier");
    mark = fake().log.size();
    buf->read(4, got.data(), 8);
    EXPECT_EQ(log_since(mark), "copy barrier+signal wait-event");
    EXPECT_EQ(got[0], 2);
    EXPECT_EQ(got[1], 3);

    float pattern = 1.5f;
    ASSERT_TRUE(b->fill_array(*buf, &pattern, 4, 10));
    std::vector<float> f(10);
    buf->read(0, f.data(), 40);
    EXPECT_EQ(f, std::vector<float>(10, 1.5f));
    const char odd[3] = {1, 2, 3};
    EXPECT_FALSE(b->fill_array(*buf, odd, 3, 2));  // not a power of two: written through

    mark = fake().log.size();
    buf.reset();
    EXPECT_EQ(log_since(mark), "free-deferred");
    EXPECT_TRUE(fake().device.empty());
}

// SEED-AUDIT 'L0 · Host copies' (the seed's _HostStaging): uploads up to 16 MiB and downloads
// up to 64 KiB go through pooled USM host blocks, so once warm, small writes and reads (a
// launch's scalar upload among them) allocate nothing; a larger upload's block is its own and
// is freed at the wait that releases it.
TEST_F(LevelZeroFake, SmallCopiesReusePooledStagingMemory) {
    auto b = make_backend();
    l0::Queue& q = b->queue();
    auto buf = b->allocate_array(std::size_t(20) << 20);
    std::vector<int32_t> in(64), out(64);
    for (int round = 0; round < 3; ++round) {
        for (int k = 0; k < 4; ++k) {
            in.assign(64, round * 10 + k);
            buf->write(std::size_t(k) * 256, in.data(), 256);
        }
        buf->read(0, out.data(), 256);  // a small read: staged, and waits (releasing the holds)
        EXPECT_EQ(out, std::vector<int32_t>(64, round * 10));
        if (round == 0) {
            EXPECT_EQ(q.staging_allocations(), 5u) << "4 uploads + 1 download";
        }
    }
    EXPECT_EQ(q.staging_allocations(), 5u) << "warm: every block came from the pool";
    std::size_t pooled = fake().host.size();

    std::vector<std::uint8_t> big(std::size_t(17) << 20, 7);
    buf->write(0, big.data(), big.size());  // past the pooled sizes: a block of its own
    EXPECT_EQ(fake().host.size(), pooled + 1);
    b->synchronize();
    EXPECT_EQ(fake().host.size(), pooled) << "the large block is freed at the wait";
    std::vector<std::uint8_t> back(std::size_t(1) << 20);
    buf->read(0, back.data(), back.size());  // past 64 KiB: straight to the caller's memory
    EXPECT_EQ(back, std::vector<std::uint8_t>(back.size(), 7));
    EXPECT_EQ(q.staging_allocations(), 6u);
}

// SEED-AUDIT 'L0 · Host copies': host memory that queued copies read is held until the next
// wait, which comes early past 1024 holds or 256 MiB held.
TEST_F(LevelZeroFake, HeldHostMemoryIsReleasedEarlyPast1024CopiesOr256MiB) {
    auto b = make_backend();
    auto buf = b->allocate_array(std::size_t(1) << 20);
    auto syncs = [] {
        std::size_t n = 0;
        for (const std::string& e : fake().log)
            n += e == "sync";
        return n;
    };
    b->synchronize();  // nothing held: the allocation's fill is released
    const std::size_t before = syncs();
    const std::int32_t v = 5;
    for (int i = 0; i < 1024; ++i)
        buf->write(std::size_t(i) * 4, &v, 4);
    EXPECT_EQ(syncs(), before) << "1024 held copies: no wait yet";
    buf->write(0, &v, 4);
    EXPECT_EQ(syncs(), before + 1) << "the 1025th held copy waits for the queue";

    auto big = b->allocate_array(std::size_t(130) << 20);
    std::vector<std::uint8_t> half(std::size_t(129) << 20, 1);
    big->write(0, half.data(), half.size());
    EXPECT_EQ(syncs(), before + 1);
    big->write(0, half.data(), half.size());  // 258 MiB held
    EXPECT_EQ(syncs(), before + 2) << "past 256 MiB held the queue is waited for";
    for (const auto& [ptr, bytes] : fake().host)
        EXPECT_LT(bytes, half.size()) << "the large blocks are freed at that wait";
}

// SEED-AUDIT 'L0 · asyncio' (the seed's _ListMarker): a mark is a barrier signalling a pooled
// host-visible event, waited for outside the launch lock; no list-wide synchronize. Past the
// pool's 64 events a mark synchronizes instead, and dropped marks give their events back.
TEST_F(LevelZeroFake, AMarkIsABarrierSignallingAPooledEvent) {
    auto b = make_backend();
    std::size_t mark = fake().log.size();
    auto m = b->mark_queue();
    EXPECT_EQ(log_since(mark), "barrier+signal");
    mark = fake().log.size();
    m->wait();
    EXPECT_EQ(log_since(mark), "wait-event");
    std::vector<std::unique_ptr<tack::runtime::QueueMark>> marks;
    for (int i = 0; i < 64; ++i)
        marks.push_back(b->mark_queue());
    mark = fake().log.size();
    marks.push_back(b->mark_queue());  // the pool is empty: a synchronizing mark
    EXPECT_EQ(log_since(mark), "");
    marks.back()->wait();
    EXPECT_EQ(log_since(mark), "sync");
    marks.clear();
    mark = fake().log.size();
    b->mark_queue()->wait();
    EXPECT_EQ(log_since(mark), "barrier+signal wait-event") << "the events came back";
}

TEST_F(LevelZeroFake, WrappedMemoryIsNeverFreed) {
    auto b = make_backend();
    auto other = b->allocate_array(64);  // device memory another library could hand over
    auto buf = b->wrap_ptr(reinterpret_cast<void*>(other->address() + 16), 48);
    EXPECT_FALSE(buf->owned());
    // A fill of memory another library owns completes before returning (it may read it now);
    // an ordinary array's fill is only queued.
    std::uint32_t seven = 7;
    std::size_t mark = fake().log.size();
    ASSERT_TRUE(b->fill_array(*buf, &seven, 4, 12));
    EXPECT_EQ(log_since(mark), "fill barrier sync");
    mark = fake().log.size();
    ASSERT_TRUE(b->fill_array(*other, &seven, 4, 16));
    EXPECT_EQ(log_since(mark), "fill barrier");
    mark = fake().log.size();
    buf.reset();
    EXPECT_EQ(log_since(mark), "");
}

// CONTRACT C21 from zeMemGetAllocProperties; host memory cannot be wrapped (a kernel could not
// read it).
TEST_F(LevelZeroFake, MemorySpacesComeFromTheDriverAndHostMemoryIsNotWrapped) {
    auto b = make_backend();
    // DLPack: kDLOneAPI (14) out and in; host tensors (kDLCPU) are not wrapped.
    EXPECT_EQ(b->dlpack_device(), (std::pair<int, int>{14, 0}));
    EXPECT_EQ(b->dlpack_imports(), std::vector<int>{14});
    auto device = b->allocate_array(64);
    std::vector<uint8_t> host(64);
    EXPECT_EQ(b->memory_space(device->address()), "level_zero");
    EXPECT_EQ(b->memory_space(device->address() + 63), "level_zero");
    EXPECT_EQ(b->memory_space(reinterpret_cast<std::uint64_t>(host.data())), "cpu");
    try {
        b->wrap_ptr(host.data(), host.size());
        FAIL() << "host memory was wrapped";
    } catch (const tack::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("The Level Zero backend wraps device memory only: "
                                             "pointer 0x"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(b->wrap_ptr(host.data(), 0)) << "an empty range addresses nothing";
}

struct Saxpy {
    std::shared_ptr<l0::LevelZeroBackend> b;
    std::shared_ptr<runtime::Buffer> x, y;
    std::shared_ptr<const runtime::Variant> v;
};

Saxpy load_saxpy(std::size_t n) {
    Saxpy s;
    s.b = make_backend();
    ir::Kernel k = saxpy();
    s.v = s.b->load_variant(source_artifact(k), k, {});
    s.x = s.b->allocate_array(n * 4);
    s.y = s.b->allocate_array(n * 4);
    return s;
}

void run(Saxpy& s, float a, int64_t n) {
    uint32_t bits;
    std::memcpy(&bits, &a, 4);
    uint64_t slots[] = {s.x->address(), s.y->address(), bits};
    const runtime::Buffer* buffers[] = {s.x.get(), s.y.get(), nullptr};
    s.b->dispatch(*s.v, {slots, buffers, n}, nullptr);
}

// SEED-AUDIT 'L0 · Memory out': a launch that binds memory another library may read with no
// Tack call in between (wrapped memory, or an array handed out by share()) completes before
// returning; one on Tack's own arrays is only queued.
TEST_F(LevelZeroFake, ALaunchOnWrappedOrSharedMemoryCompletesBeforeReturning) {
    std::string why;
    if (!opencl_available(&why)) GTEST_SKIP() << why;
    Saxpy s = load_saxpy(64);
    std::size_t mark = fake().log.size();
    run(s, 2.0f, 64);
    EXPECT_EQ(log_since(mark).find("sync"), std::string::npos) << log_since(mark);
    Saxpy w = s;
    w.y = s.b->wrap_ptr(reinterpret_cast<void*>(s.y->address()), 64 * 4);
    mark = fake().log.size();
    run(w, 2.0f, 64);
    std::string wrapped = log_since(mark);
    EXPECT_EQ(wrapped.substr(wrapped.size() - 4), "sync") << wrapped;
    s.x->share();
    mark = fake().log.size();
    run(s, 2.0f, 64);
    std::string shared = log_since(mark);
    EXPECT_EQ(shared.substr(shared.size() - 4), "sync") << shared;
}

// DECISIONS G7 on Level Zero: `return y[0]` after the loop is read from device memory once the
// launch has run (it raised NotImplementedError).
TEST_F(LevelZeroFake, AKernelReturnsAValueReadAfterItsLaunch) {
    std::string why;
    if (!opencl_available(&why)) GTEST_SKIP() << why;
    auto b = make_backend();
    ir::Kernel k = saxpy();
    k.result = Load::make(k.params[1].buffer, IntImm::make_i64(3));
    auto v = b->load_variant(source_artifact(k), k, {});
    auto x = b->allocate_array(16), y = b->allocate_array(16);
    float ones[4] = {1, 1, 1, 1}, base[4] = {10, 20, 30, 40};
    x->write(0, ones, 16);
    y->write(0, base, 16);
    uint32_t two;
    float a = 2.0f;
    std::memcpy(&two, &a, 4);
    uint64_t slots[] = {x->address(), y->address(), two};
    const runtime::Buffer* buffers[] = {x.get(), y.get(), nullptr};
    std::uint64_t out = 0;
    b->dispatch(*v, {slots, buffers, 4}, &out);
    float got;
    std::memcpy(&got, &out, 4);
    EXPECT_EQ(got, 42.0f) << fake().launch_error;
}

TEST_F(LevelZeroFake, LaunchRunsTheKernelInOrder) {
    std::string why;
    if (!opencl_available(&why)) GTEST_SKIP() << why;
    const std::size_t n = 1000;
    Saxpy s = load_saxpy(n);
    ASSERT_NE(s.v, nullptr);
    EXPECT_EQ(fake().module_formats, std::vector<std::string>{"native"});
    std::vector<float> x(n), y(n), want(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<float>(i) * 0.5f;
        y[i] = 3.0f - static_cast<float>(i % 7);
    }
    s.x->write(0, x.data(), n * 4);
    s.y->write(0, y.data(), n * 4);
    std::size_t mark = fake().log.size();
    run(s, 2.25f, n);
    EXPECT_EQ(fake().launch_error, "");
    // The scalar pack's upload, then ceil(1000 / 256) groups, each op behind a barrier.
    EXPECT_EQ(log_since(mark), "copy barrier launch 4 barrier");
    run(s, -1.0f, n);  // a second launch with its own scalar
    std::vector<float> got(n);
    s.y->read(0, got.data(), n * 4);
    for (std::size_t i = 0; i < n; ++i)
        want[i] = -1.0f * x[i] + (2.25f * x[i] + y[i]);
    EXPECT_EQ(got, want);
    EXPECT_EQ(s.b->variant_artifact(*s.v), source_artifact(saxpy()));
}

TEST_F(LevelZeroFake, RefusedNativeBinaryLoadsFromSpirv) {
    fake().refuse_native = true;
    Saxpy s = load_saxpy(4);
    ASSERT_NE(s.v, nullptr);
    EXPECT_EQ(fake().module_formats, (std::vector<std::string>{"native", "spirv"}));
    EXPECT_EQ(s.b->native_refused(), 1u);
}

TEST_F(LevelZeroFake, ForeignArtifactIsAMiss) {
    auto b = make_backend();
    std::vector<uint8_t> junk = {1, 2, 3};
    EXPECT_EQ(b->load_variant(junk, saxpy(), {}), nullptr);
}

TEST_F(LevelZeroFake, LaunchPastTheDeviceLimitIsRefused) {
    fake().max_group_count_x = 2;  // 2 groups of 256
    Saxpy s = load_saxpy(4);
    std::size_t mark = fake().log.size();
    try {
        run(s, 1.0f, 513);
        FAIL() << "launch of 513 iterations accepted";
    } catch (const tack::ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "Kernel 'saxpy': 513 iterations exceed the 512 that one Level Zero launch "
                     "can index; split the work across several launches.");
    }
    EXPECT_EQ(log_since(mark), "");  // nothing was queued
}

TEST_F(LevelZeroFake, SmallDeviceGroupsAreUsed) {
    std::string why;
    if (!opencl_available(&why)) GTEST_SKIP() << why;
    fake().max_group_size_x = 64;
    Saxpy s = load_saxpy(100);
    std::vector<float> x(100, 2.0f);
    s.x->write(0, x.data(), 400);
    std::size_t mark = fake().log.size();
    run(s, 3.0f, 100);
    EXPECT_EQ(fake().launch_error, "");
    EXPECT_EQ(log_since(mark), "copy barrier launch 2 barrier");
    std::vector<float> got(100);
    s.y->read(0, got.data(), 400);
    EXPECT_EQ(got, std::vector<float>(100, 6.0f));
}

}  // namespace
}  // namespace tack::level_zero_test

namespace tack::level_zero_test {
namespace {

// Kernels from source through the compile driver, as dispatch lowers them.
ir::Kernel from_source(const std::string& text, const char* name) {
    return testing::compiled_ir({.source = "import tack\n\n" + text,
                                 .kernel = name,
                                 .args = "f32[:]",
                                 .target = "level_zero"});
}

// Before the shared GPU layer, Level Zero skipped D13 and D12's per-dispatch check, which only
// OpenCL ran.
TEST_F(LevelZeroFake, SharedLaunchRulesApply) {
    auto b = make_backend();
    ir::Kernel varying = from_source(R"(
@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        if i % 2 == 0:
            tack.barrier()
)",
                                     "k");
    try {
        b->load_variant(source_artifact(varying), varying, {});
        ADD_FAILURE() << "a barrier under varying control was accepted";
    } catch (const tack::ValueError& e) {
        EXPECT_NE(std::string(e.what()).find("requires uniform workgroup participation"),
                  std::string::npos)
            << e.what();
    }
    std::string why;
    if (!opencl_available(&why)) GTEST_SKIP() << why;
    ir::Kernel uniform = from_source(R"(
@tack.kernel
def k(x):
    for i in range(x.shape[0]):
        tack.barrier()
        x[i] = 1.0
)",
                                     "k");
    auto v = b->load_variant(source_artifact(uniform), uniform, {});
    ASSERT_NE(v, nullptr);
    auto x = b->allocate_array(1024 * 4);
    uint64_t slots[] = {x->address()};
    const runtime::Buffer* buffers[] = {x.get()};
    try {
        b->dispatch(*v, {slots, buffers, 1000}, nullptr);
        ADD_FAILURE() << "a partial workgroup was launched";
    } catch (const tack::ValueError& e) {
        EXPECT_NE(std::string(e.what()).find("complete 256-lane groups"), std::string::npos)
            << e.what();
    }
}

// Level Zero used to declare device reductions and reduce on the host; the shared plan now runs
// the reduction kernel (here the fake's zeModuleCreate builds the OpenCL C on PoCL).
TEST_F(LevelZeroFake, F32ReductionsRunOnTheDevice) {
    std::string why;
    if (!opencl_available(&why)) GTEST_SKIP() << why;
    auto b = make_backend();
    const std::size_t n = 100000;
    std::vector<float> v(n);
    double want = 0;
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = float(int(i % 2000) - 999);
        want += v[i];
    }
    auto buf = b->allocate_array(n * 4);
    buf->write(0, v.data(), n * 4);
    const l0::ZeApi& api = fake_api();
    int compiled = 0;
    auto compile = [&](const std::string& source, const std::string& entry) {
        ++compiled;
        std::vector<uint8_t> bytes(source.begin(), source.end());
        return l0::create_from_spirv(api, b->handles().context, b->handles().device, bytes, "",
                                     entry, source);
    };
    using K = ir::ReduceOp;
    EXPECT_EQ(b->reduce_f32(*buf, std::int64_t(n), K::Sum, compile), want);
    EXPECT_EQ(b->reduce_f32(*buf, std::int64_t(n), K::Max, compile), 1000.0);
    EXPECT_EQ(b->reduce_f32(*buf, std::int64_t(n), K::Min, compile), -999.0);
    EXPECT_EQ(b->reduce_f32(*buf, std::int64_t(n), K::Sum, compile), want);
    EXPECT_EQ(compiled, 3) << "one module per operation, built once";
    EXPECT_EQ(b->reduce_f32(*buf, 0, K::Sum, compile), 0.0);
    EXPECT_THROW(b->reduce_f32(*buf, 0, K::Min, compile), tack::ValueError);
    EXPECT_EQ(b->reduce_array(*buf, DType::i32, 4, K::Sum), std::nullopt) << "f32 only (E4)";
}

// SEED-AUDIT 'L0 · Reductions': a device whose groups are below 256 lanes reduces on the host
// (nullopt: the caller reduces), compiling nothing.
TEST_F(LevelZeroFake, GroupsBelow256LanesReduceOnTheHost) {
    fake().max_group_size_x = 128;
    auto b = make_backend();
    std::vector<float> v(1000, 1.0f);
    auto buf = b->allocate_array(v.size() * 4);
    buf->write(0, v.data(), v.size() * 4);
    int compiled = 0;
    auto compile = [&](const std::string&, const std::string&) -> l0::LoadedModule {
        ++compiled;
        throw std::logic_error("no reduction kernel on a device with 128-lane groups");
    };
    EXPECT_EQ(b->reduce_f32(*buf, 1000, ir::ReduceOp::Sum, compile), std::nullopt);
    EXPECT_EQ(compiled, 0);
}

}  // namespace
}  // namespace tack::level_zero_test
