// BlackWidow folded Clos and YARC up/down routing (Scott et al. 2006,
// sections 5 and 7.8.2).
#include "control/topology/clos.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/topology/registry.h"
#include "dataplane/engine/engine_factory.h"
#include "dataplane/router/router_model.h"
#include "dataplane/routing/yarc_updown.h"
#include "tests/support/fabric_specs.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

RouteCandidates route_at(const YarcTables& t, int32_t router, uint8_t in_port, PacketMeta m,
                         const Fabric& f) {
  YarcUpDown::on_inject(t, f, m);
  RouteCandidates rc;
  OfflineRouting offline;
  RoutingContext ctx = offline.ctx();
  YarcUpDown::route(t, ctx, router, in_port, m, rc);
  return rc;
}

TEST(ClosBuild, Rank1) {
  const Fabric f = build_clos(yarc_spec(1, 20));
  ASSERT_EQ(f.routers.size(), 1u);
  ASSERT_EQ(f.endpoints.size(), 20u);
  EXPECT_EQ(f.routers[0].ports.size(), 64u);
  EXPECT_EQ(f.num_vcs, 2);
  EXPECT_EQ(f.vc_buffer_units[0], 256u);
  EXPECT_EQ(f.vc_buffer_units[1], 256u);
  EXPECT_EQ(f.unit_bits, 24u);
  EXPECT_EQ(f.unit_name, "phit");
  for (int e = 0; e < 20; ++e) {
    EXPECT_EQ(f.endpoints[e].port, e);
    EXPECT_EQ(f.routers[0].ports[e].endpoint, e);
    EXPECT_EQ(f.endpoints[e].unit_ps, 1600u);
  }
  EXPECT_FALSE(f.routers[0].ports[20].connected());
  EXPECT_EQ(count_router_links(f), 0);
  EXPECT_THROW(build_clos(yarc_spec(1, 33)), std::invalid_argument);
  EXPECT_THROW(build_clos(yarc_spec(3, 100)), std::invalid_argument);
}

TEST(ClosBuild, Rank2Wiring) {
  const Fabric f = build_clos(yarc_spec(2, 100));  // 4 rank-1 routers, the last with 4 PEs
  ASSERT_EQ(f.routers.size(), 4u + 32u);
  EXPECT_EQ(count_router_links(f), 2 * 4 * 32);
  for (int i = 0; i < 4; ++i) {
    const FabricRouter& r = f.routers[i];
    EXPECT_EQ(r.rank, 1);
    EXPECT_EQ(r.coord, (std::array<int32_t, 3>{1, i, 0}));
    ASSERT_EQ(r.ports.size(), 64u);
    for (int p = 0; p < 32; ++p) {
      EXPECT_EQ(r.ports[p].label, kClosDown);
      const int ep = i * 32 + p;
      EXPECT_EQ(r.ports[p].endpoint, ep < 100 ? ep : -1);
    }
    for (int j = 0; j < 32; ++j) {
      const FabricPort& up = r.ports[32 + j];
      EXPECT_EQ(up.label, kClosUp);
      EXPECT_EQ(up.peer_router, 4 + j);  // uplink j -> rank-2 router j
      EXPECT_EQ(up.peer_port, i);        // ... on its port i
      EXPECT_EQ(up.unit_ps, 1600u);
      EXPECT_EQ(up.wire_ps, 10000u);
    }
  }
  for (int j = 0; j < 32; ++j) {
    const FabricRouter& r = f.routers[4 + j];
    EXPECT_EQ(r.rank, 2);
    EXPECT_EQ(r.coord, (std::array<int32_t, 3>{2, j, 0}));
    ASSERT_EQ(r.ports.size(), 32u);  // a radix-32 virtual router
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(r.ports[i].label, kClosDown);
      EXPECT_EQ(r.ports[i].peer_router, i < 4 ? i : -1);
      if (i < 4) {
        EXPECT_EQ(r.ports[i].peer_port, 32 + j);
      }
    }
  }
  const Spec s = yarc_spec(2, 100);
  EXPECT_EQ(clos_bisection_links(s, f), 4 * 16);
  EXPECT_EQ(clos_bisection_links(yarc_spec(1, 32), build_clos(yarc_spec(1, 32))), 16);
}

TEST(ClosBuild, Registered) {
  ASSERT_NE(Registry::get().topology("clos"), nullptr);
  const RoutingInfo* r = Registry::get().routing("clos", "updown");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->max_vcs, 2);
  EXPECT_EQ(r->min_vcs, 1);
}

