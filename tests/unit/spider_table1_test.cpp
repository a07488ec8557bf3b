// Spider's Table 1 (Galles, "Spider: A High-Speed Network Interconnect",
// IEEE Micro 1997): average latency of uniform accesses and bisection
// bandwidth of the non-bristled hierarchical fat hypercube for 8, 16, 64,
// 256 and 512 endpoints, from the two-level tables' routes, from low-load
// runs of the ready files, and from the bisection analysis; with the fat
// hypercube's wiring and size limits and the tables themselves (48 entries,
// the lookup one hop ahead).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/topology/fat_hypercube.h"
#include "control/topology/registry.h"
#include "control/topology/spider_routing.h"
#include "dataplane/codec/codec.h"
#include "tests/support/run_collect.h"
#include "tests/support/trace_pairs.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

struct Table1Row {
  int endpoints;
  double latency_ns;     // average, uniform accesses
  double bisection_gbs;  // GB/s, as printed (205 and 410 rounded)
};
constexpr Table1Row kTable1[] = {
    {8, 118, 6.4}, {16, 156, 12.8}, {64, 274, 51.2}, {256, 344, 205}, {512, 371, 410}};

std::string ready_file(int endpoints) {
  return "spider-fhc-" + std::to_string(endpoints) + ".yaml";
}

// What a chip costs at zero load with the profile's timing: its pipeline
// and the wire of the link it leaves on (40 + 10 ns: "about 50 ns").
double chip_ns(const Spec& s) { return s.router.latency_ns + s.link.wire_ns; }

// Table 1 (a) and (c): the tables' routes traverse avg_hops + 1 chips on
// average over ordered pairs of distinct endpoints, each chip_ns(): within
// 5% of the paper (8: 121.4, +2.9%; 16: 156.7; 64: 278.6, +1.7%; 256:
// 344.9; 512: 372.5). The bisection, both directions at 800 MB/s of data a
// link (Table 1's 800 MB/s per endpoint), is the paper's exactly.
TEST(SpiderTable1, LatencyFromTheTablesAndBisection) {
  for (const Table1Row& row : kTable1) {
    SCOPED_TRACE(ready_file(row.endpoints));
    const Spec s = spec_of(ready_file(row.endpoints), {});
    EXPECT_EQ(spec_endpoint_count(s), row.endpoints);
    const Fabric f = build_fat_hypercube(s);
    const FabricSummary sum = summarize(s, f);
    ASSERT_TRUE(sum.exact);
    EXPECT_EQ(sum.unroutable, 0u) << sum.first_unroutable;
    EXPECT_TRUE(sum.deadlock_free) << sum.deadlock_cycle;
    const double ns = (sum.avg_hops + 1) * chip_ns(s);
    EXPECT_NEAR(ns, row.latency_ns, 0.05 * row.latency_ns) << ns << " ns";
    const double link_gbs = 0.8;  // 128 data bits of a 160-bit micropacket at 1 GB/s
    const double gbs = 2 * double(sum.bisection_links) * link_gbs;
    EXPECT_EQ(gbs < 100 ? gbs : std::round(gbs), row.bisection_gbs) << sum.bisection_links;
    for (const FabricRouter& r : f.routers) EXPECT_LE(int(r.ports.size()), kSpiderPorts);
  }
}

// The calibration: one chip more on the way costs 50 ns at zero load for a
// one-micropacket message (40 ns pin to pin, 10 ns of wire), as the paper's
// "about 50 ns per chip"; the rest of a message's latency is the host
// link's: its wire (10 ns) and the message's serialisation once (20 ns a
// micropacket, virtual cut-through).
TEST(SpiderTable1, FiftyNanosecondsAChip) {
  const Spec s = spec_of(ready_file(16), {});
  const Fabric f = build_fat_hypercube(s);
  for (uint32_t dst : {1u, 3u, 7u, 15u}) {  // 1 to 4 hops from endpoint 0
    const int hops = __builtin_popcount(dst);
    EXPECT_EQ(zero_load_latency_ps(s, f, 0, dst, 1, TrafficClass::request),
              ps_t(10000 + (hops + 1) * 50000 + 20000));
  }
}

