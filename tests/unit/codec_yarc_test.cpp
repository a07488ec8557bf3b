// Bit-level tests of BlackWidow's YARC phits (dataplane/codec/yarc_phit.h).
#include <gtest/gtest.h>
#include <rte_lcore.h>
#include <rte_net_crc.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/codec/crc16.h"
#include "dataplane/codec/t3e_flit.h"
#include "dataplane/codec/yarc_phit.h"
#include "tests/unit/codec_test_util.h"

namespace fabemu {
namespace {

using test::Mbuf;
using test::ref_crc_x25;

// ---------------------------------------------------------------- YARC

uint32_t phit_word(const uint8_t* p, uint32_t i) {
  return (uint32_t{p[3 * i]} << 16) | (uint32_t{p[3 * i + 1]} << 8) | p[3 * i + 2];
}

TEST(YarcPhitTest, FormatNumbers) {
  const PacketFormat f = yarc_format(6, 19);
  EXPECT_EQ(f.tail_units, 1u);
  EXPECT_EQ(f.payload_bits_per_unit, 22u);
  EXPECT_EQ(f.min_units, 4u);
  EXPECT_EQ(f.units_for(32), 19u);  // 32-byte cache-line write
  EXPECT_EQ(f.max_payload_bytes(), 33u);
  const PacketFormat g = yarc_format(1, 19);
  EXPECT_EQ(g.units_for(4), 4u);  // minimum packet: 32 payload bits
  EXPECT_EQ(g.units_for(0), 4u);
  EXPECT_EQ(yarc_phits_for(false, 0, 4), 4u);
  EXPECT_EQ(yarc_phits_for(true, 4, 32), 19u);
  EXPECT_EQ(yarc_phits_for(false, 0, 0), 4u);
  EXPECT_EQ(yarc_phits_for(false, 8, 0), 0u);
}

TEST(YarcPhitTest, MinimumPacketIsFourPhitsOf32Bits) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  YarcHead h;
  h.dest = 0x1234;
  const uint8_t payload[4] = {0xDE, 0xAD, 0xBE, 0xEF};
  ASSERT_EQ(yarc_encode(b.m, h, payload, 4, 0), 4);
  ASSERT_EQ(b.m->data_len, 12u);
  const uint8_t* p = b.bytes();
  EXPECT_EQ(phit_word(p, 0), 0x1234u << 7);  // head: dest, v=h=a=r=0, hlen 0
  // 0xDEADBEEF MSB first: 22 bits, then the last 10 bits left-aligned.
  EXPECT_EQ(phit_word(p, 1), 0xDEADBEEFu >> 10);
  EXPECT_EQ(phit_word(p, 2), (0xDEADBEEFu & 0x3FF) << 12);
  const uint32_t eop = phit_word(p, 3);
  EXPECT_EQ(eop >> 22, 0u);        // sideband
  EXPECT_EQ((eop >> 20) & 3, 0u);  // reserved
  EXPECT_EQ((eop >> 18) & 3, 1u);  // pad: 44 bits hold 5 bytes, 4 used
  EXPECT_EQ((eop >> 16) & 3, 0u);  // ok = healthy
  uint8_t crc_in[10];
  std::memcpy(crc_in, p, 9);
  crc_in[9] = p[9] & 0x3C;
  EXPECT_EQ(eop & 0xFFFF, ref_crc_x25(crc_in, 10));

  YarcDecoded d;
  ASSERT_TRUE(yarc_decode(b.m, d));
  EXPECT_TRUE(d.crc_ok);
  EXPECT_EQ(d.ok, YarcOk::healthy);
  EXPECT_EQ(d.phits, 4);
  EXPECT_EQ(d.payload_phits, 2);
  EXPECT_EQ(d.payload_bytes, 4);
  EXPECT_EQ(d.payload_bytes * 8, 32);
  EXPECT_EQ(d.head.dest, 0x1234);
  EXPECT_EQ(std::memcmp(d.payload, payload, 4), 0);
}

TEST(YarcPhitTest, CacheLineWriteIs19Phits) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  YarcHead h;
  h.dest = 77;
  h.h = true;
  h.hash = 0x5A5A & kYarcHashMask;
  for (uint32_t k = 0; k < 4; k++) h.xhdr[k] = 0x300000u | k;
  uint8_t line[32];
  for (int i = 0; i < 32; i++) line[i] = static_cast<uint8_t>(i * 7 + 1);
  ASSERT_EQ(yarc_encode(b.m, h, line, 32, 4), 19);
  EXPECT_EQ(b.m->data_len, 57u);
  const uint8_t* p = b.bytes();
  EXPECT_EQ(phit_word(p, 0), (77u << 7) | (1u << 5) | 4u);  // h set, hlen 4
  EXPECT_EQ(phit_word(p, 1), 0x5A5Au);                      // hash phit
  for (uint32_t k = 0; k < 4; k++) EXPECT_EQ(phit_word(p, 2 + k), 0x300000u | k);
  EXPECT_EQ((phit_word(p, 18) >> 18) & 3, 1u);  // 12 phits = 264 bits = 33 bytes, 1 unused

