// The BlackWidow ranks beyond R2 (Scott et al., ISCA 2006, section 2.2 and
// 5.1): R1.5 and R2.5 by sidelinks, R3 by rank-3 routers, their up-routing
// entries (one per peer subtree), hop counts, latency and tapers.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/spec/spec_loader.h"
#include "control/topology/clos.h"
#include "dataplane/routing/yarc_updown.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

Spec ranked(int rank, bool side, int endpoints, int uplinks = 32) {
  Spec s = yarc_spec(rank, endpoints);
  s.topology.sidelinks = side;
  s.topology.uplinks = uplinks;
  return s;
}

int count_rank(const Fabric& f, int rank) {
  int n = 0;
  for (const FabricRouter& r : f.routers) n += r.rank == rank;
  return n;
}

// Links between each pair of routers with the given label at both ends;
// checks both directions agree.
std::map<std::pair<int32_t, int32_t>, int> links_labelled(const Fabric& f, uint8_t label) {
  std::map<std::pair<int32_t, int32_t>, int> n;
  for (const FabricRouter& r : f.routers)
    for (size_t p = 0; p < r.ports.size(); ++p) {
      const FabricPort& fp = r.ports[p];
      if (fp.peer_router < 0 || fp.label != label) continue;
      const FabricPort& back = f.routers[size_t(fp.peer_router)].ports[size_t(fp.peer_port)];
      EXPECT_EQ(back.peer_router, r.id);
      EXPECT_EQ(back.peer_port, int(p));
      n[{r.id, fp.peer_router}]++;
    }
  return n;
}

// Router-to-router links on the route (routers crossed - 1), -1 if none.
int route_links(const RouteTraceFn& trace, uint32_t s, uint32_t d, TrafficClass cls) {
  const auto p = trace(trace_meta(s, d, 4, cls, static_cast<uint16_t>(s * 31 + d)));
  if (p.empty() || p.back().out_port != d % 32) return -1;
  return int(p.size()) - 1;
}

// The subtrees a router's 8 up-routing entries name (location / size),
// each entry checked to cover one subtree of mask + 1 destinations with
// `ports` sidelinks.
std::set<int> peer_subtrees(const YarcRouterTable& rt, uint16_t mask, int ports) {
  std::set<int> peers;
  for (const YarcUpEntry& u : rt.up) {
    EXPECT_TRUE(u.valid);
    EXPECT_EQ(u.mask, mask);
    EXPECT_EQ(u.n, ports);
    peers.insert(u.location / (mask + 1));
  }
  return peers;
}

TEST(ClosRanks, EndpointsAndRoutersPerRank) {
  struct Case {
    int rank;
    bool side;
    int e, r1, r2, r3;
  };
  // R1.5: 9 R1 subtrees; R2.5: 9 R2 subtrees of 512 (16 R1 routers, 32
  // rank-2 routers each); R3: 32 subtrees of 512 joined by 512 rank-3
  // routers, or at 32K 32 subtrees of 1024 by 1024.
  for (const Case& c :
       {Case{1, true, 288, 9, 0, 0}, Case{1, true, 40, 2, 0, 0}, Case{2, true, 4608, 144, 288, 0},
        Case{2, true, 600, 19, 64, 0}, Case{3, false, 16384, 512, 1024, 512},
        Case{3, false, 32768, 1024, 1024, 1024}}) {
    const Fabric f = build_clos(ranked(c.rank, c.side, c.e));
    EXPECT_EQ(int(f.endpoints.size()), c.e) << f.name;
    EXPECT_EQ(count_rank(f, 1), c.r1) << f.name;
    EXPECT_EQ(count_rank(f, 2), c.r2) << f.name;
    EXPECT_EQ(count_rank(f, 3), c.r3) << f.name;
  }
  EXPECT_THROW(build_clos(ranked(1, true, 289)), std::invalid_argument);
  EXPECT_THROW(build_clos(ranked(2, true, 4609)), std::invalid_argument);
  EXPECT_THROW(build_clos(ranked(3, false, 32769)), std::invalid_argument);
  EXPECT_THROW(build_clos(ranked(3, true, 4096)), std::invalid_argument);  // no R3.5
}

TEST(ClosRanks, R15SidelinksJoinEveryPairOfSubtrees) {
  // 32 ports per rank-1 router over 8 peers: 4 sidelinks to each.
  const Fabric f = build_clos(ranked(1, true, 288));
  const auto side = links_labelled(f, kClosSide);
  EXPECT_EQ(side.size(), 9u * 8u);
  for (const auto& [pair, n] : side) EXPECT_EQ(n, 4) << pair.first << "-" << pair.second;
  EXPECT_TRUE(links_labelled(f, kClosUp).empty());
  // 3 subtrees: 16 to each peer.
  for (const auto& [pair, n] : links_labelled(build_clos(ranked(1, true, 96)), kClosSide))
    EXPECT_EQ(n, 16);
}

