// T3E torus and direction-order routing (Scott & Thorson 1996, sections 2-4),
// and the minimal dimension-order routing on the same tables.
#include "control/topology/torus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"
#include "dataplane/routing/t3e_direction_order.h"
#include "dataplane/routing/torus_dimension_order.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

int ring_distance(int a, int b, int k) {
  const int d = ((b - a) % k + k) % k;
  return std::min(d, k - d);
}

// Shortest direction from a to b in a ring of k, or -1; ties at k/2 go + from
// even a, - from odd a (balanced), or + from every a.
int shortest_direction(int dim, int a, int b, int k, bool ties_plus = false) {
  const int d = ((b - a) % k + k) % k;
  if (d == 0) return -1;
  if (d == k - d) return ties_plus || a % 2 == 0 ? dim : dim + 3;
  return d < k - d ? dim : dim + 3;
}

TEST(TorusLinkTiming, PaperUnitTimes) {
  Spec t3e = t3e_spec(4, 4, 4);
  EXPECT_EQ(unit_ps(t3e), 13333u);  // 70-bit flit at 5.25 Gb/s: one 75 MHz clock
  t3e.link.wire_ns = 2.5;
  EXPECT_EQ(wire_ps(t3e), 2500u);
  Spec yarc;
  yarc.link.lanes = 3;
  yarc.link.lane_gbps = 6.25;
  yarc.link.coding = 0.8;
  yarc.link.phit_bits = 24;
  yarc.link.phits_per_unit = 1;
  EXPECT_EQ(unit_ps(yarc), 1600u);  // 24-bit phit on 3 x 6.25 Gb/s, 8b/10b
  yarc.link.lanes = 0;
  EXPECT_THROW(unit_ps(yarc), std::invalid_argument);
}

TEST(TorusBuild, PortsCoordinatesAndBuffers) {
  const Spec spec = t3e_spec(4, 3, 2, 2);
  const Fabric f = build_torus(spec);
  ASSERT_EQ(f.routers.size(), 24u);
  ASSERT_EQ(f.endpoints.size(), 48u);
  EXPECT_EQ(f.num_vcs, 5);
  EXPECT_EQ(f.unit_bits, 70u);
  EXPECT_EQ(f.unit_name, "flit");
  const uint32_t want_buf[5] = {12, 12, 12, 12, 22};
  for (int v = 0; v < 5; ++v) EXPECT_EQ(f.vc_buffer_units[v], want_buf[v]);
  const std::array<int, 3> k = spec.topology.dims;
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 3; ++y)
      for (int z = 0; z < 2; ++z) {
        const int32_t id = (x * 3 + y) * 2 + z;
        const FabricRouter& r = f.routers[id];
        EXPECT_EQ(r.id, id);
        EXPECT_EQ(r.coord, (std::array<int32_t, 3>{x, y, z}));
        ASSERT_EQ(r.ports.size(), 8u);
        for (int d = 0; d < 6; ++d) {
          const FabricPort& p = r.ports[d];
          EXPECT_EQ(p.label, d);
          std::array<int, 3> c{x, y, z};
          const int dim = d % 3;
          c[dim] = (c[dim] + (d < 3 ? 1 : k[dim] - 1)) % k[dim];
          EXPECT_EQ(p.peer_router, torus_router_id(k, c[0], c[1], c[2]));
          EXPECT_EQ(p.peer_port, (d + 3) % 6);
          EXPECT_EQ(p.unit_ps, 13333u);
          EXPECT_EQ(p.wire_ps, 5000u);
          // The peer's port back is the reverse link.
          const FabricPort& back = f.routers[p.peer_router].ports[p.peer_port];
          EXPECT_EQ(back.peer_router, id);
          EXPECT_EQ(back.peer_port, d);
        }
        for (int j = 0; j < 2; ++j) {
          const FabricPort& p = r.ports[6 + j];
          EXPECT_EQ(p.endpoint, id * 2 + j);
          EXPECT_EQ(p.wire_ps, 0u);
          EXPECT_EQ(p.label, kTorusPeLabel);
          const FabricEndpoint& e = f.endpoints[id * 2 + j];
          EXPECT_EQ(e.router, id);
          EXPECT_EQ(e.port, 6 + j);
          EXPECT_EQ(e.wire_ps, 0u);
          EXPECT_EQ(e.unit_ps, 13333u);
        }
      }
  EXPECT_EQ(count_router_links(f), 24 * 6);
}

