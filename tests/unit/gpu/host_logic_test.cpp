// Host-side logic the CUDA and HIP backends share with OpenCL, tested without their drivers:
// per-launch packs, deferred frees, context tokens and the disk-cache artifact. The same packs
// run on PoCL through dispatch (four threads, one variant) at the end.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "runtime/backend.hpp"
#include "runtime/gpu/artifact.hpp"
#include "runtime/gpu/buffer_cache.hpp"
#include "runtime/gpu/context_token.hpp"
#include "runtime/gpu/deferred_frees.hpp"
#include "runtime/gpu/packs.hpp"
#include "tack/tack.hpp"

namespace gpu = tack::runtime::gpu;

namespace {

TEST(GpuPacks, UnchangedValuesReuseAndChangedOnesReplace) {
    gpu::PackSlots<int> slots(2);
    int next = 100;
    std::vector<int> released;
    auto make = [&](const std::vector<std::uint8_t>&) { return next++; };
    auto release = [&](int h) { released.push_back(h); };
    EXPECT_EQ(slots.bind(0, {1, 2}, make, release), 100);
    EXPECT_EQ(slots.bind(0, {1, 2}, make, release), 100);  // same values: same buffer
    EXPECT_EQ(slots.bind(1, {1, 2}, make, release), 101);  // packs are independent
    EXPECT_EQ(slots.bind(0, {3, 4}, make, release), 102);  // a queued launch keeps 100
    EXPECT_EQ(released, std::vector<int>{100});
    EXPECT_EQ(slots.made(), 3u);
    slots.clear(release);
    EXPECT_EQ(released, (std::vector<int>{100, 102, 101}));
}

TEST(GpuDeferredFrees, FreedOnlyAtDrain) {
    gpu::DeferredFrees<int> frees;
    frees.defer(1);
    frees.defer(2);
    EXPECT_EQ(frees.pending(), 2u);
    std::vector<int> freed;
    EXPECT_EQ(frees.drain([&](int h) { freed.push_back(h); }), 2u);
    EXPECT_EQ(freed, (std::vector<int>{1, 2}));
    EXPECT_EQ(frees.drain([&](int) { ADD_FAILURE(); }), 0u);
}

TEST(GpuContextTokens, OwnedContextsAreReleasedOnceByTheLastBackend) {
    static auto* tokens = new gpu::ContextTokens<int>();
    std::vector<int> released;
    auto release = [&](int c) { released.push_back(c); };
    auto a = tokens->acquire(7, /*owned=*/true, release);
    auto b = tokens->acquire(7, /*owned=*/false, release);  // shares the first token
    EXPECT_EQ(a.get(), b.get());
    EXPECT_TRUE(b->owned());
    EXPECT_EQ(tokens->holders(7), 2);
    a.reset();
    EXPECT_TRUE(released.empty());
    b.reset();
    EXPECT_EQ(released, std::vector<int>{7});
    EXPECT_EQ(tokens->holders(7), 0);
    // An adopted context (the embedding application's) is never released.
    auto adopted = tokens->acquire(9, /*owned=*/false, release);
    adopted.reset();
    EXPECT_EQ(released, std::vector<int>{7});
}

TEST(GpuArtifact, RoundTripsCodeEntryAndLayout) {
    gpu::CodeArtifact a;
    a.code = {'.', 'v', 'e', 'r', 's', 'i', 'o', 'n', 0};
    a.abi.entry = "tack_kernel_saxpy";
    a.abi.params = {{"x", true, tack::DType::f32, 0, -1}, {"a", false, tack::DType::f32, -1, 0}};
    a.abi.packs = {{tack::DType::f32, 1, 1}};
    a.abi.n_arg_index = 2;
    a.abi.num_args = 3;
    a.abi.uses_collectives = true;
    auto bytes = gpu::encode_artifact(a);
    auto back = gpu::decode_artifact(bytes);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->code, a.code);
    EXPECT_EQ(back->abi.entry, "tack_kernel_saxpy");
    ASSERT_EQ(back->abi.params.size(), 2u);
    EXPECT_EQ(back->abi.params[1].name, "a");
    EXPECT_EQ(back->abi.params[1].pack_slot, 0);
    ASSERT_EQ(back->abi.packs.size(), 1u);
    EXPECT_EQ(back->abi.packs[0].arg_index, 1);
    EXPECT_EQ(back->abi.n_arg_index, 2);
    EXPECT_TRUE(back->abi.uses_collectives);
    EXPECT_FALSE(back->abi.uses_f64);
    bytes.pop_back();
    EXPECT_FALSE(gpu::decode_artifact(bytes).has_value()) << "a truncated artifact is refused";
    EXPECT_FALSE(gpu::decode_artifact(std::vector<std::uint8_t>{1, 2, 3}).has_value());
}

TEST(GpuArtifact, KeepsATextureArgumentAndItsExtents) {
    gpu::CodeArtifact a;
    a.abi.entry = "tack_kernel_render";
    a.abi.params = {{"tex", true, tack::DType::f32, 0, -1, true, {8, 16, 32}},
                    {"out", true, tack::DType::f32, 1, -1}};
    auto back = gpu::decode_artifact(gpu::encode_artifact(a));
    ASSERT_TRUE(back.has_value());
    EXPECT_TRUE(back->abi.params[0].is_texture);
    EXPECT_EQ(back->abi.params[0].texture_extent, (std::array<std::int64_t, 3>{8, 16, 32}));
    EXPECT_FALSE(back->abi.params[1].is_texture);
    // A version-1 artifact (before textures) is refused, so the cache compiles afresh.
    auto old = gpu::encode_artifact(a);
    old[7] = '1';
    EXPECT_FALSE(gpu::decode_artifact(old).has_value());
}