TEST(ClosRanks, R25SidelinksJoinRouterJOfEverySubtree) {
  const Fabric f = build_clos(ranked(2, true, 4608));
  const auto side = links_labelled(f, kClosSide);
  // 32 planes of 9 rank-2 routers, 2 sidelinks between each pair.
  EXPECT_EQ(side.size(), 32u * 9u * 8u);
  for (const auto& [pair, n] : side) {
    const FabricRouter& a = f.routers[size_t(pair.first)];
    const FabricRouter& b = f.routers[size_t(pair.second)];
    EXPECT_EQ(a.rank, 2);
    EXPECT_EQ(a.coord[1] % 32, b.coord[1] % 32);
    EXPECT_NE(a.coord[1] / 32, b.coord[1] / 32);
    EXPECT_EQ(n, 2);
  }
  // Each rank-2 router: 16 rank-1 routers of its subtree below.
  for (const FabricRouter& r : f.routers)
    if (r.rank == 2)
      for (int p = 0; p < 16; ++p) {
        const FabricPort& fp = r.ports[size_t(p)];
        ASSERT_GE(fp.peer_router, 0);
        EXPECT_EQ(f.routers[size_t(fp.peer_router)].coord[1], r.coord[1] / 32 * 16 + p);
      }
}

TEST(ClosRanks, UpTablesHaveOneEntryPerPeerSubtree) {
  const Spec r15 = ranked(1, true, 288);
  const Fabric f15 = build_clos(r15);
  const YarcTables t15 = program_yarc_tables(r15, f15);
  const YarcRouterTable& a = t15.routers[3];
  EXPECT_EQ(a.root_location, 96);
  EXPECT_EQ(a.root_mask, 0x1F);
  EXPECT_EQ(peer_subtrees(a, 0x1F, 4), (std::set<int>{0, 1, 2, 4, 5, 6, 7, 8}));
  for (const YarcUpEntry& u : a.up)
    for (uint8_t p : std::vector<uint8_t>(u.list.begin(), u.list.begin() + u.n))
      EXPECT_EQ(f15.routers[3].ports[p].peer_router, u.location / 32);

  const Spec r25 = ranked(2, true, 4608);
  const Fabric f25 = build_clos(r25);
  const YarcTables t25 = program_yarc_tables(r25, f25);
  // Rank-1 router: entry 0, the whole network over its 32 uplinks.
  EXPECT_EQ(t25.routers[0].up[0].n, 32);
  EXPECT_FALSE(t25.routers[0].up[1].valid);
  // Rank-2 router (subtree 4, j = 5): roots 512 destinations, one entry
  // per peer subtree of 512 with its two sidelinks.
  const YarcRouterTable& b = t25.routers[144 + 4 * 32 + 5];
  EXPECT_EQ(b.root_location, 4 * 512);
  EXPECT_EQ(b.root_mask, 0x1FF);
  EXPECT_EQ(b.down_shift, 5);
  EXPECT_EQ(peer_subtrees(b, 0x1FF, 2), (std::set<int>{0, 1, 2, 3, 5, 6, 7, 8}));

  // R3 of 512-subtrees: rank-3 routers root the whole network and route
  // down on destination bits 9..13; rank 2 hashes on bits 5..12, rank 3 on
  // 10..14.
  const Spec r3 = ranked(3, false, 16384);
  const Fabric f3 = build_clos(r3);
  const YarcTables t3 = program_yarc_tables(r3, f3);
  const YarcRouterTable& top = t3.routers.back();
  EXPECT_EQ(top.root_location, 0);
  EXPECT_EQ(top.root_mask, 0x3FFF);
  EXPECT_EQ(top.down_shift, 9);
  EXPECT_EQ(top.hash_shift, 10);
  EXPECT_EQ(t3.routers[512].hash_shift, 5);
  EXPECT_EQ(t3.routers[512].up[0].n, 16);
}

