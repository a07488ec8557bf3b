// The T3E's dateline VC assignment (Scott & Thorson 1996, section 4, Table 1:
// control/analysis/t3e_vc_balance.h), the VC tables runs are programmed with
// (vcs.dateline_assignment), and balanced ties at k/2.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/analysis/t3e_vc_balance.h"
#include "control/run/fault_plan.h"
#include "control/topology/torus.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

// The paper prints three decimals.
constexpr double kPrinted = 0.0005 + 1e-9;

const std::vector<T3eTable1Row>& table1() {
  static const std::vector<T3eTable1Row> rows = run_t3e_table1();
  return rows;
}

TEST(T3eVcBalance, RoutesOfARingAndTheirConstraint) {
  // Ring of 8, + direction: distances 1..3 from every node, 4 from even ones.
  const std::vector<T3eRingRoute> r = t3e_ring_routes(8);
  EXPECT_EQ(r.size(), 8u * 3 + 4);
  int constrained = 0;
  for (const T3eRingRoute& x : r) {
    EXPECT_TRUE(x.dist < 4 || x.src % 2 == 0);
    // Through node 0 (the dateline node) and on: constrained; ending at 0: free.
    EXPECT_EQ(x.constrained, x.src + x.dist > 8);
    constrained += x.constrained;
  }
  EXPECT_EQ(constrained, 4);  // 6 -> 1, 6 -> 2, 7 -> 1, 7 -> 2
  EXPECT_EQ(t3e_subring_sizes(32), (std::vector<int>{32, 16, 8, 4}));
  EXPECT_EQ(t3e_subring_sizes(12), (std::vector<int>{12, 4}));
  EXPECT_EQ(t3e_subring_sizes(4), (std::vector<int>{4}));
}

TEST(T3eVcBalance, Table1TimeOfCrossingIsThePapers) {
  ASSERT_EQ(table1().size(), t3e_table1_paper().size());
  for (const T3eTable1Row& r : table1()) {
    ASSERT_TRUE(r.paper) << r.ring << "/" << r.subring;
    EXPECT_NEAR(r.toc.avg, r.paper->toc_avg, kPrinted) << r.ring << "/" << r.subring;
    EXPECT_EQ(r.toc.max, r.paper->toc_max) << r.ring << "/" << r.subring;
  }
  // Exactly: ring 8 is 13/16; a subring of 4 is (3/4 + 1 + 3/4 + 0) / 4.
  EXPECT_DOUBLE_EQ(table1()[1].toc.avg, 13.0 / 16);
  EXPECT_DOUBLE_EQ(table1()[2].toc.avg, 2.5 / 4);
}

TEST(T3eVcBalance, Table1OptimisedMatchesOrBeatsThePaperWithinBounds) {
  for (const T3eTable1Row& r : table1()) {
    const std::string at = std::to_string(r.ring) + "/" + std::to_string(r.subring);
    // Strictly better than time of crossing, on average and (with one
    // exception, the 32-node T3E table's subrings of 8 and 4, as in the
    // paper) at the worst link.
    EXPECT_LT(r.t3e.avg, r.toc.avg) << at;
    EXPECT_LT(r.full.avg, r.toc.avg) << at;
    EXPECT_LT(r.full.max, r.toc.max) << at;
    if (r.ring < 32 || r.subring > 8) {
      EXPECT_LT(r.t3e.max, r.toc.max) << at;
    }
    // Rings of 4 and 8: the paper's figures.
    if (r.ring <= 8) {
      EXPECT_NEAR(r.t3e.avg, r.paper->t3e_avg, kPrinted) << at;
      EXPECT_NEAR(r.t3e.max, r.paper->t3e_max, kPrinted) << at;
      EXPECT_NEAR(r.full.avg, r.paper->full_avg, kPrinted) << at;
      EXPECT_NEAR(r.full.max, r.paper->full_max, kPrinted) << at;
    }
    // Larger rings: the trade-off between the whole ring and its subrings is
    // our objective's, not the paper's (docs/fabrics/t3e.md); never worse than
    // the paper's by more than 0.04 on average or 0.02 at the worst link.
    EXPECT_LE(r.full.avg, r.paper->full_avg + 0.04 + kPrinted) << at;
    EXPECT_LE(r.full.max, r.paper->full_max + 0.02) << at;
    EXPECT_LE(r.t3e.avg, r.paper->t3e_avg + 0.04 + kPrinted) << at;
    EXPECT_LE(r.t3e.max, r.paper->t3e_max + 0.02) << at;
  }
}

