// The 3-stage folded Clos of the flattened butterfly paper's topology
// comparison (Kim, Dally & Abts, ISCA 2007, section 3.3, Table 1) on the
// BlackWidow clos family: half the uplinks (topology.uplinks: 16), so that
// its bisection equals the flattened butterfly's, and routing `adaptive`
// (every packet up on the uplink with the shortest queue, sequential
// allocator; down deterministic). Wiring, every route and every choice,
// the selection on crafted queue views, the deadlock check on one VC, and
// runs that deliver every packet exactly once, at the zero-load latency
// when idle and at no more than the half bandwidth the paper finds.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/spec/spec_loader.h"
#include "control/topology/clos.h"
#include "control/topology/flatfly.h"
#include "control/topology/registry.h"
#include "dataplane/routing/selection.h"
#include "dataplane/routing/yarc_adaptive.h"
#include "tests/support/run_collect.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

constexpr int kUp = 16;  // uplinks of the paper's comparison

TEST(ClosUplinks, HalfTheUplinksHalfTheRank2Routers) {
  const Spec spec = spec_of("clos-fig6-64.yaml", {});
  const Fabric f = build_clos(spec);
  ASSERT_EQ(f.routers.size(), 2u + kUp);
  for (int i = 0; i < 2; ++i) {
    const FabricRouter& r = f.routers[i];
    ASSERT_EQ(r.ports.size(), 64u) << "radix-64 rank-1 routers";
    for (int j = 0; j < 32; ++j) {
      const FabricPort& up = r.ports[32 + j];
      EXPECT_EQ(up.label, kClosUp);
      EXPECT_EQ(up.peer_router, j < kUp ? 2 + j : -1) << "uplink j -> rank-2 router j";
      if (j < kUp) {
        EXPECT_EQ(up.peer_port, i);
      }
    }
  }
  for (int j = 0; j < kUp; ++j) EXPECT_EQ(f.routers[2 + j].rank, 2);
  EXPECT_EQ(count_router_links(f), 2 * 2 * kUp);
  EXPECT_EQ(clos_bisection_links(spec, f), 2 * kUp / 2);
}

// "The bisection bandwidth is held constant across the four topologies"
// (section 3.3): at N = 1024 the folded Clos with 16 uplinks per rank-1
// router has the flattened butterfly's B = N/2 (N/4 links one way), half
// the full-bisection BlackWidow's.
TEST(ClosUplinks, BisectionHeldToTheFlattenedButterflys) {
  const Spec clos = spec_of("clos-fig6-1024.yaml", {});
  const Spec fly = spec_of("flatfly-32x2.yaml", {});
  const int64_t b = clos_bisection_links(clos, build_clos(clos));
  EXPECT_EQ(b, 1024 / 4);
  EXPECT_EQ(b, flatfly_bisection_links(fly, build_flatfly(fly)));
  const Spec full = spec_of("yarc-r2-1024.yaml", {});
  EXPECT_EQ(clos_bisection_links(full, build_clos(full)), 2 * b);
}

TEST(ClosUplinks, SpecRefusesWhatCannotBeBuilt) {
  using spec_test::error_of;
  using spec_test::expect_says;
  SpecError e = error_of("profile: yarc\ntopology:\n  rank: 2\n  endpoints: 64\n  uplinks: 33\n");
  EXPECT_EQ(e.field(), "topology.uplinks") << e.what();
  EXPECT_EQ(e.line(), 5);
  e = error_of("profile: yarc\ntopology:\n  rank: 1\n  uplinks: 16\n");
  EXPECT_EQ(e.field(), "topology.uplinks") << e.what();
  EXPECT_EQ(e.line(), 4);
  expect_says(e, "set topology.rank: 2");
  e = error_of("profile: flatfly\ntopology:\n  uplinks: 16\n");
  EXPECT_EQ(e.field(), "topology.uplinks") << e.what();
  expect_says(e, "clos family only");
  e = error_of("profile: yarc\nrouting: clos_ad\n");
  expect_says(e, "adaptive");
}

// ---- routing ---------------------------------------------------------------------