TEST(ClosRanks, EveryDestinationWithTheRightHopCount) {
  // R1.5: 0 links within a rank-1 router, 1 sidelink across.
  {
    const Spec spec = ranked(1, true, 288);
    const Fabric f = build_clos(spec);
    const RouteTraceFn trace = make_route_tracer(spec, f);
    for (uint32_t s = 0; s < 288; ++s)
      for (uint32_t d = 0; d < 288; ++d)
        for (TrafficClass cls : {TrafficClass::request, TrafficClass::response})
          ASSERT_EQ(route_links(trace, s, d, cls), s / 32 == d / 32 ? 0 : 1) << s << "->" << d;
  }
  // R2.5: 2 within a subtree of 512, 3 across (up, over, down).
  {
    const Spec spec = ranked(2, true, 4608);
    const Fabric f = build_clos(spec);
    const RouteTraceFn trace = make_route_tracer(spec, f);
    for (uint32_t s : {0u, 33u, 2000u, 4607u})
      for (uint32_t d = 0; d < 4608; ++d)
        for (TrafficClass cls : {TrafficClass::request, TrafficClass::response})
          ASSERT_EQ(route_links(trace, s, d, cls), s / 32 == d / 32     ? 0
                                                   : s / 512 == d / 512 ? 2
                                                                        : 3)
              << s << "->" << d;
  }
  // R3 (16K and 32K): 4 across subtrees (up, up, down, down).
  for (int e : {16384, 32768}) {
    const Spec spec = ranked(3, false, e);
    const Fabric f = build_clos(spec);
    const RouteTraceFn trace = make_route_tracer(spec, f);
    const uint32_t sub = e > 16384 ? 1024 : 512;
    for (uint32_t s : {0u, 700u, uint32_t(e) - 1})
      for (uint32_t d = 0; d < uint32_t(e); d += 1 + (d % 7))
        ASSERT_EQ(route_links(trace, s, d, TrafficClass::request), s / 32 == d / 32     ? 0
                                                                   : s / sub == d / sub ? 2
                                                                                        : 4)
            << e << ": " << s << "->" << d;
  }
}

TEST(ClosRanks, DeadlockFreeAndFullyRoutable) {
  for (const Spec& spec : {ranked(1, true, 288), ranked(1, true, 200, 14), ranked(2, true, 1100),
                           ranked(2, true, 1600, 8), ranked(3, false, 1100, 4)}) {
    const Fabric f = build_clos(spec);
    const DeadlockReport rep = check_deadlock(spec, f);
    EXPECT_TRUE(rep.deadlock_free) << f.name << ": " << rep.description;
    EXPECT_EQ(rep.unroutable, 0u) << f.name;
  }
}

TEST(ClosRanks, DeadlockProofFromTheTables) {
  // Every rank: up, side, down in rank order on every route, from the tables.
  for (const Spec& spec :
       {yarc_spec(1, 32), yarc_spec(2, 1024), ranked(1, true, 288), ranked(2, true, 4608),
        ranked(2, true, 4608, 8), ranked(3, false, 16384), ranked(3, false, 32768)}) {
    const std::string proof = prove_clos_updown(spec, build_clos(spec));
    EXPECT_EQ(proof.rfind("every route climbs", 0), 0u) << spec.topology.endpoints << ": " << proof;
  }
  // A rank-2 router's downlink labelled as an uplink breaks the order.
  const Spec spec = yarc_spec(2, 1024);
  Fabric f = build_clos(spec);
  f.routers[32].ports[0].label = kClosUp;
  EXPECT_EQ(prove_clos_updown(spec, f).rfind("not proven", 0), 0u);
  // describe's summary of a sampled fabric carries the proof.
  const Spec r25 = ranked(2, true, 4608);
  const FabricSummary s = summarize(r25, build_clos(r25));
  EXPECT_FALSE(s.exact);
  EXPECT_TRUE(s.deadlock_free);
  EXPECT_FALSE(s.deadlock_proof.empty());
  EXPECT_TRUE(s.deadlock_verdict_certain());
  EXPECT_EQ(s.diameter, 3);
  EXPECT_EQ(s.unroutable, 0u);
}

TEST(ClosRanks, SummaryHopsAndBisection) {
  // R1.5 288: per source 31 destinations at 0 links, 256 at 1.
  const Spec r15 = ranked(1, true, 288);
  FabricSummary s = summarize(r15, build_clos(r15));
  EXPECT_EQ(s.routers, 9);
  EXPECT_EQ(s.diameter, 1);
  EXPECT_NEAR(s.avg_hops, 256.0 / 287.0, 1e-9);
  EXPECT_EQ(s.bisection_links, 4 * 5 * 4);
  EXPECT_TRUE(s.deadlock_free);
  // R2.5 1024 (2 subtrees of 512): 31 at 0, 480 at 2, 512 at 3 links.
  const Spec r25 = ranked(2, true, 1024);
  s = summarize(r25, build_clos(r25));
  EXPECT_EQ(s.diameter, 3);
  EXPECT_NEAR(s.avg_hops, (480.0 * 2 + 512.0 * 3) / 1023.0, 1e-9);
  EXPECT_EQ(s.bisection_links, 16 * 32);  // 16 sidelinks per router pair, 32 planes
  EXPECT_TRUE(s.deadlock_free);
}

