// The flattened butterfly's adaptive routings (Kim, Dally & Abts, ISCA 2007,
// section 3.1): MIN AD, UGAL, UGAL-S and CLOS AD through their real tables.
// Every route each may choose (for_each_route_choice) is checked for its hop
// count, its VCs and the closest-common-ancestor bound; choices are driven
// by crafted queue views; the channel dependency graphs are acyclic (and a
// one-VC variant is not); the worst-case traffic pattern; runs that deliver
// every packet exactly once and where UGAL goes non-minimal only under load.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/spec/spec_loader.h"
#include "control/topology/flatfly.h"
#include "dataplane/endpoint/traffic.h"
#include "dataplane/routing/flatfly_clos_ad.h"
#include "dataplane/routing/flatfly_min_ad.h"
#include "dataplane/routing/flatfly_ugal.h"
#include "dataplane/routing/selection.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

Spec adaptive_spec(int k, int n, const std::string& routing, int vcs) {
  return load_spec_text("profile: flatfly\n",
                        {"topology.k=" + std::to_string(k), "topology.n=" + std::to_string(n),
                         "routing=" + routing, "vcs.count=" + std::to_string(vcs)},
                        "t.yaml");
}

int hops_between(const FlatflyTables& t, int32_t a, int32_t b) { return flatfly_hops(t, a, b); }

// Every route policy P may give every (source, destination) pair of `f`
// (requests), handed to check(src, dst, path).
template <class P, class Check>
void every_choice(const FlatflyTables& t, const Fabric& f, Check&& check) {
  const PortPeers ports(f);
  std::vector<HopTrace> path;
  const uint32_t n = static_cast<uint32_t>(f.endpoints.size());
  for (uint32_t s = 0; s < n; ++s)
    for (uint32_t d = 0; d < n; ++d) {
      const PacketMeta m = trace_meta(s, d, 19, TrafficClass::request);
      ASSERT_TRUE(for_each_route_choice<P>(t, f, m, path, ports,
                                           [&](const std::vector<HopTrace>& p) { check(s, d, p); }))
          << s << " -> " << d;
    }
}

// ---- MIN AD ---------------------------------------------------------------------

TEST(FlatflyMinAd, EveryChoiceIsMinimalWithVcsByHopsRemaining) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{4, 3}, {3, 4}, {8, 2}}) {
    const int dims = n - 1;
    const Spec spec = adaptive_spec(k, n, "min_ad", dims);
    const Fabric f = build_flatfly(spec);
    const FlatflyTables t = program_flatfly_tables(spec, f, dims, Allocator::greedy);
    std::map<std::pair<uint32_t, uint32_t>, int> routes;
    every_choice<FlatflyMinAd>(t, f, [&](uint32_t s, uint32_t d, const std::vector<HopTrace>& p) {
      const int h = hops_between(t, s / k, d / k);
      ASSERT_EQ(static_cast<int>(p.size()) - 1, h) << "minimal";
      for (size_t i = 0; i + 1 < p.size(); ++i)
        EXPECT_EQ(p[i].out_vc, dims - (h - static_cast<int>(i))) << "VC n' - hops left";
      routes[{s, d}]++;
    });
    // j differing digits: the j! orders of section 2.2.
    for (const auto& [pair, count] : routes) {
      int j = hops_between(t, pair.first / k, pair.second / k), fact = 1;
      for (int i = 2; i <= j; ++i) fact *= i;
      ASSERT_EQ(count, fact) << pair.first << " -> " << pair.second;
    }
  }
}