// Table 1 (b): low-load runs of the ready files with the shortest message
// the profile's codec makes. Every message that met no other takes its
// zero-load latency exactly; their mean, less the host link's share (10 ns
// of wire and one serialisation, 20 ns a micropacket, which Table 1's 50 ns
// a chip, pin to pin, does not count), is within 5% of the paper.
TEST(SpiderTable1, LowLoadRuns) {
  for (const Table1Row& row : kTable1) {
    SCOPED_TRACE(ready_file(row.endpoints));
    // About 300 messages or more: longer runs on the small fabrics.
    const int measure_ns = std::max(200000, 12800000 / row.endpoints);
    const Spec s =
        spec_of(ready_file(row.endpoints), {"traffic.sizes=[1]", "traffic.load=0.002",
                                            "run.measure_ns=" + std::to_string(measure_ns)});
    const CodecKind codec = codec_for(s.profile, s.topology.family);
    const uint32_t units =
        codec_format(codec, uint32_t(s.packet.header_units), uint32_t(s.packet.max_units))
            .units_for(1);
    std::vector<Delivery> got;
    const RunResult r = run_exactly_once(s, &got);
    ASSERT_GT(got.size(), 100u);
    const RouteTraceFn trace = make_route_tracer(s, r.fabric);  // programmed once
    expect_at_zero_load(got, [&](const Delivery& d) {
      const std::vector<HopTrace> path =
          trace(trace_meta(d.src, d.dst, units, TrafficClass::request));
      return path_latency_ps(r.fabric, d.src, path, units);
    });
    double sum_ns = 0;
    for (const Delivery& d : got) sum_ns += double(d.latency) / 1000.0;
    const double host_ns = s.link.wire_ns + units * 20.0;
    const double ns = sum_ns / double(got.size()) - host_ns;
    EXPECT_NEAR(ns, row.latency_ns, 0.05 * row.latency_ns) << ns << " ns over " << got.size();
  }
}

TEST(SpiderFatHypercube, WiringOfDomainsAndMetaCubes) {
  const Spec s = spec_of(ready_file(64), {});
  const Fabric f = build_fat_hypercube(s);
  ASSERT_EQ(f.routers.size(), 128u) << "64 local chips and 16 meta 2-cubes of 4";
  for (int r = 0; r < 64; ++r) {
    const FabricRouter& chip = f.routers[size_t(r)];
    ASSERT_EQ(chip.ports.size(), 6u) << "endpoint, 4 local dimensions, up";
    EXPECT_EQ(chip.ports[0].endpoint, r);
    for (int d = 0; d < 4; ++d) EXPECT_EQ(chip.ports[size_t(1 + d)].peer_router, r ^ (1 << d));
    const int meta = 64 + (r % 16) * 4 + r / 16;  // position-major, then domain
    EXPECT_EQ(chip.ports[5].peer_router, meta);
    EXPECT_EQ(f.routers[size_t(meta)].ports[0].peer_router, r) << "the meta chip's way down";
  }
  for (int m = 64; m < 128; ++m)
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(f.routers[size_t(m)].ports[size_t(1 + j)].peer_router, 64 + ((m - 64) ^ (1 << j)));
  // Bristled: 2 endpoints a chip, a 3-cube domain of 16 endpoints.
  const Spec b = spec_of("spider-fhc-bristled-64.yaml", {});
  const FabricSummary bs = summarize(b, build_fat_hypercube(b));
  EXPECT_EQ(bs.endpoints, 64);
  EXPECT_EQ(bs.routers, 64);
  EXPECT_EQ(bs.bisection_links, 16);
  EXPECT_TRUE(bs.deadlock_free);
  EXPECT_EQ(bs.unroutable, 0u);
}

TEST(SpiderFatHypercube, SizesThatCannotBeBuilt) {
  using spec_test::expect_says;
  auto problem = [](int n, int meta_n, int c, bool diagonal) {
    return fat_hypercube_size_problem(FatHypercubeShape{n, meta_n, c, diagonal});
  };
  EXPECT_EQ(problem(4, 5, 1, false), "");  // 512 endpoints, 6 ports a chip
  EXPECT_NE(problem(4, 2, 2, false).find("needs 7 ports"), std::string::npos);
  EXPECT_NE(problem(5, 1, 1, false).find("needs 7 ports"), std::string::npos);
  EXPECT_NE(problem(3, 2, 1, false).find("= 16"), std::string::npos) << "8-endpoint domains";
  EXPECT_NE(problem(4, 0, 3, false).find("power of two"), std::string::npos);
  EXPECT_EQ(problem(5, 0, 1, false), "") << "a plain 5-cube: 32 endpoints";
  EXPECT_NE(problem(4, 1, 1, true).find("needs 7 ports"), std::string::npos);
  // Above 512: the 9-bit destination (a spec error on the size's keys).
  const SpecError e = spec_test::error_of(
      "profile: spider\ntopology: {n: 4, meta_n: 5, endpoints_per_router: 2}\n");
  expect_says(e, "needs 7 ports");
  const SpecError big = spec_test::error_of("profile: spider\ntopology: {n: 5, meta_n: 5}\n");
  expect_says(big, "needs 7 ports");
}

