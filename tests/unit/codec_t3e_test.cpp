// Bit-level tests of the Cray T3E's flits (dataplane/codec/t3e_flit.h).
#include <gtest/gtest.h>
#include <rte_lcore.h>
#include <rte_net_crc.h>

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

}  // namespace
}  // namespace fabemu
