// Fabric analysis: hop counts, zero-load latency, bisection, channel
// dependency graph — all from routes traced through the programmed tables.
#include "control/analysis/analysis.h"
#include "control/topology/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "control/analysis/deadlock.h"
#include "control/topology/clos.h"
#include "control/topology/torus.h"
#include "dataplane/routing/t3e_direction_order.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

TEST(AnalysisSummary, Torus4x4x4) {
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric f = build_torus(spec);
  const FabricSummary s = summarize(spec, f);
  EXPECT_EQ(s.routers, 64);
  EXPECT_EQ(s.endpoints, 64);
  EXPECT_EQ(s.links, 64 * 6);
  EXPECT_EQ(s.diameter, 6);
  // Mean ring distance in a 4-ring over all destinations incl. itself is
  // (0+1+2+1)/4 = 1, so 3 hops per pair incl. self-pairs: 64*64*3 hops in
  // all, over 64*63 distinct pairs.
  EXPECT_DOUBLE_EQ(s.avg_hops_with_self, 3.0);
  EXPECT_DOUBLE_EQ(s.avg_hops, 64.0 * 64 * 3 / (64.0 * 63));
  EXPECT_EQ(s.bisection_links, 32);
  EXPECT_DOUBLE_EQ(s.bisection_bound, 1.0);
  EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
  EXPECT_TRUE(s.deadlock_cycle.empty());
  EXPECT_EQ(s.unroutable, 0u);
  EXPECT_EQ(s.routes_traced, 64u * 63 * 2);
  EXPECT_GT(s.dependencies, 0u);
  // Zero-load latency of a 2-flit packet: Table 2 per router (end points at
  // both ends, straight or turn in between) + 2 flits of serialization.
  EXPECT_EQ(s.packet_units, 2u);
  uint64_t sum = 0, n = 0;
  ps_t mx = 0;
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b) {
      if (a == b) continue;
      const auto& ca = f.routers[a].coord;
      const auto& cb = f.routers[b].coord;
      int hops = 0, dims = 0;
      for (int d = 0; d < 3; ++d) {
        const int dist = std::min((cb[d] - ca[d] + 4) % 4, (ca[d] - cb[d] + 4) % 4);
        hops += dist;
        dims += dist > 0;
      }
      const ps_t lat = 2 * 133000 + 40000 * (hops - dims) + 80000 * (dims - 1) + 2 * 13333;
      sum += lat;
      mx = std::max(mx, lat);
      ++n;
    }
  EXPECT_EQ(s.zero_load_ps_typical, (sum + n / 2) / n);
  EXPECT_EQ(s.zero_load_ps_max, mx);
  EXPECT_EQ(s.zero_load_ps_max, 2 * 133000u + 3 * 40000 + 2 * 80000 + 2 * 13333);
}

TEST(AnalysisSummary, BisectionBoundFollowsT3ePaper) {
  // "For systems with 128 to 512 nodes ... the processor port and most-used
  // network links are equally utilized. Beyond 512 nodes, the Y dimension
  // becomes the bottleneck": bound 1.0 up to 8x8x8, 0.5 at 8x16x8.
  for (const auto& [dims, bound] : std::vector<std::pair<std::array<int, 3>, double>>{
           {{4, 4, 8}, 1.0}, {{8, 8, 8}, 1.0}, {{8, 16, 8}, 0.5}}) {
    const Spec spec = t3e_spec(dims[0], dims[1], dims[2]);
    const Fabric f = build_torus(spec);
    const FabricSummary s = summarize(spec, f);
    EXPECT_DOUBLE_EQ(s.bisection_bound, bound) << f.name;
    EXPECT_TRUE(s.deadlock_free) << f.name << ": " << s.deadlock_cycle;
    EXPECT_EQ(s.unroutable, 0u);
    EXPECT_EQ(s.diameter, dims[0] / 2 + dims[1] / 2 + dims[2] / 2) << f.name;
  }
}

TEST(AnalysisSummary, Clos1024) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const FabricSummary s = summarize(spec, f);
  EXPECT_EQ(s.routers, 64);
  EXPECT_EQ(s.links, 2 * 32 * 32);
  EXPECT_EQ(s.diameter, 2);
  // 31 destinations under the same rank-1 router (0 hops), 992 two hops up
  // and down.
  EXPECT_DOUBLE_EQ(s.avg_hops, 2.0 * 992 / 1023);
  EXPECT_EQ(s.bisection_links, 512);
  EXPECT_DOUBLE_EQ(s.bisection_bound, 1.0);
  EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
  EXPECT_EQ(s.unroutable, 0u);
  EXPECT_EQ(s.zero_load_ps_max, 3 * 31250u + 4 * 10000 + 4 * 1600);
}

// Direction order without the dateline VC switch: the torus rings' channel
// dependencies close on VC0, and the checker must find it.
struct NoDateline : T3eDirectionOrder {
  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    T3eDirectionOrder::route(t, ctx, router, in_port, m, out);
    for (int i = 0; i < out.count; ++i) out.c[i].vc = m.vc & ~1u;
  }
};

