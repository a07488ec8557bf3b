// The Cray T3E's adaptive VC (Scott & Thorson 1996, sections 2.4, 3.4, 5):
// `routing: adaptive` on the torus family. Every choice is minimal; the
// adaptive VC takes a packet only with room for all of it; the escape to
// the deterministic VCs and its dateline VCs; the deadlock check over the
// deterministic VCs with every adaptive choice (and that it can fail);
// faults turn adaptivity off where they touch a minimal path; runs at full
// load deliver every packet exactly once with the invariants checked.
#include "dataplane/routing/t3e_adaptive.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/spec/spec_error.h"
#include "control/topology/registry.h"
#include "control/topology/torus.h"
#include "control/topology/torus_adaptive.h"
#include "dataplane/routing/selection.h"
#include "tests/support/fabric_specs.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

Spec adaptive_spec(int kx, int ky, int kz) {
  Spec s = t3e_spec(kx, ky, kz);
  s.routing = "adaptive";
  return s;
}

int ring_distance(int a, int b, int k) {
  const int d = ((b - a) % k + k) % k;
  return std::min(d, k - d);
}

// The endpoint of router (x, y, z) (one per router).
uint32_t ep(const Spec& s, int x, int y, int z) {
  return static_cast<uint32_t>(torus_router_id(s.topology.dims, x, y, z));
}

TEST(T3eAdaptive, RegisteredWithFiveVcsAndEveryChoiceTraced) {
  const RoutingInfo* r = Registry::get().routing("torus", "adaptive");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_vcs, 5) << "2 request + 2 response + 1 adaptive VC";
  EXPECT_EQ(r->max_vcs, 5);
  EXPECT_TRUE(r->make_choice_tracer) << "the deadlock check follows every adaptive choice";
  const Spec spec = adaptive_spec(4, 4, 4);
  const Fabric f = build_torus(spec);
  EXPECT_TRUE(policy_routes_on_state<T3eAdaptive>(program_t3e_adaptive_tables(spec, f)));
}

// Every route every choice allows is minimal: each hop goes in a direction
// of the source table's path whose dimension is unresolved, on the class's
// VC pair or the adaptive VC; the deterministic route is among them.
TEST(T3eAdaptive, EveryChoiceIsAProfitableHop) {
  for (const auto& dims : {std::array<int, 3>{4, 4, 4}, std::array<int, 3>{3, 5, 4}}) {
    const Spec spec = adaptive_spec(dims[0], dims[1], dims[2]);
    const Fabric f = build_torus(spec);
    const T3eAdaptiveTables t = program_t3e_adaptive_tables(spec, f);
    const PortPeers ports(f);
    std::vector<HopTrace> path;
    uint64_t adaptive_hops = 0;
    for (uint32_t s = 0; s < f.endpoints.size(); ++s)
      for (uint32_t d = 0; d < f.endpoints.size(); ++d)
        for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
          const auto& sc = f.routers[size_t(s)].coord;
          const auto& dc = f.routers[size_t(d)].coord;
          int want = 0;
          for (int i = 0; i < 3; ++i) want += ring_distance(sc[i], dc[i], dims[i]);
          const uint8_t base = cls == TrafficClass::request ? 0 : 2;
          const std::vector<HopTrace> det =
              trace_route<T3eDirectionOrder>(t, f, trace_meta(s, d, 10, cls));
          bool det_seen = false;
          ASSERT_TRUE(for_each_route_choice<T3eAdaptive>(
              t, f, trace_meta(s, d, 10, cls), path, ports, [&](const std::vector<HopTrace>& p) {
                ASSERT_EQ(static_cast<int>(p.size()) - 1, want) << s << " -> " << d;
                std::array<int, 3> at = sc;
                for (size_t i = 0; i + 1 < p.size(); ++i) {
                  const int dir = p[i].out_port, dim = dir % 3;
                  ASSERT_LT(dir, 6);
                  const int before = ring_distance(at[dim], dc[dim], dims[dim]);
                  at[dim] = (at[dim] + (dir < 3 ? 1 : dims[dim] - 1)) % dims[dim];
                  EXPECT_EQ(ring_distance(at[dim], dc[dim], dims[dim]), before - 1)
                      << "a hop that is not profitable, " << s << " -> " << d;
                  const uint8_t vc = p[i].out_vc;
                  EXPECT_TRUE(vc == base || vc == base + 1 || vc == kT3eAdaptiveVc) << int(vc);
                  adaptive_hops += vc == kT3eAdaptiveVc;
                }
                bool same = p.size() == det.size();
                for (size_t i = 0; same && i < p.size(); ++i)
                  same = p[i].out_port == det[i].out_port && p[i].out_vc == det[i].out_vc;
                det_seen = det_seen || same;
              }));
          EXPECT_TRUE(det_seen) << "direction order is one of the choices, " << s << " -> " << d;
        }
    EXPECT_GT(adaptive_hops, 0u);
  }
}