  YarcDecoded d;
  ASSERT_TRUE(yarc_decode(b.m, d));
  EXPECT_TRUE(d.crc_ok);
  EXPECT_EQ(d.phits, 19);
  EXPECT_EQ(1 + d.head.h + d.hlen, 6);  // 6 header phits
  EXPECT_EQ(d.payload_phits, 12);       // 12 data phits
  EXPECT_EQ(d.payload_bytes, 32);
  EXPECT_EQ(d.head.hash, 0x5A5A);
  EXPECT_EQ(std::memcmp(d.payload, line, 32), 0);
}

TEST(YarcPhitTest, HeadFieldBitPositions) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  auto head_word = [&](const YarcHead& h, uint32_t hlen) {
    b.reset();
    EXPECT_GT(yarc_encode(b.m, h, nullptr, 4, hlen), 0);
    return phit_word(b.bytes(), 0);
  };
  for (uint32_t k = 0; k < 15; k++) {
    YarcHead h;
    h.dest = static_cast<uint16_t>(1u << k);
    EXPECT_EQ(head_word(h, 0), 1u << (7 + k)) << "dest bit " << k;
  }
  YarcHead h;
  h.v = true;
  EXPECT_EQ(head_word(h, 0), 1u << 6);
  h = YarcHead{};
  h.h = true;
  EXPECT_EQ(head_word(h, 0), 1u << 5);
  h = YarcHead{};
  h.a = true;
  EXPECT_EQ(head_word(h, 0), 1u << 4);
  h = YarcHead{};
  h.r = true;
  EXPECT_EQ(head_word(h, 0), 1u << 3);
  h = YarcHead{};
  EXPECT_EQ(head_word(h, 7), 7u);  // hlen in [2:0]
  // All ones: dest 0x7FFF and v,h,a,r over 22 bits, bytes big-endian, sideband 0.
  h.dest = 0x7FFF;
  h.v = h.h = h.a = h.r = true;
  h.hash = 0x7FFF;
  EXPECT_EQ(head_word(h, 0), 0x3FFFF8u);
  EXPECT_EQ(b.bytes()[0], 0x3F);
  EXPECT_EQ(b.bytes()[1], 0xFF);
  EXPECT_EQ(b.bytes()[2], 0xF8);
  EXPECT_EQ(phit_word(b.bytes(), 1), 0x7FFFu);  // hash phit [14:0], [21:15] reserved
  YarcDecoded d;
  ASSERT_TRUE(yarc_decode(b.m, d));
  EXPECT_EQ(d.head.dest, 0x7FFF);
  EXPECT_TRUE(d.head.v && d.head.h && d.head.a && d.head.r);
  EXPECT_EQ(d.head.hash, 0x7FFF);
}