TEST(ClosTables, RootDetectPaperExample) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  // "the root detect register of a rank-1 router connected to destinations
  // 96-127 would have a router location of 0x0060 (96), and a mask of 0x001F"
  const YarcRouterTable& r3 = t.routers[3];
  EXPECT_EQ(r3.root_location, 0x0060);
  EXPECT_EQ(r3.root_mask, 0x001F);
  for (uint32_t d = 0; d < 1024; ++d)
    EXPECT_EQ(yarc_match(r3.root_location, r3.root_mask, d), d >= 96 && d <= 127) << d;
  // Rank-2 routers root the whole 1024-endpoint network.
  EXPECT_EQ(t.routers[32 + 5].root_location, 0);
  EXPECT_EQ(t.routers[32 + 5].root_mask, 0x03FF);
  // Healthy network: entry 0 matches everything with all 32 uplinks.
  EXPECT_TRUE(r3.up[0].valid);
  EXPECT_EQ(r3.up[0].mask, 0x7FFF);
  EXPECT_EQ(r3.up[0].ports, 0xFFFFFFFF00000000ull);
  EXPECT_EQ(r3.up[0].n, 32);
  for (int e = 1; e < 8; ++e) EXPECT_FALSE(r3.up[e].valid);
  // Hash bit select and down route registers.
  EXPECT_EQ(r3.hash_shift, 0);
  EXPECT_EQ(t.routers[40].hash_shift, 5);
  EXPECT_EQ(r3.down_shift, 0);
  EXPECT_EQ(r3.down_mask, 0x1F);
  EXPECT_EQ(t.routers[40].down_shift, 5);
  EXPECT_EQ(t.routers[40].down_mask, 0x1F);
  EXPECT_EQ(t.latency_ps, 31250u);
}

TEST(ClosTables, HighestMatchingUpEntryWins) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  YarcTables t = program_yarc_tables(spec, f);
  // Router 0: entry 1 matches everything with uplinks 33 and 34 only; entry 2
  // matches the subtree of destinations 64..95 (in a fault's shadow) with 40.
  t.routers[0].up[1].set(0x0000, 0x7FFF, (1ull << 33) | (1ull << 34));
  t.routers[0].up[2].set(0x0040, 0x001F, 1ull << 40);
  int used33 = 0, used34 = 0;
  for (uint32_t d = 32; d < 1024; ++d)
    for (uint8_t in = 0; in < 32; ++in) {
      const RouteCandidates rc =
          route_at(t, 0, in, trace_meta(in, d, 4, TrafficClass::request, 0x1234), f);
      ASSERT_EQ(rc.count, 1);
      if (d >= 64 && d <= 95) {
        EXPECT_EQ(rc.c[0].port, 40) << d;
      } else {
        ASSERT_TRUE(rc.c[0].port == 33 || rc.c[0].port == 34) << d;
        (rc.c[0].port == 33 ? used33 : used34)++;
      }
    }
  EXPECT_GT(used33, 0);
  EXPECT_GT(used34, 0);
  // Inside its own subtree the root-detect register wins over every entry.
  const RouteCandidates rc = route_at(t, 0, 3, trace_meta(3, 7, 4, TrafficClass::request), f);
  ASSERT_EQ(rc.count, 1);
  EXPECT_EQ(rc.c[0].port, 7);
  // Adaptive responses get the winning entry's ports as candidates.
  const RouteCandidates ad = route_at(t, 0, 3, trace_meta(3, 500, 4, TrafficClass::response), f);
  EXPECT_TRUE(ad.adaptive);
  ASSERT_EQ(ad.count, 2);
  EXPECT_EQ(ad.c[0].vc, 1);
}

TEST(ClosHash, ExactModuloEveryDivisor) {
  for (uint32_t n = 1; n <= 64; ++n) {
    const uint64_t rec = yarc_mod_reciprocal(n);
    for (uint32_t x = 0; x < (1u << 16); ++x)
      ASSERT_EQ(yarc_mod(x, rec, n), x % n) << x << " % " << n;
    for (uint32_t x = 0xFFFF0000u; x != 0; ++x) ASSERT_EQ(yarc_mod(x, rec, n), x % n);
  }
}

