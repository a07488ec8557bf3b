// Bit-level tests of the packet codecs: CRC-16, YARC phits, T3E flits and
// the engine-facing dispatch in codec.h.
#include "dataplane/codec/codec.h"

#include <gtest/gtest.h>
#include <rte_lcore.h>
#include <rte_net_crc.h>

#include <cstring>
#include <random>
#include <vector>

#include "dataplane/codec/crc16.h"
#include "dataplane/codec/t3e_flit.h"
#include "dataplane/codec/yarc_phit.h"
#include "tests/unit/eal_fixture.h"

namespace fabemu {
namespace {

// Bit-serial CRC-16/X-25: reflected 0x1021, init 0xFFFF, xorout 0xFFFF.
uint16_t ref_crc_x25(const uint8_t* d, size_t n) {
  uint16_t crc = 0xFFFF;
  for (size_t i = 0; i < n; i++) {
    crc ^= d[i];
    for (int b = 0; b < 8; b++)
      crc = (crc & 1) ? static_cast<uint16_t>((crc >> 1) ^ 0x8408) : crc >> 1;
  }
  return static_cast<uint16_t>(~crc);
}

// An mbuf freed at scope exit.
struct Mbuf {
  rte_mbuf* m = test_mbuf();
  ~Mbuf() {
    if (m != nullptr) rte_pktmbuf_free(m);
  }
  const uint8_t* bytes() const { return rte_pktmbuf_mtod(m, const uint8_t*); }
  uint8_t* bytes() { return rte_pktmbuf_mtod(m, uint8_t*); }
  void reset() { rte_pktmbuf_reset(m); }
};

// ---------------------------------------------------------------- CRC

TEST(CrcTest, CheckValueIsX25) {
  // Runs with or without EAL: rte_net_crc's tables come from a library
  // constructor. (Run alone, e.g. by ctest, this test has no EAL at all.)
  const auto* s = reinterpret_cast<const uint8_t*>("123456789");
  EXPECT_EQ(crc16_ccitt(s, 9), kCrc16CheckValue);
  EXPECT_EQ(crc16_ccitt(s, 9), 0x906E);
  EXPECT_NE(crc16_ccitt(s, 9), 0x2189);  // not the KERMIT variant
  EXPECT_EQ(crc16_ccitt(s, 0), 0x0000);
  EXPECT_EQ(rte_net_crc_calc(s, 9, RTE_NET_CRC16_CCITT), 0x906Eu);
}

TEST(CrcTest, MatchesBitSerialReference) {
  std::mt19937 rng(7);
  std::vector<uint8_t> buf(300);
  for (size_t len = 0; len <= buf.size(); len += (len < 40 ? 1 : 13)) {
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    EXPECT_EQ(crc16_ccitt(buf.data(), static_cast<uint32_t>(len)), ref_crc_x25(buf.data(), len))
        << len;
  }
}

TEST(CrcTest, SameAfterEalSelectsSimd) {
  ASSERT_TRUE(test_eal_init());
  crc16_init();  // now with EAL: SSE4.2/AVX-512 where the CPU has them
  std::mt19937 rng(11);
  std::vector<uint8_t> buf(257);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (uint32_t len : {1u, 15u, 16u, 17u, 57u, 64u, 257u})
    EXPECT_EQ(crc16_ccitt(buf.data(), len), ref_crc_x25(buf.data(), len)) << len;
  EXPECT_EQ(crc16_ccitt("123456789", 9), kCrc16CheckValue);
}

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

// ---------------------------------------------------------------- T3E

uint64_t flit_word(const uint8_t* p, uint32_t i) {
  uint64_t w = 0;
  for (int k = 1; k <= 8; k++) w = (w << 8) | p[9 * i + k];
  return w;
}

TEST(T3eFlitTest, Table3PacketLengths) {
  // Table 3: single-word Get 2/2, vector Get 2/10, single-word Put 4/2,
  // vector Put 10/2 (request/response flits).
  EXPECT_EQ(t3e_format(2, 10).units_for(0), 2u);    // Get request, vector Get request
  EXPECT_EQ(t3e_format(1, 10).units_for(8), 2u);    // single-word Get response
  EXPECT_EQ(t3e_format(2, 10).units_for(64), 10u);  // vector Get response, vector Put request
  EXPECT_EQ(t3e_format(3, 10).units_for(8), 4u);    // single-word Put request
  EXPECT_EQ(t3e_format(2, 10).units_for(0), 2u);    // Put responses
  EXPECT_EQ(t3e_format(2, 10).max_payload_bytes(), 64u);
  EXPECT_EQ(t3e_format(2, 10).tail_units, 0u);
  EXPECT_EQ(t3e_format(2, 10).payload_bits_per_unit, 64u);

  struct Case {
    T3eCmd cmd;
    bool response;
    uint32_t header, bytes, flits;
  } cases[] = {
      {T3eCmd::get, false, 2, 0, 2},    {T3eCmd::get_resp, true, 1, 8, 2},
      {T3eCmd::vget, false, 2, 0, 2},   {T3eCmd::vget_resp, true, 2, 64, 10},
      {T3eCmd::put, false, 3, 8, 4},    {T3eCmd::put_ack, true, 2, 0, 2},
      {T3eCmd::vput, false, 2, 64, 10}, {T3eCmd::put_ack, true, 2, 0, 2},
  };
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  uint8_t words[64];
  for (int i = 0; i < 64; i++) words[i] = static_cast<uint8_t>(i);
  for (const Case& c : cases) {
    b.reset();
    T3eHead h;
    h.cmd = c.cmd;
    h.response = c.response;
    h.dst = 100;
    h.src = 200;
    h.addr = 0x123456789ABCDEF0ull;
    ASSERT_EQ(t3e_encode(b.m, h, words, c.bytes, c.header), c.flits) << int(c.cmd);
    EXPECT_EQ(b.m->data_len, 9 * c.flits);
    T3eDecoded d;
    ASSERT_TRUE(t3e_decode(b.m, d));
    EXPECT_EQ(d.flits, c.flits);
    EXPECT_EQ(d.header_flits, c.header);
    EXPECT_EQ(d.head.cmd, c.cmd);
    EXPECT_EQ(d.head.response, c.response);
    EXPECT_EQ(d.head.addr, c.header > 2 ? h.addr : 0);
    EXPECT_EQ(std::memcmp(d.payload, words, c.bytes), 0);
  }
}

TEST(T3eFlitTest, FlitLayout) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  T3eHead h;
  h.dst = 0xBEEF;
  h.src = 0x1234;
  h.cmd = T3eCmd::put;
  h.response = false;
  h.route_tag = 0xCAFEF00D;
  h.msg_seq = 0xABCDEF;
  h.seg = 0x123;
  h.nseg = 0x456;
  h.addr = 0x0102030405060708ull;
  const uint8_t word[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
  ASSERT_EQ(t3e_encode(b.m, h, word, 5, 3), 4);
  const uint8_t* p = b.bytes();
  // Control bytes: bits 71..70 zero, head/tail/header/class.
  EXPECT_EQ(p[0], 0x20 | 0x08);  // head, header
  EXPECT_EQ(p[9], 0x08);         // header
  EXPECT_EQ(p[18], 0x08);        // header
  EXPECT_EQ(p[27], 0x10);        // tail, payload word
  EXPECT_EQ(flit_word(p, 0), (0xBEEFull << 48) | (uint64_t(T3eCmd::put) << 42) | (5ull << 35) |
                                 (3ull << 32) | 0xCAFEF00Dull);
  EXPECT_EQ(flit_word(p, 1), (0x1234ull << 48) | (0xABCDEFull << 24) | (0x123ull << 12) | 0x456ull);
  EXPECT_EQ(flit_word(p, 2), 0x0102030405060708ull);
  EXPECT_EQ(flit_word(p, 3), 0x1122334455000000ull);  // 5 bytes, zero-padded

  // A 1-flit response packet carries head and tail on the same flit.
  b.reset();
  h.response = true;
  ASSERT_EQ(t3e_encode(b.m, h, nullptr, 0, 1), 1);
  EXPECT_EQ(b.bytes()[0], 0x20 | 0x10 | 0x08 | 0x04);
  T3eDecoded d;
  ASSERT_TRUE(t3e_decode(b.m, d));
  EXPECT_EQ(d.head.src, 0);  // no header flit 1
  EXPECT_EQ(d.head.dst, 0xBEEF);
  EXPECT_EQ(d.head.route_tag, 0xCAFEF00Du);

  // Sideband bits: outside the packet's meaning.
  ASSERT_TRUE(t3e_set_sideband(b.m, 0, 3));
  EXPECT_EQ(t3e_get_sideband(b.m, 0), 3);
  ASSERT_TRUE(t3e_decode(b.m, d));
  EXPECT_FALSE(t3e_set_sideband(b.m, 1, 3));
}

TEST(T3eFlitTest, RandomRoundTrip) {
  std::mt19937 rng(99);
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  uint8_t payload[kT3eMaxPayloadBytes];
  for (int iter = 0; iter < 3000; iter++) {
    T3eHead h;
    h.dst = static_cast<uint16_t>(rng());
    h.src = static_cast<uint16_t>(rng());
    h.cmd = static_cast<T3eCmd>(rng() % 9);
    h.response = rng() & 1;
    h.route_tag = static_cast<uint32_t>(rng());
    h.msg_seq = rng() & 0xFFFFFF;
    h.seg = static_cast<uint16_t>(rng() & 0xFFF);
    h.nseg = static_cast<uint16_t>(rng() & 0xFFF);
    h.addr = (uint64_t{rng()} << 32) | rng();
    const uint32_t hdr = 1 + rng() % 7;
    const uint32_t bytes = rng() % ((kT3eMaxFlits - hdr) * 8 + 1);
    for (uint32_t i = 0; i < bytes; i++) payload[i] = static_cast<uint8_t>(rng());
    b.reset();
    const uint16_t n = t3e_encode(b.m, h, payload, bytes, hdr);
    ASSERT_EQ(n, hdr + (bytes + 7) / 8) << iter;
    T3eDecoded d;
    ASSERT_TRUE(t3e_decode(b.m, d)) << iter;
    EXPECT_EQ(d.flits, n);
    EXPECT_EQ(d.header_flits, hdr);
    EXPECT_EQ(d.head.dst, h.dst);
    EXPECT_EQ(d.head.cmd, h.cmd);
    EXPECT_EQ(d.head.response, h.response);
    EXPECT_EQ(d.head.route_tag, h.route_tag);
    if (hdr > 1) {
      EXPECT_EQ(d.head.src, h.src);
      EXPECT_EQ(d.head.msg_seq, h.msg_seq);
      EXPECT_EQ(d.head.seg, h.seg);
      EXPECT_EQ(d.head.nseg, h.nseg);
    }
    EXPECT_EQ(d.head.addr, hdr > 2 ? h.addr : 0);
    ASSERT_EQ(d.payload_bytes, bytes);
    EXPECT_EQ(std::memcmp(d.payload, payload, bytes), 0) << iter;
    for (uint32_t i = 0; i < n; i++) EXPECT_EQ(b.bytes()[9 * i] >> 6, 0) << "bits 71..70";
  }
}

TEST(T3eFlitTest, TenFlitMaximumEnforced) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  T3eHead h;
  EXPECT_EQ(t3e_flits_for(1, 72), 10u);
  EXPECT_EQ(t3e_flits_for(2, 72), 0u);
  EXPECT_EQ(t3e_flits_for(3, 64), 0u);
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 72, 2), 0);  // 11 flits
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 64, 3), 0);
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 1000, 1), 0);
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 0, 0), 0);  // no header flit
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 0, 8), 0);  // header count is 3 bits
  h.msg_seq = 1u << 24;
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 0, 2), 0);
  EXPECT_EQ(b.m->data_len, 0u);  // nothing written
  h.msg_seq = 0;
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 72, 1), 10);
  EXPECT_EQ(b.m->data_len, 90u);

  // Short of tailroom: refused without writing past the buffer.
  b.reset();
  b.m->data_off = static_cast<uint16_t>(b.m->buf_len - 20);
  EXPECT_EQ(t3e_encode(b.m, h, nullptr, 16, 2), 0);
  EXPECT_EQ(b.m->data_len, 0u);

  // Decode refuses 11 flits and broken control bits.
  b.reset();
  ASSERT_EQ(t3e_encode(b.m, h, nullptr, 72, 1), 10);
  T3eDecoded d;
  EXPECT_TRUE(t3e_decode(b.m, d));
  std::memset(rte_pktmbuf_append(b.m, 9), 0, 9);
  EXPECT_FALSE(t3e_decode(b.m, d));
  rte_pktmbuf_trim(b.m, 9);
  EXPECT_TRUE(t3e_decode(b.m, d));
  b.bytes()[9] |= 0x20;  // a second head flit
  EXPECT_FALSE(t3e_decode(b.m, d));
  b.bytes()[9] &= ~0x20;
  b.bytes()[0] |= 0x80;  // bit 71
  EXPECT_FALSE(t3e_decode(b.m, d));
  b.bytes()[0] &= ~0x80;
  rte_pktmbuf_trim(b.m, 1);
  EXPECT_FALSE(t3e_decode(b.m, d));  // not whole flits
}

