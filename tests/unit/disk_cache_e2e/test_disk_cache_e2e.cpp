// The disk cache across processes: each check re-runs this binary as a child
// (--gtest_filter=DiskCacheChild.*, TACK_E2E_CHILD=1) with TACK_CACHE_DIR on a fresh directory.
// The child runs a kernel through the C++ API and checks its results against a C++ loop.
//
// Observing a hit: the runtime has no hit counter, but DiskCache::store always writes a new
// file and renames it over the entry, so a miss gives the entry a new inode while a hit leaves
// the file untouched. Inode and mtime together tell the two apart.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tack/tack.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

constexpr const char* kSource = R"(import tack

@tack.kernel
def poly(x, y, a, n):
    for i in range(n):
        y[i] = a * x[i] * x[i] + 3.0 * x[i] - y[i]
)";

// --- the child -------------------------------------------------------------------------------

// Runs the kernel once and writes "ok <first-call microseconds>" to $TACK_E2E_OUT. With
// $TACK_E2E_START_AT (steady-clock ns) it waits until then, so two children store at once.
TEST(DiskCacheChild, Run) {
    const char* out_path = std::getenv("TACK_E2E_OUT");
    if (!std::getenv("TACK_E2E_CHILD") || !out_path) GTEST_SKIP() << "run by DiskCacheE2E only";
    if (const char* at = std::getenv("TACK_E2E_START_AT")) {
        auto start =
            std::chrono::steady_clock::time_point(std::chrono::nanoseconds(std::stoll(at)));
        std::this_thread::sleep_until(start);
    }
    const int n = 4099;
    std::vector<float> xv(n), yv(n);
    for (int i = 0; i < n; ++i) {
        xv[i] = 0.25f * float(i % 97) - 3.0f;
        yv[i] = float(i % 13);
    }
    tack::Kernel k = tack::Module::from_source(kSource, "poly.py").kernel("poly");
    tack::Array x = tack::Array::from_host(xv, {n});
    tack::Array y = tack::Array::from_host(yv, {n});
    auto t0 = std::chrono::steady_clock::now();
    k(x, y, 1.5f, std::int64_t(n));
    auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    std::vector<float> out = y.to_host<float>();
    for (int i = 0; i < n; ++i) {
        // Two roundings per product as the kernel does (no contraction across statements).
        float expected = 1.5f * xv[i] * xv[i] + 3.0f * xv[i] - yv[i];
        ASSERT_NEAR(out[i], expected, 1e-4f * (1.0f + std::abs(expected))) << i;
    }
    std::ofstream(out_path) << "ok " << us << "\n";
}

// --- the parent ------------------------------------------------------------------------------

class TempDir {
  public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "tack-cache-e2e-XXXXXX").string();
        path_ = ::mkdtemp(tmpl.data());  // mode 0700, as the cache requires
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

struct Child {
    pid_t pid = -1;
    std::string out_path, log_path;
};

Child spawn_child(const std::string& cache_dir, const std::string& out_path,
                  const std::string& start_at = "") {
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e) {
        std::string_view v(*e);
        if (v.starts_with("TACK_CACHE_DIR=") || v.starts_with("TACK_E2E_")) continue;
        env_text.emplace_back(v);
    }
    env_text.push_back("TACK_CACHE_DIR=" + cache_dir);
    env_text.push_back("TACK_E2E_CHILD=1");
    env_text.push_back("TACK_E2E_OUT=" + out_path);
    if (!start_at.empty()) env_text.push_back("TACK_E2E_START_AT=" + start_at);
    std::vector<char*> envp;
    for (auto& s : env_text)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string exe = fs::read_symlink("/proc/self/exe").string();
    std::string filter = "--gtest_filter=DiskCacheChild.Run";
    char* argv[] = {exe.data(), filter.data(), nullptr};
    std::error_code ec;
    fs::remove(out_path, ec);
    Child c;
    c.out_path = out_path;
    c.log_path = out_path + ".log";  // the child's gtest output, shown when it fails
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, c.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (::posix_spawn(&c.pid, exe.c_str(), &actions, nullptr, argv, envp.data()) != 0) c.pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    return c;
}

// The child's first-call time in microseconds; fails the test unless the child ran and passed.
long long wait_child(const Child& c) {
    EXPECT_GT(c.pid, 0) << "posix_spawn failed";
    if (c.pid <= 0) return -1;
    int status = 0;
    ::waitpid(c.pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::ifstream log(c.log_path);
        ADD_FAILURE() << "child failed (status " << status << "):\n" << log.rdbuf();
    }
    std::ifstream in(c.out_path);
    std::string word;
    long long us = -1;
    in >> word >> us;
    EXPECT_EQ(word, "ok") << "the child did not run its kernel";
    return us;
}

