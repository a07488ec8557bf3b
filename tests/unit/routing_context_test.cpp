// What routing and selection see of a router's outputs
// (dataplane/routing/routing_context.h, dataplane/routing/selection.h).
#include "dataplane/routing/routing_context.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dataplane/link/link.h"
#include "dataplane/routing/greedy_snapshot.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/selection.h"

namespace fabemu {
namespace {

constexpr uint32_t kPorts = 3, kNv = 2;

TEST(QueueView, ReadsThePerPortVcCounters) {
  std::vector<SenderVc> cc(kPorts * kNv);
  for (uint32_t p = 0; p < kPorts; p++)
    for (uint32_t v = 0; v < kNv; v++) cc[p * kNv + v].credits = CreditCounter(10 * p + v);
  const uint32_t cap[kNv] = {30, 25};
  const QueueView view(cc.data(), kNv, cap, 500);
  EXPECT_EQ(view.now(), 500u);
  for (uint32_t p = 0; p < kPorts; p++)
    for (uint32_t v = 0; v < kNv; v++) {
      EXPECT_EQ(view.credits(p, v), 10 * p + v) << p << " " << v;
      const uint32_t credits = 10 * p + v;
      EXPECT_EQ(view.occupancy(p, v), cap[v] > credits ? cap[v] - credits : 0) << p << " " << v;
    }
  EXPECT_EQ(view.occupancy(0, 0), 30u);
  EXPECT_EQ(view.occupancy(2, 1), 4u);
}

TEST(QueueView, CountsOnlyStreamsBegunByNow) {
  std::vector<SenderVc> cc(kPorts * kNv);
  cc[1 * kNv + 0].credits = CreditCounter(4);
  ASSERT_TRUE(cc[1 * kNv + 0].credits.add_stream(3, 1000, 10));
  ASSERT_TRUE(cc[1 * kNv + 0].credits.add_stream(2, 2000, 10));
  const uint32_t cap[kNv] = {10, 6};
  const QueueView before(cc.data(), kNv, cap, 999);
  EXPECT_EQ(before.credits(1, 0), 4u);
  EXPECT_EQ(before.occupancy(1, 0), 6u);
  const QueueView at(cc.data(), kNv, cap, 1000);
  EXPECT_EQ(at.credits(1, 0), 7u);  // the stream has begun: all of it
  EXPECT_EQ(at.occupancy(1, 0), 3u);
  const QueueView later(cc.data(), kNv, cap, 2000);
  EXPECT_EQ(later.credits(1, 0), 9u);
  EXPECT_EQ(later.occupancy(1, 0), 1u);
  // Other (port, VC)s are not affected.
  EXPECT_EQ(later.credits(1, 1), 0u);
  EXPECT_EQ(later.credits(0, 0), 0u);
  EXPECT_EQ(later.occupancy(1, 1), 6u);
}

TEST(QueueView, OccupancyIsZeroWhenCreditsExceedTheBuffer) {
  std::vector<SenderVc> cc(kPorts * kNv);
  cc[0].credits = CreditCounter(12);
  const uint32_t cap[kNv] = {10, 10};
  const QueueView view(cc.data(), kNv, cap, 0);
  EXPECT_EQ(view.credits(0, 0), 12u);
  EXPECT_EQ(view.occupancy(0, 0), 0u);
}

RouteCandidates candidates(std::initializer_list<RouteCandidate> c, bool adaptive) {
  RouteCandidates rc;
  for (const RouteCandidate& x : c) rc.add(x.port, x.vc);
  rc.adaptive = adaptive;
  return rc;
}

bool same(const RouteCandidate& a, const RouteCandidate& b) {
  return a.port == b.port && a.vc == b.vc;
}

struct Outputs {
  explicit Outputs(std::initializer_list<uint32_t> credits) {
    for (uint32_t c : credits) cc.emplace_back().credits = CreditCounter(c);
  }
  QueueView view(ps_t now = 0) const { return QueueView(cc.data(), kNv, cap, now); }
  std::vector<SenderVc> cc;  // [port * kNv + vc]
  uint32_t cap[kNv] = {16, 16};
};

TEST(SelectMostCredits, PicksTheCandidateWithMostCredits) {
  //            (0,0) (0,1) (1,0) (1,1) (2,0) (2,1)
  Outputs o{3, 1, 2, 9, 5, 0};
  const auto rc = candidates({{0, 0}, {1, 0}, {1, 1}, {2, 0}}, true);
  EXPECT_TRUE(same(select_most_credits(rc, o.view()), {1, 1}));
  const auto rc2 = candidates({{2, 1}, {0, 1}, {2, 0}}, true);
  EXPECT_TRUE(same(select_most_credits(rc2, o.view()), {2, 0}));
}

TEST(SelectMostCredits, TiesGoToTheEarlierCandidate) {
  Outputs o{4, 7, 7, 2, 7, 0};
  const auto rc = candidates({{1, 1}, {0, 1}, {1, 0}, {2, 0}}, true);  // 2, 7, 7, 7
  EXPECT_TRUE(same(select_most_credits(rc, o.view()), {0, 1}));
  const auto rc2 = candidates({{2, 0}, {0, 1}, {1, 0}}, true);  // 7, 7, 7
  EXPECT_TRUE(same(select_most_credits(rc2, o.view()), {2, 0}));
}

TEST(SelectMostCredits, NonAdaptiveOrSingleTakesTheFirst) {
  Outputs o{0, 0, 9, 9, 9, 9};
  const auto rc = candidates({{0, 0}, {1, 0}, {2, 1}}, false);
  EXPECT_TRUE(same(select_most_credits(rc, o.view()), {0, 0}));
  const auto one = candidates({{0, 1}}, true);
  EXPECT_TRUE(same(select_most_credits(one, o.view()), {0, 1}));
}

TEST(SelectMostCredits, SeesStreamsOnlyOnceTheyHaveBegun) {
  Outputs o{5, 0, 2, 0, 0, 0};
  ASSERT_TRUE(o.cc[1 * kNv + 0].credits.add_stream(6, 1000, 100));  // (1,0): 2 now, 8 from t=1000
  const auto rc = candidates({{0, 0}, {1, 0}}, true);
  EXPECT_TRUE(same(select_most_credits(rc, o.view(999)), {0, 0}));
  EXPECT_TRUE(same(select_most_credits(rc, o.view(1000)), {1, 0}));
}

// UGAL weighs the output channel's queue, every VC's: a minimal candidate
// on VC 1 against a detour on VC 0 whose own VC is empty but whose channel
// is busier. On the detour's VC alone the detour would win.
TEST(SelectLeastDelay, WeighsTheWholeChannelsQueue) {
  //           (0,0) (0,1) (1,0) (1,1): credits of 16-unit buffers
  Outputs o{16, 10, 16, 0};  // port 0 holds 6 units (VC 1), port 1 holds 16 (VC 1)
  RouteCandidates rc;
  rc.add(0, 1, 1);  // minimal: 1 hop, channel queue 6
  rc.add(1, 0, 2);  // detour: 2 hops, its VC 0 empty, its channel 16
  rc.adaptive = rc.weighted = true;
  const QueueView v = o.view();
  EXPECT_EQ(v.channel_queue(0), 6u);
  EXPECT_EQ(v.channel_queue(1), 16u);
  EXPECT_EQ(v.queue(1, 0), 0u);
  // (6 + 4) x 1 = 10 against (16 + 4) x 2 = 40: minimal.
  EXPECT_TRUE(same(select_least_delay(rc, v, 4), {0, 1}));
  // A quiet detour channel against a full minimal one: (16 + 4) x 1 = 20
  // against (0 + 4) x 2 = 8.
  Outputs busy{16, 0, 16, 16};
  EXPECT_TRUE(same(select_least_delay(rc, busy.view(), 4), {1, 0}));
}


// A greedy router's lazy snapshot (greedy_snapshot.h, QueueView::snapshot)
// reads, at every decision of a cycle, the queues as they were at the
// cycle's first decision: entries changed since (credits taken, streams
// written, units routed) read the value kept before their first change,
// the others the live state at that time (a stream that begins later does
// not count); from the kLazyDecisions-th decision every entry is kept.
// Next cycle, the live state again.
TEST(QueueView, LazySnapshotEqualsACopyAtTheFirstDecision) {
  std::vector<SenderVc> cc(kPorts * kNv);
  std::vector<uint32_t> pending(kPorts * kNv, 0);
  const uint32_t cap[kNv] = {30, 25};
  for (uint32_t q = 0; q < kPorts * kNv; q++) cc[q].credits = CreditCounter(cap[q % kNv] - q);
  ASSERT_TRUE(cc[1].credits.add_stream(4, 1020, 10));  // begins after the first decision
  GreedySnapshot snap;
  snap.init(1, kPorts * kNv, true);
  const ps_t t0 = 1000, cycle_end = 1000 + 10 * GreedySnapshot::kLazyDecisions;
  auto copy_at = [&](ps_t t) {
    std::vector<uint32_t> q(kPorts * kNv);
    const QueueView live(cc.data(), kNv, cap, t, pending.data());
    for (uint32_t p = 0; p < kPorts; p++)
      for (uint32_t v = 0; v < kNv; v++) q[p * kNv + v] = live.queue(p, v);
    return q;
  };
  auto keep = [&](size_t q, ps_t now) {
    snap.keep(0, q, now, [&](ps_t at) {
      const QueueView then(cc.data(), kNv, cap, at, pending.data());
      return then.live_queue(uint32_t(q / kNv), q % kNv);
    });
  };
  auto view = [&](ps_t now) {
    return QueueView::snapshot(cc.data(), kNv, cap, now, pending.data(), snap.at(0), snap.saved(0),
                               snap.stamps(0), snap.gen(0));
  };
  const std::vector<uint32_t> want = copy_at(t0);
  for (uint32_t d = 1; d <= GreedySnapshot::kLazyDecisions + 2; d++) {
    const ps_t now = t0 + 5 * (d - 1);  // (the stream on entry 1 begins meanwhile)
    if (snap.begin(0, now, cycle_end)) {  // the kLazyDecisions-th: keep the rest
      EXPECT_EQ(d, GreedySnapshot::kLazyDecisions);
      for (size_t q = 0; q < kPorts * kNv; q++)
        if (!snap.kept(0, q))
          snap.put(0, q, QueueView(cc.data(), kNv, cap, snap.at(0), pending.data())
                             .live_queue(uint32_t(q / kNv), q % kNv));
    }
    const QueueView v = view(now);
    for (uint32_t p = 0; p < kPorts; p++)
      for (uint32_t vc = 0; vc < kNv; vc++) {
        EXPECT_EQ(v.queue(p, vc), want[p * kNv + vc]) << "decision " << d << " " << p << " " << vc;
        EXPECT_EQ(v.credits(p, vc), cap[vc] - want[p * kNv + vc]) << "decision " << d;
      }
    // The state changes after each decision, as grants and routing change it.
    const size_t q = d % (kPorts * kNv);
    keep(q, now);
    pending[q] += 2;
    if (d <= 10) {  // (while it has credits in hand)
      keep(1, now);
      cc[1].credits.take(1);
    }
  }
  EXPECT_NE(copy_at(cycle_end), want);  // the state did change
  snap.begin(0, cycle_end, 2 * cycle_end);  // a new cycle: the live state at its first decision
  const std::vector<uint32_t> now_want = copy_at(cycle_end);
  const QueueView v = view(cycle_end);
  for (uint32_t p = 0; p < kPorts; p++)
    for (uint32_t vc = 0; vc < kNv; vc++) EXPECT_EQ(v.queue(p, vc), now_want[p * kNv + vc]);
}

}  // namespace
}  // namespace fabemu
