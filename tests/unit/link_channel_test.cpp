// The channel a link ends in (dataplane/link/link_channel.h): on the same
// core the far end takes a packet, credits and a link-control message at
// once, stamped with their arrival times; across cores they cross the
// workers' SPSC rings (sim/kernel_worker.h) and arrive at the window edge,
// in the order sent, with the same stamps and indices.
#include "dataplane/link/link_channel.h"

#include <gtest/gtest.h>
#include <rte_lcore.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/sim/kernel_worker.h"
#include "tests/unit/eal_fixture.h"

namespace fabemu {
namespace {

// What reached one end, in order.
struct Got {
  enum What { packet, credits, control, ack } what;
  uint32_t index;  // input channel, output, or input
  ps_t t;          // head, first credit, the message's time, or an ack's release
  uint32_t vc = 0;
  uint32_t n = 0;  // sequence number, units, LinkControl, or an ack's packet id
  ps_t every = 0;  // credits: one every; control: unit time
  rte_mbuf* m = nullptr;
  bool late = false;

  bool operator==(const Got&) const = default;
};

// One worker's end of the links: records what the channel hands over.
struct End {
  KernelWorker* k = nullptr;
  std::vector<Got> got;
  std::vector<std::pair<uint32_t, ps_t>> granted;  // (input channel, when sent upstream)

