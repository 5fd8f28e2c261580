#include "support/hash.hpp"

#include <cstring>

#include "diag/diagnostic.hpp"

namespace tack::support {
namespace {

// FIPS 180-4 section 4.2.2 and 5.3.3.
constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
constexpr std::array<uint32_t, 8> kInitial = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

constexpr uint32_t rotr(uint32_t x, int n) {
    return (x >> n) | (x << (32 - n));
}

uint32_t load_be32(const uint8_t* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

}  // namespace

Hasher::Hasher() : state_(kInitial) {}

void Hasher::compress(const uint8_t* block) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
        w[i] = load_be32(block + 4 * i);
    for (int i = 16; i < 64; ++i) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    auto [a, b, c, d, e, f, g, h] = state_;
    for (int i = 0; i < 64; ++i) {
        uint32_t t1 =
            h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    std::array<uint32_t, 8> add = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; ++i)
        state_[i] += add[i];
}

Hasher& Hasher::update(std::span<const uint8_t> bytes) {
    TACK_ASSERT(!finished_, "Hasher updated after digest()");
    if (bytes.empty()) return *this;  // data() may be null, which memcpy must not see
    total_bytes_ += bytes.size();
    size_t pos = 0;
    if (buffered_ > 0) {
        size_t take = std::min(bytes.size(), 64 - buffered_);
        std::memcpy(buffer_.data() + buffered_, bytes.data(), take);
        buffered_ += take;
        pos = take;
        if (buffered_ < 64) return *this;
        compress(buffer_.data());
        buffered_ = 0;
    }
    for (; pos + 64 <= bytes.size(); pos += 64)
        compress(bytes.data() + pos);
    std::memcpy(buffer_.data(), bytes.data() + pos, bytes.size() - pos);
    buffered_ = bytes.size() - pos;
    return *this;
}

Hasher& Hasher::update(std::string_view text) {
    return update(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Hasher& Hasher::field(std::string_view text) {
    uint8_t length[8];
    for (int i = 0; i < 8; ++i)
        length[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
    update(std::span<const uint8_t>(length, 8));
    return update(text);
}

Hasher::Digest Hasher::digest() {
    TACK_ASSERT(!finished_, "Hasher::digest() called twice");
    uint64_t bits = total_bytes_ * 8;
    uint8_t pad[72] = {0x80};
    size_t pad_len = (buffered_ < 56 ? 56 : 120) - buffered_;
    for (int i = 0; i < 8; ++i)
        pad[pad_len + i] = uint8_t(bits >> (56 - 8 * i));
    update(std::span<const uint8_t>(pad, pad_len + 8));
    finished_ = true;
    Digest out;
    for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 4; ++j)
            out[4 * i + j] = uint8_t(state_[i] >> (24 - 8 * j));
    }
    return out;
}

std::string Hasher::hex_digest() {
    Digest d = digest();
    return to_hex(d);
}

std::string to_hex(std::span<const uint8_t> bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        out.push_back(kDigits[b >> 4]);
        out.push_back(kDigits[b & 15]);
    }
    return out;
}

std::string sha256_hex(std::span<const uint8_t> bytes) {
    return Hasher().update(bytes).hex_digest();
}
std::string sha256_hex(std::string_view text) {
    return Hasher().update(text).hex_digest();
}

}  // namespace tack::support