// (0,0,0) -> (1,1,0): at the source det +X, adaptive +X or +Y (3); after +X
// det or adaptive +Y (2 each); after adaptive +Y, det or adaptive +X (2).
TEST(T3eAdaptive, SixRoutesToADiagonalNeighbour) {
  const Spec spec = adaptive_spec(4, 4, 4);
  const Fabric f = build_torus(spec);
  const T3eAdaptiveTables t = program_t3e_adaptive_tables(spec, f);
  std::vector<HopTrace> path;
  std::set<std::vector<int>> routes;
  ASSERT_TRUE(for_each_route_choice<T3eAdaptive>(
      t, f, trace_meta(ep(spec, 0, 0, 0), ep(spec, 1, 1, 0), 10, TrafficClass::request), path,
      PortPeers(f), [&](const std::vector<HopTrace>& p) {
        std::vector<int> r;
        for (const HopTrace& h : p) r.push_back(h.out_port * 10 + h.out_vc);
        routes.insert(r);
      }));
  const std::set<std::vector<int>> want{{0, 10, 60}, {0, 14, 64}, {4, 10, 60},
                                        {4, 14, 64}, {14, 0, 60}, {14, 4, 64}};
  EXPECT_EQ(routes, want);
}

// The candidates of a request at (0,0,0) that still has to travel +X +Y +Z,
// on queues given per (port, VC).
struct Bench {
  Spec spec = adaptive_spec(4, 4, 4);
  Fabric f = build_torus(spec);
  T3eAdaptiveTables t = program_t3e_adaptive_tables(spec, f);
  static constexpr uint32_t kNv = 5;
  uint32_t cap[kNv] = {12, 12, 12, 12, 22};
  std::vector<uint32_t> q = std::vector<uint32_t>(size_t(kMaxPorts) * kNv, 0);
  PacketMeta at_source(uint32_t dst, uint16_t units) {
    PacketMeta m = trace_meta(0, dst, units, TrafficClass::request);
    T3eAdaptive::on_inject(t, f, m);
    return m;
  }
  RouteCandidates route(const PacketMeta& m, int32_t router = 0, uint8_t in_port = 6) {
    RouteCandidates rc;
    Rng rng(1, 1);
    RoutingContext ctx{&rng, QueueView::of_queues(q.data(), kNv, cap)};
    T3eAdaptive::route(t, ctx, router, in_port, m, rc);
    return rc;
  }
  RouteCandidate pick(const PacketMeta& m) {
    return select_candidate(route(m), QueueView::of_queues(q.data(), kNv, cap), m.units);
  }
  uint32_t& queue(int port, int vc) { return q[size_t(port) * kNv + size_t(vc)]; }
};