  static constexpr EventKind kind(LinkEvent e) {  // as a run would number them
    return static_cast<EventKind>(0x40 | static_cast<uint8_t>(e));
  }
  void arrive(uint32_t c, rte_mbuf* m, ps_t head, LinkSeq seq, bool late) {
    got.push_back({Got::packet, c, head, 0, seq, 0, m, late});
  }
  void credits(uint32_t o, uint32_t v, uint32_t units, ps_t first, ps_t every) {
    got.push_back({Got::credits, o, first, v, units, every});
  }
  void control(const Event& ev) {
    got.push_back({Got::control, ev.a, ev.t, ev.vc, ev.port, ev.unit_ps});
  }
  void recovery_ack(uint32_t o, uint64_t id, ps_t release) {
    got.push_back({Got::ack, o, release, 0, static_cast<uint32_t>(id), 0});
  }
  void send_remote(const Event& ev, uint32_t worker) { k->send_remote(ev, worker); }
  ps_t now() const { return k ? k->now : 0; }
  void granted_upstream(uint32_t c, ps_t t) { granted.emplace_back(c, t); }
  // KernelWorker::take_inbox's host.
  void apply_remote(Event& ev) { EXPECT_TRUE(RingChannel::receive(*this, ev)); }
};
static_assert(LinkChannelHost<End>);
static_assert(LinkChannel<LocalChannel, End> && LinkChannel<RingChannel, End>);

constexpr uint32_t kVcs = 4;
constexpr ps_t kWire = 500;

rte_mbuf* fake_mbuf(uintptr_t n) { return reinterpret_cast<rte_mbuf*>(n * 64); }  // not read

// Output 7 of worker `from` to input 3 of worker `to` (its VC-0 channel
// 12), and the link back for the credits of input 3's buffers (to output 7).
OutLink out_link(uint32_t from, uint32_t to) {
  OutLink ol;
  ol.wire_ps = kWire;
  ol.unit_ps = 100;
  ol.peer_router = 9;
  ol.peer_channel0 = 3 * kVcs;
  ol.peer_worker = static_cast<uint16_t>(to);
  ol.channel = channel_kind(from, to);
  return ol;
}
InLink in_link(uint32_t at, uint32_t from) {
  InLink in;
  in.up_router = 2;
  in.up_output = 7;
  in.up_worker = static_cast<uint16_t>(from);
  in.channel = channel_kind(at, from);
  return in;
}

TEST(LinkChannel, KindFollowsTheFarEndsWorker) {
  EXPECT_EQ(channel_kind(1, 1), ChannelKind::local);
  EXPECT_EQ(channel_kind(1, 0), ChannelKind::ring);
  EXPECT_EQ(OutLink{}.channel, ChannelKind::local) << "a link is on its own core until set up";
}

TEST(LinkChannel, LocalEntersAtOnce) {
  End end;  // (no worker: nothing may go to a ring)
  const OutLink ol = out_link(0, 0);
  const InLink in = in_link(0, 0);
  carry(end, ol, LinkPacket{fake_mbuf(1), 1000 + kWire, 2, 5});
  ASSERT_EQ(end.got.size(), 1u) << "the far input has it before the call returns";
  EXPECT_EQ(end.got[0], (Got{Got::packet, 3 * kVcs + 2, 1500, 0, 5, 0, fake_mbuf(1), false}));
  carry(end, in, CreditStream{1, 6, 2000, 100});
  ASSERT_EQ(end.got.size(), 2u);
  EXPECT_EQ(end.got[1], (Got{Got::credits, 7, 2000, 1, 6, 100}));
  send_control(end, ol, kVcs, 1200, LinkControl::width, 0, 0, 250);
  ASSERT_EQ(end.got.size(), 3u);
  EXPECT_EQ(end.got[2], (Got{Got::control, 3, 1200 + kWire, 0,
                             static_cast<uint32_t>(LinkControl::width), 250}));
  // Two-hop recovery's ack goes back to the sender's output at once, with
  // the time its copy may go.
  carry(end, in, RecoveryAck{77, 2500, 4800});
  ASSERT_EQ(end.got.size(), 4u);
  EXPECT_EQ(end.got[3], (Got{Got::ack, 7, 4800, 0, 77, 0}));
}

TEST(LinkChannel, RingCarriesPacketsCreditsAndControlInOrder) {
  ASSERT_TRUE(test_eal_init());
  KernelWorker k0, k1;
  k0.id = 0;
  k1.id = 1;
  std::string err;
  const unsigned lc = rte_get_main_lcore();
  ASSERT_TRUE(connect_workers({&k0, &k1}, {lc, lc}, 7701, &err)) << err;
  End e0{&k0, {}, {}}, e1{&k1, {}, {}};
  const OutLink ol = out_link(0, 1);  // worker 0's output to worker 1's input
  const InLink in = in_link(1, 0);    // the credits of that input, back to worker 0
  ASSERT_EQ(ol.channel, ChannelKind::ring);
  ASSERT_EQ(in.channel, ChannelKind::ring);

  // Worker 0 sends two packets with a link-control message between them.
  k0.now = 1000;
  carry(e0, ol, LinkPacket{fake_mbuf(1), 1000 + kWire, 1, 40});
  send_control(e0, ol, kVcs, 1100, LinkControl::width, 0, 0, 250);
  k0.now = 1200;
  carry(e0, ol, LinkPacket{fake_mbuf(2), 1200 + kWire, 3, 41});
  ASSERT_EQ(k0.outbox[1].size(), 3u);
  EXPECT_EQ(k0.outbox[1][0].kind, End::kind(LinkEvent::remote_arrive)) << "the host's numbering";
  EXPECT_EQ(k0.outbox[1][1].kind, End::kind(LinkEvent::control));
  EXPECT_TRUE(e0.got.empty() && e1.got.empty()) << "nothing arrives before the window edge";

  // The edge: worker 1 takes them, stamped and in order.
  k0.flush_outbox();
  k1.drain_inbox();
  k1.take_inbox(e1, false);
  const std::vector<Got> want1 = {
      {Got::packet, 3 * kVcs + 1, 1500, 0, 40, 0, fake_mbuf(1), true},
      {Got::control, 3, 1100 + kWire, 0, static_cast<uint32_t>(LinkControl::width), 250},
      {Got::packet, 3 * kVcs + 3, 1700, 0, 41, 0, fake_mbuf(2), true},
  };
  EXPECT_EQ(e1.got, want1);
  EXPECT_TRUE(k1.inbox.empty());
  // Each packet says when it was sent (its far buffer's occupancy counts
  // from then: router/input_queued.h).
  const std::vector<std::pair<uint32_t, ps_t>> sent = {{3 * kVcs + 1, 1000}, {3 * kVcs + 3, 1200}};
  EXPECT_EQ(e1.granted, sent);

  // Worker 1's input returns a credit stream to worker 0's output.
  carry(e1, in, CreditStream{3, 5, 2600, 100});
  ASSERT_EQ(k1.outbox[0].size(), 1u);
  EXPECT_EQ(k1.outbox[0][0].kind, End::kind(LinkEvent::credit));
  k1.flush_outbox();
  k0.drain_inbox();
  k0.take_inbox(e0, false);
  ASSERT_EQ(e0.got.size(), 1u);
  EXPECT_EQ(e0.got[0], (Got{Got::credits, 7, 2600, 3, 5, 100}));

  // An ack of two-hop recovery crosses back too: the packet's id and the
  // release time (after its arrival: the ack2 of the router beyond).
  carry(e1, in, RecoveryAck{(uint64_t{5} << 40) | 9, 2700, 2700 + 4300});
  ASSERT_EQ(k1.outbox[0].size(), 1u);
  EXPECT_EQ(k1.outbox[0][0].kind, End::kind(LinkEvent::recovery_ack));
  EXPECT_EQ(k1.outbox[0][0].t, 2700u) << "it reaches the sender when the ack does";
  k1.flush_outbox();
  k0.drain_inbox();
  k0.take_inbox(e0, false);
  ASSERT_EQ(e0.got.size(), 2u);
  EXPECT_EQ(e0.got[1], (Got{Got::ack, 7, 7000, 0, 9, 0}));

  // Not the channel's: left to the caller.
  End probe;
  Event other = event_at(0, End::kind(LinkEvent::retry_timeout), 0);
  EXPECT_FALSE(RingChannel::receive(probe, other));
  EXPECT_TRUE(probe.got.empty());
  disconnect_workers({&k0, &k1});
}

}  // namespace
}  // namespace fabemu