TEST(ClosAdaptive, RegisteredWithThePapersSequentialAllocator) {
  const RoutingInfo* r = Registry::get().routing("clos", "adaptive");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_vcs, 1) << "up*/down* needs no VC to be deadlock-free";
  EXPECT_TRUE(r->make_choice_tracer) << "the deadlock check follows every uplink";
  const Spec spec = spec_of("clos-fig6-64.yaml", {});
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  EXPECT_EQ(policy_allocator<YarcAdaptive>(t), Allocator::sequential);
  YarcTables g = t;
  g.allocator = Allocator::greedy;
  EXPECT_EQ(policy_allocator<YarcAdaptive>(g), Allocator::greedy);
  EXPECT_EQ(spec_of("clos-fig6-64.yaml", {"router.allocator=greedy"}).router.allocator, "greedy");
}

// Every route each packet may take: up on any of the 16 uplinks (each
// once), down deterministically to its destination; within one rank-1
// router, no hop up at all.
TEST(ClosAdaptive, EveryChoiceGoesUpOnceAndDownDeterministically) {
  const Spec spec = spec_of("clos-fig6-64.yaml", {});
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  const PortPeers ports(f);
  std::vector<HopTrace> path;
  for (uint32_t s = 0; s < 64; ++s)
    for (uint32_t d = 0; d < 64; ++d)
      for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
        std::set<int32_t> middles;
        int routes = 0;
        const PacketMeta m = trace_meta(s, d, 19, cls, static_cast<uint16_t>(s * 7 + d));
        ASSERT_TRUE(for_each_route_choice<YarcAdaptive>(
            t, f, m, path, ports, [&](const std::vector<HopTrace>& p) {
              ++routes;
              const bool local = s / 32 == d / 32;
              ASSERT_EQ(p.size(), local ? 1u : 3u) << s << " -> " << d;
              EXPECT_EQ(p.back().router, static_cast<int32_t>(d / 32));
              EXPECT_EQ(p.back().out_port, d % 32);
              if (!local) middles.insert(p[1].router);
              for (const HopTrace& h : p) EXPECT_EQ(h.out_vc, cls == TrafficClass::request ? 0 : 1);
            }));
        EXPECT_EQ(routes, s / 32 == d / 32 ? 1 : kUp) << s << " -> " << d;
        EXPECT_EQ(middles.size(), s / 32 == d / 32 ? 0u : size_t{kUp});
      }
}

RouteCandidates up_candidates(const YarcTables& t, const Fabric& f, uint32_t src, uint32_t dst) {
  PacketMeta m = trace_meta(src, dst, 19, TrafficClass::request, 0x2a);
  YarcAdaptive::on_inject(t, f, m);
  OfflineRouting off;
  RoutingContext ctx = off.ctx();
  RouteCandidates rc;
  YarcAdaptive::route(t, ctx, static_cast<int32_t>(src / 32), static_cast<uint8_t>(src % 32), m,
                      rc);
  return rc;
}

TEST(ClosAdaptive, TakesTheUplinkWithTheShortestQueue) {
  const Spec spec = spec_of("clos-fig6-64.yaml", {"vcs.count=1"});
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  const RouteCandidates rc = up_candidates(t, f, 3, 40);
  ASSERT_EQ(rc.count, kUp);
  ASSERT_TRUE(rc.adaptive && rc.weighted);
  const uint32_t nv = 1, cap[1] = {608};
  std::vector<uint32_t> q(size_t(kMaxPorts) * nv, 0);
  auto pick = [&] {
    return select_candidate(rc, QueueView::of_queues(q.data(), nv, cap), 19).port;
  };
  EXPECT_EQ(pick(), rc.c[0].port) << "ties: the hashed uplink, as deterministic routing takes";
  for (int p = 32; p < 32 + kUp; ++p) q[p] = 100 + p;
  EXPECT_EQ(pick(), 32);
  q[32 + 9] = 19;
  EXPECT_EQ(pick(), 32 + 9);
  q[48] = 0;  // not an uplink of this router (16 of 32 are wired)
  EXPECT_EQ(pick(), 32 + 9);
}