// ---------------------------------------------------------------- codec.h

PacketMeta make_meta(const PacketFormat& f, uint32_t bytes, TrafficClass cls) {
  PacketMeta m{};
  m.id = (uint64_t{17} << 40) | 12345;
  m.src = 17;
  m.dst = 923;
  m.msg_seq = 4242;
  m.payload_bytes = static_cast<uint16_t>(bytes);
  m.units = static_cast<uint16_t>(f.units_for(bytes));
  m.seg = 2;
  m.nseg = 5;
  m.hash = 0x2ABC;
  m.cls = uint8_t(cls);
  m.flags = kPktMeasured;
  m.route[0] = 0xA1;
  m.route[1] = 0xB2;
  m.route[2] = 0xC3;
  m.route[3] = 0xD4;
  return m;
}

TEST(CodecTest, ProfileMapping) {
  EXPECT_EQ(codec_for_profile("yarc"), CodecKind::yarc);
  EXPECT_EQ(codec_for_profile("t3e"), CodecKind::t3e);
  EXPECT_EQ(codec_for_profile("flatfly"), CodecKind::yarc);
  EXPECT_EQ(codec_for_profile("custom"), CodecKind::yarc);
  EXPECT_STREQ(codec_name(CodecKind::t3e), "t3e");
  EXPECT_EQ(codec_format(CodecKind::yarc, 6, 19).units_for(32), 19u);
  EXPECT_EQ(codec_format(CodecKind::t3e, 2, 10).units_for(64), 10u);
}