// Section 5.1: "the hash value is then mapped onto the set of output links
// identified by the routing table", with an exact modulo over the port
// counts YARC supports (1..8, 10, 12, 14, 16, 20, 24, 28, 32): the request
// takes the (hash mod n)-th allowed port, for any n of them anywhere among
// the 64, every hash value.
TEST(ClosHash, TheHashedPortIsTheExactModuloOverEveryPortCountYarcSupports) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const uint32_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32};
  std::mt19937_64 rng(5);
  for (uint32_t n : counts) {
    YarcTables t = program_yarc_tables(spec, f);
    // n ports chosen at random among the 64 (in ascending order: the list).
    std::vector<uint8_t> ports(64);
    for (int p = 0; p < 64; ++p) ports[p] = static_cast<uint8_t>(p);
    std::shuffle(ports.begin(), ports.end(), rng);
    ports.resize(n);
    std::sort(ports.begin(), ports.end());
    uint64_t mask = 0;
    for (uint8_t p : ports) mask |= uint64_t{1} << p;
    t.routers[0].up[0].set(0, 0x7FFF, mask);
    for (uint32_t d = 32; d < 1024; d += 7)
      for (uint8_t in : {0, 5, 31}) {
        for (uint16_t hash : {0x0000, 0x00FF, 0x1234, 0x7FFF}) {
          PacketMeta m = trace_meta(in, d, 4, TrafficClass::request, hash);
          const RouteCandidates rc = route_at(t, 0, in, m, f);
          ASSERT_EQ(rc.count, 1);
          const uint32_t h = in ^ d ^ (hash & 0xFFu);  // rank 1: hash bits 0..7
          ASSERT_EQ(rc.c[0].port, ports[h % n]) << "n " << n << " d " << d << " in " << int(in);
        }
      }
  }
}

TEST(ClosHash, SpreadsUniformlyOverAnyNumberOfUplinks) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  for (int n = 1; n <= 32; ++n) {
    YarcTables t = program_yarc_tables(spec, f);
    uint64_t ports = 0;
    for (int j = 0; j < n; ++j) ports |= 1ull << (32 + (j * 7) % 32);  // any n of the 32
    t.routers[0].up[0].set(0, 0x7FFF, ports);
    std::vector<int> count(64, 0);
    for (uint32_t d = 32; d < 1024; ++d)
      for (uint8_t in = 0; in < 32; ++in) {
        const RouteCandidates rc =
            route_at(t, 0, in, trace_meta(in, d, 4, TrafficClass::request), f);
        ASSERT_EQ(rc.count, 1);
        ASSERT_TRUE((ports >> rc.c[0].port) & 1u);
        count[rc.c[0].port]++;
      }
    int lo = 1 << 30, hi = 0;
    for (int p = 0; p < 64; ++p)
      if ((ports >> p) & 1u) {
        lo = std::min(lo, count[p]);
        hi = std::max(hi, count[p]);
      }
    // Each input port sends to 992 consecutive hash values, so per input
    // port the uplinks differ by at most one packet: 32 in all, under 4%.
    EXPECT_LE(hi - lo, 32) << "n = " << n;
    EXPECT_LE(hi, lo * 104 / 100 + 1) << "n = " << n;
  }
}

TEST(ClosHash, RanksHashOnTheirOwnHashBits) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  auto port = [&](uint16_t hash, TrafficClass cls = TrafficClass::request) {
    const RouteCandidates rc = route_at(t, 0, 5, trace_meta(5, 600, 4, cls, hash), f);
    return rc.c[0].port;
  };
  // Rank 1 uses hash bits 0..7: bits 8..14 do not change the uplink ...
  for (int b = 8; b < 15; ++b) EXPECT_EQ(port(0), port(static_cast<uint16_t>(1u << b))) << b;
  // ... bits 0..4 do (32 uplinks use up the low 5 bits of the hash).
  for (int b = 0; b < 5; ++b) EXPECT_NE(port(0), port(static_cast<uint16_t>(1u << b))) << b;
  // The expected uplink: (in_port ^ dst ^ hash[7:0]) mod 32, the 32 + ...th port.
  EXPECT_EQ(port(0x00A3), 32 + ((5 ^ 600 ^ 0xA3) % 32));
  // Responses carry no h bit: their hash is in_port ^ dst only.
  EXPECT_EQ(port(0x00A3, TrafficClass::response), 32 + ((5 ^ 600) % 32));
}