// The tables: the source writes the first direction from its own chip's
// table; each chip leaves by the header's direction and writes the next
// chip's from the table it holds for that neighbour: the routes are the
// healthy order's (up, meta lowest first, down, local highest first).
TEST(SpiderTables, LookupOneHopAheadFollowsTheOrder) {
  const Spec s = spec_of(ready_file(64), {});
  const Fabric f = build_fat_hypercube(s);
  const FatHypercubeShape shape = fat_hypercube_shape(s);
  const SpiderTables t = spider_route_around_faults(s, f);
  EXPECT_EQ(sizeof(SpiderTable::local) + sizeof(SpiderTable::meta), 48u) << "instead of 512";
  for_every_route(
      s, f, [&](uint32_t src, uint32_t dst, TrafficClass cls, const std::vector<HopTrace>& p) {
        for (const HopTrace& h : p) {
          EXPECT_EQ(h.out_port, spider_healthy_port(shape, h.router, int32_t(dst)));
          EXPECT_EQ(h.out_vc, cls == TrafficClass::response ? 2 : 0) << "requests 0, responses 2";
        }
        PacketMeta m = trace_meta(src, dst, 1, cls);
        SpiderTableRouting::on_inject(t, f, m);
        EXPECT_EQ(SpiderHeader::direction(m), p.front().out_port + 1);
      });
  // A chip's meta-ID: its domain; a meta chip has none.
  EXPECT_EQ(t.at(0, 0).meta_id, 0);
  EXPECT_EQ(t.at(0, 5).meta_id, kSpiderNoMetaId) << "chip 0's up-link leads to a meta chip";
  EXPECT_EQ(t.at(17, 0).meta_id, 1);
}

// Vector routing (administrative messages): the source writes the
// directions of its path (SpiderHeader::set_vector) and each chip follows
// them instead of the tables. From endpoint 0 to 3 of the 4-cube the tables
// go 0 -> 2 -> 3 (highest dimension first); the vector 0 -> 1 -> 3.
TEST(SpiderTables, AVectorRoutedMessageFollowsItsVector) {
  const Spec s = spec_of(ready_file(16), {});
  const Fabric f = build_fat_hypercube(s);
  const SpiderTables t = spider_route_around_faults(s, f);
  PacketMeta by_table = trace_meta(0, 3, 1, TrafficClass::request);
  std::vector<HopTrace> p = trace_route<SpiderTableRouting>(t, f, by_table);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[1].router, 2);
  // Directions are 1 + the port: dimension 0 (port 1), dimension 1 (port
  // 2), then the endpoint (port 0).
  const uint8_t vector[] = {2, 3, 1};
  PacketMeta by_vector = trace_meta(0, 3, 1, TrafficClass::request);
  SpiderHeader::set_vector(by_vector, vector, 3);
  p = trace_route<SpiderTableRouting>(t, f, by_vector);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].router, 0);
  EXPECT_EQ(p[1].router, 1) << "the vector's first step, dimension 0";
  EXPECT_EQ(p[2].router, 3);
  EXPECT_EQ(p[2].out_port, 0);
}

// ---- the tables reprogrammed around faults ---------------------------------

void kill_link(Fabric& f, int32_t router, int port) {
  FabricPort& p = f.routers[size_t(router)].ports[size_t(port)];
  f.routers[size_t(p.peer_router)].ports[size_t(p.peer_port)].dead = true;
  p.dead = true;
}

