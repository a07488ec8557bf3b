// The go-back-N sender and receiver, bit errors, and the link CRC the
// receiver checks (dataplane/link/go_back_n.h, dataplane/codec/codec.h):
// the window, its acknowledgements and its resend order; bit errors at
// their rate; and Spider's claims for its LLP (IEEE Micro 1997, "Data link
// layer": the CCITT CRC with go-back-n "protects the link from all single,
// double, and odd number of bit errors, all burst errors up to 16 bits
// long") for the encodings that cross fabemu's links.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/core/rng.h"
#include "dataplane/link/go_back_n.h"
#include "tests/unit/codec_test_util.h"

namespace fabemu {
namespace {

TEST(GoBackN, WindowFillsAndAcknowledgementsFreeIt) {
  GoBackNSender tx;
  tx.init(4, 1000);
  for (uint32_t i = 0; i < 4; i++) EXPECT_EQ(tx.push(nullptr, 4, 0, 100 + 10 * i), LinkSeq(i));
  ps_t until = 0;
  EXPECT_TRUE(tx.full(50, &until));
  EXPECT_EQ(until, 100u) << "room again when the oldest acknowledgement is back";
  EXPECT_FALSE(tx.full(100, &until));
  EXPECT_EQ(tx.outstanding(), 3u);
  EXPECT_EQ(tx.push(nullptr, 4, 0, 200), LinkSeq(4));
}

TEST(GoBackN, TimeOutResendsTheWindowFromTheOldestUnacknowledged) {
  GoBackNSender tx;
  tx.init(8, 500);
  tx.push(nullptr, 4, 0, 100);  // 0: acknowledged at 100
  tx.push(nullptr, 4, 1, kNever);  // 1: damaged
  tx.expect_timeout(20);
  tx.push(nullptr, 4, 0, kNever);  // 2, 3: sent meanwhile, discarded by the far end
  tx.push(nullptr, 6, 1, kNever);
  EXPECT_TRUE(tx.recovering());
  EXPECT_EQ(tx.rewind_at(), 520u);
  tx.expect_timeout(40);  // a later damage does not move the time-out
  EXPECT_EQ(tx.rewind_at(), 520u);
  ASSERT_EQ(tx.go_back(520), 3u);
  EXPECT_FALSE(tx.recovering());
  EXPECT_EQ(tx.seq_of(0), LinkSeq(1));
  EXPECT_EQ(tx.entry(0).vc, 1);
  EXPECT_EQ(tx.seq_of(2), LinkSeq(3));
  EXPECT_EQ(tx.entry(2).units, 6);
}

// link.retry_limit: the oldest entry's time-outs in a row are counted; the
// sender gives it up (its units and VC handed back) and the receiver, told
// to skip its number, takes the resend of the next one.
TEST(GoBackN, TheOldestIsGivenUpAfterItsTimeOutsAndTheReceiverSkipsItsNumber) {
  GoBackNSender tx;
  tx.init(8, 500);
  GoBackNReceiver rx;
  tx.push(nullptr, 4, 0, 100);  // 0: taken, acknowledged at 100
  rx.took();
  tx.push(nullptr, 5, 1, kNever);  // 1: damaged
  tx.expect_timeout(20);
  tx.push(nullptr, 4, 0, kNever);  // 2: sent meanwhile, discarded by the receiver
  ASSERT_EQ(tx.go_back(520), 2u);
  EXPECT_EQ(tx.timeouts_of_oldest(), 1u);
  tx.expect_timeout(600);  // its resend is damaged again
  ASSERT_EQ(tx.go_back(1100), 2u);
  EXPECT_EQ(tx.timeouts_of_oldest(), 2u);
  uint32_t units = 0;
  uint8_t vc = 9;
  EXPECT_EQ(tx.give_up_oldest([&](uint32_t u, uint8_t v, rte_mbuf*) {
    units = u;
    vc = v;
  }),
            LinkSeq(1));
  EXPECT_EQ(units, 5u);
  EXPECT_EQ(vc, 1);
  ASSERT_EQ(tx.outstanding(), 1u);
  EXPECT_EQ(tx.seq_of(0), LinkSeq(2));
  ASSERT_TRUE(rx.in_sequence(1));
  rx.took();  // the skip
  EXPECT_TRUE(rx.in_sequence(tx.seq_of(0))) << "the resend of the next is taken";
  tx.expect_timeout(1200);
  ASSERT_EQ(tx.go_back(1700), 1u);
  EXPECT_EQ(tx.timeouts_of_oldest(), 1u) << "a new oldest counts from one";
}

TEST(GoBackN, SequenceNumbersWrapAtSixteenBits) {
  GoBackNSender tx;
  tx.init(2, 10);
  GoBackNReceiver rx;
  for (uint32_t i = 0; i < 70000; i++) {
    const LinkSeq s = tx.push(nullptr, 1, 0, i);
    ASSERT_TRUE(rx.in_sequence(s)) << i;
    rx.took();
    ps_t until;
    tx.full(i + 1, &until);
  }
  EXPECT_FALSE(rx.in_sequence(LinkSeq(rx.expected - 1))) << "a duplicate is out of sequence";
}

TEST(BitErrors, RateAndPositions) {
  for (double ber : {1e-2, 1e-4, 1e-6}) {
    BitErrors be;
    be.init(ber, 7, 3);
    const uint64_t packets = ber >= 1e-4 ? 200000 : 2000000;
    const uint32_t bits = 416;
    uint64_t errors = 0;
    uint32_t pos[16];
    for (uint64_t p = 0; p < packets; p++) {
      const uint32_t n = be.next(bits, pos, 16);
      for (uint32_t i = 0; i < n; i++) {
        ASSERT_LT(pos[i], bits);
        if (i) {
          ASSERT_GT(pos[i], pos[i - 1]);
        }
      }
      errors += n;
    }
    const double want = double(packets) * bits * ber;
    EXPECT_NEAR(double(errors), want, 5 * std::sqrt(want)) << "BER " << ber;
  }
  BitErrors none;
  none.init(0, 1, 1);
  uint32_t pos[4];
  for (int i = 0; i < 1000; i++) ASSERT_EQ(none.next(1u << 20, pos, 4), 0u);
}

// ---- Spider's claims for the CRC, on the packets fabemu's links carry ----

struct Coded {
  CodecKind kind;
  uint32_t units;
  test::Mbuf m;
  rte_mbuf* get() { return m.m; }
};

// A longest packet of each profile (YARC's 32-byte write, 19 phits; a T3E
// 10-flit packet with 64 payload bytes), sealed as its sender seals it.
std::vector<Coded*> longest_packets() {
  static Coded yarc{CodecKind::yarc, 19, {}}, t3e{CodecKind::t3e, 10, {}};
  static bool made = false;
  if (!made) {
    uint8_t payload[64];
    for (int i = 0; i < 64; i++) payload[i] = static_cast<uint8_t>(i * 37 + 11);
    for (Coded* c : {&yarc, &t3e}) {
      PacketMeta pm{};
      pm.units = static_cast<uint16_t>(c->units);
      pm.payload_bytes = c->kind == CodecKind::yarc ? 32 : 64;
      pm.src = 3;
      pm.dst = 17;
      pm.nseg = 1;
      pm.id = 0x123456;
      EXPECT_EQ(encode_packet(c->kind, c->get(), pm, payload), c->units) << codec_name(c->kind);
      *meta(c->get()) = pm;
      link_crc_seal(c->kind, c->get());
      EXPECT_TRUE(link_crc_ok(c->kind, c->get()));
    }
    made = true;
  }
  return {&yarc, &t3e};
}

bool detected_after(Coded& c, const std::vector<uint32_t>& bits) {
  for (uint32_t b : bits) flip_checked_bit(c.kind, c.get(), c.units, b);
  const bool caught = !link_crc_ok(c.kind, c.get());
  for (uint32_t b : bits) flip_checked_bit(c.kind, c.get(), c.units, b);
  return caught;
}

TEST(LinkCrc, EverySingleAndDoubleBitErrorIsDetected) {
  for (Coded* c : longest_packets()) {
    const uint32_t n = packet_checked_bits(c->kind, c->units);
    for (uint32_t a = 0; a < n; a++) {
      ASSERT_TRUE(detected_after(*c, {a})) << codec_name(c->kind) << " bit " << a;
      for (uint32_t b = a + 1; b < n; b++)
        ASSERT_TRUE(detected_after(*c, {a, b})) << codec_name(c->kind) << " bits " << a << ", " << b;
    }
    ASSERT_TRUE(link_crc_ok(c->kind, c->get())) << "flips undone";
  }
}

TEST(LinkCrc, EveryOddNumberOfBitErrorsIsDetected) {
  Rng rng(11, 0);
  for (Coded* c : longest_packets()) {
    const uint32_t n = packet_checked_bits(c->kind, c->units);
    for (int trial = 0; trial < 100000; trial++) {
      const uint32_t k = 3 + 2 * rng.below(8);  // 3 to 17 bits
      std::vector<uint32_t> bits;
      while (bits.size() < k) {
        const uint32_t b = rng.below(n);
        if (std::find(bits.begin(), bits.end(), b) == bits.end()) bits.push_back(b);
      }
      ASSERT_TRUE(detected_after(*c, bits)) << codec_name(c->kind) << ": " << k << " bits";
    }
  }
}

// A burst of length L: errors within L consecutive bits in the order the
// CRC takes them (CRC-16/X-25 is reflected: each byte least significant bit
// first, as an HDLC line sends it), the first and the last of them flipped.
// The message is what the CRC covers: for YARC the data bits of the phits
// before the EOP and the EOP's reserved and pad bits (sideband and ok bits
// are not in it), for T3E every byte of the flits.
bool in_message(const Coded& c, uint32_t q) {
  const uint32_t byte = q / 8, bit = q % 8;
  if (c.kind == CodecKind::t3e) return byte < c.units * kT3eFlitBytes;
  const uint32_t len = (c.units - 1) * kYarcPhitBytes;
  if (byte > len) return false;
  const uint8_t mask = byte == len ? 0x3C : (byte % kYarcPhitBytes == 0 ? 0x3F : 0xFF);
  return (mask >> bit) & 1;
}

bool burst_detected(Coded& c, const std::vector<uint32_t>& qs) {
  uint8_t* p = rte_pktmbuf_mtod(c.get(), uint8_t*);
  for (uint32_t q : qs) p[q / 8] = static_cast<uint8_t>(p[q / 8] ^ (1u << (q % 8)));
  const bool caught = !link_crc_ok(c.kind, c.get());
  for (uint32_t q : qs) p[q / 8] = static_cast<uint8_t>(p[q / 8] ^ (1u << (q % 8)));
  return caught;
}

TEST(LinkCrc, EveryBurstUpTo16BitsIsDetected) {
  Rng rng(5, 0);
  for (Coded* c : longest_packets()) {
    const uint32_t bits = c->units * codec_unit_bytes(c->kind) * 8;
    uint64_t bursts = 0;
    for (uint32_t len = 1; len <= 16; len++) {
      const uint32_t interior = len > 2 ? len - 2 : 0;
      const uint32_t patterns = interior <= 8 ? (1u << interior) : 256;
      for (uint32_t s = 0; s + len <= bits; s++) {
        const uint32_t last = s + len - 1;
        if (!in_message(*c, s) || !in_message(*c, last)) continue;
        for (uint32_t p = 0; p < patterns; p++) {
          const uint32_t mask = interior <= 8 ? p : rng.below(1u << interior);
          std::vector<uint32_t> qs{s};
          for (uint32_t i = 0; i < interior; i++)
            if (((mask >> i) & 1) && in_message(*c, s + 1 + i)) qs.push_back(s + 1 + i);
          if (len > 1) qs.push_back(last);
          ASSERT_TRUE(burst_detected(*c, qs)) << codec_name(c->kind) << ": burst of " << len
                                              << " at message bit " << s;
          bursts++;
        }
      }
    }
    EXPECT_GT(bursts, 100000u) << codec_name(c->kind);
    ASSERT_TRUE(link_crc_ok(c->kind, c->get()));
  }
}

}  // namespace
}  // namespace fabemu