TEST(T3eVcBalance, TableLimitCostsOnlyThe32NodeRing) {
  // In rings of 4, 8 and 16 no two routes of a source share an entry of the 8-entry
  // table: the limited search is the full one. At 32 the limit costs balance
  // (the paper: "noticeably degrades the VC balance for the 32-node ring").
  for (int k : {4, 8, 16}) {
    EXPECT_EQ(t3e_vc_assignment(k, T3eVcScheme::optimised).vc,
              t3e_vc_assignment(k, T3eVcScheme::optimised_full).vc)
        << k;
  }
  const auto t3e = t3e_vc_balance(t3e_vc_assignment(32, T3eVcScheme::optimised));
  const auto full = t3e_vc_balance(t3e_vc_assignment(32, T3eVcScheme::optimised_full));
  EXPECT_GT(t3e[0].avg, full[0].avg);
  EXPECT_GT(t3e[2].avg, full[2].avg);  // subrings of 8
}

TEST(T3eVcBalance, AssignmentsKeepTheDatelineRuleAndTheTable) {
  for (int k : {2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 32})
    for (T3eVcScheme s :
         {T3eVcScheme::time_of_crossing, T3eVcScheme::optimised, T3eVcScheme::optimised_full}) {
      const T3eRingAssignment a = t3e_vc_assignment(k, s);
      EXPECT_EQ(t3e_vc_assignment_problem(a), "") << k << " " << t3e_vc_scheme_name(s);
    }
  // The checker does catch both faults.
  T3eRingAssignment a = t3e_vc_assignment(8, T3eVcScheme::time_of_crossing);
  for (size_t i = 0; i < a.routes.size(); ++i)
    if (a.routes[i].constrained) a.vc[i] = 1;
  EXPECT_NE(t3e_vc_assignment_problem(a).find("dateline"), std::string::npos);
  T3eRingAssignment b = t3e_vc_assignment(32, T3eVcScheme::optimised);
  for (size_t i = 0; i < b.routes.size(); ++i)
    if (b.routes[i].src == 3 && b.routes[i].dist == 1) b.vc[i] ^= 1u;  // 3 -> 4 shares with 3 -> 12
  EXPECT_NE(t3e_vc_assignment_problem(b).find("share"), std::string::npos);
}

TEST(T3eVcBalance, Deterministic) {
  EXPECT_EQ(t3e_vc_assignment(32, T3eVcScheme::optimised).vc,
            t3e_vc_assignment(32, T3eVcScheme::optimised).vc);
}

// ---- The tables runs use ---------------------------------------------------

Spec optimised_spec(int kx, int ky, int kz) {
  Spec s = t3e_spec(kx, ky, kz);
  s.vcs.dateline_assignment = "optimised";
  return s;
}