TEST(TorusBuild, SizeOneDimensionHasNoLinks) {
  const Fabric f = build_torus(t3e_spec(4, 1, 1));
  EXPECT_EQ(count_router_links(f), 4 * 2);
  EXPECT_FALSE(f.routers[0].ports[1].connected());
  EXPECT_FALSE(f.routers[0].ports[5].connected());
  EXPECT_THROW(build_torus(t3e_spec(0, 4, 4)), std::invalid_argument);
}

TEST(TorusBuild, Registered) {
  const TopologyInfo* t = Registry::get().topology("torus");
  ASSERT_NE(t, nullptr);
  const RoutingInfo* r = Registry::get().routing("torus", "direction_order");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->max_vcs, 5);
  EXPECT_EQ(r->min_vcs, 4);
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric f = t->build(spec);
  EXPECT_EQ(t->bisection_links(spec, f), 32);
  // The registered tracer programs the tables itself.
  const auto path = r->make_tracer(spec, f)(trace_meta(0, 21, 2, TrafficClass::request));
  EXPECT_EQ(path.size(), 4u);  // (0,0,0) -> (1,1,1): 3 hops, 4 routers
}

TEST(TorusBisection, CutAcrossTheLargestDimension) {
  auto b = [](int x, int y, int z) {
    const Spec s = t3e_spec(x, y, z);
    return torus_bisection_links(s, build_torus(s));
  };
  EXPECT_EQ(b(4, 4, 4), 32);
  EXPECT_EQ(b(4, 4, 8), 32);
  EXPECT_EQ(b(8, 8, 8), 128);
  // 8x16x8: 128 links each way x 600 MB/s = the paper's 153.6 GB/s bisection.
  EXPECT_EQ(b(8, 16, 8), 128);
  EXPECT_EQ(b(8, 32, 8), 128);
  EXPECT_EQ(b(2, 2, 2), 8);
  EXPECT_EQ(b(1, 1, 1), 0);
}

// Checks one traced route against the T3E rules; returns the number of VC
// switches it made.
// dimension_order: the route must take X, then Y, then Z
// (TorusDimensionOrder) rather than the T3E's +X +Y +Z -X -Y -Z.
int check_route(const T3eTables& t, const Fabric& f, uint32_t src, uint32_t dst, TrafficClass cls,
                const std::vector<HopTrace>& path, bool dimension_order = false) {
  const FabricEndpoint& se = f.endpoints[src];
  const FabricEndpoint& de = f.endpoints[dst];
  const auto& sc = f.routers[se.router].coord;
  const auto& dc = f.routers[de.router].coord;
  EXPECT_FALSE(path.empty()) << src << " -> " << dst;
  if (path.empty()) return 0;
  // Minimal: hops = sum of ring distances.
  int want_hops = 0;
  for (int d = 0; d < 3; ++d) want_hops += ring_distance(sc[d], dc[d], t.k[d]);
  EXPECT_EQ(static_cast<int>(path.size()) - 1, want_hops) << src << " -> " << dst;
  EXPECT_EQ(path.front().router, se.router);
  EXPECT_EQ(path.front().in_port, se.port);
  EXPECT_EQ(path.back().router, de.router);
  EXPECT_EQ(path.back().out_port, de.port);
  const uint8_t base = cls == TrafficClass::request ? 0 : 2;
  int prev_dir = -1, switches = 0;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const HopTrace& h = path[i];
    const int d = h.out_port;
    EXPECT_LT(d, 6);
    // Direction (or dimension) order, and each direction is the shortest
    // one (ties: + under dimension order, balanced under the T3E's).
    if (dimension_order)
      EXPECT_GE(d % 3, prev_dir < 0 ? 0 : prev_dir % 3)
          << "dimension order " << src << " -> " << dst;
    else
      EXPECT_GE(d, prev_dir) << "direction order violated " << src << " -> " << dst;
    EXPECT_EQ(d, shortest_direction(d % 3, sc[d % 3], dc[d % 3], t.k[d % 3], dimension_order));
    // Request and response VC pairs are disjoint.
    EXPECT_TRUE(h.out_vc == base || h.out_vc == base + 1) << int(h.out_vc);
    // The VC held before this hop: the same as on the incoming link when the
    // packet continues in its direction, else the VC table's choice.
    const bool continuing = i > 0 && path[i - 1].out_port == d;
    const uint8_t ord = dc[d % 3] & 7;
    const uint8_t before =
        continuing ? h.in_vc : static_cast<uint8_t>(base + ((t.vc_table[h.router][d] >> ord) & 1u));
    if (continuing) {
      EXPECT_EQ(h.in_vc, path[i - 1].out_vc);
    }
    // Passing through the dateline node (where the wrap link arrives: 0
    // going +, k-1 going -) switches VC0 to VC1; passing it on VC1 is a
    // deadlock hazard.
    const auto& rc = f.routers[h.router].coord;
    const int k = t.k[d % 3];
    const bool dateline = continuing && (d < 3 ? rc[d % 3] == 0 : rc[d % 3] == k - 1);
    if (dateline) {
      EXPECT_EQ(before, base) << "passed a dateline node on VC1: " << src << " -> " << dst;
      EXPECT_EQ(h.out_vc, base + 1) << "no switch to VC1 at the dateline";
    } else {
      EXPECT_EQ(h.out_vc, before) << "VC changed away from a dateline";
    }
    if (continuing && h.out_vc != h.in_vc) {
      ++switches;
      EXPECT_TRUE(dateline);
    }
    prev_dir = d;
  }
  return switches;
}