TEST(YarcPhitTest, RandomRoundTrip) {
  std::mt19937 rng(2024);
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  uint8_t payload[kYarcMaxPayloadBytes];
  for (int iter = 0; iter < 3000; iter++) {
    YarcHead h;
    h.dest = static_cast<uint16_t>(rng() & 0x7FFF);
    h.v = rng() & 1;
    h.h = rng() & 1;
    h.a = rng() & 1;
    h.r = rng() & 1;
    h.hash = static_cast<uint16_t>(rng() & 0x7FFF);
    const uint32_t x = rng() % 8;
    for (uint32_t k = 0; k < x; k++) h.xhdr[k] = rng() & kYarcDataMask;
    const uint32_t room = (kYarcMaxPhits - 2 - h.h - x) * 22 / 8;
    const uint32_t bytes = rng() % (room + 1);
    for (uint32_t i = 0; i < bytes; i++) payload[i] = static_cast<uint8_t>(rng());
    b.reset();
    const uint16_t n = yarc_encode(b.m, h, payload, bytes, x);
    ASSERT_EQ(n, yarc_phits_for(h.h, x, bytes)) << iter;
    ASSERT_GT(n, 0);
    ASSERT_EQ(b.m->data_len, 3u * n);
    YarcDecoded d;
    ASSERT_TRUE(yarc_decode(b.m, d)) << iter;
    EXPECT_TRUE(d.crc_ok);
    EXPECT_EQ(d.ok, YarcOk::healthy);
    EXPECT_EQ(d.phits, n);
    EXPECT_EQ(d.head.dest, h.dest);
    EXPECT_EQ(d.head.v, h.v);
    EXPECT_EQ(d.head.h, h.h);
    EXPECT_EQ(d.head.a, h.a);
    EXPECT_EQ(d.head.r, h.r);
    EXPECT_EQ(d.head.hash, h.h ? h.hash : 0);
    EXPECT_GE(d.hlen, x);  // more only when padded to 4 phits
    for (uint32_t k = 0; k < x; k++) EXPECT_EQ(d.head.xhdr[k], h.xhdr[k]);
    for (uint32_t k = x; k < d.hlen; k++) EXPECT_EQ(d.head.xhdr[k], 0u);
    ASSERT_EQ(d.payload_bytes, bytes);
    EXPECT_EQ(std::memcmp(d.payload, payload, bytes), 0) << iter;
    for (uint32_t i = 0; i < n; i++) EXPECT_EQ(yarc_get_sideband(b.m, i), 0);
  }
}

TEST(YarcPhitTest, FlippedBitIsCaughtByCrc) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  YarcHead h;
  h.dest = 300;
  h.h = true;
  h.hash = 0x1234;
  for (uint32_t k = 0; k < 4; k++) h.xhdr[k] = 0x2AAAAA >> k;
  uint8_t line[32];
  for (int i = 0; i < 32; i++) line[i] = static_cast<uint8_t>(0xA5 ^ i);
  ASSERT_EQ(yarc_encode(b.m, h, line, 32, 4), 19);
  uint8_t* p = b.bytes();
  const uint32_t len = b.m->data_len;
  int flips = 0;
  for (uint32_t byte = 0; byte < len; byte++) {
    for (int bit = 0; bit < 8; bit++) {
      const uint32_t phit = byte / 3;
      const bool sideband = byte % 3 == 0 && bit >= 6;
      const bool ok_field = phit == 18 && byte % 3 == 0 && bit < 2;
      p[byte] ^= static_cast<uint8_t>(1u << bit);
      YarcDecoded d;
      const bool parsed = yarc_decode(b.m, d);
      if (sideband || ok_field) {
        // Outside the CRC by design: the LCB rewrites them per link.
        EXPECT_TRUE(parsed && d.crc_ok) << byte << ":" << bit;
      } else {
        EXPECT_FALSE(parsed && d.crc_ok) << byte << ":" << bit;
        EXPECT_FALSE(d.crc_ok) << byte << ":" << bit;
        EXPECT_FALSE(yarc_crc_ok(b.m));
        flips++;
      }
      p[byte] ^= static_cast<uint8_t>(1u << bit);
    }
  }
  EXPECT_EQ(flips, 19 * 22 - 2);
  EXPECT_TRUE(yarc_crc_ok(b.m));
  // Every burst of two adjacent data bits within a phit is caught as well.
  for (uint32_t phit = 0; phit < 19; phit++) {
    for (uint32_t bit = 0; bit + 1 < 22; bit++) {
      if (phit == 18 && bit + 1 >= 16 && bit <= 17) continue;  // touches the ok field
      const uint32_t w = 3u << bit;
      uint8_t* q = p + 3 * phit;
      q[0] ^= static_cast<uint8_t>(w >> 16), q[1] ^= static_cast<uint8_t>(w >> 8),
          q[2] ^= static_cast<uint8_t>(w);
      EXPECT_FALSE(yarc_crc_ok(b.m)) << phit << ":" << bit;
      q[0] ^= static_cast<uint8_t>(w >> 16), q[1] ^= static_cast<uint8_t>(w >> 8),
          q[2] ^= static_cast<uint8_t>(w);
    }
  }
  EXPECT_TRUE(yarc_crc_ok(b.m));
}