TEST(T3eAdaptive, CandidatesDeterministicFirstThenEveryProfitableDirection) {
  Bench b;
  const PacketMeta m = b.at_source(ep(b.spec, 1, 1, 1), 10);
  const RouteCandidates rc = b.route(m);
  ASSERT_EQ(rc.count, 4);
  EXPECT_TRUE(rc.adaptive && rc.weighted);
  EXPECT_EQ(rc.c[0].port, 0);
  EXPECT_EQ(rc.c[0].vc, 0);
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(rc.c[i].port, i - 1) << "+X +Y +Z in direction order";
    EXPECT_EQ(rc.c[i].vc, kT3eAdaptiveVc);
  }
  EXPECT_EQ(b.pick(m).vc, 0) << "idle: ties go to the deterministic VC";
  // -X -Y: (0,0,0) -> (3,3,0); +Z and the rest are not profitable.
  const RouteCandidates minus = b.route(b.at_source(ep(b.spec, 3, 3, 0), 10));
  ASSERT_EQ(minus.count, 3);
  EXPECT_EQ(minus.c[0].port, 3);
  EXPECT_EQ(minus.c[1].port, 3);
  EXPECT_EQ(minus.c[2].port, 4);
  // Ejection at the destination: one candidate, the PE port.
  const RouteCandidates here =
      b.route(b.at_source(ep(b.spec, 0, 0, 0), 10), 0, static_cast<uint8_t>(6));
  ASSERT_EQ(here.count, 1);
  EXPECT_EQ(here.c[0].port, 6);
  EXPECT_FALSE(here.adaptive);
}

TEST(T3eAdaptive, TakesTheOutputWithTheShortestQueue) {
  Bench b;
  const PacketMeta m = b.at_source(ep(b.spec, 1, 1, 1), 10);
  for (int p = 0; p < 3; ++p) b.queue(p, 1) = 8;  // every channel as busy
  EXPECT_EQ(b.pick(m).port, 0);
  EXPECT_EQ(b.pick(m).vc, 0) << "ties: the deterministic VC";
  b.queue(1, 1) = 3;  // +Y the least busy
  b.queue(2, 1) = 5;
  const RouteCandidate c = b.pick(m);
  EXPECT_EQ(c.port, 1);
  EXPECT_EQ(c.vc, kT3eAdaptiveVc);
}

// Section 5: "We require that the adaptive buffer have space available for
// the entire packet in order to route a packet on that VC." A 22-flit
// adaptive buffer takes two 10-flit packets together and never a third;
// the routing counts what it has routed there and not yet sent.
TEST(T3eAdaptive, AdaptiveVcOnlyWithRoomForTheWholePacket) {
  Bench b;
  const PacketMeta m = b.at_source(ep(b.spec, 2, 0, 0), 10);  // +X only
  b.queue(0, 0) = 12;  // the deterministic VC is full: the adaptive one is tried first
  auto adaptive_offered = [&] {
    const RouteCandidates rc = b.route(m);
    for (uint32_t i = 0; i < rc.count; ++i)
      if (rc.c[i].vc == kT3eAdaptiveVc) return true;
    return false;
  };
  for (uint32_t q4 : {0u, 5u, 12u}) {
    b.queue(0, kT3eAdaptiveVc) = q4;
    EXPECT_TRUE(adaptive_offered()) << q4 << " + 10 <= 22";
  }
  for (uint32_t q4 : {13u, 20u, 22u}) {
    b.queue(0, kT3eAdaptiveVc) = q4;
    EXPECT_FALSE(adaptive_offered()) << q4 << " + 10 > 22";
    const RouteCandidates rc = b.route(m);
    ASSERT_EQ(rc.count, 1);
    EXPECT_EQ(rc.c[0].vc, 0) << "no room anywhere adaptive: the deterministic VC";
  }
  // Sequential decisions through the live view (credits plus units routed
  // and not yet sent): 10-flit packets one after another.
  const uint32_t nv = Bench::kNv;
  std::vector<uint32_t> pending(size_t(kMaxPorts) * nv, 0);
  std::vector<uint32_t> queues(size_t(kMaxPorts) * nv, 0);
  queues[0 * nv + 0] = 12;
  int on_adaptive = 0;
  for (int i = 0; i < 4; ++i) {
    // Downstream occupancy as a frozen queue, plus this router's pending.
    std::vector<uint32_t> seen = queues;
    for (size_t j = 0; j < seen.size(); ++j) seen[j] += pending[j];
    const QueueView v = QueueView::of_queues(seen.data(), nv, b.cap);
    RouteCandidates rc;
    Rng rng(1, 1);
    RoutingContext ctx{&rng, v};
    T3eAdaptive::route(b.t, ctx, 0, 6, m, rc);
    const RouteCandidate c = select_candidate(rc, v, 10);
    if (c.vc == kT3eAdaptiveVc) {
      ++on_adaptive;
      EXPECT_LE(seen[c.port * nv + c.vc] + 10, 22u) << "sent onto VC 4 without room";
    }
    pending[c.port * nv + c.vc] += 10;
  }
  EXPECT_EQ(on_adaptive, 2) << "two 10-flit packets share the 22-flit buffer, a third waits";
}

