// Bit-level tests of the packet codecs: CRC-16 and the engine-facing
// dispatch in codec.h (codec_yarc_test.cpp, codec_t3e_test.cpp: the
// profiles' encodings).
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
#include "tests/unit/codec_test_util.h"

namespace fabemu {
namespace {

using test::Mbuf;
using test::ref_crc_x25;

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
  EXPECT_EQ(codec_for("yarc", "clos"), CodecKind::yarc);
  EXPECT_EQ(codec_for("t3e", "torus"), CodecKind::t3e);
  EXPECT_EQ(codec_for("flatfly", "flatfly"), CodecKind::yarc);
  EXPECT_EQ(codec_for("custom", "clos"), CodecKind::yarc);
}

// One rule: the profile's codec first, then (custom) the family's, then the
// fallback.
TEST(CodecTest, OneSelectionRule) {
  EXPECT_EQ(codec_for("custom", "torus"), CodecKind::t3e);
  EXPECT_EQ(codec_for("yarc", "torus"), CodecKind::yarc);
  EXPECT_EQ(codec_for("t3e", "clos"), CodecKind::t3e);
  EXPECT_EQ(codec_for("custom", "hypercube"), CodecKind::yarc);
  EXPECT_EQ(codec_for("", ""), CodecKind::yarc);
  EXPECT_EQ(codec_info(CodecKind::t3e).unit_bytes, kT3eFlitBytes);
  EXPECT_EQ(codec_info(CodecKind::yarc).unit_bytes, kYarcPhitBytes);
  EXPECT_EQ(codec_info(CodecKind::yarc).kind, CodecKind::yarc);
  EXPECT_EQ(codec_info(CodecKind::t3e).kind, CodecKind::t3e);
}

TEST(CodecTest, Names) {
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