TEST(YarcPhitTest, OkFieldAndSideband) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  YarcHead h;
  h.dest = 5;
  const uint8_t payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint16_t n = yarc_encode(b.m, h, payload, 8, 0);
  ASSERT_EQ(n, 5);
  EXPECT_EQ(yarc_get_ok(b.m), YarcOk::healthy);
  const uint16_t crc0 = static_cast<uint16_t>(yarc_phit_data(b.m, n - 1) & 0xFFFF);

  // Sideband bits are the LCB's: they change no data and no CRC.
  for (uint32_t i = 0; i < n; i++)
    ASSERT_TRUE(yarc_set_sideband(b.m, i, static_cast<uint8_t>(i & 3)));
  for (uint32_t i = 0; i < n; i++) EXPECT_EQ(yarc_get_sideband(b.m, i), i & 3);
  EXPECT_EQ(b.bytes()[3] >> 6, 1);
  EXPECT_TRUE(yarc_crc_ok(b.m));
  EXPECT_FALSE(yarc_set_sideband(b.m, n, 1));

  // A transmission error: bad CRC on arrival; the LCB marks it and reseals.
  b.bytes()[4] ^= 0x10;
  EXPECT_FALSE(yarc_crc_ok(b.m));
  ASSERT_TRUE(yarc_mark(b.m, YarcOk::transmit_error));
  EXPECT_TRUE(yarc_crc_ok(b.m));
  EXPECT_EQ(yarc_get_ok(b.m), YarcOk::transmit_error);
  EXPECT_EQ((yarc_phit_data(b.m, n - 1) >> 16) & 3, 1u);
  YarcDecoded d;
  ASSERT_TRUE(yarc_decode(b.m, d));
  EXPECT_TRUE(d.crc_ok);
  EXPECT_EQ(d.ok, YarcOk::transmit_error);

  // A soft error on intact contents keeps the CRC (ok is outside it).
  b.bytes()[4] ^= 0x10;
  ASSERT_TRUE(yarc_mark(b.m, YarcOk::soft_error));
  EXPECT_EQ(yarc_get_ok(b.m), YarcOk::soft_error);
  EXPECT_EQ(yarc_phit_data(b.m, n - 1) & 0xFFFF, crc0);
  EXPECT_TRUE(yarc_crc_ok(b.m));
  ASSERT_TRUE(yarc_mark(b.m, YarcOk::healthy));
  EXPECT_EQ(yarc_get_ok(b.m), YarcOk::healthy);
}

TEST(YarcPhitTest, RejectsWhatDoesNotFit) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  YarcHead h;
  h.dest = 0x8000;  // 16 bits
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, 4, 0), 0);
  h.dest = 1;
  h.h = true;
  h.hash = 0x8000;
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, 4, 0), 0);
  h.hash = 1;
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, 4, 8), 0);  // hlen is 3 bits
  h.xhdr[0] = 1u << 22;
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, 4, 1), 0);
  h.xhdr[0] = 0;
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, kYarcMaxPayloadBytes, 0),
            0);                  // 1 over kYarcMaxPhits with hash
  EXPECT_EQ(b.m->data_len, 0u);  // untouched
  h.h = false;
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, kYarcMaxPayloadBytes, 0), kYarcMaxPhits);
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, 4, 0), 0);  // not empty any more

  // Not enough tailroom: refused, nothing written.
  b.reset();
  b.m->data_off = static_cast<uint16_t>(b.m->buf_len - 20);
  EXPECT_EQ(yarc_encode(b.m, h, nullptr, 32, 4), 0);
  EXPECT_EQ(b.m->data_len, 0u);
}