TEST(T3eAdaptive, PacketsNotMarkedAdaptiveTakeDirectionOrderOnly) {
  Bench b;
  b.t.adaptive_share = 0;
  const PacketMeta m = b.at_source(ep(b.spec, 1, 1, 1), 10);
  EXPECT_FALSE(m.route[3] & kT3ePathAdaptive);
  const RouteCandidates rc = b.route(m);
  ASSERT_EQ(rc.count, 1);
  EXPECT_EQ(rc.c[0].port, 0);
  EXPECT_FALSE(policy_routes_on_state<T3eAdaptive>(b.t));
  // A share marks about that fraction of packet ids.
  b.t.adaptive_share = kT3eAdaptiveShareOne / 4;
  int marked = 0;
  for (uint64_t id = 0; id < 4000; ++id) marked += T3eAdaptive::marked_adaptive(b.t, id);
  EXPECT_NEAR(marked, 1000, 60);
  // Adaptivity off in the table entry (as a fault leaves it).
  Bench c;
  c.t.path[size_t(0) * 64 + ep(c.spec, 1, 1, 1)] &= static_cast<uint8_t>(~kT3ePathAdaptive);
  EXPECT_EQ(c.route(c.at_source(ep(c.spec, 1, 1, 1), 10)).count, 1);
}

// traffic.adaptive_fraction: the share of packets the sources mark, for
// routing adaptive only; 0 is direction order.
TEST(T3eAdaptive, AdaptiveFractionFromTheSpec) {
  const Spec half =
      spec_of("t3e-4x4x4.yaml", {"routing=adaptive", "traffic.adaptive_fraction=0.5"});
  EXPECT_EQ(program_t3e_adaptive_tables(half, build_torus(half)).adaptive_share,
            kT3eAdaptiveShareOne / 2);
  try {
    spec_of("t3e-4x4x4.yaml", {"traffic.adaptive_fraction=0.5"});
    ADD_FAILURE() << "a fraction with direction-order routing is refused";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("set routing: adaptive"), std::string::npos) << e.what();
  }
  const Spec none = spec_of("t3e-4x4x4.yaml", {"routing=adaptive", "traffic.adaptive_fraction=0"});
  const T3eAdaptiveTables t = program_t3e_adaptive_tables(none, build_torus(none));
  EXPECT_FALSE(policy_routes_on_state<T3eAdaptive>(t));
}

// A packet on the adaptive VC drops back to the deterministic VCs at any
// router, entering them as a new direction: the VC table's bit, which is
// VC0 for a route that passes through the ring's dateline node (where the
// wrap link arrives) and switches to VC1 there.
TEST(T3eAdaptive, EscapeFromTheAdaptiveVcKeepsTheDatelineRules) {
  Bench b;
  PacketMeta m = b.at_source(ep(b.spec, 1, 0, 0), 10);  // (0,0,0) -> (1,0,0): +X
  // On VC 4 at (3,0,0), arrived travelling +X (input port 3), towards
  // (1,0,0): the route ahead, 3 -> 0 -> 1, passes through the dateline
  // node 0, so it enters on VC0.
  m.vc = kT3eAdaptiveVc;
  const int32_t r3 = torus_router_id(b.spec.topology.dims, 3, 0, 0);
  RouteCandidates rc = b.route(m, r3, 3);
  ASSERT_GE(rc.count, 1);
  EXPECT_EQ(rc.c[0].port, 0);
  EXPECT_EQ(rc.c[0].vc, 0) << "a route through the dateline node starts on VC0";
  // At (0,0,0), the dateline node, after crossing adaptively: a route that
  // starts here passes through no dateline node, so the VC table decides
  // ("reenter the non-adaptive subnetwork on VC0", or VC1).
  b.t.vc_table[0][0] = 0;
  rc = b.route(m, 0, 3);
  EXPECT_EQ(rc.c[0].vc, 0);
  b.t.vc_table[0][0] = 1u << 1;  // +X towards ordinate 1: VC1
  rc = b.route(m, 0, 3);
  EXPECT_EQ(rc.c[0].vc, 1);
  // On a deterministic VC going straight through the dateline node, VC0
  // becomes VC1 (the table is not read).
  m.vc = 0;
  b.t.vc_table[0][0] = 0;
  rc = b.route(m, 0, 3);
  EXPECT_EQ(rc.c[0].vc, 1);
  std::string why;
  EXPECT_TRUE(t3e_vc_tables_safe(b.t, &why)) << why;
}