// A dead local link (chip 0's dimension 0, to chip 1): every pair is still
// routed, the channel dependencies still acyclic on one VC per class, and
// no route crosses the dead link; endpoint 0 reaches endpoint 1 the long
// way (3 hops instead of 1).
TEST(SpiderFaults, ADeadLinkIsRoutedAroundCycleFree) {
  const Spec s = spec_of(ready_file(64), {});
  Fabric f = build_fat_hypercube(s);
  const FabricSummary healthy = summarize(s, f);
  kill_link(f, 0, 1);
  const FabricSummary sum = summarize(s, f);
  EXPECT_EQ(sum.unroutable, 0u) << sum.first_unroutable;
  EXPECT_TRUE(sum.deadlock_free) << sum.deadlock_cycle;
  EXPECT_GT(sum.avg_hops, healthy.avg_hops);
  const RouteTraceFn trace = make_route_tracer(s, f);
  for (uint32_t a = 0; a < 64; ++a)
    for (uint32_t b = 0; b < 64; ++b)
      for (const HopTrace& h : trace(trace_meta(a, b, 1, TrafficClass::request)))
        EXPECT_FALSE(f.routers[size_t(h.router)].ports[h.out_port].dead) << a << " -> " << b;
  EXPECT_EQ(trace(trace_meta(0, 1, 1, TrafficClass::request)).size(), 4u);
  // Its up-link, a meta link and a meta chip: the same.
  for (auto [router, port] : std::vector<std::pair<int, int>>{{0, 5}, {64, 1}}) {
    Fabric g = build_fat_hypercube(s);
    kill_link(g, router, port);
    const FabricSummary x = summarize(s, g);
    EXPECT_EQ(x.unroutable, 0u) << router << ":" << port << " " << x.first_unroutable;
    EXPECT_TRUE(x.deadlock_free) << x.deadlock_cycle;
  }
}

// A dead chip: its endpoint is unreachable and cannot send (63 pairs each
// way, both classes: 252 routes reported unroutable); every other pair is
// routed around it, cycle-free. A dead meta chip leaves every pair routed.
TEST(SpiderFaults, ADeadChipLeavesOnlyItsEndpointUnroutable) {
  const Spec s = spec_of(ready_file(64), {});
  for (int32_t dead : {5, 64}) {
    Fabric f = build_fat_hypercube(s);
    f.routers[size_t(dead)].dead = true;
    for (size_t p = 0; p < f.routers[size_t(dead)].ports.size(); ++p)
      if (f.routers[size_t(dead)].ports[p].peer_router >= 0)
        kill_link(f, dead, int(p));
      else
        f.routers[size_t(dead)].ports[p].dead = true;
    const FabricSummary sum = summarize(s, f);
    EXPECT_EQ(sum.unroutable, dead < 64 ? 252u : 0u) << "chip " << dead;
    EXPECT_TRUE(sum.deadlock_free) << sum.deadlock_cycle;
  }
}

// Scheduled faults in a run (the registration's reprogram, the path the
// control socket takes too): a link and a chip die at 5 us; the run drains,
// nothing is lost but what was bound for or sent from the dead chip's
// endpoint or was on the dead parts, and endpoint 0 still reaches endpoint
// 1, the long way round its dead link.
TEST(SpiderFaults, ScheduledFaultsReprogramTheTables) {
  const Spec s = spec_of(ready_file(64), {"faults=[\"5us link=r0:p1 down\", \"5us router=5 down\"]",
                                          "traffic.load=0.05", "run.measure_ns=400000"});
  std::vector<Delivery> got;
  const RunResult r = run_collect(s, &got);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_TRUE(r.stats.drained);
  uint64_t lost = 0;
  for (uint64_t d : r.stats.drops) lost += d;
  EXPECT_EQ(r.stats.delivered_packets + lost, r.stats.injected_packets);
  EXPECT_EQ(drops(r.stats, DropReason::undelivered_at_end), 0u);
  EXPECT_GT(got.size(), 1000u);
  const uint64_t fault_drops =
      drops(r.stats, DropReason::no_route) + drops(r.stats, DropReason::dead_port) +
      drops(r.stats, DropReason::lost_in_flight) + drops(r.stats, DropReason::lost_in_dead_router);
  EXPECT_EQ(fault_drops, lost) << "every loss is the faults'";
  EXPECT_GT(fault_drops, 0u) << "messages for endpoint 5 after 5 us";
  size_t after = 0;  // from endpoint 0 to 1, the dead link's ends, delivered the long way
  for (const Delivery& d : got) after += d.src == 0 && d.dst == 1 && d.hops == 3;
  EXPECT_GT(after, 0u);
}

}  // namespace
}  // namespace fabemu