// A router of a 4-ary 3-flat whose destination differs in both dimensions:
// the candidates are its two productive channels.
TEST(FlatflyMinAd, TakesTheProductiveChannelWithTheShortestQueue) {
  const Spec spec = adaptive_spec(4, 3, "min_ad", 2);
  const Fabric f = build_flatfly(spec);
  const FlatflyTables t = program_flatfly_tables(spec, f, 2);
  PacketMeta m = trace_meta(0, 4 * 5, 19, TrafficClass::request);  // router 0 -> router 5 (1,1)
  FlatflyMinAd::on_inject(t, f, m);
  OfflineRouting off;
  RoutingContext ctx = off.ctx();
  RouteCandidates rc;
  FlatflyMinAd::route(t, ctx, 0, 0, m, rc);
  ASSERT_EQ(rc.count, 2);
  ASSERT_TRUE(rc.adaptive && rc.weighted);
  const uint8_t dim0 = t.port_to(0, 0, 1), dim1 = t.port_to(1, 0, 1);
  const uint32_t nv = 2, cap[2] = {304, 304};
  std::vector<uint32_t> q(size_t(kMaxPorts) * nv, 0);
  EXPECT_EQ(select_candidate(rc, QueueView::of_queues(q.data(), nv, cap), 19).port, dim0)
      << "ties: the lower dimension";
  q[dim0 * nv + 0] = 38;
  EXPECT_EQ(select_candidate(rc, QueueView::of_queues(q.data(), nv, cap), 19).port, dim1);
  q[dim1 * nv + 0] = 57;
  EXPECT_EQ(select_candidate(rc, QueueView::of_queues(q.data(), nv, cap), 19).port, dim0);
  q[dim1 * nv + 1] = 0;  // another VC's queue does not count
  EXPECT_EQ(select_candidate(rc, QueueView::of_queues(q.data(), nv, cap), 19).vc, 0);
}

// ---- UGAL -----------------------------------------------------------------------

TEST(FlatflyUgal, EveryChoiceIsMinimalOrThroughOneIntermediate) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{4, 3}, {8, 2}, {3, 3}}) {
    const int dims = n - 1;
    const Spec spec = adaptive_spec(k, n, "ugal", dims + 1);
    const Fabric f = build_flatfly(spec);
    const FlatflyTables t = program_flatfly_tables(spec, f, dims + 1, Allocator::greedy);
    size_t minimal = 0, detours = 0;
    every_choice<FlatflyUgal>(t, f, [&](uint32_t s, uint32_t d, const std::vector<HopTrace>& p) {
      const int32_t src = s / k, dst = d / k;
      const int h = hops_between(t, src, dst);
      if (p.size() < 2 || p[0].out_vc != 0) {  // minimal: MIN AD on VCs 1..n'
        ++minimal;
        ASSERT_EQ(static_cast<int>(p.size()) - 1, h);
        for (size_t i = 0; i + 1 < p.size(); ++i)
          EXPECT_EQ(p[i].out_vc, 1 + dims - (h - static_cast<int>(i)));
        return;
      }
      ++detours;  // VAL: dimension order to b on VC 0, then to d on VCs by hops left
      size_t i = 0;
      while (i + 1 < p.size() && p[i].out_vc == 0) ++i;
      const int32_t b = p[i].router;
      EXPECT_NE(b, src);
      EXPECT_NE(b, dst);
      EXPECT_EQ(static_cast<int>(i), hops_between(t, src, b));
      EXPECT_EQ(static_cast<int>(p.size()) - 1, hops_between(t, src, b) + hops_between(t, b, dst));
      for (size_t j = i; j + 1 < p.size(); ++j) EXPECT_GE(p[j].out_vc, 1);
    });
    EXPECT_GT(detours, 0u);
    EXPECT_GT(minimal, detours / 4);
  }
}