TEST(CodecTest, YarcEncodeThenCheck) {
  const PacketFormat f = codec_format(CodecKind::yarc, 6, 19);
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  uint8_t payload[33];
  for (int i = 0; i < 33; i++) payload[i] = static_cast<uint8_t>(3 * i);
  for (uint32_t bytes : {0u, 1u, 4u, 17u, 32u, 33u}) {
    for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
      const PacketMeta meta = make_meta(f, bytes, cls);
      b.reset();
      ASSERT_EQ(encode_packet(CodecKind::yarc, b.m, meta, payload), meta.units) << bytes;
      EXPECT_TRUE(decode_check(CodecKind::yarc, b.m, meta)) << bytes;
      YarcDecoded d;
      ASSERT_TRUE(yarc_decode(b.m, d));
      const bool resp = cls == TrafficClass::response;
      EXPECT_EQ(d.head.dest, meta.dst);
      EXPECT_EQ(d.head.v, resp);
      EXPECT_EQ(d.head.h, !resp);  // requests hashed, responses adaptive
      EXPECT_EQ(d.head.a, resp);
      EXPECT_EQ(d.head.hash, resp ? 0 : 0x2ABC);
      EXPECT_EQ(d.hlen, resp ? 5 : 4);
      EXPECT_EQ(d.head.xhdr[0] >> 7, meta.src);
      EXPECT_EQ(d.head.xhdr[1], meta.msg_seq);
      EXPECT_EQ(std::memcmp(d.payload, payload, bytes), 0);

      PacketMeta other = meta;
      other.dst++;
      EXPECT_FALSE(decode_check(CodecKind::yarc, b.m, other));
      other = meta;
      other.msg_seq++;
      EXPECT_FALSE(decode_check(CodecKind::yarc, b.m, other));
      other = meta;
      other.cls ^= 1;
      EXPECT_FALSE(decode_check(CodecKind::yarc, b.m, other));
      other = meta;
      other.vc = 3;  // the VC changes per hop: not part of the check
      other.hops = 5;
      EXPECT_TRUE(decode_check(CodecKind::yarc, b.m, other));

      b.bytes()[7] ^= 0x04;  // a bit error in transit
      EXPECT_FALSE(decode_check(CodecKind::yarc, b.m, meta));
      ASSERT_TRUE(yarc_mark(b.m, YarcOk::transmit_error));
      EXPECT_FALSE(decode_check(CodecKind::yarc, b.m, meta));
    }
  }
}

