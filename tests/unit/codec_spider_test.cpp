// Bit-level tests of the SGI Spider micropackets
// (dataplane/codec/spider_micropacket.h; Galles, IEEE Micro 1997, Figures
// 2-4): every byte of a known message against a hand-written expectation,
// the sideband rows of Figure 3, round trips for 1..16 micropackets, the
// stomp code, and the capture's refresh of the per-hop fields.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/codec/crc16.h"
#include "dataplane/codec/spider_micropacket.h"
#include "dataplane/routing/spider_header.h"
#include "tests/unit/codec_test_util.h"

namespace fabemu {
namespace {

using test::Mbuf;
using test::ref_crc_x25;

// The micropacket's CRC as the reference computes it, low byte first.
void expect_crc(const uint8_t* mp, uint16_t xor_with = 0) {
  const uint16_t crc = static_cast<uint16_t>(ref_crc_x25(mp, 18) ^ xor_with);
  EXPECT_EQ(mp[18], crc & 0xFF);
  EXPECT_EQ(mp[19], crc >> 8);
}

TEST(SpiderCodecTest, SelectedForProfileSpider) {
  EXPECT_EQ(codec_for("spider", "hypercube"), CodecKind::spider);
  EXPECT_EQ(codec_for("spider", "fat_hypercube"), CodecKind::spider);
  EXPECT_EQ(codec_for("custom", "hypercube"), CodecKind::yarc);
  EXPECT_STREQ(codec_name(CodecKind::spider), "spider");
  // 128 data + 8 sideband + 8 LLP sequence/acknowledge + 16 CRC = 160 bits.
  EXPECT_EQ(codec_unit_bytes(CodecKind::spider), 20u);
  EXPECT_EQ(packet_checked_bits(CodecKind::spider, 3), 480u);
  const PacketFormat f = codec_format(CodecKind::spider, 1, 16);
  EXPECT_EQ(f.max_payload_bytes(), 240u);
  EXPECT_EQ(f.units_for(0), 1u);
  EXPECT_EQ(f.units_for(64), 5u);
  EXPECT_EQ(f.units_for(240), 16u);
  // CCITT's polynomial, the HDLC frame check sequence (CRC-16/X-25).
  EXPECT_EQ(crc16_ccitt("123456789", 9), 0x906E);
}

// Figure 3, row by row.
TEST(SpiderCodecTest, Figure3SidebandRows) {
  auto byte = [](SpiderSbRow row, bool er, bool tail, int vch, int vcr, int cr) {
    SpiderSideband s;
    s.row = row, s.error = er, s.tail = tail;
    s.vch = uint8_t(vch), s.vcr = uint8_t(vcr), s.credit = uint8_t(cr);
    return spider_sideband_byte(s);
  };
  using R = SpiderSbRow;
  // Credit, no error: 0 T Vcr1 Vcr0 Cr1 Cr0 Vch1 Vch0.
  EXPECT_EQ(byte(R::credit, false, false, 1, 3, 2), 0b00111001);
  EXPECT_EQ(byte(R::credit, false, true, 1, 3, 2), 0b01111001);
  // Credit, error: 1 0 T Vcr1 Vcr0 Cr0 Vch1 Vch0.
  EXPECT_EQ(byte(R::credit, true, false, 3, 2, 1), 0b10010111);
  EXPECT_EQ(byte(R::credit, true, true, 3, 2, 1), 0b10110111);
  // No credit: 1 1 0 Er T R Vch1 Vch0.
  EXPECT_EQ(byte(R::no_credit, false, false, 1, 0, 0), 0b11000001);
  EXPECT_EQ(byte(R::no_credit, false, true, 1, 0, 0), 0b11001001);
  EXPECT_EQ(byte(R::no_credit, true, false, 1, 0, 0), 0b11010001);
  EXPECT_EQ(byte(R::no_credit, true, true, 1, 0, 0), 0b11011001);
  // Credit only: 1 1 1 Vcr1 Vcr0 Cr2 Cr1 Cr0.
  EXPECT_EQ(byte(R::credit_only, false, false, 0, 1, 5), 0b11101101);

  const SpiderSideband s = spider_sideband(0b10110111);
  EXPECT_EQ(s.row, R::credit);
  EXPECT_TRUE(s.error);
  EXPECT_TRUE(s.tail);
  EXPECT_EQ(s.vcr, 2);
  EXPECT_EQ(s.credit, 1);
  EXPECT_EQ(s.vch, 3);
  // Every byte is one row's, and reads back as itself.
  for (int b = 0; b < 256; b++)
    EXPECT_EQ(spider_sideband_byte(spider_sideband(uint8_t(b))), b) << b;
}

// Figure 4 and the LLP fields: a 20-byte message, 3 micropackets, every byte.
TEST(SpiderCodecTest, KnownMessageEveryBit) {
  SpiderHead h;
  h.dst = 0x1A5;
  h.direction = 9;
  h.age = 0x3C;
  h.cc = 1;
  h.src = 0xF3;
  h.msg_seq = 0x123456;
  h.seg = 5;
  h.nseg = 7;
  h.response = true;
  uint8_t payload[20];
  for (int i = 0; i < 20; i++) payload[i] = uint8_t(i);
  Mbuf b;
  ASSERT_EQ(spider_encode(b.m, h, payload, 20, 2), 3u);
  ASSERT_EQ(rte_pktmbuf_data_len(b.m), 60u);
  const uint8_t* p = b.bytes();
  // [127:104] msg_seq 0x123456, [103:95] src 0_1111_0011, [94:85] seg
  // 00_0000_0101, [84:75] nseg 00_0000_0111, [74] class 1, [73] vector 0,
  // [72:65] bytes 0001_0100, [64:23] 0, [22:14] dest 1_1010_0101, [13:10]
  // direction 1001, [9:2] age 0011_1100, [1:0] CC 01.
  const uint8_t header[16] = {0x12, 0x34, 0x56, 0x79, 0x80, 0xA0, 0x3C, 0x28,
                              0x00, 0x00, 0x00, 0x00, 0x00, 0x69, 0x64, 0xF1};
  EXPECT_EQ(std::memcmp(p, header, 16), 0);
  EXPECT_EQ(p[16], 0b11000010);  // no credit, Er 0, tail 0, R 0, Vch 2
  EXPECT_EQ(p[17], 0x00);        // sequence 0, acknowledge 0
  expect_crc(p);
  for (int i = 0; i < 16; i++) EXPECT_EQ(p[20 + i], i);
  EXPECT_EQ(p[36], 0b11000010);
  EXPECT_EQ(p[37], 0x10);  // sequence 1
  expect_crc(p + 20);
  for (int i = 0; i < 16; i++) EXPECT_EQ(p[40 + i], i < 4 ? 16 + i : 0);
  EXPECT_EQ(p[56], 0b11001010);  // tail on the last
  EXPECT_EQ(p[57], 0x20);
  expect_crc(p + 40);

  SpiderDecoded d;
  ASSERT_TRUE(spider_decode(b.m, d));
  EXPECT_TRUE(d.intact);
  EXPECT_FALSE(d.stomped);
  EXPECT_EQ(d.head.dst, 0x1A5);
  EXPECT_EQ(d.head.direction, 9);
  EXPECT_EQ(d.head.age, 0x3C);
  EXPECT_EQ(d.head.cc, 1);
  EXPECT_EQ(d.head.src, 0xF3);
  EXPECT_EQ(d.head.msg_seq, 0x123456u);
  EXPECT_EQ(d.head.seg, 5);
  EXPECT_EQ(d.head.nseg, 7);
  EXPECT_TRUE(d.head.response);
  EXPECT_EQ(d.vc, 2);
  EXPECT_EQ(d.payload_bytes, 20);
  EXPECT_EQ(std::memcmp(d.payload, payload, 20), 0);
}

TEST(SpiderCodecTest, FieldsAtTheirPositions) {
  // One field at a time, all ones: exactly its bits of the 128-bit word.
  struct Case {
    void (*set)(SpiderHead&);
    uint32_t lsb, bits;
  } cases[] = {
      {[](SpiderHead& h) { h.dst = 0x1FF; }, 14, 9},
      {[](SpiderHead& h) { h.direction = 0xF; }, 10, 4},
      {[](SpiderHead& h) { h.age = 0xFF; }, 2, 8},
      {[](SpiderHead& h) { h.cc = 3; }, 0, 2},
      {[](SpiderHead& h) { h.src = 0x1FF; }, 95, 9},
      {[](SpiderHead& h) { h.msg_seq = 0xFFFFFF; }, 104, 24},
      {[](SpiderHead& h) { h.seg = 0x3FF; }, 85, 10},
      {[](SpiderHead& h) { h.nseg = 0x3FF; }, 75, 10},
      {[](SpiderHead& h) { h.response = true; }, 74, 1},
      {[](SpiderHead& h) { h.vector = true; }, 73, 1},
      {[](SpiderHead& h) { h.vector_route = 0xFFFFFFFFFFull; }, 25, 40},
  };
  for (const Case& c : cases) {
    SpiderHead h;
    c.set(h);
    Mbuf b;
    ASSERT_EQ(spider_encode(b.m, h, nullptr, 0, 0), 1u);
    const uint8_t* p = b.bytes();
    for (uint32_t bit = 0; bit < 128; bit++) {
      const bool set = (p[15 - bit / 8] >> (bit % 8)) & 1;
      EXPECT_EQ(set, bit >= c.lsb && bit < c.lsb + c.bits) << "bit " << bit << " lsb " << c.lsb;
    }
    EXPECT_EQ(p[16], 0b11001000);  // a one-micropacket message: tail on its header
  }
}

PacketMeta meta_for(uint32_t payload_bytes) {
  PacketMeta pm{};
  pm.id = 77;
  pm.src = 300;
  pm.dst = 511;
  pm.msg_seq = 0xAB123456;
  pm.seg = 2;
  pm.nseg = 9;
  pm.cls = uint8_t(TrafficClass::request);
  pm.vc = 3;
  pm.payload_bytes = static_cast<uint16_t>(payload_bytes);
  pm.units = static_cast<uint16_t>(spider_micropackets_for(payload_bytes));
  SpiderHeader::set_direction(pm, 5);
  SpiderHeader::set_age(pm, 17);
  SpiderHeader::set_cc(pm, kSpiderCcAdapt);
  return pm;
}

TEST(SpiderCodecTest, RoundTripEverySize) {
  std::vector<uint8_t> payload(240);
  for (size_t i = 0; i < payload.size(); i++) payload[i] = uint8_t(i * 7 + 1);
  for (uint32_t n = 1; n <= 16; n++) {
    // Full data micropackets, and the last one part full.
    for (uint32_t bytes : {(n - 1) * 16, n > 1 ? (n - 1) * 16 - 9 : 0u}) {
      const PacketMeta pm = meta_for(bytes);
      ASSERT_EQ(pm.units, n);
      Mbuf b;
      ASSERT_EQ(encode_packet(CodecKind::spider, b.m, pm, payload.data()), n) << bytes;
      EXPECT_EQ(rte_pktmbuf_data_len(b.m), 20 * n);
      EXPECT_TRUE(decode_check(CodecKind::spider, b.m, pm)) << bytes;
      EXPECT_TRUE(link_crc_ok(CodecKind::spider, b.m));
      uint8_t out[240];
      ASSERT_EQ(decode_payload(CodecKind::spider, b.m, out, sizeof out), int(bytes));
      EXPECT_EQ(std::memcmp(out, payload.data(), bytes), 0);
      // The tail bit on the last micropacket only; sequence numbers 0..n-1.
      for (uint32_t i = 0; i < n; i++) {
        EXPECT_EQ(spider_sideband(b.bytes()[20 * i + 16]).tail, i == n - 1);
        EXPECT_EQ(b.bytes()[20 * i + 17], (i << 4) & 0xF0);
      }
      PacketMeta other = pm;
      other.msg_seq++;
      EXPECT_FALSE(decode_check(CodecKind::spider, b.m, other));
    }
  }
  // 241 bytes need a 17th micropacket; 512 is past the 9-bit destination.
  PacketMeta pm = meta_for(240);
  pm.payload_bytes = 241;
  Mbuf b;
  EXPECT_EQ(encode_packet(CodecKind::spider, b.m, pm, nullptr), 0u);
  pm = meta_for(16);
  pm.dst = 512;
  EXPECT_EQ(encode_packet(CodecKind::spider, b.m, pm, nullptr), 0u);
  EXPECT_EQ(rte_pktmbuf_data_len(b.m), 0u);
}

// "In the event that the chip has already routed the bad micropacket, the
// LLP appends a stomp code to the CRC on the outgoing micropacket."
TEST(SpiderCodecTest, StompCodeIsRecognised) {
  const PacketMeta pm = meta_for(40);
  Mbuf b;
  ASSERT_EQ(encode_packet(CodecKind::spider, b.m, pm, nullptr), 4u);
  flip_checked_bit(CodecKind::spider, b.m, 4, 2 * 160 + 77);  // micropacket 2
  EXPECT_FALSE(link_crc_ok(CodecKind::spider, b.m));
  EXPECT_EQ(spider_mp_crc(b.bytes() + 40), SpiderCrc::bad);
  mark_transmit_error(CodecKind::spider, b.m);
  EXPECT_TRUE(meta(b.m)->flags & kPktTransmitError);
  // Only the bad micropacket carries the stomp: its CRC complemented.
  EXPECT_EQ(spider_mp_crc(b.bytes()), SpiderCrc::good);
  EXPECT_EQ(spider_mp_crc(b.bytes() + 20), SpiderCrc::good);
  EXPECT_EQ(spider_mp_crc(b.bytes() + 40), SpiderCrc::stomped);
  expect_crc(b.bytes() + 40, kSpiderStomp);
  EXPECT_EQ(spider_mp_crc(b.bytes() + 60), SpiderCrc::good);
  // The next link takes it; its destination does not.
  EXPECT_TRUE(link_crc_ok(CodecKind::spider, b.m));
  EXPECT_FALSE(decode_check(CodecKind::spider, b.m, pm));
  uint8_t out[240];
  EXPECT_EQ(decode_payload(CodecKind::spider, b.m, out, sizeof out), -1);
  SpiderDecoded d;
  ASSERT_TRUE(spider_decode(b.m, d));
  EXPECT_TRUE(d.stomped);
  EXPECT_FALSE(d.intact);
  // A stomped micropacket damaged again is bad, not stomped.
  flip_checked_bit(CodecKind::spider, b.m, 4, 2 * 160 + 3);
  EXPECT_EQ(spider_mp_crc(b.bytes() + 40), SpiderCrc::bad);
  EXPECT_FALSE(link_crc_ok(CodecKind::spider, b.m));
}

// The capture shows the direction and age the header has on the link
// where it is captured, the VC tag there and the link's sequence numbers.
TEST(SpiderCodecTest, CaptureRefreshesPerHopFields) {
  PacketMeta pm = meta_for(20);
  Mbuf b;
  ASSERT_EQ(encode_packet(CodecKind::spider, b.m, pm, nullptr), 3u);
  std::vector<uint8_t> copy(b.bytes(), b.bytes() + 60);
  SpiderHeader::set_direction(pm, 0xC);
  SpiderHeader::set_age(pm, 239);
  refresh_capture(CodecKind::spider, copy.data(), 60, pm, 1, 14);
  // direction 1100 in [13:10], age 1110_1111 in [9:2], CC 01.
  EXPECT_EQ(copy[14] & 0x3F, 0b110011);
  EXPECT_EQ(copy[15], 0b10111101);
  EXPECT_EQ(std::memcmp(copy.data(), b.bytes(), 14), 0);  // the rest unchanged
  EXPECT_EQ(copy[17], 0xE0);                              // sequence 14, 15, 0
  EXPECT_EQ(copy[37], 0xF0);
  EXPECT_EQ(copy[57], 0x00);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(spider_sideband(copy[20 * i + 16]).vch, 1);
    expect_crc(copy.data() + 20 * i);
  }
  // A bad micropacket stays bad, a stomped one stomped.
  copy[21] ^= 0x10;
  spider_mp_seal(copy.data() + 40, true);
  refresh_capture(CodecKind::spider, copy.data(), 60, pm, 2, 0);
  EXPECT_EQ(spider_mp_crc(copy.data()), SpiderCrc::good);
  EXPECT_EQ(spider_mp_crc(copy.data() + 20), SpiderCrc::bad);
  EXPECT_EQ(spider_mp_crc(copy.data() + 40), SpiderCrc::stomped);
  // Other codecs leave the copy alone.
  std::vector<uint8_t> other(copy);
  refresh_capture(CodecKind::t3e, other.data(), 60, pm, 2, 0);
  EXPECT_EQ(other, copy);
}

}  // namespace
}  // namespace fabemu