// ---- deadlock --------------------------------------------------------------------

TEST(T3eAdaptiveDeadlock, DeterministicVcsAcyclicWithEveryAdaptiveChoice) {
  for (const auto& dims : {std::array<int, 3>{2, 2, 2}, std::array<int, 3>{4, 4, 4},
                           std::array<int, 3>{3, 5, 4}, std::array<int, 3>{8, 4, 2}}) {
    const Spec spec = adaptive_spec(dims[0], dims[1], dims[2]);
    const Fabric f = build_torus(spec);
    const DeadlockReport rep = check_deadlock(spec, f);
    EXPECT_TRUE(rep.deadlock_free) << f.name << ": " << rep.description;
    EXPECT_EQ(rep.unroutable, 0u) << f.name;
    // At least direction order's own: its routes are among the choices.
    Spec det = spec;
    det.routing = "direction_order";
    EXPECT_GE(rep.dependencies, check_deadlock(det, f).dependencies) << f.name;
  }
}

// The graph of one packet's escape dependencies: (router, port, VC) pairs.
ChannelDependencyGraph escape_graph(const T3eAdaptiveTables& t, const Fabric& f, bool* ok) {
  ChannelDependencyGraph g(f);
  const PortPeers ports(f);
  std::vector<HopTrace> scratch;
  *ok = true;
  for (uint32_t s = 0; s < f.endpoints.size(); ++s)
    for (uint32_t d = 0; d < f.endpoints.size(); ++d)
      for (TrafficClass cls : {TrafficClass::request, TrafficClass::response})
        *ok = t3e_escape_dependencies(t, f, ports, trace_meta(s, d, 10, cls), scratch,
                                      [&](const std::vector<HopTrace>& p) {
                                        EXPECT_EQ(p.size(), 2u);
                                        EXPECT_NE(p[0].out_vc, kT3eAdaptiveVc);
                                        EXPECT_NE(p[1].out_vc, kT3eAdaptiveVc);
                                        g.add_path(p);
                                      }) &&
              *ok;
  return g;
}

// The check can fail: VC tables that start packets on VC1 where their ring
// crosses a dateline close a cycle, and the adaptive VC alone is cyclic
// (section 3.4: "The adaptive virtual network is actually cyclic"), which
// is why the check rests on the whole-packet rule and not on VC 4.
TEST(T3eAdaptiveDeadlock, TheCheckFindsCycles) {
  // (A ring of 5: on a ring of 4 with balanced ties no route passes through
  // a dateline node, so no VC table could close a cycle.)
  const Spec five = adaptive_spec(5, 4, 4);
  const Fabric f5 = build_torus(five);
  T3eAdaptiveTables t = program_t3e_adaptive_tables(five, f5);
  bool ok = false;
  EXPECT_TRUE(escape_graph(t, f5, &ok).find_cycle().empty());
  EXPECT_TRUE(ok);
  for (auto& row : t.vc_table) row.fill(0xFF);  // VC1 everywhere
  EXPECT_FALSE(t3e_vc_tables_safe(t));
  EXPECT_FALSE(escape_graph(t, f5, &ok).find_cycle().empty());

  const Spec spec = adaptive_spec(4, 4, 4);
  const Fabric f = build_torus(spec);

  // Every route with its adaptive hops in the graph: a cycle on VC 4.
  const T3eAdaptiveTables plain = program_t3e_adaptive_tables(spec, f);
  ChannelDependencyGraph all(f);
  const PortPeers ports(f);
  std::vector<HopTrace> path;
  for (uint32_t s = 0; s < 64; ++s)
    for (uint32_t d = 0; d < 64; ++d)
      for_each_route_choice<T3eAdaptive>(plain, f, trace_meta(s, d, 10, TrafficClass::request),
                                         path, ports,
                                         [&](const std::vector<HopTrace>& p) { all.add_path(p); });
  const std::vector<Channel> cycle = all.find_cycle();
  ASSERT_FALSE(cycle.empty());
  bool through_vc4 = false;
  for (const Channel& c : cycle) through_vc4 = through_vc4 || c.vc == kT3eAdaptiveVc;
  EXPECT_TRUE(through_vc4) << describe_cycle(f, cycle);
}