template <class Policy = T3eDirectionOrder>
void check_all_pairs(const Spec& spec, const T3eTables* custom = nullptr) {
  const Fabric f = build_torus(spec);
  // Dimension order is registered with ties + (the BlackWidow paper's torus).
  const T3eTables t =
      custom ? *custom
             : program_t3e_tables(
                   spec, f,
                   std::is_same_v<Policy, TorusDimensionOrder> ? T3eTies::plus : T3eTies::balanced);
  const uint32_t e = static_cast<uint32_t>(f.endpoints.size());
  int switches = 0;
  for (uint32_t s = 0; s < e; ++s)
    for (uint32_t d = 0; d < e; ++d)
      for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
        const auto path = trace_route<Policy>(t, f, trace_meta(s, d, 2, cls));
        switches += check_route(t, f, s, d, cls, path, std::is_same_v<Policy, TorusDimensionOrder>);
        if (::testing::Test::HasFailure()) return;
      }
  // Some routes pass a dateline node, so switches happen, from k = 5 (4 -> 1
  // going +; in a ring of 4 the one candidate, 3 -> 1, is a tie from an odd
  // source and goes -).
  if (*std::max_element(t.k.begin(), t.k.end()) >= 5) {
    EXPECT_GT(switches, 0);
  }
}

TEST(TorusRouting, EveryPairMinimalInDirectionOrder444) { check_all_pairs(t3e_spec(4, 4, 4)); }
TEST(TorusRouting, EveryPairMinimalInDirectionOrderOddAndTwo) {
  check_all_pairs(t3e_spec(5, 2, 3, 2));
}
TEST(TorusRouting, EveryPairMinimalInDirectionOrder222) { check_all_pairs(t3e_spec(2, 2, 2)); }

TEST(TorusRouting, EveryPairWithOptimisedVcTables) {
  // vcs.dateline_assignment optimised (the t3e profile's default): every
  // route still passes each dateline node on VC0 only.
  for (const auto& dims : {std::array<int, 3>{4, 4, 4}, std::array<int, 3>{6, 5, 4},
                           std::array<int, 3>{2, 12, 3}, std::array<int, 3>{8, 2, 2}}) {
    Spec spec = t3e_spec(dims[0], dims[1], dims[2]);
    spec.vcs.dateline_assignment = "optimised";
    check_all_pairs(spec);
    check_all_pairs<TorusDimensionOrder>(spec);
  }
}

