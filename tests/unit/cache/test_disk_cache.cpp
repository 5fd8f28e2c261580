// DiskCache: round trips within and across processes, every kind of damaged entry is detected
// and discarded, concurrent writers leave a valid entry, unsafe directories are refused.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cache/disk_cache.hpp"
#include "support/env.hpp"

namespace tack::cache {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> bytes_of(const std::string& text) {
    return {text.begin(), text.end()};
}

std::vector<uint8_t> pattern(size_t size, uint8_t seed) {
    std::vector<uint8_t> out(size);
    for (size_t i = 0; i < size; ++i)
        out[i] = uint8_t(i * 31 + seed);
    return out;
}

class TempDir {
  public:
    TempDir() {
        char tmpl[] = "/tmp/tack-cache-test-XXXXXX";
        path_ = ::mkdtemp(tmpl);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

class ScopedEnv {
  public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
    }
    ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }

  private:
    const char* name_;
    std::optional<std::string> old_;
};

std::vector<uint8_t> read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const std::string& path, const std::vector<uint8_t>& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
}

// Runs `child` in a forked process; returns its exit status (0 = success).
template <class Fn>
int in_child(Fn child) {
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(child());
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST(DiskCache, RoundTripInfoAndClear) {
    TempDir tmp;
    DiskCache cache(tmp.path() + "/nested/cache");
    ASSERT_TRUE(cache.enabled());
    struct stat st {};
    ASSERT_EQ(::stat(cache.dir().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);

    EXPECT_EQ(cache.load("k1"), std::nullopt);
    auto payload = pattern(10000, 7);
    cache.store("k1", payload);
    cache.store("k2", bytes_of("hello"));
    cache.store("empty", {});
    EXPECT_EQ(cache.load("k1"), payload);
    EXPECT_EQ(cache.load("k2"), bytes_of("hello"));
    EXPECT_EQ(cache.load("empty"), std::vector<uint8_t>{});

    CacheInfo info = cache.info();
    EXPECT_TRUE(info.enabled);
    EXPECT_EQ(info.path, cache.dir());
    EXPECT_EQ(info.entries, 3u);
    EXPECT_GT(info.total_bytes, 10005u);

    write_all(cache.dir() + "/unrelated.txt", bytes_of("keep me"));
    EXPECT_EQ(cache.clear(), 3u);
    EXPECT_EQ(cache.info().entries, 0u);
    EXPECT_EQ(cache.load("k1"), std::nullopt);
    EXPECT_TRUE(fs::exists(cache.dir() + "/unrelated.txt"));
}

TEST(DiskCache, OverwriteReplacesEntry) {
    TempDir tmp;
    DiskCache cache(tmp.path());
    cache.store("k", bytes_of("first"));
    cache.store("k", bytes_of("second, longer"));
    EXPECT_EQ(cache.load("k"), bytes_of("second, longer"));
    EXPECT_EQ(cache.info().entries, 1u);
}

TEST(DiskCache, SecondProcessHits) {
    TempDir tmp;
    auto payload = pattern(50000, 3);
    DiskCache(tmp.path()).store("shared-key", payload);
    int status = in_child([&] {
        DiskCache cache(tmp.path());
        return cache.load("shared-key") == payload ? 0 : 1;
    });
    EXPECT_EQ(status, 0);
    // And the other way: the child stores, the parent loads.
    status = in_child([&] {
        DiskCache(tmp.path()).store("from-child", bytes_of("child bytes"));
        return 0;
    });
    ASSERT_EQ(status, 0);
    EXPECT_EQ(DiskCache(tmp.path()).load("from-child"), bytes_of("child bytes"));
}

// Each damage is applied to a freshly stored entry; load must miss and delete the file.
struct Damage {
    const char* name;
    void (*apply)(std::vector<uint8_t>& file);
};

void expect_discarded(const Damage& damage) {
    TempDir tmp;
    DiskCache cache(tmp.path());
    cache.store("key", pattern(4096, 9));
    std::string path = cache.entry_path("key");
    auto file = read_all(path);
    ASSERT_FALSE(file.empty());
    damage.apply(file);
    write_all(path, file);
    EXPECT_EQ(cache.load("key"), std::nullopt) << damage.name;
    EXPECT_FALSE(fs::exists(path)) << damage.name << ": bad entry not deleted";
    cache.store("key", bytes_of("recompiled"));
    EXPECT_EQ(cache.load("key"), bytes_of("recompiled")) << damage.name;
}

TEST(DiskCache, DamagedEntriesAreDiscarded) {
    const Damage damages[] = {
        {"truncated payload", [](std::vector<uint8_t>& f) { f.resize(f.size() - 1); }},
        {"truncated header", [](std::vector<uint8_t>& f) { f.resize(10); }},
        {"empty file", [](std::vector<uint8_t>& f) { f.clear(); }},
        {"extra byte", [](std::vector<uint8_t>& f) { f.push_back(0); }},
        {"corrupted payload byte", [](std::vector<uint8_t>& f) { f[f.size() - 100] ^= 0x01; }},
        {"corrupted checksum byte", [](std::vector<uint8_t>& f) { f[30] ^= 0x80; }},
        {"corrupted key byte", [](std::vector<uint8_t>& f) { f[56] ^= 0x01; }},
        {"wrong magic", [](std::vector<uint8_t>& f) { f[0] = 'X'; }},
        {"wrong version", [](std::vector<uint8_t>& f) { f[8] = 99; }},
        {"huge payload length", [](std::vector<uint8_t>& f) { f[23] = 0xff; }},
    };
    for (const auto& damage : damages)
        expect_discarded(damage);
}

TEST(DiskCache, ForeignEntryIsDiscarded) {
    // An entry for key A sitting under key B's file name (a hash collision, or a copied file).
    TempDir tmp;
    DiskCache cache(tmp.path());
    cache.store("key-a", bytes_of("payload of a"));
    fs::copy_file(cache.entry_path("key-a"), cache.entry_path("key-b"));
    EXPECT_EQ(cache.load("key-b"), std::nullopt);
    EXPECT_FALSE(fs::exists(cache.entry_path("key-b")));
    EXPECT_EQ(cache.load("key-a"), bytes_of("payload of a"));
}

// Issue 12: a FIFO in place of an entry blocked every later load forever (open() without
// O_NONBLOCK waits for a writer). Each non-regular file must read as a bad entry, at once, be
// removed where it can be, and let the next store and load work. The child process and its
// alarm turn a regression into a failure instead of a hung test binary.
TEST(DiskCache, NonRegularEntriesAreBadEntriesAndNeverBlock) {
    struct Plant {
        const char* name;
        void (*make)(const std::string& path);
    };
    const Plant plants[] = {
        {"fifo", [](const std::string& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0); }},
        {"directory", [](const std::string& p) { fs::create_directory(p); }},
        {"symlink to /dev/zero", [](const std::string& p) { fs::create_symlink("/dev/zero", p); }},
        {"symlink to a fifo",
         [](const std::string& p) {
             std::string fifo = p + ".fifo";
             ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
             fs::create_symlink(fifo, p);
         }},
        {"dangling symlink", [](const std::string& p) { fs::create_symlink(p + ".none", p); }},
        {"sparse file over the size limit",
         [](const std::string& p) {
             int fd = ::open(p.c_str(), O_WRONLY | O_CREAT, 0600);
             ASSERT_GE(fd, 0);
             ASSERT_EQ(::ftruncate(fd, off_t{1} << 31), 0);
             ::close(fd);
         }},
    };
    for (const auto& plant : plants) {
        TempDir tmp;
        DiskCache cache(tmp.path());
        std::string path = cache.entry_path("key");
        plant.make(path);
        int status = in_child([&] {
            ::alarm(10);
            if (cache.load("key") != std::nullopt) return 1;
            if (cache.load("key") != std::nullopt) return 2;
            return 0;
        });
        EXPECT_EQ(status, 0) << plant.name << " (128: killed, i.e. the load blocked)";
        if (!fs::is_directory(path)) {
            EXPECT_FALSE(fs::exists(fs::symlink_status(path))) << plant.name << " not removed";
            cache.store("key", bytes_of("recompiled"));
            EXPECT_EQ(cache.load("key"), bytes_of("recompiled")) << plant.name;
        }
        (void)cache.info();
        (void)cache.clear();
    }
}

TEST(DiskCache, ConcurrentWritersLeaveAValidEntry) {
    TempDir tmp;
    auto payload_a = pattern(200000, 1), payload_b = pattern(150000, 2);
    auto writer = [&](const std::vector<uint8_t>& mine) {
        return in_child([&] {
            DiskCache cache(tmp.path());
            for (int i = 0; i < 100; ++i) {
                cache.store("contended", mine);
                auto got = cache.load("contended");
                // A miss is allowed (the other process may be mid-replace); bad bytes never are.
                if (got && *got != payload_a && *got != payload_b) return 1;
            }
            return 0;
        });
    };
    // Fork both writers before waiting on either, so they really overlap.
    pid_t a = ::fork();
    if (a == 0) ::_exit(writer(payload_a) == 0 ? 0 : 1);
    int status_b = writer(payload_b);
    int status_a = 0;
    ::waitpid(a, &status_a, 0);
    EXPECT_EQ(status_b, 0);
    EXPECT_TRUE(WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0);

    DiskCache cache(tmp.path());
    auto final_entry = cache.load("contended");
    ASSERT_TRUE(final_entry.has_value());
    EXPECT_TRUE(*final_entry == payload_a || *final_entry == payload_b);
    for (const auto& entry : fs::directory_iterator(tmp.path())) {
        EXPECT_EQ(entry.path().filename().string().rfind(".tmp-", 0), std::string::npos)
            << "temp file left behind: " << entry.path();
    }
}

TEST(DiskCache, RefusesDirectoryWritableByOthers) {
    for (mode_t mode : {0777, 0770, 0722}) {
        TempDir tmp;
        ASSERT_EQ(::chmod(tmp.path().c_str(), mode), 0);
        testing::internal::CaptureStderr();
        DiskCache cache(tmp.path());
        DiskCache again(tmp.path());
        std::string err = testing::internal::GetCapturedStderr();
        EXPECT_FALSE(cache.enabled()) << std::oct << mode;
        EXPECT_NE(err.find("writable by group or others"), std::string::npos) << err;
        EXPECT_EQ(err.find("warning", err.find("warning") + 1), std::string::npos)
            << "warned twice: " << err;
        cache.store("k", bytes_of("x"));
        EXPECT_EQ(cache.load("k"), std::nullopt);
        EXPECT_EQ(cache.info().entries, 0u);
        EXPECT_TRUE(fs::is_empty(tmp.path()));
    }
}

// Hardening round three: as root, TACK_CACHE_DIR=/ passed the ownership and mode checks and
// entries went into '/'; /proc/self passed them too and every store failed in silence.
TEST(DiskCache, RefusesTheRootAndDirectoriesThatTakeNoFiles) {
    const std::pair<const char*, const char*> refused[] = {
        {"/", "'/' "},  // owned by root: "is the root ..." as root, another user's otherwise
        {"/proc/self", "'/proc/self' "},
    };
    for (const auto& [dir, start] : refused) {
        if (!fs::exists(dir)) continue;
        testing::internal::CaptureStderr();
        DiskCache cache(std::string{dir});
        std::string err = testing::internal::GetCapturedStderr();
        EXPECT_FALSE(cache.enabled()) << dir;
        EXPECT_EQ(cache.refused_because().rfind(start, 0), 0u) << cache.refused_because();
        EXPECT_NE(err.find(cache.refused_because().substr(std::string(start).size())),
                  std::string::npos)
            << err;
    }
    if (::geteuid() == 0) {
        EXPECT_EQ(DiskCache(std::string{"/"}).refused_because(),
                  "'/' is the root of the file system; name a directory");
        EXPECT_EQ(DiskCache(std::string{"/proc/self"})
                      .refused_because()
                      .rfind("'/proc/self' does not take new files (", 0),
                  0u);
    }
    TempDir tmp;
    DiskCache fine(tmp.path());
    EXPECT_TRUE(fine.enabled());
    EXPECT_EQ(fine.refused_because(), "");
    EXPECT_TRUE(fs::is_empty(tmp.path()));  // the probe file is gone again
}

TEST(DiskCache, RefusesDirectoryOwnedByAnotherUser) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown a directory to another user";
    TempDir tmp;
    ASSERT_EQ(::chown(tmp.path().c_str(), 12345, 12345), 0);
    testing::internal::CaptureStderr();
    DiskCache cache(tmp.path());
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(cache.enabled());
    EXPECT_NE(err.find("owned by another user (uid 12345)"), std::string::npos) << err;
}

