#pragma once
// Compiled-artifact cache on disk (DECISIONS "Disk cache"). One file per entry:
//     header { magic "TACKCACH", format version, payload length, SHA-256 of payload,
//              key length, key } payload
// Writes go to a unique temp file in the same directory and are renamed into place, so readers
// see a whole entry or none. Every load re-verifies the header, key and checksum; any mismatch
// deletes the entry and reports a miss, so corruption costs a recompile, never bad code.
//
// The directory comes from TACK_CACHE_DIR (default $XDG_CACHE_HOME/tack or ~/.cache/tack; empty
// or `off` disables), is created with mode 0700, and is refused (one warning on stderr, cache
// disabled) when another user owns it or group/others can write it (a shared writable directory
// would let anyone plant machine code we then execute), when it is the root of the file system,
// or when it takes no new files (/proc/self, a read-only mount).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tack::cache {

struct CacheInfo {
    std::string path;  // directory, "" when disabled
    bool enabled = false;
    uint64_t entries = 0;
    uint64_t total_bytes = 0;
};

class DiskCache {
  public:
    /// Directory from the environment (support::env_cache_dir()).
    static DiskCache from_environment();
    /// Explicit directory; nullopt = disabled.
    explicit DiskCache(std::optional<std::string> dir);

    bool enabled() const { return enabled_; }
    const std::string& dir() const { return dir_; }
    /// Why a named directory is refused ("'/' is the root of the file system; ..."), the text
    /// of the warning; "" when enabled or when no directory was named.
    const std::string& refused_because() const { return refused_; }

    /// `key` is the full key string (driver/cache_key.hpp: make_key); the file name is its hex
    /// digest.
    std::optional<std::vector<uint8_t>> load(const std::string& key) const;
    /// Best effort: I/O errors leave the cache without the entry, never throw.
    void store(const std::string& key, std::span<const uint8_t> bytes) const;
    CacheInfo info() const;
    /// Removes every entry (and stray temp files); returns how many files were removed.
    uint64_t clear() const;

    /// Path of the entry file for `key` (tests use it to corrupt entries).
    std::string entry_path(const std::string& key) const;

  private:
    std::string dir_;
    std::string refused_;
    bool enabled_ = false;
};

/// The entry file format (exposed for the entry-reader fuzzer and tests): encode_entry's bytes
/// decode to `payload` under the same key; decode_entry returns nullopt for anything that is
/// not a complete, intact entry for `key`, whatever the bytes.
std::vector<uint8_t> encode_entry(const std::string& key, std::span<const uint8_t> payload);
std::optional<std::vector<uint8_t>> decode_entry(std::span<const uint8_t> file,
                                                 const std::string& key);

}  // namespace tack::cache