// At the source of a 32-ary 2-flat: minimal while the minimal queue times one
// hop is no longer than the non-minimal queue times two.
TEST(FlatflyUgal, SourceChoiceWeighsQueueByHops) {
  const Spec spec = adaptive_spec(32, 2, "ugal", 2);
  const Fabric f = build_flatfly(spec);
  const FlatflyTables t = program_flatfly_tables(spec, f, 2, Allocator::greedy);
  PacketMeta m = trace_meta(0, 32 * 1 + 5, 19, TrafficClass::request);  // router 0 -> 1
  FlatflyUgal::on_inject(t, f, m);
  OfflineRouting off(7);
  RoutingContext ctx = off.ctx();
  RouteCandidates rc;
  for (int tries = 0; tries < 100 && rc.count < 2; ++tries) {
    rc.count = 0;
    FlatflyUgal::route(t, ctx, 0, 0, m, rc);
  }
  ASSERT_EQ(rc.count, 2) << "the minimal channel and one VAL candidate";
  const RouteCandidate min = rc.c[0], val = rc.c[1];
  EXPECT_EQ(min.vc, 1);
  EXPECT_EQ(min.hops, 1);
  EXPECT_EQ(val.vc, 0);
  EXPECT_EQ(val.hops, 2);
  const uint32_t nv = 2, cap[2] = {304, 304};
  std::vector<uint32_t> q(size_t(kMaxPorts) * nv, 0);
  auto pick = [&] { return select_candidate(rc, QueueView::of_queues(q.data(), nv, cap), 19); };
  EXPECT_EQ(pick().vc, 1) << "zero load: minimal";
  q[min.port * nv + 1] = 19;  // (19 + 19) x 1 = (0 + 19) x 2: minimal
  EXPECT_EQ(pick().vc, 1);
  q[min.port * nv + 1] = 38;  // 57 > 38
  EXPECT_EQ(pick().vc, 0) << "non-minimal";
  EXPECT_EQ(pick().note, val.note);
  q[val.port * nv + 0] = 19;  // 57 < 76
  EXPECT_EQ(pick().vc, 1);

  // The granted candidate's note is the intermediate router phase 1 heads for.
  PacketMeta g = m;
  g.out_port = val.port;
  g.out_vc = val.vc;
  g.out_note = val.note;
  FlatflyUgal::on_forward(t, 0, val.port, g);
  EXPECT_EQ(g.route[0], kUgalToIntermediate);
  EXPECT_EQ(FlatflyUgal::intermediate(g), static_cast<int32_t>(val.note));
}

// ---- CLOS AD ----------------------------------------------------------------------

// The top dimension in which routers a and b differ, -1 when none.
int top_dim(const FlatflyTables& t, int32_t a, int32_t b) {
  return FlatflyClosAd::top_dimension(t, a, b);
}

TEST(FlatflyClosAd, ClimbsOnlyToClosestCommonAncestors) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{3, 4}, {4, 3}, {8, 2}}) {
    const int dims = n - 1;
    const Spec spec = adaptive_spec(k, n, "clos_ad", dims + 1);
    const Fabric f = build_flatfly(spec);
    const FlatflyTables t = program_flatfly_tables(spec, f, dims + 1);
    std::set<int32_t> intermediates_of_0_to_last;
    every_choice<FlatflyClosAd>(t, f, [&](uint32_t s, uint32_t d, const std::vector<HopTrace>& p) {
      const int32_t src = s / k, dst = d / k;
      const int top = top_dim(t, src, dst);
      ASSERT_LE(static_cast<int>(p.size()) - 1, 2 * (top + 1)) << "no longer than a folded Clos";
      size_t i = 0;
      int last = -1;
      for (; i + 1 < p.size() && p[i].out_vc == 0; ++i) {  // the climb
        const int dim = t.port_dim[p[i].out_port];
        EXPECT_GT(dim, last) << "dimension by dimension";
        EXPECT_LE(dim, top) << "only up to the common ancestors";
        last = dim;
      }
      const int32_t b = p[i].router;
      EXPECT_EQ(static_cast<int>(p.size()) - 1 - static_cast<int>(i), hops_between(t, b, dst))
          << "minimal from b";
      for (int dim = top + 1; dim < dims; ++dim)
        EXPECT_EQ(t.digits(b)[dim], t.digits(src)[dim]) << "b shares the ancestors' digits";
      for (size_t j = i; j + 1 < p.size(); ++j) EXPECT_GE(p[j].out_vc, 1);
      if (s == 0 && d + 1 == f.endpoints.size()) intermediates_of_0_to_last.insert(b);
    });
    // Router 0 and the last router differ in every dimension: every router
    // is a common ancestor, and the climb reaches each but those sharing the
    // destination's top digit (reaching that digit is the minimal hop down).
    EXPECT_EQ(intermediates_of_0_to_last.size(), f.routers.size() * (k - 1) / k);
  }
}

