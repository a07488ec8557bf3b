// Spider's link protection, checked on the 160-bit micropacket (data,
// sideband, sequence and acknowledge numbers, CRC): "The combination of the
// CCITT-CRC and the sliding-window protocol protects the link from all
// single, double, and odd number of bit errors, all burst errors up to 16
// bits long" (Galles, IEEE Micro 1997, "Data link layer"). Exhaustive for
// single, double and triple errors and for every burst of up to 16 bits
// (both ends flipped, every pattern between, every position); random for
// odd weights 5..159. Positions are serial: the wire order
// (spider_micropacket.h). Detected: the receiving LLP does not take the
// micropacket as intact (spider_mp_crc is not good).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>

#include "dataplane/codec/spider_micropacket.h"
#include "tests/unit/codec_test_util.h"

namespace fabemu {
namespace {

constexpr uint32_t kBits = kSpiderMpBits;  // 160

class Codeword {
 public:
  Codeword() {
    SpiderHead h;
    h.dst = 0x155;
    h.direction = 3;
    h.age = 200;
    h.src = 42;
    h.msg_seq = 0xC0FFEE;
    uint8_t payload[16];
    for (int i = 0; i < 16; i++) payload[i] = uint8_t(0x5A ^ (i * 29));
    test::Mbuf b;
    EXPECT_EQ(spider_encode(b.m, h, payload, 16, 1), 2u);
    std::memcpy(mp_, b.bytes() + kSpiderMpBytes, kSpiderMpBytes);  // the data micropacket
  }
  void flip(uint32_t p) { mp_[p / 8] = static_cast<uint8_t>(mp_[p / 8] ^ (1u << (p % 8))); }
  SpiderCrc status() const { return spider_mp_crc(mp_); }

