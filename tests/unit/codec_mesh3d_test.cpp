// Bit-level tests of the 3D mesh's packets (dataplane/codec/mesh3d_packet.h;
// the petaflops 3D-mesh proposal, Figure 12): a known packet byte by byte,
// round trips of every field at its limits, the route and state as
// mesh3d_route.h reads them, what the CRC covers and what the complement
// guards, the transmit-error mark and the capture's refresh of the state.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/codec/codec_check.h"
#include "dataplane/codec/mesh3d_packet.h"
#include "dataplane/codec/mesh3d_route.h"
#include "dataplane/routing/mesh3d_header.h"
#include "tests/unit/codec_test_util.h"

namespace fabemu {
namespace {

using test::Mbuf;
using test::ref_crc_x25;

constexpr CodecKind kMesh = CodecKind::mesh3d;

// The CRC the check word must carry: the words before it, the state and
// its complement as 0, then the check word's bytes 2..9, low byte first.
uint16_t ref_crc(const uint8_t* p, uint32_t words) {
  std::vector<uint8_t> b(p, p + (words - 1) * 10);
  b[0] &= 0x80;
  b[10] &= 0x80;
  b.insert(b.end(), p + (words - 1) * 10 + 2, p + words * 10);
  return ref_crc_x25(b.data(), b.size());
}

// +X 5 hops, then -Z 16 hops.
MeshRoute two_segments() {
  MeshRoute r;
  EXPECT_TRUE(r.add(MeshDir::xp, 5));
  EXPECT_TRUE(r.add(MeshDir::zm, 16));
  return r;
}

// The endpoints' fields of a packet.
struct Ends {
  uint32_t src = 300, dst = 511, msg_seq = 0xAB123456;
  uint16_t seg = 2, nseg = 9;
  TrafficClass cls = TrafficClass::request;
};

PacketMeta meta_for(uint32_t payload_bytes, uint64_t route = Mesh3dHeader::of_route(two_segments()),
                    Ends e = {}) {
  PacketMeta pm{};
  pm.id = 77;
  pm.src = e.src;
  pm.dst = e.dst;
  pm.msg_seq = e.msg_seq;
  pm.seg = e.seg;
  pm.nseg = e.nseg;
  pm.cls = uint8_t(e.cls);
  pm.payload_bytes = static_cast<uint16_t>(payload_bytes);
  pm.units = static_cast<uint16_t>(codec_format(kMesh, 2, 32).units_for(payload_bytes));
  Mesh3dHeader::set_word(pm, route);
  return pm;
}

TEST(Mesh3dCodec, SelectedForProfileAndFamily) {
  EXPECT_EQ(codec_for("mesh3d", "mesh3d"), kMesh);
  EXPECT_EQ(codec_for("mesh3d", ""), kMesh);
  EXPECT_EQ(codec_for("custom", "mesh3d"), kMesh);
  EXPECT_EQ(codec_for("custom", "torus"), CodecKind::t3e);
  EXPECT_STREQ(codec_name(kMesh), "mesh3d");
  EXPECT_EQ(codec_info(kMesh).capture_profile, 4);
  EXPECT_EQ(codec_unit_bytes(kMesh), 10u);
  EXPECT_EQ(packet_checked_bits(kMesh, 5), 400u);  // every line of every word
  // Two header words and the check word whatever the spec asks; 32 words at most.
  const PacketFormat f = codec_format(kMesh, 6, 64);
  EXPECT_EQ(f.header_units, 2u);
  EXPECT_EQ(f.tail_units, 1u);
  EXPECT_EQ(f.max_units, 32u);
  EXPECT_EQ(codec_format(kMesh, 2, 8).max_units, 8u);
  EXPECT_EQ(f.max_payload_bytes(), 290u);
  EXPECT_EQ(f.units_for(0), 3u);
  EXPECT_EQ(f.units_for(1), 4u);
  EXPECT_EQ(f.units_for(10), 4u);
  EXPECT_EQ(f.units_for(11), 5u);
  EXPECT_EQ(f.units_for(290), 32u);
}

// Figure 12's first word and fabemu's layout, every byte of a known packet.
TEST(Mesh3dCodec, KnownPacketEveryByte) {
  const PacketMeta pm =
      meta_for(12, Mesh3dHeader::with_state(Mesh3dHeader::of_route(two_segments()), 1 | 3 << 3),
               {0xABCDE, 0x12345, 0x1234BEEF, 0x2A5, 0x3FF, TrafficClass::response});
  uint8_t payload[12];
  for (int i = 0; i < 12; i++) payload[i] = uint8_t(0xA0 + i);
  Mbuf b;
  ASSERT_EQ(encode_packet(kMesh, b.m, pm, payload), 5u);
  ASSERT_EQ(rte_pktmbuf_data_len(b.m), 50u);
  const uint8_t* p = b.bytes();
  // Word 0: state 0x19 (Route 1, HowFar 3) [0:6]; Dir0 +X [7:9], Dist0 4
  // [10:13]; Dir1 -Z [14:16], Dist1 15 [17:20]; Dir2..5 7 (end), Dist 0;
  // words - 1 = 4 [49:53], class 1 [54], payload bytes 12 [55:63], message
  // sequence 0xBEEF [64:79]. Line i is bit i % 8 of byte i / 8.
  const uint8_t word0[10] = {0x19, 0x50, 0xFF, 0x70, 0x38, 0x1C, 0x48, 0x06, 0xEF, 0xBE};
  // Word 1: complement 0x66 [0:6]; source [7:26], destination [27:46],
  // segment [47:56], segments [57:66], zero [67:79].
  const uint8_t word1[10] = {0x66, 0x6F, 0x5E, 0x2D, 0x1A, 0x89, 0x52, 0xFF, 0x07, 0x00};
  EXPECT_EQ(std::memcmp(p, word0, 10), 0);
  EXPECT_EQ(std::memcmp(p + 10, word1, 10), 0);
  EXPECT_EQ(std::memcmp(p + 20, payload, 12), 0);
  for (int i = 32; i < 40; i++) EXPECT_EQ(p[i], 0) << "pad " << i;
  const uint16_t crc = ref_crc(p, 5);
  EXPECT_EQ(p[40], crc & 0xFF);
  EXPECT_EQ(p[41], crc >> 8);
  for (int i = 42; i < 50; i++) EXPECT_EQ(p[i], 0) << "check word " << i;
  // The same through Word80, line by line.
  const Word80 w0 = mesh3d_load(p, 0), w1 = mesh3d_load(p, 1);
  EXPECT_EQ(w0.get(0, 7), 0x19u);
  EXPECT_EQ(w0.get(64, 16), 0xBEEFu);
  EXPECT_EQ(w1.get(7, 20), 0xABCDEu);
  EXPECT_EQ(w1.get(57, 10), 0x3FFu);
  uint8_t again[10];
  mesh3d_store(again, 0, w1);
  EXPECT_EQ(std::memcmp(again, word1, 10), 0);

  Mesh3dDecoded d;
  ASSERT_TRUE(mesh3d_decode(b.m, d));
  EXPECT_EQ(d.words, 5u);
  EXPECT_EQ(d.src, 0xABCDEu);
  EXPECT_EQ(d.dst, 0x12345u);
  EXPECT_EQ(d.seq16, 0xBEEFu);
  EXPECT_EQ(d.seg, 0x2A5u);
  EXPECT_EQ(d.nseg, 0x3FFu);
  EXPECT_EQ(d.cls, 1);
  EXPECT_EQ(d.payload_bytes, 12u);
  EXPECT_EQ(std::memcmp(d.payload, payload, 12), 0);
  EXPECT_TRUE(d.crc_ok);
  EXPECT_FALSE(d.transmit_error);
  EXPECT_TRUE(d.state_ok);
  EXPECT_EQ(d.state, (MeshRouteState{1, 3}));
  EXPECT_TRUE(decode_check(kMesh, b.m, pm));
}

// Every payload length, and the header fields at both ends of their ranges.
TEST(Mesh3dCodec, RoundTripEveryFieldAtItsLimits) {
  std::vector<uint8_t> payload(290);
  for (size_t i = 0; i < payload.size(); i++) payload[i] = uint8_t(i * 7 + 1);
  const PacketFormat f = codec_format(kMesh, 2, 32);
  for (uint32_t bytes = 0; bytes <= 290; bytes++) {
    for (int edge = 0; edge < 2; edge++) {
      const Ends top{(1u << 20) - 1, 0, 0xFFFFFFFFu, 1023, 1023, TrafficClass::response};
      const Ends bottom{0, (1u << 20) - 1, 0x10000u, 0, 1, TrafficClass::request};
      const PacketMeta pm =
          meta_for(bytes, Mesh3dHeader::of_route(two_segments()), edge ? top : bottom);
      Mbuf b;
      ASSERT_EQ(encode_packet(kMesh, b.m, pm, payload.data()), f.units_for(bytes)) << bytes;
      ASSERT_EQ(rte_pktmbuf_data_len(b.m), 10 * pm.units);
      EXPECT_TRUE(link_crc_ok(kMesh, b.m));
      EXPECT_TRUE(decode_check(kMesh, b.m, pm)) << bytes;
      Mesh3dDecoded d;
      ASSERT_TRUE(mesh3d_decode(b.m, d));
      EXPECT_EQ(d.src, pm.src);
      EXPECT_EQ(d.dst, pm.dst);
      EXPECT_EQ(d.seg, pm.seg);
      EXPECT_EQ(d.nseg, pm.nseg);
      EXPECT_EQ(d.seq16, pm.msg_seq & 0xFFFF);
      EXPECT_EQ(d.cls, edge);
      EXPECT_EQ(d.words, pm.units);
      uint8_t out[290];
      ASSERT_EQ(decode_payload(kMesh, b.m, out, sizeof out), int(bytes));
      EXPECT_EQ(std::memcmp(out, payload.data(), bytes), 0);
      if (bytes > 0) {
        EXPECT_EQ(decode_payload(kMesh, b.m, out, bytes - 1), -1) << "no room";
      }
      // Any header field that differs from the metadata fails the check.
      for (auto change :
           {+[](PacketMeta& m) { m.msg_seq ^= 1; }, +[](PacketMeta& m) { m.src ^= 1; },
            +[](PacketMeta& m) { m.dst ^= 1; }, +[](PacketMeta& m) { m.seg ^= 1; },
            +[](PacketMeta& m) { m.nseg ^= 1; }, +[](PacketMeta& m) { m.cls ^= 1; }}) {
        PacketMeta other = pm;
        change(other);
        EXPECT_FALSE(decode_check(kMesh, b.m, other));
      }
    }
  }
  // Synthetic traffic: no payload, zeros.
  Mbuf b;
  ASSERT_EQ(encode_packet(kMesh, b.m, meta_for(25), nullptr), 6u);
  for (int i = 20; i < 50; i++) EXPECT_EQ(b.bytes()[i], 0);
  EXPECT_TRUE(decode_check(kMesh, b.m, meta_for(25)));
}

TEST(Mesh3dCodec, FieldsThatDoNotFitAreRefused) {
  auto refused = [](void (*change)(PacketMeta&)) {
    PacketMeta pm = meta_for(40);
    change(pm);
    Mbuf b;
    const bool none = encode_packet(kMesh, b.m, pm, nullptr) == 0;
    return none && rte_pktmbuf_data_len(b.m) == 0;  // m untouched
  };
  EXPECT_TRUE(refused([](PacketMeta& m) { m.src = 1u << 20; }));
  EXPECT_TRUE(refused([](PacketMeta& m) { m.dst = 1u << 20; }));
  EXPECT_TRUE(refused([](PacketMeta& m) { m.seg = 1024; }));
  EXPECT_TRUE(refused([](PacketMeta& m) { m.nseg = 1024; }));
  // meta.units must be what the payload takes.
  EXPECT_TRUE(refused([](PacketMeta& m) { m.units++; }));
  EXPECT_TRUE(refused([](PacketMeta& m) { m.units--; }));
  EXPECT_TRUE(refused([](PacketMeta& m) { m.payload_bytes = 291, m.units = 33; }));
  EXPECT_TRUE(refused([](PacketMeta& m) { m.payload_bytes = 0, m.units = 2; }));
}

TEST(Mesh3dCodec, LengthsAtBothEnds) {
  Mbuf big, empty;
  ASSERT_EQ(encode_packet(kMesh, big.m, meta_for(290), nullptr), 32u);
  EXPECT_EQ(rte_pktmbuf_data_len(big.m), 320u);
  ASSERT_EQ(encode_packet(kMesh, empty.m, meta_for(0), nullptr), 3u);
  EXPECT_EQ(rte_pktmbuf_data_len(empty.m), 30u);
  Mesh3dDecoded d;
  ASSERT_TRUE(mesh3d_decode(empty.m, d));
  EXPECT_EQ(d.payload_bytes, 0u);
  // The engine's start-up check passes for messages cut into many packets.
  const CodecProblem pr =
      codec_check_messages(kMesh, codec_format(kMesh, 2, 32), 1u << 20, {0, 1, 290, 5000}, 64);
  EXPECT_EQ(pr.limit, CodecProblem::Limit::none) << pr.message;
}

// The route and state come back as mesh3d_route.h reads them from the
// bytes, for every state along every route.
TEST(Mesh3dCodec, RouteAndStateDecode) {
  std::mt19937 g(11);
  for (int k = 0; k < 2000; k++) {
    MeshRoute r;
    const uint32_t segs = g() % (kMeshSegments + 1);
    for (uint32_t i = 0; i < segs; i++)
      ASSERT_TRUE(r.add(static_cast<MeshDir>(g() % 6), 1 + g() % kMeshMaxSegmentHops));
    uint64_t w = Mesh3dHeader::of_route(r);
    for (;;) {
      const PacketMeta pm = meta_for(g() % 291, w);
      Mbuf b;
      ASSERT_EQ(encode_packet(kMesh, b.m, pm, nullptr), pm.units);
      Mesh3dDecoded d;
      ASSERT_TRUE(mesh3d_decode(b.m, d));
      ASSERT_EQ(d.route.segments, r.segments);
      for (uint32_t i = 0; i < r.segments; i++) {
        EXPECT_EQ(d.route.seg[i].dir, r.seg[i].dir);
        EXPECT_EQ(d.route.seg[i].hops, r.seg[i].hops);
      }
      const Word80 w0 = mesh3d_load(b.bytes(), 0), w1 = mesh3d_load(b.bytes(), 1);
      MeshRouteState s;
      EXPECT_TRUE(mesh_read_state(w0, w1, &s));
      EXPECT_EQ(d.state, s);
      EXPECT_EQ(mesh_state_bits(d.state), Mesh3dHeader::state(w));
      EXPECT_TRUE(d.state_ok);
      EXPECT_TRUE(decode_check(kMesh, b.m, pm));
      const Mesh3dStep step = mesh3d_step(w);
      if (step.kind != Mesh3dStep::hop) break;
      w = Mesh3dHeader::with_state(w, step.next);
    }
  }
}

// Any first word: the packet decodes exactly when mesh_decode_route reads
// its route, and to the same route.
TEST(Mesh3dCodec, RouteDecodeAgreesWithMeshDecodeRoute) {
  std::mt19937_64 g(5);
  for (int k = 0; k < 20000; k++) {
    const uint64_t w = Mesh3dHeader::with_state(g() & Mesh3dHeader::kRouteBits, 0);
    const PacketMeta pm = meta_for(0, w);
    Mbuf b;
    ASSERT_EQ(encode_packet(kMesh, b.m, pm, nullptr), 3u);
    MeshRoute want, got;
    const bool ok = mesh_decode_route(mesh3d_load(b.bytes(), 0), &want);
    Mesh3dDecoded d;
    ASSERT_EQ(mesh3d_decode(b.m, d), ok) << std::hex << w;
    if (!ok) continue;
    got = d.route;
    ASSERT_EQ(got.segments, want.segments);
    for (uint32_t i = 0; i < want.segments; i++) {
      EXPECT_EQ(got.seg[i].dir, want.seg[i].dir);
      EXPECT_EQ(got.seg[i].hops, want.seg[i].hops);
    }
  }
}

// The state and its complement are outside the CRC (a router rewrites
// them); the complement guards them. Every other line, the check word's
// included, is the CRC's.
TEST(Mesh3dCodec, WhatTheCrcAndTheComplementCatch) {
  const PacketMeta pm = meta_for(20);  // 5 words
  for (uint32_t bit = 0; bit < 5 * 80; bit++) {
    Mbuf b;
    ASSERT_EQ(encode_packet(kMesh, b.m, pm, nullptr), 5u);
    flip_checked_bit(kMesh, b.m, 5, bit);
    const uint32_t word = bit / 80, line = bit % 80;
    const bool state = (word == 0 || word == 1) && line < 7;
    Mesh3dDecoded d;
    if (state) {
      // The link's check refuses it all the same: the complement fails.
      EXPECT_FALSE(link_crc_ok(kMesh, b.m)) << bit;
      ASSERT_TRUE(mesh3d_decode(b.m, d));
      EXPECT_FALSE(d.state_ok) << bit;
      EXPECT_TRUE(d.crc_ok);
      EXPECT_FALSE(decode_check(kMesh, b.m, pm)) << bit;
      uint8_t out[32];
      EXPECT_EQ(decode_payload(kMesh, b.m, out, sizeof out), -1);
    } else {
      // Every other line, the check word's transmit-error bit and zero
      // lines included: a flipped mark is not taken for a real one.
      EXPECT_FALSE(link_crc_ok(kMesh, b.m)) << bit;
      EXPECT_FALSE(decode_check(kMesh, b.m, pm)) << bit;
      if (mesh3d_decode(b.m, d)) {
        EXPECT_FALSE(d.crc_ok) << bit;
      }
    }
  }
}

// A router that forwarded the packet before its CRC failed marks it; the
// CRC is made good so that later links take it, and its destination
// discards it.
TEST(Mesh3dCodec, TransmitErrorMark) {
  const PacketMeta pm = meta_for(100);
  Mbuf b;
  ASSERT_EQ(encode_packet(kMesh, b.m, pm, nullptr), 13u);
  flip_checked_bit(kMesh, b.m, 13, 5 * 80 + 33);
  EXPECT_FALSE(link_crc_ok(kMesh, b.m));
  mark_transmit_error(kMesh, b.m);
  EXPECT_TRUE(meta(b.m)->flags & kPktTransmitError);
  EXPECT_TRUE(link_crc_ok(kMesh, b.m));
  EXPECT_FALSE(decode_check(kMesh, b.m, pm));
  uint8_t out[290];
  EXPECT_EQ(decode_payload(kMesh, b.m, out, sizeof out), -1);
  Mesh3dDecoded d;
  ASSERT_TRUE(mesh3d_decode(b.m, d));
  EXPECT_TRUE(d.transmit_error);
  EXPECT_TRUE(d.crc_ok);
  EXPECT_EQ(b.bytes()[12 * 10 + 2], 0x01) << "bit 16 of the check word";
  // Sealing again keeps the mark.
  link_crc_seal(kMesh, b.m);
  ASSERT_TRUE(mesh3d_decode(b.m, d));
  EXPECT_TRUE(d.transmit_error);
  EXPECT_TRUE(d.crc_ok);
}

TEST(Mesh3dCodec, DecodeRefusesWhatTheLayoutForbids) {
  const PacketMeta pm = meta_for(10);  // 4 words
  auto decodes = [&](void (*damage)(uint8_t*)) {
    Mbuf b;
    EXPECT_EQ(encode_packet(kMesh, b.m, pm, nullptr), 4u);
    damage(b.bytes());
    mesh3d_seal(b.m);
    Mesh3dDecoded d;
    return mesh3d_decode(b.m, d);
  };
  EXPECT_TRUE(decodes([](uint8_t*) {}));
  EXPECT_FALSE(decodes([](uint8_t* p) { p[19] |= 0x80; })) << "word 1 line 79";
  EXPECT_FALSE(decodes([](uint8_t* p) { p[18] |= 0x08; })) << "word 1 line 67";
  EXPECT_FALSE(decodes([](uint8_t* p) { p[32] |= 0x02; })) << "check word line 17";
  EXPECT_FALSE(decodes([](uint8_t* p) { p[6] ^= 0x02; })) << "words field";
  EXPECT_FALSE(decodes([](uint8_t* p) { p[7] ^= 0x80; })) << "payload bytes field";
  EXPECT_FALSE(decodes([](uint8_t* p) { p[0] |= 0x80, p[1] |= 0x03; })) << "Dir0 = 7, Dir1 used";
  Mbuf b;
  ASSERT_EQ(encode_packet(kMesh, b.m, pm, nullptr), 4u);
  ASSERT_NE(rte_pktmbuf_trim(b.m, 1), -1);
  Mesh3dDecoded d;
  EXPECT_FALSE(mesh3d_decode(b.m, d)) << "not whole words";
  EXPECT_FALSE(link_crc_ok(kMesh, b.m));
}

// The capture shows the state (and complement) the packet carries on the
// captured link; the rest of the copy, CRC included, is as encoded.
TEST(Mesh3dCodec, CaptureRefreshesTheState) {
  PacketMeta pm = meta_for(10);
  Mbuf b;
  ASSERT_EQ(encode_packet(kMesh, b.m, pm, nullptr), 4u);
  const std::vector<uint8_t> orig(b.bytes(), b.bytes() + 40);
  std::vector<uint8_t> copy(orig);
  uint64_t w = Mesh3dHeader::with_state(Mesh3dHeader::word(pm), 1 | 2 << 3);
  Mesh3dHeader::set_word(pm, w);
  refresh_capture(kMesh, copy.data(), 40, pm, 0, 0);
  EXPECT_EQ(copy[0], (orig[0] & 0x80) | 0x11);
  EXPECT_EQ(copy[10], (orig[10] & 0x80) | 0x6E);
  for (size_t i = 0; i < copy.size(); i++)
    if (i != 0 && i != 10) {
      EXPECT_EQ(copy[i], orig[i]) << i;
    }
  EXPECT_EQ(copy[30] | copy[31] << 8, ref_crc(copy.data(), 4)) << "still good";
  // A router's bad complement shows as it is.
  Mesh3dHeader::set_word(pm, w ^ (uint64_t{1} << Mesh3dHeader::kComplementShift));
  refresh_capture(kMesh, copy.data(), 40, pm, 0, 0);
  EXPECT_EQ(copy[10], (orig[10] & 0x80) | 0x6F);
  // Cut by the snapshot length: only what is there.
  std::vector<uint8_t> cut(orig.begin(), orig.begin() + 11);
  cut.push_back(0xEE);  // past len
  refresh_capture(kMesh, cut.data(), 10, pm, 0, 0);
  EXPECT_EQ(cut[0], (orig[0] & 0x80) | 0x11);
  EXPECT_EQ(cut[10], orig[10]);
  refresh_capture(kMesh, cut.data(), 0, pm, 0, 0);
  EXPECT_EQ(cut[11], 0xEE);
}

}  // namespace
}  // namespace fabemu