// On a 1-D flat the climb is one hop: the source compares the minimal channel
// (staying: the dummy queue, then the productive hop) with every other
// channel at twice the hops.
TEST(FlatflyClosAd, SourceTakesTheShortestQueueOfItsDimension) {
  const Spec spec = adaptive_spec(8, 2, "clos_ad", 2);
  const Fabric f = build_flatfly(spec);
  const FlatflyTables t = program_flatfly_tables(spec, f, 2);
  PacketMeta m = trace_meta(0, 8 * 3, 19, TrafficClass::request);  // router 0 -> 3
  FlatflyClosAd::on_inject(t, f, m);
  OfflineRouting off;
  RoutingContext ctx = off.ctx();
  RouteCandidates rc;
  FlatflyClosAd::route(t, ctx, 0, 0, m, rc);
  ASSERT_EQ(rc.count, 7) << "the productive channel and the 6 others";
  const uint32_t nv = 2, cap[2] = {304, 304};
  std::vector<uint32_t> q(size_t(kMaxPorts) * nv, 0);
  auto pick = [&] { return select_candidate(rc, QueueView::of_queues(q.data(), nv, cap), 19); };
  const uint8_t to3 = t.port_to(0, 0, 3), to5 = t.port_to(0, 0, 5);
  EXPECT_EQ(pick().port, to3);
  for (int r = 1; r < 8; ++r) q[t.port_to(0, 0, static_cast<uint8_t>(r)) * nv + 0] = 19;
  q[to3 * nv + 1] = 95;  // minimal: 114 x 1; every climb 38 x 2 but router 5's
  q[to5 * nv + 0] = 0;   // 19 x 2
  EXPECT_EQ(pick().port, to5);
  EXPECT_EQ(pick().vc, 0);
  q[to3 * nv + 1] = 0;
  EXPECT_EQ(pick().port, to3) << "staying is free again";
}

// ---- deadlock -------------------------------------------------------------------

TEST(FlatflyAdaptiveDeadlock, EveryAlgorithmPassesDescribesCheck) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{4, 3}, {3, 4}, {8, 2}})
    for (const char* routing : {"min_ad", "ugal", "ugal_s", "clos_ad"}) {
      const int dims = n - 1;
      const int vcs = std::string(routing) == "min_ad" ? dims : dims + 1;
      const Spec spec = adaptive_spec(k, n, routing, vcs);
      const Fabric f = build_flatfly(spec);
      const DeadlockReport rep = check_deadlock(spec, f);
      EXPECT_TRUE(rep.deadlock_free)
          << routing << " " << k << "-ary " << n << "-flat: " << rep.description;
      EXPECT_EQ(rep.unroutable, 0u) << routing;
      const FabricSummary sum = summarize(spec, f);  // describe's figures
      EXPECT_TRUE(sum.deadlock_free) << routing;
      EXPECT_EQ(sum.diameter, dims) << routing << ": the zero-load route is minimal";
    }
}

// MIN AD with every hop on one VC: the adaptive orders close a cycle, which
// the check (following every choice) finds.
struct FlatflyMinAdOneVc : FlatflyMinAd {
  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    FlatflyMinAd::route(t, ctx, router, in_port, m, out);
    for (uint32_t i = 0; i < out.count; ++i) out.c[i].vc = 0;
  }
};

TEST(FlatflyAdaptiveDeadlock, MinAdOnOneVcHasACycle) {
  const Spec spec = adaptive_spec(4, 3, "min_ad", 2);
  const Fabric f = build_flatfly(spec);
  const FlatflyTables t = program_flatfly_tables(spec, f, 2);
  ChannelDependencyGraph one(f), by_hops(f);
  every_choice<FlatflyMinAdOneVc>(
      t, f, [&](uint32_t, uint32_t, const std::vector<HopTrace>& p) { one.add_path(p); });
  every_choice<FlatflyMinAd>(
      t, f, [&](uint32_t, uint32_t, const std::vector<HopTrace>& p) { by_hops.add_path(p); });
  EXPECT_FALSE(one.find_cycle().empty());
  EXPECT_TRUE(by_hops.find_cycle().empty());
}