// Sequential allocation (the engine counts a routed packet in its output's
// queue at once, QueueView's pending units): sixteen packets routed one
// after another through an idle router take sixteen different uplinks;
// decided on one greedy snapshot, they would all take the same one.
TEST(ClosAdaptive, SequentialDecisionsSpreadOverEveryUplink) {
  const Spec spec = spec_of("clos-fig6-64.yaml", {"vcs.count=1"});
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  const uint32_t nv = 1, cap[1] = {608};
  std::vector<uint32_t> pending(size_t(kMaxPorts) * nv, 0);
  std::set<uint8_t> taken;
  for (uint32_t i = 0; i < kUp; ++i) {
    const RouteCandidates rc = up_candidates(t, f, i, 32 + (i * 5) % 32);
    const RouteCandidate c =
        select_candidate(rc, QueueView(nullptr, nv, cap, 0, pending.data()), 19);
    pending[c.port] += 19;
    taken.insert(c.port);
  }
  EXPECT_EQ(taken.size(), size_t{kUp});
  const std::vector<uint32_t> snapshot(size_t(kMaxPorts) * nv, 0);
  std::set<uint8_t> greedy;
  for (uint32_t i = 0; i < kUp; ++i)
    greedy.insert(select_candidate(up_candidates(t, f, 0, 40),
                                   QueueView::of_queues(snapshot.data(), nv, cap), 19)
                      .port);
  EXPECT_EQ(greedy.size(), 1u);
}

TEST(ClosAdaptive, DeadlockFreeOnOneVc) {
  for (const char* file : {"clos-fig6-64.yaml", "clos-fig6-1024.yaml"}) {
    const Spec spec = spec_of(file, {"vcs.count=1"});
    const Fabric f = build_clos(spec);
    const DeadlockReport rep = check_deadlock(spec, f);
    EXPECT_TRUE(rep.deadlock_free) << file << ": " << rep.description;
    EXPECT_EQ(rep.unroutable, 0u) << file;
  }
}

// ---- runs ------------------------------------------------------------------------

TEST(ClosAdaptiveRun, ZeroLoadLatencyOneOrThreeRouters) {
  const Spec s = spec_of("clos-fig6-64.yaml", {"traffic.load=0.002", "run.measure_ns=400000"});
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(s, &got);
  ASSERT_GT(got.size(), 600u);
  for (const Delivery& d : got) EXPECT_EQ(d.hops, d.src / 32 == d.dst / 32 ? 0u : 2u);
  // One router within a rank-1 router's subtree, three across.
  expect_at_zero_load(got, [&](const Delivery& d) {
    const ps_t want = zero_load_latency_ps(s, r.fabric, d.src, d.dst, 19, TrafficClass::request);
    EXPECT_EQ(want, yarc_write_zero_load_ps(d.hops));
    return want;
  });
}

TEST(ClosAdaptiveRun, EveryPacketExactlyOnceBeyondSaturation) {
  expect_exactly_once(
      spec_of("clos-fig6-64.yaml", {"traffic.load=1.0", "traffic.reply_fraction=0.3",
                                    "run.warmup_ns=0", "run.measure_ns=20000"}));
  expect_exactly_once(
      spec_of("clos-fig6-64.yaml", {"vcs.count=1", "traffic.load=1.0", "traffic.reply_fraction=0.5",
                                    "run.workers=2", "run.measure_ns=20000"}));
  expect_exactly_once(spec_of("clos-fig6-64.yaml", {"router.allocator=greedy", "traffic.load=1.0",
                                                    "run.measure_ns=10000"}));
}

TEST(ClosAdaptiveRun, CreditsConservedAtEveryEvent) {
  expect_credits_conserved(spec_of(
      "clos-fig6-64.yaml", {"traffic.load=1.0", "run.warmup_ns=2000", "run.measure_ns=10000"}));
}

// Section 3.3: "the folded Clos uses 1/2 of the bandwidth for
// load-balancing to the middle stages - thus, only achieves 50% throughput"
// on uniform random traffic. 992 of every 1023 packets leave their rank-1
// router on its 16 uplinks, so no more than 0.5 x 1023 / 992 = 0.516 of the
// injection bandwidth can be accepted.
TEST(ClosAdaptiveRun, UniformTrafficAtMostHalfTheBandwidth) {
  const RunResult r =
      run_collect(spec_of("clos-fig6-1024.yaml",
                          {"traffic.load=1.0", "run.warmup_ns=3000", "run.measure_ns=5000"}),
                  nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  const double accepted = r.json["accepted_load"].get<double>();
  EXPECT_LE(accepted, 0.5 * 1023 / 992 * 1.02);
  // Without switch speedup the rank-2 routers, whose links carry twice the
  // offered load, head-of-line block near 0.586 of their link rate (Karol
  // et al. 1987): about 0.29 of the injection bandwidth.
  EXPECT_GE(accepted, 0.25) << "the uplinks carry traffic";
}

}  // namespace
}  // namespace fabemu