TEST(ClosRanks, ZeroLoadLatency) {
  // Each router adds 31.25 ns, each wire 10 ns (injection, links,
  // ejection); a 19-phit packet serializes once at 1.6 ns a phit.
  const auto expect = [](int routers) {
    return ps_t(routers * 31250 + (routers + 1) * 10000 + 19 * 1600);
  };
  const Spec r15 = ranked(1, true, 288);
  EXPECT_EQ(zero_load_latency_ps(r15, build_clos(r15), 0, 287, 19, TrafficClass::request),
            expect(2));
  const Spec r25 = ranked(2, true, 4608);
  const Fabric f25 = build_clos(r25);
  EXPECT_EQ(zero_load_latency_ps(r25, f25, 0, 100, 19, TrafficClass::request), expect(3));
  EXPECT_EQ(zero_load_latency_ps(r25, f25, 0, 4000, 19, TrafficClass::request), expect(4));
  const Spec r3 = ranked(3, false, 16384);
  EXPECT_EQ(zero_load_latency_ps(r3, build_clos(r3), 0, 16000, 19, TrafficClass::request),
            expect(5));
}

TEST(ClosRanks, TapersAtEveryRank) {
  // R1.5 of 9 with 16 sidelink ports: 2 per peer, bisection halved.
  EXPECT_EQ(clos_bisection_links(ranked(1, true, 288, 16), Fabric{}), 4 * 5 * 2);
  // R2: 16 uplinks, 16 rank-2 routers (the existing taper).
  EXPECT_EQ(count_rank(build_clos(ranked(2, false, 1024, 16)), 2), 16);
  // R2.5: 8 uplinks: 8 rank-2 routers per subtree, a quarter the bisection.
  const Spec r25 = ranked(2, true, 4608, 8);
  const Fabric f25 = build_clos(r25);
  EXPECT_EQ(count_rank(f25, 2), 9 * 8);
  EXPECT_EQ(clos_bisection_links(r25, f25), 4 * 5 * 2 * 8);
  EXPECT_EQ(clos_bisection_links(ranked(2, true, 4608), Fabric{}), 4 * 5 * 2 * 32);
  // R3: 8 uplinks: 8 x 16 rank-3 routers.
  const Spec r3 = ranked(3, false, 16384, 8);
  const Fabric f3 = build_clos(r3);
  EXPECT_EQ(count_rank(f3, 3), 128);
  EXPECT_EQ(clos_bisection_links(r3, f3), 128 * 32 / 2);
  // Too few sidelink ports to reach every peer.
  EXPECT_THROW(build_clos(ranked(1, true, 288, 7)), std::invalid_argument);
}

TEST(ClosRanks, ADeadSidelinkLeavesItsPeersEntry) {
  const Spec spec = ranked(1, true, 288);
  Fabric f = build_clos(spec);
  // Router 0's first sidelink (port 32, to router 1) dies, both ends.
  FabricPort& p = f.routers[0].ports[32];
  f.routers[size_t(p.peer_router)].ports[size_t(p.peer_port)].dead = true;
  p.dead = true;
  const YarcTables t = program_yarc_tables(spec, f);
  EXPECT_EQ(t.routers[0].up[0].location, 32);
  EXPECT_EQ(t.routers[0].up[0].n, 3);
  EXPECT_EQ(t.routers[1].up[0].n, 3);
  EXPECT_EQ(t.routers[2].up[0].n, 4);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  for (uint32_t d = 32; d < 64; ++d) EXPECT_EQ(route_links(trace, 0, d, TrafficClass::request), 1);
}

TEST(ClosRanks, SpecReadsHalfRanks) {
  Spec s = load_spec_text("profile: yarc\ntopology: {rank: 2.5, endpoints: 4608}\n", {});
  EXPECT_EQ(s.topology.rank, 2);
  EXPECT_TRUE(s.topology.sidelinks);
  s = load_spec_text("profile: yarc\ntopology: {rank: 3, endpoints: 32768}\n", {});
  EXPECT_EQ(s.topology.rank, 3);
  EXPECT_FALSE(s.topology.sidelinks);
  EXPECT_THROW(load_spec_text("profile: yarc\ntopology: {rank: 3.5, endpoints: 9000}\n", {}),
               std::exception);
  EXPECT_THROW(load_spec_text("profile: yarc\ntopology: {rank: 1.5, endpoints: 20}\n", {}),
               std::exception);
}

}  // namespace
}  // namespace fabemu
