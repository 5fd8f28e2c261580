#include "cache/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "support/env.hpp"
#include "support/hash.hpp"

namespace tack::cache {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'T', 'A', 'C', 'K', 'C', 'A', 'C', 'H'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kDigestSize = 32;
// magic, version, key length, payload length, payload digest
constexpr size_t kHeaderSize = sizeof(kMagic) + 4 + 4 + 8 + kDigestSize;
constexpr const char* kEntrySuffix = ".bin";
constexpr const char* kTempPrefix = ".tmp-";
// No compiled variant comes near this; a bigger file is not ours (or is an attack on memory).
constexpr uint64_t kMaxEntryBytes = uint64_t{1} << 30;

void put_le(std::vector<uint8_t>& out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out.push_back(uint8_t(value >> (8 * i)));
}

uint64_t get_le(const uint8_t* p, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
        value |= uint64_t(p[i]) << (8 * i);
    return value;
}

support::Hasher::Digest digest_of(std::span<const uint8_t> bytes) {
    return support::Hasher().update(bytes).digest();
}

}  // namespace

std::vector<uint8_t> encode_entry(const std::string& key, std::span<const uint8_t> payload) {
    std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
    out.reserve(kHeaderSize + key.size() + payload.size());
    put_le(out, kFormatVersion, 4);
    put_le(out, key.size(), 4);
    put_le(out, payload.size(), 8);
    auto digest = digest_of(payload);
    out.insert(out.end(), digest.begin(), digest.end());
    out.insert(out.end(), key.begin(), key.end());
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

// The payload if `file` is a complete, intact entry for `key`; nullopt for anything else
// (truncated, corrupted, another format version, another key that hashed to the same name).
std::optional<std::vector<uint8_t>> decode_entry(std::span<const uint8_t> file,
                                                 const std::string& key) {
    if (file.size() < kHeaderSize || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) {
        return std::nullopt;
    }
    const uint8_t* p = file.data() + sizeof(kMagic);
    uint64_t version = get_le(p, 4), key_len = get_le(p + 4, 4), payload_len = get_le(p + 8, 8);
    const uint8_t* digest = p + 16;
    // payload_len is bounded first so the sum below cannot wrap.
    if (version != kFormatVersion || key_len != key.size() || payload_len > file.size() ||
        kHeaderSize + key_len + payload_len != file.size()) {
        return std::nullopt;
    }
    const uint8_t* stored_key = file.data() + kHeaderSize;
    if (std::memcmp(stored_key, key.data(), key.size()) != 0) return std::nullopt;
    std::vector<uint8_t> payload(stored_key + key_len, file.data() + file.size());
    auto actual = digest_of(payload);
    if (std::memcmp(actual.data(), digest, kDigestSize) != 0) return std::nullopt;
    return payload;
}

namespace {

// What reading an entry file found.
enum class ReadStatus { Ok, Missing, Bad };

// Reads a regular file of at most kMaxEntryBytes. Anything else at the path (a FIFO, device,
// socket, directory or symlink; issue 12: a FIFO blocked every later run forever) is Bad and
// never blocks: O_NONBLOCK makes open() of a FIFO return at once, O_NOFOLLOW refuses links,
// and fstat() is checked before the first read.
ReadStatus read_file(const std::string& path, std::vector<uint8_t>& data) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? ReadStatus::Missing : ReadStatus::Bad;
    struct stat st {};
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
              static_cast<uint64_t>(st.st_size) <= kMaxEntryBytes;
    if (ok) data.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (ok && done < data.size()) {
        ssize_t n = ::read(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;  // 0: the file shrank under us (another writer's entry is renamed, not cut)
        done += ok ? size_t(n) : 0;
    }
    ::close(fd);
    return ok ? ReadStatus::Ok : ReadStatus::Bad;
}

bool write_all(int fd, const std::vector<uint8_t>& data) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

// Unique in the directory across processes (pid), threads (thread id) and calls (counter).
std::string temp_name() {
    static std::atomic<uint64_t> counter{0};
    size_t tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
    return std::string(kTempPrefix) + std::to_string(::getpid()) + "-" + std::to_string(tid) + "-" +
           std::to_string(counter.fetch_add(1));
}

// Warns once per directory per process.
void warn_once(const std::string& dir, const std::string& why) {
    static std::mutex mutex;
    static std::set<std::string> warned;
    std::lock_guard lock(mutex);
    if (!warned.insert(dir).second) return;
    std::fprintf(stderr, "tack: warning: disk cache disabled: '%s' %s\n", dir.c_str(), why.c_str());
}

// Creates missing components with mode 0700 (mkdir -p, private from the start: a chmod after
// mkdir would leave a window in which others could plant files).
bool make_private_dirs(const fs::path& dir) {
    std::error_code ec;
    if (fs::is_directory(dir, ec)) return true;
    if (dir.has_parent_path() && dir.parent_path() != dir &&
        !make_private_dirs(dir.parent_path())) {
        return false;
    }
    return ::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

// Why `dir` must not be used, or "" when it is safe: a directory someone else can write to
// would let them plant machine code that we load and run.
std::string unsafe_reason(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        return "cannot be accessed (" + std::string(strerror(errno)) + ")";
    if (!S_ISDIR(st.st_mode)) return "is not a directory";
    if (st.st_uid != ::geteuid()) {
        return "is owned by another user (uid " + std::to_string(st.st_uid) + ")";
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        return "is writable by group or others (run 'chmod 700' on it to enable the cache)";
    }
    // Root owns '/' with mode 755, so the checks above pass there: entries would be written
    // among the system's top-level directories (hardening round three). Refused by name.
    std::error_code ec;
    if (fs::equivalent(dir, "/", ec)) return "is the root of the file system; name a directory";
    // A directory that takes no files (/proc/self, a read-only mount) would leave the cache
    // silently unused: each store would fail. One probe says so at once.
    std::string probe = dir + "/" + temp_name();
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return "does not take new files (" + std::string(strerror(errno)) + ")";
    ::close(fd);
    ::unlink(probe.c_str());
    return "";
}

bool has_suffix(const std::string& name, const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

DiskCache DiskCache::from_environment() {
    return DiskCache(support::env_cache_dir());
}

DiskCache::DiskCache(std::optional<std::string> dir) {
    if (!dir || dir->empty()) return;
    dir_ = *dir;
    std::string why = make_private_dirs(dir_)
                          ? unsafe_reason(dir_)
                          : "could not be created (" + std::string(strerror(errno)) + ")";
    if (!why.empty()) {
        refused_ = "'" + dir_ + "' " + why;
        warn_once(dir_, why);
        return;
    }
    enabled_ = true;
}

std::string DiskCache::entry_path(const std::string& key) const {
    return dir_ + "/" + support::sha256_hex(key) + kEntrySuffix;
}

std::optional<std::vector<uint8_t>> DiskCache::load(const std::string& key) const {
    if (!enabled_) return std::nullopt;
    std::string path = entry_path(key);
    std::vector<uint8_t> file;
    ReadStatus status = read_file(path, file);
    if (status == ReadStatus::Missing) return std::nullopt;
    auto payload = status == ReadStatus::Ok ? decode_entry(file, key) : std::nullopt;
    // A bad entry is deleted so the recompiled artifact can take its place (unlink removes a
    // FIFO or a symlink itself, and fails harmlessly on a directory). A concurrent writer may
    // just have renamed a good one over it; losing that costs one recompile, nothing more.
    if (!payload) ::unlink(path.c_str());
    return payload;
}

void DiskCache::store(const std::string& key, std::span<const uint8_t> bytes) const {
    if (!enabled_) return;
    std::string temp = dir_ + "/" + temp_name();
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    bool ok = write_all(fd, encode_entry(key, bytes));
    ok = ::close(fd) == 0 && ok;
    // rename() replaces atomically: readers see the old entry or the new one, never a mix.
    if (!ok || ::rename(temp.c_str(), entry_path(key).c_str()) != 0) ::unlink(temp.c_str());
}

CacheInfo DiskCache::info() const {
    CacheInfo info;
    info.path = dir_;
    info.enabled = enabled_;
    if (!enabled_) return info;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir_, ec)) {
        if (!entry.is_regular_file(ec) || !has_suffix(entry.path().filename(), kEntrySuffix)) {
            continue;
        }
        info.entries += 1;
        info.total_bytes += entry.file_size(ec);
    }
    return info;
}

uint64_t DiskCache::clear() const {
    if (!enabled_) return 0;
    uint64_t removed = 0;
    std::error_code ec;
    // Only our own names: TACK_CACHE_DIR may point at a directory holding other files.
    for (const auto& entry : fs::directory_iterator(dir_, ec)) {
        std::string name = entry.path().filename();
        bool ours = has_suffix(name, kEntrySuffix) || name.rfind(kTempPrefix, 0) == 0;
        if (ours && ::unlink(entry.path().c_str()) == 0) removed += 1;
    }
    return removed;
}

}  // namespace tack::cache