 private:
  uint8_t mp_[kSpiderMpBytes];
};

// What the receiver makes of the codeword with bits pos[0..n) flipped.
SpiderCrc with_errors(Codeword& c, const uint32_t* pos, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) c.flip(pos[i]);
  const SpiderCrc s = c.status();
  for (uint32_t i = 0; i < n; i++) c.flip(pos[i]);
  return s;
}

TEST(SpiderCrcTest, DetectsAllSingleDoubleAndTripleErrors) {
  Codeword c;
  ASSERT_EQ(c.status(), SpiderCrc::good);
  uint64_t singles = 0, doubles = 0, triples = 0, missed = 0, read_stomped = 0;
  for (uint32_t a = 0; a < kBits; a++) {
    const uint32_t p1[] = {a};
    missed += with_errors(c, p1, 1) != SpiderCrc::bad;  // odd: never good, never the stomp
    singles++;
    for (uint32_t b = a + 1; b < kBits; b++) {
      const uint32_t p2[] = {a, b};
      const SpiderCrc s2 = with_errors(c, p2, 2);
      missed += s2 == SpiderCrc::good;
      read_stomped += s2 == SpiderCrc::stomped;
      doubles++;
      c.flip(a);
      c.flip(b);
      for (uint32_t d = b + 1; d < kBits; d++) {
        c.flip(d);
        missed += c.status() != SpiderCrc::bad;
        c.flip(d);
        triples++;
      }
      c.flip(a);
      c.flip(b);
    }
  }
  EXPECT_EQ(singles, 160u);
  EXPECT_EQ(doubles, 12720u);
  EXPECT_EQ(triples, 669920u);
  EXPECT_EQ(missed, 0u);
  EXPECT_EQ(read_stomped, 0u);
  EXPECT_EQ(c.status(), SpiderCrc::good);
}

TEST(SpiderCrcTest, DetectsAllBurstsUpTo16Bits) {
  Codeword c;
  uint64_t bursts = 0, missed = 0, read_stomped = 0;
  for (uint32_t len = 1; len <= 16; len++) {
    const uint32_t inner = len >= 2 ? len - 2 : 0;  // free bits between the two ends
    for (uint32_t start = 0; start + len <= kBits; start++) {
      for (uint32_t pat = 0; pat < (1u << inner); pat++) {
        const uint32_t mask = len == 1 ? 1u : (1u | (pat << 1) | (1u << (len - 1)));
        for (uint32_t i = 0; i < len; i++)
          if (mask >> i & 1) c.flip(start + i);
        const SpiderCrc s = c.status();
        for (uint32_t i = 0; i < len; i++)
          if (mask >> i & 1) c.flip(start + i);
        missed += s == SpiderCrc::good;
        read_stomped += s == SpiderCrc::stomped;
        bursts++;
      }
    }
  }
  // 160 single bits, then (161 - L) positions x 2^(L-2) patterns for L = 2..16.
  EXPECT_EQ(bursts, 4784127u);
  EXPECT_EQ(missed, 0u);
  // A burst whose syndrome is 0xFFFF (the 16 CRC bits all flipped, and
  // others) turns a good CRC into the stomp code: taken as a stomped
  // micropacket (its message discarded at the destination), not as intact.
  // Counted, not asserted: the paper says nothing of the stomp's coset.
  std::printf("bursts of 1..16 bits: %llu, none taken as intact, %llu read as stomped\n",
              static_cast<unsigned long long>(bursts),
              static_cast<unsigned long long>(read_stomped));
}

TEST(SpiderCrcTest, DetectsRandomOddWeights) {
  Codeword c;
  std::mt19937_64 rng(1997);
  uint32_t pos[kBits];
  std::iota(pos, pos + kBits, 0u);
  uint64_t missed = 0;
  constexpr uint32_t kSamples = 200000;
  for (uint32_t s = 0; s < kSamples; s++) {
    const uint32_t w = 5 + 2 * static_cast<uint32_t>(rng() % 78);  // 5, 7, ..., 159
    for (uint32_t i = 0; i < w; i++) std::swap(pos[i], pos[i + rng() % (kBits - i)]);
    missed += with_errors(c, pos, w) != SpiderCrc::bad;
  }
  EXPECT_EQ(missed, 0u);
}

// Past the claim: bursts of 17 bits and 4-bit errors can go undetected
// (printed, not asserted). In theory 2^-15 of the 17-bit bursts, and about
// 2^-15 of the even-weight patterns: the polynomial's factor (x + 1) already
// catches every odd weight, which leaves 15 bits of check for the rest.
TEST(SpiderCrcTest, ReportsUndetectedBeyondTheClaim) {
  Codeword c;
  std::mt19937_64 rng(160);
  constexpr uint32_t kSamples = 1000000;
  uint64_t burst_missed = 0, four_missed = 0;
  uint32_t pos[kBits];
  for (uint32_t s = 0; s < kSamples; s++) {
    const uint32_t start = static_cast<uint32_t>(rng() % (kBits - 16));
    const uint32_t mask = 1u | (static_cast<uint32_t>(rng() & 0x7FFF) << 1) | (1u << 16);
    uint32_t n = 0;
    for (uint32_t i = 0; i < 17; i++)
      if (mask >> i & 1) pos[n++] = start + i;
    burst_missed += with_errors(c, pos, n) == SpiderCrc::good;
  }
  std::iota(pos, pos + kBits, 0u);
  for (uint32_t s = 0; s < kSamples; s++) {
    for (uint32_t i = 0; i < 4; i++) std::swap(pos[i], pos[i + rng() % (kBits - i)]);
    four_missed += with_errors(c, pos, 4) == SpiderCrc::good;
  }
  std::printf(
      "undetected: bursts of 17 bits %llu of %u (%.2e; 2^-15 = %.2e), "
      "random 4-bit errors %llu of %u (%.2e; 2^-15 = %.2e)\n",
      static_cast<unsigned long long>(burst_missed), kSamples, double(burst_missed) / kSamples,
      1.0 / 32768, static_cast<unsigned long long>(four_missed), kSamples,
      double(four_missed) / kSamples, 1.0 / 32768);
  EXPECT_EQ(c.status(), SpiderCrc::good);
  // Beyond its claim a 16-bit CRC misses about 2^-15 of the errors (30.5 of
  // a million): some, and not many more (fixed seed; 31 and 43 counted).
  EXPECT_GT(burst_missed, 0u) << "a 17-bit burst can be a multiple of the generator";
  EXPECT_LT(burst_missed, 100u);
  EXPECT_LT(four_missed, 100u);
}

}  // namespace
}  // namespace fabemu