TEST(TorusRouting, EveryPairMinimalInDimensionOrder) {
  check_all_pairs<TorusDimensionOrder>(t3e_spec(4, 4, 4));
  check_all_pairs<TorusDimensionOrder>(t3e_spec(5, 2, 3, 2));
}

TEST(TorusRouting, DimensionOrderTravelsXThenYThenZ) {
  // The BlackWidow paper's torus (Table 4, "minimal, dimension order
  // routing"): (-X, +Y, +Z) travels X, then Y, then Z, where the T3E's
  // direction order (below) takes Y and Z first.
  Spec spec = t3e_spec(4, 4, 4);
  spec.routing = "dimension_order";
  const Fabric f = build_torus(spec);
  const uint32_t src = torus_router_id(spec.topology.dims, 2, 0, 0);
  const uint32_t dst = torus_router_id(spec.topology.dims, 1, 1, 1);
  const auto p = make_route_tracer(spec, f)(trace_meta(src, dst, 2, TrafficClass::request));
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].out_port, 3);  // -X
  EXPECT_EQ(p[1].out_port, 1);  // +Y
  EXPECT_EQ(p[2].out_port, 2);  // +Z
  EXPECT_EQ(p[3].out_port, 6);  // PE
  const RoutingInfo* r = Registry::get().routing("torus", "dimension_order");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_vcs, 4);
  EXPECT_TRUE(r->deadlock_free);
}

TEST(TorusRouting, DirectionOrderNotDimensionOrder) {
  // Paper Figure 3: (-X, +Y, +Z) travels Y, then Z, then X.
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric f = build_torus(spec);
  const T3eTables t = program_t3e_tables(spec, f);
  const uint32_t src = torus_router_id(spec.topology.dims, 2, 0, 0);
  const uint32_t dst = torus_router_id(spec.topology.dims, 1, 1, 1);
  const auto p =
      trace_route<T3eDirectionOrder>(t, f, trace_meta(src, dst, 2, TrafficClass::request));
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].out_port, 1);  // +Y
  EXPECT_EQ(p[1].out_port, 2);  // +Z
  EXPECT_EQ(p[2].out_port, 3);  // -X
  EXPECT_EQ(p[3].out_port, 6);  // PE
  // Ties are balanced: distance 2 in a ring of 4 routes + from an even
  // ordinate, - from an odd one.
  const uint32_t far = torus_router_id(spec.topology.dims, 2, 2, 2);
  const auto q = trace_route<T3eDirectionOrder>(t, f, trace_meta(0, far, 2, TrafficClass::request));
  ASSERT_EQ(q.size(), 7u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(q[i].out_port, i / 2);
  const uint32_t odd = torus_router_id(spec.topology.dims, 1, 1, 1);
  const uint32_t odd_far = torus_router_id(spec.topology.dims, 3, 3, 3);
  const auto o =
      trace_route<T3eDirectionOrder>(t, f, trace_meta(odd, odd_far, 2, TrafficClass::request));
  ASSERT_EQ(o.size(), 7u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(o[i].out_port, 3 + i / 2);
}

TEST(TorusRouting, SourceTableTagAndVcStart) {
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric f = build_torus(spec);
  const T3eTables t = program_t3e_tables(spec, f);
  PacketMeta m =
      trace_meta(0, torus_router_id(spec.topology.dims, 3, 2, 1), 2, TrafficClass::response);
  T3eDirectionOrder::on_inject(t, f, m);
  EXPECT_EQ(m.route[0], 3);
  EXPECT_EQ(m.route[1], 2);
  EXPECT_EQ(m.route[2], 1);
  // x: 3 is -1 away (-X), y: 2 is a tie (+Y), z: +1 (+Z).
  EXPECT_EQ(m.route[3] & 0x3F, (1u << 3) | (1u << 1) | (1u << 2));
  EXPECT_TRUE(m.route[3] & kT3ePathAdaptive);
  EXPECT_EQ(m.route[4], 6);
  EXPECT_EQ(m.vc, 2);  // responses start on VC2
}

TEST(TorusRouting, VcTableChoosesVc1OnlyWhereNoDatelineIsCrossed) {
  const Spec spec = t3e_spec(6, 5, 4);
  const Fabric f = build_torus(spec);
  T3eTables t = program_t3e_tables(spec, f);
  EXPECT_TRUE(t3e_vc_tables_safe(t));
  // VC1 for every destination whose route does not pass the dateline node
  // (0 going +, k-1 going -).
  for (int r = 0; r < t.num_routers; ++r)
    for (int d = 0; d < 6; ++d) {
      const int s = t.coord[r][d % 3];
      const int k = t.k[d % 3];
      uint8_t bits = 0;
      for (int o = 0; o < k; ++o)
        if (d < 3 ? o >= s || o == 0 : o <= s || o == k - 1) bits |= static_cast<uint8_t>(1u << o);
      t.vc_table[r][d] = bits;
    }
  std::string why;
  ASSERT_TRUE(t3e_vc_tables_safe(t, &why)) << why;
  check_all_pairs(spec, &t);
  // Some packets do start a direction on VC1 with this table.
  const uint32_t dst = torus_router_id(spec.topology.dims, 2, 0, 0);
  const auto p = trace_route<T3eDirectionOrder>(t, f, trace_meta(0, dst, 2, TrafficClass::request));
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].out_vc, 1);
  // A bit that would make a route cross its dateline on VC1 is rejected.
  t.vc_table[torus_router_id(spec.topology.dims, 4, 0, 0)][0] |= 1u << 1;
  EXPECT_FALSE(t3e_vc_tables_safe(t, &why));
  EXPECT_NE(why.find("dateline"), std::string::npos);
}