TEST(ClosTables, DownRouteShiftMask) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  for (uint32_t d = 0; d < 1024; ++d) {
    // A rank-2 router: s = 5, m = 5 bits -> rank-1 router d >> 5.
    const RouteCandidates r2 =
        route_at(t, 32 + 9, 0, trace_meta(0, d, 4, TrafficClass::request), f);
    ASSERT_EQ(r2.count, 1);
    EXPECT_EQ(r2.c[0].port, d >> 5);
    EXPECT_EQ(f.routers[32 + 9].ports[r2.c[0].port].peer_router, static_cast<int32_t>(d >> 5));
    // The rank-1 router of d: s = 0, m = 5 bits -> PE port d & 31.
    const RouteCandidates r1 =
        route_at(t, d >> 5, 32 + 9, trace_meta(0, d, 4, TrafficClass::request), f);
    ASSERT_EQ(r1.count, 1);
    EXPECT_EQ(r1.c[0].port, d & 31);
    EXPECT_EQ(f.routers[d >> 5].ports[r1.c[0].port].endpoint, static_cast<int32_t>(d));
  }
  // The logical -> physical port map is honoured.
  YarcTables u = t;
  std::swap(u.routers[40].port_map[2], u.routers[40].port_map[3]);
  EXPECT_EQ(route_at(u, 40, 0, trace_meta(0, 2 * 32 + 1, 4, TrafficClass::request), f).c[0].port,
            3);
}

// The down-routing invariant: a packet that came down by one of a router's
// uplinks is in its subtree and goes on down; routed up again, it is
// flagged for the engine to count. Healthy tables never do it.
TEST(ClosRouting, APacketThatCameDownAnUplinkGoesDown) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  // Rank-1 router 3 (destinations 96..127), input 37: its uplink to rank-2
  // router 5.
  RouteCandidates rc = route_at(t, 3, 37, trace_meta(0, 100, 4, TrafficClass::request), f);
  ASSERT_EQ(rc.count, 1);
  EXPECT_EQ(rc.c[0].port, 4);
  EXPECT_FALSE(rc.up_after_down);
  // Another subtree's packet came down to it: routed up as the table says,
  // and flagged, deterministic or adaptive.
  for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
    rc = route_at(t, 3, 37, trace_meta(0, 500, 4, cls), f);
    ASSERT_GE(rc.count, 1);
    EXPECT_GE(rc.c[0].port, 32);
    EXPECT_TRUE(rc.up_after_down);
  }
  // Going up from a processor port is the normal way.
  EXPECT_FALSE(route_at(t, 3, 4, trace_meta(100, 500, 4, TrafficClass::request), f).up_after_down);
  // Healthy tables: whatever a rank-2 router sends down stays down.
  for (uint32_t j = 0; j < 32; ++j)
    for (uint32_t d = 0; d < 1024; ++d) {
      const RouteCandidates down =
          route_at(t, 32 + j, 0, trace_meta(0, d, 4, TrafficClass::request), f);
      ASSERT_EQ(down.count, 1);
      EXPECT_FALSE(down.up_after_down);
      const FabricPort& fp = f.routers[32 + j].ports[down.c[0].port];
      const RouteCandidates below = route_at(t, fp.peer_router, static_cast<uint8_t>(fp.peer_port),
                                             trace_meta(0, d, 4, TrafficClass::request), f);
      ASSERT_FALSE(below.up_after_down) << "router " << j << " destination " << d;
    }
}

// The engine counts a violation at the router and port the packet came in
// by. Three rank-1 routers (0, 1, 2) under two rank-2 routers (3, 4); rank-2
// router 3's port map sends subtree 0's packets down to rank-1 router 1
// (port 32 of which is its uplink to router 3); a fault entry in router 1's
// up table sends subtree 0's packets up by uplink 33 only (router 4, whose
// map is right), so each misrouted packet goes up once more, is delivered,
// and is counted once.
TEST(ClosRun, DownRoutingViolationsAreCountedAtTheirRouterAndPort) {
  for (const char* model : {"input_queued", "yarc_tiled"}) {
    SCOPED_TRACE(model);
    const Spec spec =
        spec_of("yarc-r2-1024.yaml",
                {std::string("router.model=") + model, "topology.endpoints=96",
                 "topology.uplinks=2", "traffic.load=0.2", "run.workers=1", "run.warmup_ns=0",
                 "run.measure_ns=10000", "run.check_invariants=true"});
    const bool tiled = spec.router.model == "yarc_tiled";
    std::vector<Delivery> got;
    auto mu = std::make_shared<std::mutex>();
    const RunResult r = run_emulation(
        spec,
        [&got, mu](EngineConfig& c) {
          c.progress = nullptr;
          c.on_deliver = [&got, mu](uint64_t id, uint32_t s, uint32_t d, ps_t lat, uint32_t hops) {
            std::lock_guard<std::mutex> g(*mu);
            got.push_back({id, s, d, lat, hops});
          };
        },
        {},
        [&spec, tiled](EngineBase& e, const RoutingInfo&, const Fabric& fab) {
          YarcTables t = program_yarc_tables(spec, fab);
          t.routers[3].port_map[0] = 1;
          t.routers[1].up[1].set(0, 0x1F, uint64_t{1} << 33);
          const bool ok = tiled ? replace_tables<OnYarcTiles<YarcUpDown>>(e, std::move(t), 0)
                                : replace_tables<YarcUpDown>(e, std::move(t), 0);
          ASSERT_TRUE(ok);
        });
    expect_exactly_once(r, got);
    EXPECT_EQ(r.stats.invariant_failure, "");
    const auto& dv = r.json["down_route_violations"];
    const uint64_t total = dv["total"].get<uint64_t>();
    EXPECT_GT(total, 50u) << total;
    ASSERT_EQ(dv["where"].size(), 1u) << dv.dump();
    EXPECT_EQ(dv["where"][0]["router"].get<int>(), 1);
    EXPECT_EQ(dv["where"][0]["port"].get<int>(), 32);
    EXPECT_EQ(dv["where"][0]["packets"].get<uint64_t>(), total);
    // Each went up and down once more: four links between routers, where
    // every other packet crosses at most two.
    uint64_t detoured = 0;
    for (const Delivery& d : got) {
      EXPECT_LE(d.hops, 4u);
      if (d.hops == 4) {
        detoured++;
        EXPECT_EQ(d.dst / 32, 0u);
        EXPECT_EQ(d.src / 32, 2u);
      }
    }
    EXPECT_EQ(detoured, total);
  }
}

