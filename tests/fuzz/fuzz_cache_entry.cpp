// libFuzzer entry for the disk-cache entry reader: whatever the bytes of an entry file,
// decode_entry() returns the payload of a complete, intact entry for the key or nullopt, and
// never reads out of bounds. Two keys: a fixed one, and the one the input claims (so inputs
// that pass the header checks reach the checksum). A well-formed entry built from the input
// must round-trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "cache/disk_cache.hpp"

using namespace tack::cache;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    (void)decode_entry(bytes, "tack-0.0:fixed-key");
    // The key bytes an entry would carry after its 56-byte header, whatever its length field.
    if (size > 56) {
        size_t key_len = std::min<size_t>(size - 56, data[12] | (data[13] << 8));
        std::string key(reinterpret_cast<const char*>(data) + 56, key_len);
        (void)decode_entry(bytes, key);
    }
    std::string key(reinterpret_cast<const char*>(data), std::min<size_t>(size, 40));
    auto entry = encode_entry(key, bytes);
    auto back = decode_entry(entry, key);
    if (!back || *back != std::vector<uint8_t>(data, data + size)) std::abort();
    if (!entry.empty()) {
        entry[entry.size() / 2] ^= 0x5A;  // any one damaged byte is detected
        if (decode_entry(entry, key)) std::abort();
    }
    return 0;
}