// ---- the worst-case pattern -----------------------------------------------------

TEST(FlatflyWorstPattern, EveryEndpointOfRouterIToARandomOneOfRouterIPlusOne) {
  const Spec spec = adaptive_spec(8, 2, "min", 2);
  const Fabric f = build_flatfly(spec);
  EngineConfig cfg;
  cfg.pattern = Pattern::flatfly_worst;
  TrafficPattern tp;
  std::string err;
  ASSERT_TRUE(tp.init(f, cfg, &err)) << err;
  Rng rng(1, 2);
  std::map<uint32_t, int> hits;
  for (uint32_t src = 0; src < 64; ++src)
    for (int i = 0; i < 400; ++i) {
      const uint32_t d = tp.destination(src, rng);
      ASSERT_EQ(f.endpoints[d].router, (f.endpoints[src].router + 1) % 8);
      if (src == 0) hits[d]++;
    }
  ASSERT_EQ(hits.size(), 8u) << "every endpoint of the next router";
  for (const auto& [d, c] : hits) EXPECT_NEAR(c, 50, 25) << d;
}

// ---- runs -----------------------------------------------------------------------

// router.allocator: UGAL made sequential is UGAL-S, decision for decision
// (same seed); the greedy allocator's shared snapshot decides otherwise.
TEST(FlatflyAllocator, UgalSequentialIsUgalSAndGreedyDiffers) {
  auto run = [](const char* routing, const char* allocator) {
    std::vector<Delivery> got;
    const RunResult r = run_collect(
        spec_of("flatfly-32x2.yaml",
                {std::string("routing=") + routing, std::string("router.allocator=") + allocator,
                 "traffic.pattern=flatfly_worst", "traffic.load=0.3", "run.warmup_ns=0",
                 "run.measure_ns=3000"}),
        &got);
    expect_exactly_once(r, got);
    std::sort(got.begin(), got.end(),
              [](const Delivery& a, const Delivery& b) { return a.id < b.id; });
    std::vector<std::pair<uint32_t, ps_t>> hops_latency;
    for (const Delivery& d : got) hops_latency.emplace_back(d.hops, d.latency);
    return hops_latency;
  };
  const auto ugal_s = run("ugal_s", "default");
  EXPECT_EQ(run("ugal", "sequential"), ugal_s);
  EXPECT_NE(run("ugal", "default"), ugal_s) << "greedy";
  EXPECT_EQ(run("ugal_s", "greedy"), run("ugal", "greedy"));
}

// Figure 5's dynamic response: every endpoint generates one batch at time 0
// and nothing more; the latest delivery is the time to deliver the batch.
// A batch delivered long before the measurement window ends leaves nothing
// to happen: the run has drained then (it used to end undrained, exit 1).
TEST(FlatflyBatch, DrainsWhenTheBatchIsDeliveredBeforeTheWindowEnds) {
  std::vector<Delivery> got;
  const RunResult r =
      run_collect(spec_of("flatfly-4x3.yaml",
                          {"routing=clos_ad", "vcs.count=3", "traffic.pattern=flatfly_worst",
                           "traffic.process=single_batch", "traffic.batch_size=4",
                           "run.warmup_ns=0", "run.measure_ns=200000"}),
                  &got);
  expect_exactly_once(r, got);
  EXPECT_EQ(got.size(), 64u * 4u);
  EXPECT_LT(r.stats.end_ps, ps_t{200000} * 1000) << "ended when nothing was left to happen";
}