// D16 on a queued GPU backend: four threads dispatching one variant never see each other's
// scalars (the per-launch packs), with no wait between launches.
TEST(GpuPacksOnOpenCl, FourThreadsKeepTheirOwnScalars) {
    try {
        tack::init("opencl");
    } catch (const tack::RuntimeError& e) {
        GTEST_SKIP() << e.what();
    }
    tack::Kernel k = tack::Module::from_source(R"(import tack

@tack.kernel
def put(x, v, w):
    for i in range(x.shape[0]):
        x[i] = v * 1000 + w
)",
                                               "k.py")
                         .kernel("put");
    std::atomic<int> wrong = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            std::vector<tack::Array> outs;
            for (int j = 0; j < 25; ++j) {
                outs.push_back(tack::zeros(tack::i32, {256}));
                k(outs.back(), std::int32_t(t), std::int32_t(j));
            }
            for (int j = 0; j < 25; ++j) {
                auto got = outs[size_t(j)].to_host<std::int32_t>();
                for (std::int32_t g : got)
                    if (g != t * 1000 + j) ++wrong;
            }
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(wrong.load(), 0);
    try {
        tack::init("cpu");
    } catch (const tack::RuntimeError&) {  // a TACK_LLVM=OFF build has no CPU backend
    }
}

}  // namespace

namespace {

// HIP's hipMalloc cache (gpu::BufferCache): by capacity class, at most the budget.
TEST(GpuBufferCache, ReusesByClassWithinTheBudget) {
    EXPECT_EQ(gpu::capacity_class(1), 256u);
    EXPECT_EQ(gpu::capacity_class(256), 256u);
    EXPECT_EQ(gpu::capacity_class(257), 512u);
    EXPECT_EQ(gpu::capacity_class(1u << 20), 1u << 20);
    EXPECT_EQ(gpu::capacity_class(2u << 20), 2u << 20);
    EXPECT_EQ(gpu::capacity_class((3u << 20) + 1), 4u << 20);
    EXPECT_EQ(gpu::capacity_class((5u << 20) + 1), 6u << 20) << "2 MiB steps, not 8 MiB";
    // A 33 GiB array asks for 33 GiB (powers of two asked for 64).
    EXPECT_EQ(gpu::capacity_class(std::size_t(33) << 30), std::size_t(33) << 30);
    EXPECT_EQ(gpu::capacity_class(~std::size_t(0)), ~std::size_t(0)) << "no wrap to 0";
    gpu::BufferCache<int> cache(1024);
    EXPECT_FALSE(cache.take(256).has_value());
    EXPECT_TRUE(cache.give(1, 256));
    EXPECT_TRUE(cache.give(2, 512));
    EXPECT_FALSE(cache.give(3, 512)) << "over a budget of 1024 bytes: the caller frees it";
    EXPECT_EQ(cache.held_bytes(), 768u);
    EXPECT_FALSE(cache.take(1024).has_value());
    EXPECT_EQ(cache.take(512), 2);
    EXPECT_EQ(cache.held_bytes(), 256u);
    std::vector<int> freed;
    cache.clear([&](int h) { freed.push_back(h); });
    EXPECT_EQ(freed, std::vector<int>{1});
    EXPECT_EQ(cache.held_bytes(), 0u);
}

}  // namespace

namespace {

// The queue mark tack.sync_async waits on (Backend::mark_queue): taken on the dispatching
// thread, waited on another, covering the launches before it. The CPU has nothing to wait for.
TEST(GpuQueueMark, OpenClMarkWaitsOnAnotherThread) {
    tack::Device dev;
    try {
        dev = tack::init("opencl");
    } catch (const tack::RuntimeError& e) {
        GTEST_SKIP() << e.what();
    }
    tack::Kernel k = tack::Module::from_source(R"(import tack

@tack.kernel
def put(x, v):
    for i in range(x.shape[0]):
        x[i] = v
)",
                                               "k.py")
                         .kernel("put");
    auto x = tack::zeros(tack::i32, {1 << 16});
    k(x, std::int32_t(41));
    std::unique_ptr<tack::runtime::QueueMark> mark = dev.backend()->mark_queue();
    ASSERT_NE(mark, nullptr);
    std::thread waiter([&] { mark->wait(); });
    waiter.join();
    EXPECT_EQ(x.to_host<std::int32_t>()[(1 << 16) - 1], 41);
    try {
        EXPECT_EQ(tack::init("cpu").backend()->mark_queue(), nullptr);
    } catch (const tack::RuntimeError&) {  // a TACK_LLVM=OFF build has no CPU backend
    }
}

}  // namespace

namespace {

// Queued copies (Backend::copy_array): a copy sits in program order between launches, with no
// host round trip and no wait.
TEST(GpuQueuedCopy, CopySeesTheLaunchBeforeAndNotTheOneAfter) {
    try {
        tack::init("opencl");
    } catch (const tack::RuntimeError& e) {
        GTEST_SKIP() << e.what();
    }
    tack::Kernel k = tack::Module::from_source(R"(import tack

@tack.kernel
def put(x, v):
    for i in range(x.shape[0]):
        x[i] = v
)",
                                               "k.py")
                         .kernel("put");
    auto x = tack::zeros(tack::i32, {4096});
    k(x, std::int32_t(5));
    tack::Array snapshot = x.copy();
    k(x, std::int32_t(9));
    EXPECT_EQ(snapshot.to_host<std::int32_t>(), std::vector<std::int32_t>(4096, 5));
    EXPECT_EQ(x.to_host<std::int32_t>()[0], 9);
    EXPECT_EQ(snapshot.device(), x.device());
    try {
        tack::init("cpu");
    } catch (const tack::RuntimeError&) {  // a TACK_LLVM=OFF build has no CPU backend
    }
}

}  // namespace