TEST(TorusRouting, VcTableOfEightEntriesAliasesInLongRings) {
  // Rings longer than 8 index the table with the low 3 bits of the
  // destination ordinate: a bit may select VC1 only if every ordinate that
  // shares it is unconstrained ("partially constrained" large rings).
  const Spec spec = t3e_spec(2, 12, 3);
  const Fabric f = build_torus(spec);
  T3eTables t = program_t3e_tables(spec, f);
  int ones = 0;
  for (int r = 0; r < t.num_routers; ++r)
    for (int d = 0; d < 6; ++d) {
      const int s = t.coord[r][d % 3];
      const int k = t.k[d % 3];
      uint8_t bits = 0;
      for (int i = 0; i < 8; ++i) {
        bool free = true;
        for (int o = i; o < k; o += 8) free &= d < 3 ? o >= s || o == 0 : o <= s || o == k - 1;
        if (free && i < k) bits |= static_cast<uint8_t>(1u << i);
      }
      t.vc_table[r][d] = bits;
      ones += __builtin_popcount(bits);
    }
  EXPECT_GT(ones, 0);
  std::string why;
  ASSERT_TRUE(t3e_vc_tables_safe(t, &why)) << why;
  check_all_pairs(spec, &t);
  // Y = 9 aliases with Y = 1: from y = 8 going +Y both are reached, and the
  // route to 1 passes the dateline node (y = 0), so entry 1 must stay 0 even
  // though the route to 9 does not.
  const int32_t r8 = torus_router_id(spec.topology.dims, 0, 8, 0);
  EXPECT_FALSE((t.vc_table[r8][1] >> 1) & 1u);
  t.vc_table[r8][1] |= 1u << 1;
  EXPECT_FALSE(t3e_vc_tables_safe(t));
}

TEST(TorusRouting, RequestAndResponseUseDisjointVcPairs) {
  // Optimised tables: in rings of 4 (ties balanced) time of crossing never
  // needs VC1.
  Spec spec = t3e_spec(4, 4, 4);
  spec.vcs.dateline_assignment = "optimised";
  const Fabric f = build_torus(spec);
  const T3eTables t = program_t3e_tables(spec, f);
  bool seen[2][5] = {};
  for (uint32_t s = 0; s < 64; ++s)
    for (uint32_t d = 0; d < 64; ++d)
      for (TrafficClass cls : {TrafficClass::request, TrafficClass::response})
        for (const HopTrace& h : trace_route<T3eDirectionOrder>(t, f, trace_meta(s, d, 2, cls)))
          if (h.out_port < 6) seen[static_cast<int>(cls)][h.out_vc] = true;
  EXPECT_TRUE(seen[0][0] && seen[0][1] && !seen[0][2] && !seen[0][3] && !seen[0][4]);
  EXPECT_TRUE(!seen[1][0] && !seen[1][1] && seen[1][2] && seen[1][3] && !seen[1][4]);
}