TEST(T3eVcTables, ProgrammedFromTheOptimisedAssignmentAndItsMirror) {
  const Spec spec = optimised_spec(8, 4, 2);
  const Fabric f = build_torus(spec);
  const T3eTables t = program_t3e_tables(spec, f);
  const T3eRingAssignment a = t3e_vc_assignment(8, T3eVcScheme::optimised);
  int ones = 0;
  for (int r = 0; r < t.num_routers; ++r) {
    const int x = t.coord[r][0];
    for (int o = 0; o < 8; ++o) {
      if (o == x) continue;
      if (t3e_ring_goes_plus(x, o, 8)) {
        EXPECT_EQ((t.vc_table[r][0] >> o) & 1, a.start_vc(x, o)) << x << " +X " << o;
      } else {
        EXPECT_EQ((t.vc_table[r][3] >> o) & 1, a.start_vc(7 - x, 7 - o)) << x << " -X " << o;
      }
    }
    ones += __builtin_popcount(t.vc_table[r][0]) + __builtin_popcount(t.vc_table[r][3]);
  }
  EXPECT_GT(ones, 0);
  // Time of crossing: all zeros.
  Spec toc = spec;
  toc.vcs.dateline_assignment = "time_of_crossing";
  const T3eTables z = program_t3e_tables(toc, f);
  for (const auto& row : z.vc_table)
    for (uint8_t b : row) EXPECT_EQ(b, 0);
}

TEST(T3eVcTables, OptimisedTablesAreDatelineSafeAndDeadlockFree) {
  for (const auto& dims :
       {std::array<int, 3>{4, 4, 4}, std::array<int, 3>{8, 8, 8}, std::array<int, 3>{6, 5, 3},
        std::array<int, 3>{2, 32, 2}, std::array<int, 3>{12, 2, 1}}) {
    const Spec spec = optimised_spec(dims[0], dims[1], dims[2]);
    const Fabric f = build_torus(spec);
    const T3eTables t = program_t3e_tables(spec, f);
    std::string why;
    EXPECT_TRUE(t3e_vc_tables_safe(t, &why)) << f.name << ": " << why;
    const DeadlockReport rep = check_deadlock(spec, f);
    EXPECT_TRUE(rep.deadlock_free) << f.name << ": " << rep.description;
    EXPECT_EQ(rep.unroutable, 0u) << f.name;
  }
}

TEST(T3eVcTables, WithFaultsEveryEntryALongWayRoundNeedsStaysVc0) {
  // A dead +X link in a ring of 16: the pairs that used it go the long way
  // round -X, through the - ring's dateline node; entries shared mod 8 with
  // such a destination must then be VC0. The tables stay safe for every
  // rewritten path and the fabric deadlock free.
  const Spec spec = optimised_spec(16, 2, 1);
  const Fabric healthy = build_torus(spec);
  FaultState state(healthy);
  FaultSpec fault;
  std::string why;
  ASSERT_TRUE(parse_fault("link=r6:p0 down", false, &fault, &why)) << why;  // x = 3, +X
  std::vector<FabricFault> changes;
  ASSERT_TRUE(state.apply(fault, false, &changes, &why)) << why;
  const Fabric f = state.fabric();
  const T3eTables before = program_t3e_tables(spec, healthy);
  const T3eTables after = program_t3e_tables(spec, f);
  int ones_before = 0, ones_after = 0;
  for (int r = 0; r < after.num_routers; ++r)
    for (int d = 0; d < 6; ++d) {
      ones_before += __builtin_popcount(before.vc_table[r][d]);
      ones_after += __builtin_popcount(after.vc_table[r][d]);
    }
  EXPECT_LT(ones_after, ones_before);
  EXPECT_GT(ones_after, 0);
  EXPECT_TRUE(t3e_vc_tables_safe(after, &why)) << why;
  const DeadlockReport rep = check_deadlock(spec, f);
  EXPECT_TRUE(rep.deadlock_free) << rep.description;
}

// Per + link of X (router x, port 0), #VC0 and #VC1 request routes over all
// pairs of a kx x 1 x 1 torus as traced through the dataplane's policy.
struct LinkVcs {
  std::vector<int> vc0, vc1;
};
LinkVcs traced_ring(const Spec& spec) {
  const Fabric f = build_torus(spec);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  const int k = spec.topology.dims[0];
  LinkVcs l{std::vector<int>(k, 0), std::vector<int>(k, 0)};
  for (int s = 0; s < k; ++s)
    for (int d = 0; d < k; ++d) {
      if (s == d) continue;
      for (const HopTrace& h : trace(trace_meta(s, d, 2, TrafficClass::request)))
        if (h.out_port == 0) ++(h.out_vc == 0 ? l.vc0 : l.vc1)[f.routers[h.router].coord[0]];
    }
  return l;
}

