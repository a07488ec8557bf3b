// Analysis of a degraded fabric (summarize_degraded, control/analysis/bisection.h):
// the routes the tables programmed around dead links and routers give, the
// pairs they cannot route, the routes they change, and the live bisection,
// with numbers worked out from the topology by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/bisection.h"
#include "control/run/fault_plan.h"
#include "control/spec/spec_loader.h"
#include "control/spec/spec_refuse.h"
#include "control/topology/clos.h"
#include "control/topology/registry.h"
#include "control/topology/torus.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

// `healthy` with the faults (without their time: "link=r0:p33 down") applied.
Fabric with_faults(const Fabric& healthy, const std::vector<std::string>& faults) {
  FaultState state(healthy);
  for (const std::string& text : faults) {
    FaultSpec f;
    std::string why;
    EXPECT_TRUE(parse_fault(text, false, &f, &why)) << why;
    std::vector<FabricFault> changes;
    EXPECT_TRUE(state.apply(f, false, &changes, &why)) << why;
  }
  return state.fabric();
}

FabricSummary degraded(const Spec& spec, const Fabric& healthy, const Fabric& f) {
  return summarize_degraded(spec, healthy, f, SampleOptions{});
}

// Every minimum cut a topology gives is crossed by its bisection_links, each
// way, on every topology shipped in topologies/ that has router links.
TEST(AnalysisFaults, TheTopologiesCutsAreMinimumBisections) {
  for (const char* file :
       {"t3e-4x4x4.yaml", "t3e-8x8x8.yaml", "t3e-8x16x8.yaml", "yarc-r2-1024.yaml",
        "clos-fig6-64.yaml", "clos-fig6-1024.yaml", "flatfly-32x2.yaml", "flatfly-4x3.yaml",
        "hypercube-4.yaml", "hypercube-10.yaml"}) {
    SCOPED_TRACE(file);
    const Spec spec =
        load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/" + file, {"run.progress_s=0"});
    const Fabric f = build_spec_fabric(spec);
    const TopologyInfo* topo = Registry::get().topology(spec.topology.family);
    ASSERT_TRUE(topo && topo->bisection_cuts);
    const int64_t links = topo->bisection_links(spec, f);
    const std::vector<BisectionCut> cuts = topo->bisection_cuts(spec, f);
    ASSERT_FALSE(cuts.empty());
    for (const BisectionCut& cut : cuts) {
      EXPECT_EQ(live_links_across(f, cut), links);
      size_t side1 = 0;  // half the endpoints on each side
      for (const FabricEndpoint& e : f.endpoints) side1 += cut[size_t(e.router)];
      EXPECT_EQ(2 * side1, f.endpoints.size());
    }
    EXPECT_FALSE(has_dead_parts(f));
    EXPECT_EQ(live_bisection_links(spec, f, links), links);
  }
  // One router, no router links: nothing to cut, the figure stays.
  const Spec r1 = yarc_spec(1, 32);
  EXPECT_TRUE(Registry::get().topology("clos")->bisection_cuts(r1, build_clos(r1)).empty());
}

// A healthy fabric described as degraded: nothing unroutable, nothing changed.
TEST(AnalysisFaults, NoFaultsNoChange) {
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric f = build_torus(spec);
  const FabricSummary plain = summarize(spec, f);
  const FabricSummary s = degraded(spec, f, f);
  EXPECT_TRUE(s.faults.degraded);
  EXPECT_FALSE(plain.faults.degraded);
  EXPECT_EQ(s.faults.unroutable_pairs, 0u);
  EXPECT_EQ(s.faults.pairs_traced, 64u * 63);
  EXPECT_EQ(s.faults.routes_changed, 0u);
  EXPECT_EQ(s.faults.hops_added, 0);
  EXPECT_DOUBLE_EQ(s.avg_hops, plain.avg_hops);
  EXPECT_DOUBLE_EQ(s.avg_hops_with_self, plain.avg_hops_with_self);
  EXPECT_DOUBLE_EQ(s.faults.healthy_avg_hops, plain.avg_hops);
  EXPECT_EQ(s.faults.healthy_diameter, plain.diameter);
  EXPECT_EQ(s.bisection_links, plain.bisection_links);
  EXPECT_EQ(s.dependencies, plain.dependencies);
}