long long run_child(const TempDir& cache, const TempDir& scratch) {
    return wait_child(spawn_child(cache.path(), scratch.path() + "/child.out"));
}

struct EntryState {
    std::string path;
    ino_t inode = 0;
    struct timespec mtime {};
    std::string bytes;
};

std::vector<fs::path> files_in(const std::string& dir) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        files.push_back(e.path());
    return files;
}

// The one entry of the cache (a failure when there is not exactly one file in it).
EntryState only_entry(const TempDir& cache) {
    std::vector<fs::path> files = files_in(cache.path());
    EXPECT_EQ(files.size(), 1u) << "expected exactly one cache entry";
    EntryState s;
    if (files.size() != 1) return s;
    s.path = files[0].string();
    EXPECT_EQ(files[0].extension(), ".bin");
    struct stat st {};
    ::stat(s.path.c_str(), &st);
    s.inode = st.st_ino;
    s.mtime = st.st_mtim;
    std::ifstream in(s.path, std::ios::binary);
    s.bytes.assign(std::istreambuf_iterator<char>(in), {});
    return s;
}

bool untouched(const EntryState& before, const EntryState& after) {
    return before.path == after.path && before.inode == after.inode &&
           before.mtime.tv_sec == after.mtime.tv_sec && before.mtime.tv_nsec == after.mtime.tv_nsec;
}

void overwrite(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class DiskCacheE2E : public ::testing::Test {
  protected:
    void SetUp() override {
        compile_us_ = run_child(cache_, scratch_);
        first_ = only_entry(cache_);
        ASSERT_GT(first_.bytes.size(), 64u);
    }
    // A child that has to compile because the entry is bad: results right, entry rewritten
    // whole (a new file), and the next child hits it.
    void expect_recovers() {
        run_child(cache_, scratch_);
        EntryState rewritten = only_entry(cache_);
        EXPECT_EQ(rewritten.path, first_.path);
        // Compiling is deterministic, so the rewritten entry is the original one again.
        EXPECT_TRUE(rewritten.bytes == first_.bytes) << "the bad entry was not rewritten";
        run_child(cache_, scratch_);
        EXPECT_TRUE(untouched(rewritten, only_entry(cache_))) << "no hit after the rewrite";
    }

    TempDir cache_, scratch_;
    long long compile_us_ = 0;
    EntryState first_;
};

TEST_F(DiskCacheE2E, SecondProcessHitsTheEntry) {
    long long hit_us = run_child(cache_, scratch_);
    EXPECT_TRUE(untouched(first_, only_entry(cache_))) << "the second process rewrote the entry";
    // Informational: loading an object file should be far cheaper than compiling it.
    std::printf("first call: %lld us compiling, %lld us from the disk cache\n", compile_us_,
                hit_us);
}

TEST_F(DiskCacheE2E, CorruptedEntryIsReplaced) {
    std::string bytes = first_.bytes;
    bytes[bytes.size() - 7] ^= 0x40;  // inside the payload: only the checksum notices
    overwrite(first_.path, bytes);
    expect_recovers();
}

TEST_F(DiskCacheE2E, CorruptedHeaderIsReplaced) {
    std::string bytes = first_.bytes;
    bytes[2] ^= 0x01;  // the magic
    overwrite(first_.path, bytes);
    expect_recovers();
}

TEST_F(DiskCacheE2E, TruncatedEntryIsReplaced) {
    overwrite(first_.path, first_.bytes.substr(0, first_.bytes.size() / 2));
    expect_recovers();
}

TEST_F(DiskCacheE2E, EmptyEntryIsReplaced) {
    overwrite(first_.path, "");
    expect_recovers();
}

// Two processes compiling the same kernel at the same moment both store the same key: both
// results are right and the directory ends with one whole entry and no temp files.
TEST_F(DiskCacheE2E, ConcurrentWritersLeaveOneWholeEntry) {
    for (int round = 0; round < 3; ++round) {
        fs::remove(first_.path);
        auto start = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
        std::string at = std::to_string(
            std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count());
        Child a = spawn_child(cache_.path(), scratch_.path() + "/a.out", at);
        Child b = spawn_child(cache_.path(), scratch_.path() + "/b.out", at);
        wait_child(a);
        wait_child(b);
        EntryState entry = only_entry(cache_);  // also proves no `.tmp-` file was left
        EXPECT_EQ(entry.path, first_.path);
        EXPECT_TRUE(entry.bytes == first_.bytes) << "a writer left a mixed or partial entry";
        run_child(cache_, scratch_);
        EXPECT_TRUE(untouched(entry, only_entry(cache_))) << "the stored entry was not usable";
    }
}

}  // namespace