TEST(T3eVcTables, TracedRoutesGiveTheAnalysisBalance) {
  // The whole-ring balance of the runs' routes is the analysis' Table 1
  // figure: what the dataplane does is what was analysed.
  for (int k : {4, 8, 16}) {
    for (const char* scheme : {"time_of_crossing", "optimised"}) {
      Spec spec = optimised_spec(k, 1, 1);
      spec.vcs.dateline_assignment = scheme;
      const LinkVcs l = traced_ring(spec);
      int norm = 0;
      for (int x = 0; x < k; ++x) norm = std::max(norm, l.vc0[x] + l.vc1[x]);
      double sum = 0, worst = 0;
      for (int x = 0; x < k; ++x) {
        const double b = std::abs(l.vc0[x] - l.vc1[x]) / double(norm);
        sum += b;
        worst = std::max(worst, b);
      }
      const T3eVcScheme s = std::string(scheme) == "optimised" ? T3eVcScheme::optimised
                                                               : T3eVcScheme::time_of_crossing;
      const T3eVcBalance want = t3e_vc_balance(t3e_vc_assignment(k, s))[0];
      EXPECT_DOUBLE_EQ(sum / k, want.avg) << k << " " << scheme;
      EXPECT_DOUBLE_EQ(worst, want.max) << k << " " << scheme;
    }
  }
}

// Router-to-router link loads of every pair's request route, summed over the
// + and over the - links of each dimension, and the extremes per link.
struct DirectionLoads {
  std::array<int64_t, 6> total{};
  int64_t min_link = -1, max_link = 0;
};
DirectionLoads uniform_loads(const Spec& spec) {
  const Fabric f = build_torus(spec);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  std::map<std::pair<int, int>, int64_t> link;
  const uint32_t e = static_cast<uint32_t>(f.endpoints.size());
  for (uint32_t s = 0; s < e; ++s)
    for (uint32_t d = 0; d < e; ++d)
      if (s != d)
        for (const HopTrace& h : trace(trace_meta(s, d, 2, TrafficClass::request)))
          if (h.out_port < 6) ++link[{h.router, h.out_port}];
  DirectionLoads out;
  for (const auto& [rp, n] : link) {
    out.total[rp.second] += n;
    out.min_link = out.min_link < 0 ? n : std::min(out.min_link, n);
    out.max_link = std::max(out.max_link, n);
  }
  return out;
}

TEST(T3eTies, BalancedTiesLoadPlusAndMinusLinksEqually) {
  // 4x4x4 uniform traffic: distance 2 is a tie in every dimension. Balanced
  // (the T3E's direction order), every link carries the same load; with
  // ties + (dimension order, the BlackWidow paper's torus) a + link carries
  // three times a - link's (1 + 2 routes per ring position against 1).
  Spec spec = t3e_spec(4, 4, 4);
  const DirectionLoads bal = uniform_loads(spec);
  for (int d = 0; d < 3; ++d) EXPECT_EQ(bal.total[d], bal.total[d + 3]) << d;
  EXPECT_EQ(bal.min_link, bal.max_link);
  spec.routing = "dimension_order";
  const DirectionLoads plus = uniform_loads(spec);
  for (int d = 0; d < 3; ++d) EXPECT_EQ(plus.total[d], 3 * plus.total[d + 3]) << d;
  // An odd ring has no ties; a ring of 6 balances them too.
  const DirectionLoads six = uniform_loads(t3e_spec(6, 3, 1));
  EXPECT_EQ(six.total[0], six.total[3]);
  EXPECT_EQ(six.total[1], six.total[4]);
}

}  // namespace
}  // namespace fabemu