TEST(ClosRouting, EveryPairWithinThreeRouters) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  for (uint32_t s = 0; s < 1024; s += 3)
    for (uint32_t d = 0; d < 1024; ++d)
      for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
        const auto p = trace(trace_meta(s, d, 4, cls, static_cast<uint16_t>(s * 31 + d)));
        ASSERT_FALSE(p.empty()) << s << " -> " << d;
        const bool local = s / 32 == d / 32;
        ASSERT_EQ(p.size(), local ? 1u : 3u) << s << " -> " << d;
        EXPECT_EQ(p.front().router, static_cast<int32_t>(s / 32));
        EXPECT_EQ(p.back().out_port, d % 32);
        if (!local) {
          EXPECT_EQ(f.routers[p[1].router].rank, 2);
        }
        for (const HopTrace& h : p) {
          EXPECT_EQ(h.out_vc, cls == TrafficClass::request ? 0 : 1);
          EXPECT_EQ(h.pipeline_ps, 31250u);
        }
      }
  const Spec r1 = yarc_spec(1, 32);
  const Fabric f1 = build_clos(r1);
  const RouteTraceFn t1 = make_route_tracer(r1, f1);
  for (uint32_t s = 0; s < 32; ++s)
    for (uint32_t d = 0; d < 32; ++d) {
      const auto p = t1(trace_meta(s, d, 4, TrafficClass::request));
      ASSERT_EQ(p.size(), 1u);
      EXPECT_EQ(p[0].out_port, d);
    }
}

TEST(ClosRouting, SameSourceDestinationAndHashKeepsItsPath) {
  // Deterministic requests: the same (source, destination, address bits)
  // always takes the same uplink, preserving order per cache line.
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  const auto a = trace(trace_meta(7, 900, 4, TrafficClass::request, 0x155));
  const auto b = trace(trace_meta(7, 900, 19, TrafficClass::request, 0x155));
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(a[0].out_port, b[0].out_port);
  // Different address bits spread the same pair over several uplinks.
  std::vector<bool> used(64, false);
  for (uint16_t h = 0; h < 256; ++h)
    used[trace(trace_meta(7, 900, 4, TrafficClass::request, h))[0].out_port] = true;
  EXPECT_EQ(std::count(used.begin(), used.end(), true), 32);
}

TEST(ClosDeadlock, ChannelDependencyGraphAcyclic) {
  for (const Spec& spec : {yarc_spec(1, 32), yarc_spec(2, 1024), yarc_spec(2, 100)}) {
    const Fabric f = build_clos(spec);
    const DeadlockReport rep = check_deadlock(spec, f);
    EXPECT_TRUE(rep.deadlock_free) << f.name << ": " << rep.description;
    EXPECT_EQ(rep.unroutable, 0u) << f.name;
  }
}

TEST(ClosLatency, ZeroLoad) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  // Same rank-1 router: one router, injection and ejection wires.
  EXPECT_EQ(zero_load_latency_ps(spec, f, 0, 5, 19, TrafficClass::request),
            31250u + 2 * 10000u + 19 * 1600u);
  // Across the rank-2 stage: three routers, four wires, serialization once.
  EXPECT_EQ(zero_load_latency_ps(spec, f, 0, 1000, 19, TrafficClass::request),
            3 * 31250u + 4 * 10000u + 19 * 1600u);
}

}  // namespace
}  // namespace fabemu
