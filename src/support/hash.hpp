#pragma once
// SHA-256 (FIPS 180-4), used for disk-cache keys and payload checksums. Written here rather than
// taken from a library so the core has no crypto dependency; speed is irrelevant at the sizes
// involved (IR text and object files).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tack::support {

class Hasher {
  public:
    using Digest = std::array<uint8_t, 32>;

    Hasher();
    /// Feeds raw bytes.
    Hasher& update(std::span<const uint8_t> bytes);
    Hasher& update(std::string_view text);
    /// Feeds one key component framed by its length, so ("ab","c") and ("a","bc") differ.
    /// Use this for cache keys built from several strings.
    Hasher& field(std::string_view text);
    /// Finishes; the Hasher must not be updated afterwards.
    Digest digest();
    /// Lowercase hex of digest() (64 characters).
    std::string hex_digest();

  private:
    void compress(const uint8_t* block);

    std::array<uint32_t, 8> state_;
    std::array<uint8_t, 64> buffer_{};
    size_t buffered_ = 0;
    uint64_t total_bytes_ = 0;
    bool finished_ = false;
};

/// Convenience: lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::span<const uint8_t> bytes);
std::string sha256_hex(std::string_view text);
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace tack::support