// BlackWidow §7.7 on the rank-2 Clos (32 rank-1 routers, 32 rank-2): the
// uplink r0:p33 to rank-2 router 33 dies; r0 spreads its requests over its
// 31 live uplinks and every other rank-1 router reaches subtree 0 through
// the 31 rank-2 routers that still can. Every pair keeps its 2 hops; only
// pairs to or from subtree 0 (32 x 992 x 2) can change. The best cut takes
// the dead link across: 512 -> 511 links one way.
TEST(AnalysisFaults, ClosUplinkDownEveryPairStillRouted) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric healthy = build_clos(spec);
  const Fabric f = with_faults(healthy, {"link=r0:p33 down"});
  const FabricSummary s = degraded(spec, healthy, f);
  EXPECT_EQ(s.unroutable, 0u);
  EXPECT_EQ(s.faults.unroutable_pairs, 0u);
  EXPECT_EQ(s.faults.pairs_traced, 1024u * 1023);
  EXPECT_EQ(s.diameter, 2);
  EXPECT_DOUBLE_EQ(s.avg_hops, 2.0 * 992 / 1023);
  EXPECT_EQ(s.faults.hops_added, 0);
  EXPECT_GT(s.faults.pairs_changed, 0u);
  EXPECT_LE(s.faults.pairs_changed, 32u * 992 * 2);
  EXPECT_EQ(s.bisection_links, 511);
  EXPECT_EQ(s.faults.healthy_bisection_links, 512);
  EXPECT_DOUBLE_EQ(s.capacity / s.faults.healthy_capacity, 511.0 / 512);
  EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
  // No traced route uses the dead link (summarize counts such a route unroutable).
  const RouteTraceFn trace = make_route_tracer(spec, f);
  for (uint32_t src = 0; src < 32; ++src)
    for (uint32_t dst = 32; dst < 1024; dst += 7)
      for (const HopTrace& h : trace(trace_meta(src, dst, 4, TrafficClass::request)))
        EXPECT_FALSE(h.router == 0 && h.out_port == 33) << src << " -> " << dst;
}

// Every uplink of rank-1 router 5 dead: its 32 endpoints reach only each
// other; the pairs between them and the 992 others, both ways, are exactly
// the unroutable ones. The bisection loses its 32 uplinks: a cut with
// subtree 5 on one side and every rank-2 router on the other would have had
// them all across (480 = 512 - 32).
TEST(AnalysisFaults, ClosRouterCutOffLosesExactlyItsPairs) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric healthy = build_clos(spec);
  std::vector<std::string> faults;
  for (int p = 32; p < 64; ++p) faults.push_back("link=r5:p" + std::to_string(p) + " down");
  const Fabric f = with_faults(healthy, faults);
  const FabricSummary s = degraded(spec, healthy, f);
  EXPECT_EQ(s.faults.unroutable_pairs, 32u * (1024 - 32) * 2);
  EXPECT_EQ(s.unroutable, 32u * (1024 - 32) * 2 * 2);  // both classes
  ASSERT_EQ(s.faults.unroutable_examples.size(), kUnroutableExamples);
  EXPECT_EQ(s.faults.unroutable_examples[0], std::make_pair(0u, 160u));  // 160: subtree 5
  EXPECT_EQ(s.faults.unroutable_examples[1], std::make_pair(0u, 161u));
  EXPECT_EQ(s.first_unroutable, "0 -> 160 (request)");
  EXPECT_EQ(s.diameter, 2);
  EXPECT_EQ(s.faults.hops_added, 0);
  EXPECT_EQ(s.bisection_links, 480);
  EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
}

// A dead rank-1 router: its endpoints' pairs, with everyone and with each
// other, 32 x 1023 x 2 - 32 x 31 of them.
TEST(AnalysisFaults, ClosDeadRouterItsEndpointsPairsUnroutable) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric healthy = build_clos(spec);
  const FabricSummary s = degraded(spec, healthy, with_faults(healthy, {"router=5 down"}));
  EXPECT_EQ(s.faults.unroutable_pairs, 32u * 1023 * 2 - 32 * 31);
  EXPECT_EQ(s.bisection_links, 480);
  // A dead rank-2 router: every rank-1 router loses one of its 32 uplinks,
  // every pair is routed by the other 31, and a balanced cut keeps 16 of
  // its 32 links one way (496).
  const FabricSummary r2 = degraded(spec, healthy, with_faults(healthy, {"router=40 down"}));
  EXPECT_EQ(r2.faults.unroutable_pairs, 0u);
  EXPECT_EQ(r2.bisection_links, 496);
  EXPECT_EQ(r2.diameter, 2);
  EXPECT_TRUE(r2.deadlock_free) << r2.deadlock_cycle;
}