TEST(DiskCache, DisabledByEnvironment) {
    for (const char* value : {"off", "", "OFF", " off "}) {
        ScopedEnv env("TACK_CACHE_DIR", value);
        EXPECT_EQ(support::env_cache_dir(), std::nullopt) << "'" << value << "'";
        DiskCache cache = DiskCache::from_environment();
        EXPECT_FALSE(cache.enabled());
        cache.store("k", bytes_of("x"));
        EXPECT_EQ(cache.load("k"), std::nullopt);
        EXPECT_FALSE(cache.info().enabled);
    }
}

TEST(DiskCache, DirectoryFromEnvironment) {
    TempDir tmp;
    {
        ScopedEnv env("TACK_CACHE_DIR", tmp.path() + "/explicit");
        DiskCache cache = DiskCache::from_environment();
        EXPECT_TRUE(cache.enabled());
        EXPECT_EQ(cache.dir(), tmp.path() + "/explicit");
    }
    ScopedEnv unset("TACK_CACHE_DIR", std::nullopt);
    {
        ScopedEnv xdg("XDG_CACHE_HOME", tmp.path() + "/xdg");
        EXPECT_EQ(support::env_cache_dir(), tmp.path() + "/xdg/tack");
    }
    ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(support::env_cache_dir(), "/home/someone/.cache/tack");
}

}  // namespace
}  // namespace tack::cache