// ---- faults ----------------------------------------------------------------------

// Section 2: the table entry's adaptivity bit is "used to disable
// adaptivity in the event of a faulty link in one of the minimal paths".
TEST(T3eAdaptiveFaults, AdaptivityOffWhereAFaultTouchesAMinimalPath) {
  const Spec spec = adaptive_spec(4, 4, 4);
  Fabric f = build_torus(spec);
  // The +X link (1,0,0) -> (2,0,0), both ends.
  const int32_t r = torus_router_id(spec.topology.dims, 1, 0, 0);
  FabricPort& p = f.routers[size_t(r)].ports[0];
  f.routers[size_t(p.peer_router)].ports[size_t(p.peer_port)].dead = true;
  p.dead = true;
  const T3eAdaptiveTables t = program_t3e_adaptive_tables(spec, f);
  auto allowed = [&](int sx, int sy, int sz, int dx, int dy, int dz) {
    const auto& k = spec.topology.dims;
    const uint8_t e = t.path[size_t(torus_router_id(k, sx, sy, sz)) * 64 +
                             size_t(torus_router_id(k, dx, dy, dz))];
    return (e & kT3ePathAdaptive) != 0;
  };
  EXPECT_FALSE(allowed(0, 0, 0, 2, 1, 0)) << "a minimal path takes the dead link";
  EXPECT_FALSE(allowed(1, 1, 0, 2, 0, 0)) << "-Y then +X takes it";
  EXPECT_TRUE(allowed(0, 1, 0, 2, 1, 0)) << "every minimal path stays at y = 1";
  EXPECT_FALSE(allowed(2, 0, 0, 1, 0, 0)) << "-X: the link's other direction died with it";
  EXPECT_TRUE(allowed(3, 0, 0, 2, 0, 0)) << "-X ending where the dead link starts";
  EXPECT_TRUE(allowed(0, 0, 0, 1, 1, 1)) << "x stops at 1";
  // The check sees a choice into the fault: with adaptivity left on, the
  // pair whose direction-order path avoids the link is unroutable.
  T3eAdaptiveTables unsafe = t;
  const auto& k = spec.topology.dims;
  const uint32_t src = ep(spec, 1, 1, 0), dst = ep(spec, 2, 0, 0);
  unsafe.path[size_t(torus_router_id(k, 1, 1, 0)) * 64 + size_t(torus_router_id(k, 2, 0, 0))] |=
      kT3ePathAdaptive;
  std::vector<HopTrace> scratch;
  const PortPeers ports(f);
  const auto ignore = [](const std::vector<HopTrace>&) {};
  EXPECT_TRUE(t3e_escape_dependencies(t, f, ports, trace_meta(src, dst, 10, TrafficClass::request),
                                      scratch, ignore));
  EXPECT_FALSE(t3e_escape_dependencies(
      unsafe, f, ports, trace_meta(src, dst, 10, TrafficClass::request), scratch, ignore));
  // No adaptive choice reaches the dead link: every pair routed, the
  // deterministic VCs acyclic.
  Spec healthy_spec = spec;
  const FabricSummary s = summarize_degraded(spec, build_torus(healthy_spec), f, SampleOptions{});
  EXPECT_EQ(s.faults.unroutable_pairs, 0u);
  EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
}