TEST(TorusRouting, NeedsFourVcs) {
  Spec spec = t3e_spec(4, 4, 4);
  spec.vcs.count = 2;
  const Fabric f = build_torus(spec);
  EXPECT_THROW(program_t3e_tables(spec, f), std::invalid_argument);
}

TEST(TorusDeadlock, ChannelDependencyGraphAcyclic) {
  for (const auto& dims : {std::array<int, 3>{2, 2, 2}, std::array<int, 3>{4, 4, 4},
                           std::array<int, 3>{8, 8, 8}, std::array<int, 3>{3, 5, 4}}) {
    for (const char* routing : {"direction_order", "dimension_order"}) {
      Spec spec = t3e_spec(dims[0], dims[1], dims[2]);
      spec.routing = routing;
      const Fabric f = build_torus(spec);
      const DeadlockReport rep = check_deadlock(spec, f);
      EXPECT_TRUE(rep.deadlock_free) << f.name << " " << routing << ": " << rep.description;
      EXPECT_EQ(rep.unroutable, 0u) << f.name;
      EXPECT_GT(rep.dependencies, 0u) << f.name;
    }
  }
}

TEST(TorusLatency, Table2FallThroughPerHop) {
  Spec spec = t3e_spec(4, 4, 4);
  spec.link.wire_ns = 7.0;
  const Fabric f = build_torus(spec);
  const T3eTables t = program_t3e_tables(spec, f);
  using P = T3eDirectionOrder;
  // From the PE: end-point latency (less the wire of the link it leaves on).
  EXPECT_EQ(P::pipeline_ps(t, 0, 6, 0) + f.routers[0].ports[0].wire_ps, 133000u);
  // Arrived travelling +X (on the -X port 3), leaves +X: straight through.
  EXPECT_EQ(P::pipeline_ps(t, 0, 3, 0) + f.routers[0].ports[0].wire_ps, 40000u);
  // Arrived travelling +X, leaves +Y: a turn.
  EXPECT_EQ(P::pipeline_ps(t, 0, 3, 1) + f.routers[0].ports[1].wire_ps, 80000u);
  // Arrived travelling -Z (on port 2), leaves -Z (port 5): straight.
  EXPECT_EQ(P::pipeline_ps(t, 0, 2, 5) + f.routers[0].ports[5].wire_ps, 40000u);
  // To the PE: end-point latency, the PE link has no wire.
  EXPECT_EQ(P::pipeline_ps(t, 0, 3, 6), 133000u);

  const auto& k = spec.topology.dims;
  const ps_t flit = 13333;
  auto zl = [&](int x, int y, int z) {
    return zero_load_latency_ps(spec, f, 0, torus_router_id(k, x, y, z), 2, TrafficClass::request);
  };
  EXPECT_EQ(zl(1, 0, 0), 133000u * 2 + 2 * flit);          // neighbour
  EXPECT_EQ(zl(2, 0, 0), 133000u * 2 + 40000 + 2 * flit);  // straight
  EXPECT_EQ(zl(1, 1, 0), 133000u * 2 + 80000 + 2 * flit);  // turn
  EXPECT_EQ(zl(2, 2, 2), 133000u * 2 + 3 * 40000 + 2 * 80000 + 2 * flit);
  EXPECT_EQ(zl(0, 0, 0), 133000u + 2 * flit);  // to itself: one router
  // The same path from the trace, hop by hop: pipeline + wire = Table 2.
  const auto p = trace_route<T3eDirectionOrder>(
      t, f, trace_meta(0, torus_router_id(k, 2, 1, 0), 2, TrafficClass::request));
  ASSERT_EQ(p.size(), 4u);
  const ps_t want[4] = {133000, 40000, 80000, 133000};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(p[i].pipeline_ps + f.routers[p[i].router].ports[p[i].out_port].wire_ps, want[i]);
}

}  // namespace
}  // namespace fabemu