TEST(FlatflyBatch, EveryEndpointSendsOneBatchAtTimeZero) {
  std::vector<Delivery> got;
  const RunResult r = run_collect(
      spec_of("flatfly-4x3.yaml", {"routing=ugal_s", "vcs.count=3", "traffic.pattern=flatfly_worst",
                                   "traffic.process=single_batch", "traffic.batch_size=8",
                                   "run.warmup_ns=0", "run.measure_ns=1"}),
      &got);
  expect_exactly_once(r, got);
  EXPECT_EQ(got.size(), 64u * 8u);
  std::map<uint32_t, int> per_source;
  for (const Delivery& d : got) per_source[d.src]++;
  ASSERT_EQ(per_source.size(), 64u);
  for (const auto& [src, n] : per_source) EXPECT_EQ(n, 8) << src;
  ps_t last = 0;
  for (const Delivery& d : got) last = std::max(last, d.latency);
  // 8 packets of 19 phits leave each endpoint one after another at best.
  EXPECT_GE(last, 8 * 19 * 1600);
  EXPECT_NEAR(r.json["latency_ns"]["max"].get<double>(), double(last) / 1000.0, 0.1);
}

TEST(FlatflyAdaptiveRun, EveryPacketExactlyOnce) {
  for (const char* routing : {"min_ad", "ugal", "ugal_s", "clos_ad"})
    for (const char* pattern : {"uniform", "flatfly_worst"}) {
      SCOPED_TRACE(std::string(routing) + " " + pattern);
      expect_exactly_once(
          spec_of("flatfly-4x3.yaml",
                  {std::string("routing=") + routing, "vcs.count=3",
                   std::string("traffic.pattern=") + pattern, "traffic.load=1.0",
                   "traffic.reply_fraction=0.3", "run.warmup_ns=0", "run.measure_ns=10000"}));
    }
  expect_exactly_once(spec_of("flatfly-32x2.yaml",
                              {"routing=ugal", "traffic.pattern=flatfly_worst", "traffic.load=0.6",
                               "run.workers=2", "run.warmup_ns=0", "run.measure_ns=5000"}));
}

TEST(FlatflyAdaptiveRun, CreditsConservedAtEveryEvent) {
  for (const char* routing : {"ugal", "clos_ad"}) {
    const RunResult r =
        run_collect(spec_of("flatfly-4x3.yaml",
                            {std::string("routing=") + routing, "vcs.count=3", "traffic.load=1.0",
                             "traffic.pattern=flatfly_worst", "run.check_invariants=true",
                             "run.warmup_ns=2000", "run.measure_ns=5000"}),
                    nullptr);
    EXPECT_TRUE(r.stats.invariant_failure.empty()) << routing << ": " << r.stats.invariant_failure;
  }
}

double mean_hops(const std::vector<Delivery>& got) {
  double h = 0;
  for (const Delivery& d : got) h += d.hops;
  return got.empty() ? 0 : h / double(got.size());
}

// Section 3.1: UGAL routes minimally at low load and non-minimally on
// adversarial traffic at high load. On the worst case every packet's minimal
// route is one hop; a detour is two.
TEST(FlatflyAdaptiveRun, UgalGoesNonMinimalOnlyUnderLoad) {
  auto worst_case = [](const char* routing, const char* load, const char* warmup_ns,
                       const char* measure_ns, std::vector<Delivery>* got) {
    const RunResult r = run_collect(
        spec_of("flatfly-32x2.yaml",
                {std::string("routing=") + routing, "traffic.pattern=flatfly_worst",
                 std::string("traffic.load=") + load, std::string("run.warmup_ns=") + warmup_ns,
                 std::string("run.measure_ns=") + measure_ns}),
        got);
    expect_exactly_once(r, *got);
    return r;
  };
  for (const char* routing : {"ugal", "ugal_s", "clos_ad"}) {
    SCOPED_TRACE(routing);
    std::vector<Delivery> idle, busy;
    worst_case(routing, "0.002", "0", "20000", &idle);
    ASSERT_GT(idle.size(), 20u);
    EXPECT_LT(mean_hops(idle), 1.05) << "zero load: minimal";
    const RunResult r1 = worst_case(routing, "0.4", "2000", "4000", &busy);
    EXPECT_GT(mean_hops(busy), 1.6) << "at load 0.4, most packets detour";
    EXPECT_GT(r1.json["accepted_load"].get<double>(), 0.2) << "far above MIN's 1/32";
  }
}

}  // namespace
}  // namespace fabemu