TEST(CodecTest, YarcMinimumAndTooShort) {
  const PacketFormat f = codec_format(CodecKind::yarc, 1, 19);
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  PacketMeta meta = make_meta(f, 4, TrafficClass::request);
  ASSERT_EQ(meta.units, 4);
  ASSERT_EQ(encode_packet(CodecKind::yarc, b.m, meta, nullptr), 4);
  EXPECT_TRUE(decode_check(CodecKind::yarc, b.m, meta));
  YarcDecoded d;
  ASSERT_TRUE(yarc_decode(b.m, d));
  EXPECT_FALSE(d.head.h);  // no room for a hash phit
  EXPECT_EQ(d.hlen, 0);
  b.reset();
  meta.units = 3;  // cannot hold head + 2 payload + EOP
  EXPECT_EQ(encode_packet(CodecKind::yarc, b.m, meta, nullptr), 0);
  EXPECT_EQ(b.m->data_len, 0u);
  meta.units = 4;
  meta.dst = 1u << 15;  // past 32K endpoints
  EXPECT_EQ(encode_packet(CodecKind::yarc, b.m, meta, nullptr), 0);
}

TEST(CodecTest, T3eEncodeThenCheck) {
  Mbuf b;
  ASSERT_NE(b.m, nullptr);
  uint8_t payload[72];
  for (int i = 0; i < 72; i++) payload[i] = static_cast<uint8_t>(255 - i);
  for (uint32_t hdr : {1u, 2u, 3u}) {
    const PacketFormat f = codec_format(CodecKind::t3e, hdr, 10);
    for (uint32_t bytes : {0u, 8u, 13u, 64u}) {
      const PacketMeta meta =
          make_meta(f, bytes, bytes == 8 ? TrafficClass::response : TrafficClass::request);
      b.reset();
      if (meta.units > 10) {
        EXPECT_EQ(encode_packet(CodecKind::t3e, b.m, meta, payload), 0);
        continue;
      }
      ASSERT_EQ(encode_packet(CodecKind::t3e, b.m, meta, payload), meta.units);
      EXPECT_TRUE(decode_check(CodecKind::t3e, b.m, meta));
      T3eDecoded d;
      ASSERT_TRUE(t3e_decode(b.m, d));
      EXPECT_EQ(d.head.route_tag, 0xA1B2C3D4u);
      EXPECT_EQ(d.head.addr, hdr > 2 ? meta.id : 0);
      EXPECT_EQ(std::memcmp(d.payload, payload, bytes), 0);
      PacketMeta other = meta;
      other.route[0] = 0;  // route state moves per hop: not compared
      EXPECT_TRUE(decode_check(CodecKind::t3e, b.m, other));
      other.dst++;
      EXPECT_FALSE(decode_check(CodecKind::t3e, b.m, other));
      other = meta;
      other.payload_bytes++;
      EXPECT_FALSE(decode_check(CodecKind::t3e, b.m, other));
      if (hdr > 1) {
        other = meta;
        other.src++;
        EXPECT_FALSE(decode_check(CodecKind::t3e, b.m, other));
      }
    }
  }
}

}  // namespace
}  // namespace fabemu