TEST(AnalysisDeadlock, FindsTheRingCycleWithoutDatelines) {
  // Rings of 5: with ties balanced a ring of 4 has no route of two hops
  // whose dependencies close a cycle, datelines or not.
  const Spec spec = t3e_spec(5, 5, 1);
  const Fabric f = build_torus(spec);
  const T3eTables t = program_t3e_tables(spec, f);
  ChannelDependencyGraph good(f), bad(f);
  for (uint32_t a = 0; a < 25; ++a)
    for (uint32_t b = 0; b < 25; ++b) {
      const PacketMeta m = trace_meta(a, b, 2, TrafficClass::request);
      ASSERT_TRUE(good.add_path(trace_route<T3eDirectionOrder>(t, f, m)));
      ASSERT_TRUE(bad.add_path(trace_route<NoDateline>(t, f, m)));
    }
  EXPECT_TRUE(good.find_cycle().empty());
  const std::vector<Channel> cycle = bad.find_cycle();
  ASSERT_FALSE(cycle.empty());
  for (size_t i = 0; i < cycle.size(); ++i) {
    EXPECT_TRUE(bad.has_dependency(cycle[i], cycle[(i + 1) % cycle.size()]));
    EXPECT_EQ(cycle[i].vc, 0);
    EXPECT_EQ(cycle[i].port, cycle[0].port);  // around one ring, one direction
  }
  EXPECT_EQ(cycle.size(), 5u);
  // Deterministic: the same cycle every time.
  EXPECT_EQ(bad.find_cycle(), cycle);
  const std::string text = describe_cycle(f, cycle);
  EXPECT_NE(text.find(" -> "), std::string::npos);
  EXPECT_EQ(text.substr(0, text.find(" -> ")), text.substr(text.rfind(" -> ") + 4));
}

// The same routing through the registry, on a fabric large enough to be
// sampled: a sampled check finds the cycle too, and a cycle found is certain.
TEST(AnalysisSampled, FindsACycleAndSaysItIsCertain) {
  RoutingInfo r;
  r.family = "torus";
  r.name = "test_sampled_no_dateline";
  r.make_tracer = [](const Spec& spec, const Fabric& f) -> RouteTraceFn {
    auto t = std::make_shared<const T3eTables>(program_t3e_tables(spec, f));
    return [t, &f](const PacketMeta& m) { return trace_route<NoDateline>(*t, f, m); };
  };
  if (!Registry::get().routing("torus", r.name)) Registry::get().add_routing(r);
  Spec spec = t3e_spec(6, 6, 6);
  const Fabric f = build_torus(spec);
  spec.routing = r.name;
  SampleOptions sample;
  sample.max_routes = 40000;
  const FabricSummary s = summarize(spec, f, sample);
  ASSERT_FALSE(s.exact);
  EXPECT_FALSE(s.deadlock_free);
  EXPECT_TRUE(s.deadlock_verdict_certain());
  EXPECT_NE(s.deadlock_cycle.find(" -> "), std::string::npos);
}

TEST(AnalysisDeadlock, RejectsHopsThatDoNotFollowALink) {
  const Spec spec = t3e_spec(4, 4, 4);
  const Fabric f = build_torus(spec);
  ChannelDependencyGraph g(f);
  const HopTrace a{0, 6, 0, 0, 0, 0};  // router 0 leaves on +X towards router 16
  const HopTrace b{16, 3, 0, 0, 0, 0};
  const HopTrace c{5, 3, 0, 0, 0, 0};   // not router 0's +X neighbour
  const HopTrace v{16, 3, 0, 0, 7, 0};  // VC 7 does not exist
  EXPECT_TRUE(g.add_dependency(a, b));
  EXPECT_FALSE(g.add_dependency(a, c));
  EXPECT_FALSE(g.add_dependency(a, v));
  EXPECT_EQ(g.num_dependencies(), 1u);
  EXPECT_EQ(g.num_channels_used(), 2u);
  EXPECT_TRUE(g.has_dependency({0, 0, 0}, {16, 0, 0}));
}

TEST(AnalysisLatency, FromTheTrace) {
  const Spec spec = yarc_spec(2, 256);
  const Fabric f = build_clos(spec);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  const auto p = trace(trace_meta(3, 200, 7, TrafficClass::request));
  ASSERT_EQ(p.size(), 3u);
  ps_t want = f.endpoints[3].wire_ps;
  for (const HopTrace& h : p) want += h.pipeline_ps + f.routers[h.router].ports[h.out_port].wire_ps;
  want += 7 * 1600;
  EXPECT_EQ(path_latency_ps(f, 3, p, 7), want);
  EXPECT_EQ(zero_load_latency_ps(spec, f, 3, 200, 7, TrafficClass::request), want);
  EXPECT_EQ(path_latency_ps(f, 3, {}, 7), kNever);
}

TEST(AnalysisSummary, ReportsUnroutablePairs) {
  RoutingInfo broken;
  broken.family = "torus";
  broken.name = "test_broken";
  broken.make_tracer = [](const Spec&, const Fabric&) -> RouteTraceFn {
    return [](const PacketMeta& m) {
      return m.dst == 5 ? std::vector<HopTrace>{} : std::vector<HopTrace>{{0, 6, 0, 6, 0, 0}};
    };
  };
  if (!Registry::get().routing("torus", "test_broken")) Registry::get().add_routing(broken);
  Spec spec = t3e_spec(2, 2, 2);
  const Fabric f = build_torus(spec);
  spec.routing = "test_broken";
  const FabricSummary s = summarize(spec, f);
  EXPECT_EQ(s.unroutable, 7u * 2);  // 7 sources x 2 classes to endpoint 5
  EXPECT_EQ(s.first_unroutable, "0 -> 5 (request)");
  spec.routing = "no_such_routing";
  EXPECT_THROW(summarize(spec, f), std::invalid_argument);
}

}  // namespace
}  // namespace fabemu