TEST(YarcPhitTest, DecodeRejectsMalformed) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  YarcDecoded d;
  rte_pktmbuf_append(b.m, 9);  // 3 phits: under the minimum
  std::memset(b.bytes(), 0, 9);
  EXPECT_FALSE(yarc_decode(b.m, d));
  rte_pktmbuf_append(b.m, 4);  // 13 bytes: not whole phits
  EXPECT_FALSE(yarc_decode(b.m, d));
  EXPECT_FALSE(yarc_crc_ok(b.m));
  EXPECT_EQ(yarc_get_ok(b.m), YarcOk::reserved);

  // hlen larger than the packet, resealed so that only the structure is wrong.
  b.reset();
  YarcHead h;
  ASSERT_EQ(yarc_encode(b.m, h, nullptr, 4, 0), 4);
  b.bytes()[2] |= 0x07;
  ASSERT_TRUE(yarc_mark(b.m, YarcOk::healthy));
  EXPECT_FALSE(yarc_decode(b.m, d));
  EXPECT_TRUE(d.crc_ok);
}

}  // namespace
}  // namespace fabemu

namespace fabemu {
namespace {

// Spider's claims for its link-level protocol, the standard the issue sets
// for fabemu's link CRC: every single, double and odd-count bit error and
// every burst of up to 16 bits in a packet is detected. Checked on a
// 19-phit YARC packet over the bits the CRC covers, in wire order (the
// sideband and ok-field bits, rewritten per link, are outside it).
TEST(YarcPhitTest, CrcCatchesTheSpiderLlpErrorClasses) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  YarcHead h;
  h.dest = 1234;
  h.h = true;
  h.hash = 0x4321;
  uint8_t line[32];
  for (int i = 0; i < 32; i++) line[i] = static_cast<uint8_t>(0x3C ^ (i * 7));
  ASSERT_EQ(yarc_encode(b.m, h, line, 32, 4), 19);
  uint8_t* p = b.bytes();
  // Covered bits as (byte, mask), in the order they cross the wire.
  std::vector<std::pair<uint32_t, uint8_t>> bits;
  for (uint32_t phit = 0; phit < 19; phit++)
    for (int k = 21; k >= 0; k--) {
      if (phit == 18 && (k == 16 || k == 17)) continue;  // the ok field
      bits.emplace_back(3 * phit + 2 - uint32_t(k) / 8, static_cast<uint8_t>(1u << (k % 8)));
    }
  ASSERT_EQ(bits.size(), 416u);
  const auto flip = [&](size_t i) { p[bits[i].first] ^= bits[i].second; };
  ASSERT_TRUE(yarc_crc_ok(b.m));
  size_t missed = 0, tried = 0;
  for (size_t i = 0; i < bits.size(); i++) {  // every single and double error
    flip(i);
    missed += yarc_crc_ok(b.m), tried++;
    for (size_t j = i + 1; j < bits.size(); j++) {
      flip(j);
      missed += yarc_crc_ok(b.m), tried++;
      flip(j);
    }
    flip(i);
  }
  EXPECT_EQ(missed, 0u) << "of " << tried << " single and double errors";
  std::mt19937_64 rng(7);
  missed = 0;
  for (int t = 0; t < 20000; t++) {  // odd counts from 3 to 31
    const size_t n = 3 + 2 * (rng() % 15);
    std::vector<size_t> set;
    while (set.size() < n) {
      const size_t i = rng() % bits.size();
      if (std::find(set.begin(), set.end(), i) == set.end()) set.push_back(i);
    }
    for (size_t i : set) flip(i);
    missed += yarc_crc_ok(b.m);
    for (size_t i : set) flip(i);
  }
  EXPECT_EQ(missed, 0u) << "odd-count errors";
  missed = tried = 0;
  for (size_t len = 1; len <= 16; len++)  // bursts: first and last bit wrong, any between
    for (size_t start = 0; start + len <= bits.size(); start++) {
      const uint64_t patterns = len <= 2 ? 1 : uint64_t{1} << (len - 2);
      const uint64_t step = patterns > 256 ? patterns / 256 : 1;  // up to 256 of them each
      for (uint64_t inner = 0; inner < patterns; inner += step) {
        const uint64_t e = len == 1 ? 1 : (1ull | (inner << 1) | (1ull << (len - 1)));
        for (size_t k = 0; k < len; k++)
          if (e >> k & 1) flip(start + k);
        missed += yarc_crc_ok(b.m), tried++;
        for (size_t k = 0; k < len; k++)
          if (e >> k & 1) flip(start + k);
      }
    }
  EXPECT_EQ(missed, 0u) << "of " << tried << " bursts up to 16 bits";
  EXPECT_TRUE(yarc_crc_ok(b.m));
}

}  // namespace
}  // namespace fabemu