// ---- runs ------------------------------------------------------------------------

// Load 1.0 (far beyond saturation) under uniform and the adversarial
// patterns, requests and responses, with the invariants (credits, buffer
// occupancy) checked at every event: nothing is lost, nothing deadlocks.
TEST(T3eAdaptiveRun, EveryPacketExactlyOnceAtFullLoad) {
  for (const char* pattern : {"uniform", "tornado", "bitcomp"}) {
    Spec s = spec_of("t3e-4x4x4.yaml",
                     {"routing=adaptive", std::string("traffic.pattern=") + pattern,
                      "traffic.load=1.0", "traffic.reply_fraction=0.3", "run.warmup_ns=0",
                      "run.measure_ns=20000", "run.check_invariants=true"});
    std::vector<Delivery> got;
    const RunResult r = run_exactly_once(s, &got);
    EXPECT_TRUE(r.stats.invariant_failure.empty()) << pattern << ": " << r.stats.invariant_failure;
    EXPECT_GT(r.stats.invariant_checks, 1000u) << pattern;
    EXPECT_GT(got.size(), 1000u) << pattern;
    // The adaptive VC carried packets, several at a time (10-flit requests,
    // 3-flit responses), never more than its 22 flits.
    const auto& vc4 = r.json["vcs"][kT3eAdaptiveVc];
    EXPECT_GT(vc4["packets"].get<uint64_t>(), 100u) << pattern;
    if (std::string(pattern) == "uniform") {
      EXPECT_GT(vc4["peak_occupancy"].get<uint32_t>(), 10u) << "packets share the buffer";
    }
    EXPECT_LE(vc4["peak_occupancy"].get<uint32_t>(), 22u) << pattern;
  }
  // The same with the routers split over two workers.
  expect_exactly_once(spec_of(
      "t3e-4x4x4.yaml", {"routing=adaptive", "traffic.pattern=bitcomp", "traffic.load=1.0",
                         "traffic.reply_fraction=0.5", "run.workers=2", "run.measure_ns=10000"}));
}

double accepted(const char* file, const std::string& routing, const std::string& pattern,
                double load, const char* sizes) {
  const RunResult r = run_collect(
      spec_of(file, {"routing=" + routing, "traffic.pattern=" + pattern,
                     "traffic.load=" + std::to_string(load), std::string("traffic.sizes=") + sizes,
                     "run.warmup_ns=10000", "run.measure_ns=10000"}),
      nullptr);
  EXPECT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_TRUE(r.stats.drained) << routing << " " << pattern;
  return r.json["accepted_load"].get<double>();
}

// Section 5: adaptive routing "allows packets to route around local
// congestion in a network, thus improving sustained network throughput,
// especially for non-uniform communication workloads". Tornado on 8x8x8
// (3 hops + in every dimension): direction order saturates near 0.10 of
// the injection bandwidth and falls to a few hundredths beyond; the
// adaptive VC carries 0.2 (it saturates near 0.22). Bit complement on
// 4x4x4: direction order saturates near 0.14, adaptive near 0.53.
TEST(T3eAdaptiveRun, BeatsDirectionOrderOnAdversarialTraffic) {
  const double ad = accepted("t3e-8x8x8.yaml", "adaptive", "tornado", 0.2, "[64]");
  const double det = accepted("t3e-8x8x8.yaml", "direction_order", "tornado", 0.2, "[64]");
  EXPECT_GE(ad, 0.9 * 0.2) << "adaptive carries the offered 0.2";
  EXPECT_LE(det, 0.5 * ad) << "direction order is past its saturation";
  const double ad_bc = accepted("t3e-4x4x4.yaml", "adaptive", "bitcomp", 0.45, "[64]");
  const double det_bc = accepted("t3e-4x4x4.yaml", "direction_order", "bitcomp", 0.45, "[64]");
  EXPECT_GE(ad_bc, 0.9 * 0.45);
  EXPECT_LE(det_bc, 0.5 * ad_bc);
}

}  // namespace
}  // namespace fabemu