// T3E 4x4x4, the link between routers (0,0,0) and (1,0,0) dead (both
// directions). Direction order (+X +Y +Z -X -Y -Z, ties +) sends 48 pairs
// over +X 0->1 (from (0,0,0) to x = 1 or 2, from (3,0,0) to x = 1: 16
// destinations each) and 16 over -X 1->0 (from x = 1 to x = 0 where the
// -X hop runs in row y = z = 0). The source table gives each another
// direction-ordered path (T3E §9), the shortest alive:
//  - (0,0,0) to x = 1: -X the long way, 3 hops instead of 1: +2 (16 pairs);
//  - (0,0,0) to x = 2 and (3,0,0) to x = 1: -X, as short: +0 (32 pairs);
//  - the 16 over -X: +0 where a dimension at distance 2 can be taken the
//    other way, so that -X runs in another row (7 pairs: 16 less the 3 x 3
//    whose Y and Z distances are both 0, 1 or 3), else +2 (9 pairs).
// So 64 pairs change, 25 of them by +2 hops: 50 hops more, and the
// farthest pair ((0,0,0) to (1,2,2)) is 7 hops away. Every pair is still
// routed, and the ring cut through the dead link has 31 links one way.
TEST(AnalysisFaults, TorusLinkDownRoutesAroundIt) {
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric healthy = build_torus(spec);
  const Fabric f = with_faults(healthy, {"link=r0:p0 down"});
  ASSERT_EQ(healthy.routers[0].ports[0].peer_router, torus_router_id({4, 4, 4}, 1, 0, 0));
  const FabricSummary s = degraded(spec, healthy, f);
  EXPECT_EQ(s.unroutable, 0u);
  EXPECT_EQ(s.faults.unroutable_pairs, 0u);
  EXPECT_EQ(s.faults.pairs_changed, 64u);
  EXPECT_EQ(s.faults.routes_changed, 64u * 2);  // requests and responses alike
  EXPECT_EQ(s.faults.requests_changed, 64u);
  EXPECT_EQ(s.faults.hops_added, 50);
  EXPECT_EQ(s.diameter, 7);
  EXPECT_EQ(s.faults.healthy_diameter, 6);
  EXPECT_DOUBLE_EQ(s.avg_hops, (64.0 * 64 * 3 + 50) / (64 * 63));
  EXPECT_DOUBLE_EQ(s.faults.healthy_avg_hops, 64.0 * 64 * 3 / (64 * 63));
  EXPECT_EQ(s.bisection_links, 31);
  EXPECT_EQ(s.faults.healthy_bisection_links, 32);
  EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
}

// A dead T3E router: its one endpoint's pairs (63 each way) are unroutable
// and nothing else is (every other pair has a direction-ordered path
// around it); each ring through it is cut where it stands (31).
TEST(AnalysisFaults, TorusDeadRouterItsPairsCounted) {
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric healthy = build_torus(spec);
  const int32_t dead = torus_router_id({4, 4, 4}, 1, 1, 1);
  const FabricSummary s =
      degraded(spec, healthy, with_faults(healthy, {"router=" + std::to_string(dead) + " down"}));
  EXPECT_EQ(s.faults.unroutable_pairs, 63u * 2);
  EXPECT_EQ(s.unroutable, 63u * 2 * 2);
  EXPECT_EQ(s.faults.unroutable_examples.front(), std::make_pair(0u, uint32_t(dead)));
  EXPECT_EQ(s.bisection_links, 31);
  EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
  // Some pairs turn around it the long way: (0,1,1) to (1,2,1) went +X
  // through it, and now goes +Y then -X three hops (4 instead of 2).
  EXPECT_GT(s.faults.hops_added, 0);
}

// A flattened butterfly keeps its tables (no fault entries): the 4-ary
// 3-flat's minimal routing corrects dimension 0 first, so the dead link
// between routers 0 and 1 (digit 0 of 0 and 1) carries the routes from
// router 0 to the 4 routers whose digit 0 is 1, and from router 1 to the 4
// whose digit is 0: 4 x 16 pairs each way, discarded there. Dimension 0
// halved with digits {1, 2} on one side takes the link across: 16 -> 15.
TEST(AnalysisFaults, FlatflyKeepsItsTablesAndLosesWhatCrossedTheLink) {
  const Spec spec = load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/flatfly-4x3.yaml",
                              {"run.progress_s=0"});
  const Fabric healthy = build_spec_fabric(spec);
  ASSERT_EQ(healthy.routers[0].ports[4].peer_router, 1);
  const FabricSummary s = degraded(spec, healthy, with_faults(healthy, {"link=r0:p4 down"}));
  EXPECT_EQ(s.faults.unroutable_pairs, 4u * 16 * 2);
  EXPECT_EQ(s.faults.routes_changed, 0u);
  EXPECT_EQ(s.faults.healthy_bisection_links, 16);
  EXPECT_EQ(s.bisection_links, 15);
}

}  // namespace
}  // namespace fabemu
