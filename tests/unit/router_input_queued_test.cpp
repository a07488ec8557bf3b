// The input-queued router's state (dataplane/router/input_queued.h) driven
// without the engine: two routers' FIFOs, requests and output arbitration.
#include "dataplane/router/input_queued.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <vector>

namespace fabemu {
namespace {

// A fake packet pointer: the router stores it, never dereferences it.
rte_mbuf* fake(uintptr_t i) { return reinterpret_cast<rte_mbuf*>(0x1000 + 64 * i); }

QEntry entry(uintptr_t id, uint16_t units, ps_t arrive = 0) {
  QEntry e{};
  e.m = fake(id);
  e.arrive = arrive;
  e.units = units;
  return e;
}

TEST(InputQueuedRouter, IndexHelpersRoundTrip) {
  InputQueuedRouter r;
  r.init(2, 5, 3, 4);
  EXPECT_EQ(r.nv(), 3u);
  EXPECT_EQ(r.max_ports(), 5u);
  EXPECT_EQ(r.vc_shift(), 2u);  // 3 VCs need 2 bits
  EXPECT_EQ(r.qcap(), 4u);
  EXPECT_EQ(r.channels(), 2u * 5 * 3);
  std::set<uint32_t> channels, outputs, requesters;
  for (uint32_t lr = 0; lr < 2; lr++)
    for (uint32_t p = 0; p < 5; p++) {
      const uint32_t o = r.output(lr, p);
      EXPECT_TRUE(outputs.insert(o).second);
      EXPECT_LT(o, 10u);
      for (uint32_t v = 0; v < 3; v++) {
        const uint32_t c = r.channel(lr, p, v);
        EXPECT_LT(c, r.channels());
        EXPECT_TRUE(channels.insert(c).second) << lr << " " << p << " " << v;
        EXPECT_EQ(r.router_of_channel(c), lr);
        EXPECT_EQ(r.port_of_channel(c), p);
        EXPECT_EQ(r.vc_of_channel(c), v);
        EXPECT_EQ(r.channel_of_output(o, v), c);
        if (lr == 0) {
          const uint32_t i = r.requester(p, v);
          EXPECT_TRUE(requesters.insert(i).second);
          EXPECT_EQ(r.requester_port(i), p);
          EXPECT_EQ(r.requester_vc(i), v);
        }
      }
    }
  EXPECT_EQ(channels.size(), r.channels());

  InputQueuedRouter one;
  one.init(1, 4, 1, 2);
  EXPECT_EQ(one.vc_shift(), 0u);
  EXPECT_EQ(one.requester(3, 0), 3u);
  EXPECT_EQ(one.requester_port(3), 3u);
  EXPECT_EQ(one.requester_vc(3), 0u);
  InputQueuedRouter four;
  four.init(1, 4, 4, 2);
  EXPECT_EQ(four.vc_shift(), 2u);
  EXPECT_EQ(four.requester(2, 3), 11u);
}

// A buffer fed from another worker takes its packets at the window edge,
// after the packets ahead of them may have left: its peak counts what was
// there when each was granted upstream, as the same run on one worker does.
TEST(InputQueuedRouter, LateEntriesCountThePeakAtTheirUpstreamGrant) {
  InputQueuedRouter one, late;
  one.init(1, 2, 1, 8);
  late.init(1, 2, 1, 8);
  late.track_late_entries(0);
  // One worker: A and B granted upstream at 10 and 20 enter then; A
  // leaves at 30: 8 units at most.
  one.push(0, entry(1, 4));
  one.push(0, entry(2, 4));
  one.pop(0, 30);
  one.push(0, entry(3, 4));  // granted at 40
  EXPECT_EQ(one.peak(0), 8u);
  // Another worker's: A enters (granted 10), leaves at 30 before B (granted
  // 20) is taken at the edge; B still counts A. C (granted 40) does not.
  late.granted_upstream_at(0, 10);
  late.push(0, entry(1, 4));
  late.pop(0, 30);
  late.granted_upstream_at(0, 20);
  late.push(0, entry(2, 4));
  EXPECT_EQ(late.peak(0), 8u);
  late.granted_upstream_at(0, 40);
  late.push(0, entry(3, 4));
  EXPECT_EQ(late.peak(0), 8u);
  EXPECT_EQ(late.occupancy(0), 8u);
  // Without the grant time (not known) a push counts what is there.
  late.pop(0, 50);
  late.pop(0, 60);
  late.push(0, entry(4, 2));
  EXPECT_EQ(late.peak(0), 8u);
  EXPECT_EQ(late.occupancy(0), 2u);
  // A channel not fed from another worker keeps no departures.
  EXPECT_EQ(late.peak(1), 0u);
  late.granted_upstream_at(1, 5);  // (ignored)
  late.push(1, entry(5, 3));
  EXPECT_EQ(late.peak(1), 3u);
}

TEST(InputQueuedRouter, FifoOrderWithTheHeadApart) {
  InputQueuedRouter r;
  r.init(2, 4, 2, 4);
  const uint32_t c = r.channel(1, 2, 1), other = r.channel(1, 2, 0);
  EXPECT_EQ(r.len(c), 0u);
  EXPECT_EQ(r.push(c, entry(1, 2, 100)), 1u);  // the head
  EXPECT_EQ(r.head(c).m, fake(1));
  EXPECT_EQ(r.push(c, entry(2, 3, 200)), 2u);
  EXPECT_EQ(r.push(c, entry(3, 1, 300)), 3u);
  EXPECT_EQ(r.push(c, entry(4, 4, 400)), 4u);
  EXPECT_EQ(r.len(c), 4u);
  for (uint32_t i = 0; i < 4; i++) {
    EXPECT_EQ(r.at(c, i).m, fake(i + 1)) << i;
    EXPECT_EQ(r.at(c, i).arrive, 100u * (i + 1)) << i;
  }
  EXPECT_EQ(&r.at(c, 0), &r.head(c));
  EXPECT_EQ(r.occupancy(c), 10u);
  EXPECT_EQ(r.peak(c), 10u);
  // The neighbouring channel is untouched.
  EXPECT_EQ(r.len(other), 0u);
  EXPECT_EQ(r.occupancy(other), 0u);
  // The head is routed in place.
  r.head(c).routed = 1;
  r.head(c).out_port = 3;
  EXPECT_EQ(r.at(c, 0).out_port, 3);
  QEntry e = r.pop(c);
  EXPECT_EQ(e.m, fake(1));
  EXPECT_EQ(e.out_port, 3);
  EXPECT_EQ(e.routed, 1);
  EXPECT_EQ(r.head(c).m, fake(2));
  EXPECT_EQ(r.occupancy(c), 8u);
  EXPECT_EQ(r.peak(c), 10u);  // the peak stays
  EXPECT_EQ(r.pop(c).m, fake(2));
  EXPECT_EQ(r.pop(c).m, fake(3));
  EXPECT_EQ(r.pop(c).m, fake(4));
  EXPECT_EQ(r.len(c), 0u);
  EXPECT_EQ(r.occupancy(c), 0u);
  EXPECT_EQ(r.push(c, entry(5, 1)), 1u);
  EXPECT_EQ(r.head(c).m, fake(5));
  EXPECT_EQ(r.peak(c), 10u);
}

TEST(InputQueuedRouter, FifoMatchesADequeAcrossWraps) {
  InputQueuedRouter r;
  r.init(2, 3, 2, 8);
  std::mt19937_64 rng(3);
  std::vector<std::deque<QEntry>> ref(r.channels());
  std::vector<uint32_t> peak(r.channels(), 0);
  uintptr_t id = 0;
  for (int step = 0; step < 20000; step++) {
    const uint32_t c = static_cast<uint32_t>(rng() % r.channels());
    if (ref[c].size() < r.qcap() && (ref[c].empty() || rng() % 2)) {
      const QEntry e = entry(++id, static_cast<uint16_t>(1 + rng() % 9), step);
      ASSERT_EQ(r.push(c, e), ref[c].size() + 1);
      ref[c].push_back(e);
    } else if (!ref[c].empty()) {
      const QEntry e = r.pop(c);
      ASSERT_EQ(e.m, ref[c].front().m) << "step " << step;
      ref[c].pop_front();
    }
    uint32_t occ = 0;
    for (const QEntry& q : ref[c]) occ += q.units;
    peak[c] = std::max(peak[c], occ);
    ASSERT_EQ(r.len(c), ref[c].size());
    ASSERT_EQ(r.occupancy(c), occ);
    ASSERT_EQ(r.peak(c), peak[c]);
    for (uint32_t i = 0; i < ref[c].size(); i++) ASSERT_EQ(r.at(c, i).m, ref[c][i].m);
  }
}

TEST(InputQueuedRouter, RequestsAndWithdrawals) {
  InputQueuedRouter r;
  r.init(2, 4, 2, 4);
  const uint32_t o = r.output(1, 3), o2 = r.output(0, 3);
  EXPECT_EQ(r.requests(o), 0u);
  EXPECT_EQ(r.arbitrate(o, [](uint32_t) { return true; }), -1);
  r.request(o, r.requester(0, 1));
  r.request(o, r.requester(2, 0));
  EXPECT_EQ(r.requests(o), 2u);
  EXPECT_EQ(r.requests(o2), 0u);
  r.withdraw(o, r.requester(0, 1));
  EXPECT_EQ(r.requests(o), 1u);
  // Only (2, 0) is left.
  for (int i = 0; i < 3; i++)
    EXPECT_EQ(r.arbitrate(o, [](uint32_t) { return true; }),
              static_cast<int32_t>(r.requester(2, 0)));
  // Another output's requests are its own.
  r.request(o2, r.requester(1, 1));
  EXPECT_EQ(r.arbitrate(o2, [](uint32_t) { return true; }),
            static_cast<int32_t>(r.requester(1, 1)));
  EXPECT_EQ(r.arbitrate(o, [](uint32_t) { return true; }),
            static_cast<int32_t>(r.requester(2, 0)));
  EXPECT_EQ(r.wake(o), kNever);
  r.wake(o) = 1234;
  EXPECT_EQ(r.wake(o), 1234u);
  EXPECT_EQ(r.wake(o2), kNever);
}

TEST(InputQueuedRouter, ArbitrateIsRoundRobinAmongRequesters) {
  InputQueuedRouter r;
  r.init(2, 20, 4, 4);  // 80 requester bits: two words per output
  const uint32_t o = r.output(0, 7);
  const std::vector<uint32_t> reqs = {r.requester(1, 2), r.requester(5, 0), r.requester(17, 3),
                                      r.requester(19, 1)};
  ASSERT_GT(reqs[2], 64u);
  for (uint32_t i : reqs) r.request(o, i);
  std::vector<int32_t> order;
  for (int g = 0; g < 8; g++) order.push_back(r.arbitrate(o, [](uint32_t) { return true; }));
  for (int g = 0; g < 8; g++) EXPECT_EQ(order[g], static_cast<int32_t>(reqs[g % 4])) << g;
  // A refused requester is passed over but not skipped next time.
  std::vector<uint32_t> asked;
  EXPECT_EQ(r.arbitrate(o,
                        [&](uint32_t i) {
                          asked.push_back(i);
                          return r.requester_port(i) != 1;
                        }),
            static_cast<int32_t>(reqs[1]));
  EXPECT_EQ(asked, (std::vector<uint32_t>{reqs[0], reqs[1]}));
  EXPECT_EQ(r.arbitrate(o, [](uint32_t) { return true; }), static_cast<int32_t>(reqs[2]));
  // Nobody accepted: -1.
  EXPECT_EQ(r.arbitrate(o, [](uint32_t) { return false; }), -1);
}

// Two routers: router 0's inputs 0 and 2 (VC 0) all want output 1, whose link
// feeds router 1's input 3. Output 1 alternates between the two inputs, each
// in FIFO order, and router 1's FIFO receives them in grant order.
TEST(InputQueuedRouter, TwoRoutersForwardInRoundRobinOrder) {
  InputQueuedRouter r;
  r.init(2, 4, 2, 8);
  const uint32_t in_a = r.channel(0, 0, 0), in_b = r.channel(0, 2, 0);
  for (uintptr_t k = 0; k < 3; k++) {
    r.push(in_a, entry(10 + k, 2));
    r.push(in_b, entry(20 + k, 3));
  }
  const uint32_t out = r.output(0, 1);
  const uint32_t down = r.channel(1, 3, 1);  // arrives on VC 1
  for (uint32_t c : {in_a, in_b}) r.request(out, r.requester(r.port_of_channel(c), r.vc_of_channel(c)));
  std::vector<uintptr_t> got;
  while (r.requests(out) > 0) {
    const int32_t w = r.arbitrate(out, [](uint32_t) { return true; });
    ASSERT_GE(w, 0);
    const uint32_t c = r.channel(0, r.requester_port(w), r.requester_vc(w));
    QEntry e = r.pop(c);
    e.routed = 0;
    r.push(down, e);
    if (r.len(c) == 0) r.withdraw(out, static_cast<uint32_t>(w));
  }
  for (uint32_t i = 0; i < r.len(down); i++)
    got.push_back(reinterpret_cast<uintptr_t>(r.at(down, i).m));
  const std::vector<uintptr_t> expect = {
      reinterpret_cast<uintptr_t>(fake(10)), reinterpret_cast<uintptr_t>(fake(20)),
      reinterpret_cast<uintptr_t>(fake(11)), reinterpret_cast<uintptr_t>(fake(21)),
      reinterpret_cast<uintptr_t>(fake(12)), reinterpret_cast<uintptr_t>(fake(22))};
  EXPECT_EQ(got, expect);
  EXPECT_EQ(r.occupancy(down), 15u);
  EXPECT_EQ(r.occupancy(in_a), 0u);
  EXPECT_EQ(r.occupancy(in_b), 0u);
  EXPECT_EQ(r.peak(in_b), 9u);
  EXPECT_EQ(r.requests(out), 0u);
}

}  // namespace
}  // namespace fabemu
