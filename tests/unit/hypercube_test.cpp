// The binary hypercube of the flattened butterfly paper's topology
// comparison (Kim, Dally & Abts, ISCA 2007, section 3.3, Table 1): wiring
// (router i to i ^ 2^d in dimension d), diameter n, average hops
// n/2 N/(N-1), bisection, e-cube routing through the real tables (every pair,
// lowest differing bit first, the VCs), the deadlock check on one VC, and
// runs that deliver every packet exactly once at the zero-load latency.
#include "control/topology/hypercube.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/spec/spec_loader.h"
#include "control/topology/flatfly.h"
#include "control/topology/registry.h"
#include "tests/support/run_collect.h"
#include "tests/support/trace_pairs.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

Spec hypercube_spec(int n, int c, int vcs = 2) {
  return load_spec_text(
      "profile: flatfly\ntopology: {family: hypercube}\nrouting: ecube\n",
      {"topology.n=" + std::to_string(n), "topology.endpoints_per_router=" + std::to_string(c),
       "vcs.count=" + std::to_string(vcs)},
      "t.yaml");
}

// Set bits of the two routers' addresses that differ: the e-cube hop count.
int hamming(uint32_t a, uint32_t b) { return __builtin_popcount(a ^ b); }

TEST(HypercubeBuild, RouterIToIXorTwoToTheD) {
  for (auto [n, c] : std::vector<std::pair<int, int>>{{3, 1}, {4, 2}, {10, 1}, {2, 5}}) {
    const Fabric f = build_hypercube(hypercube_spec(n, c));
    const uint32_t routers = 1u << n;
    ASSERT_EQ(f.routers.size(), routers);
    ASSERT_EQ(f.endpoints.size(), size_t(routers) * c);
    for (const FabricRouter& r : f.routers) {
      ASSERT_EQ(static_cast<int>(r.ports.size()), c + n) << "radix c + n";
      for (int j = 0; j < c; ++j) EXPECT_EQ(r.ports[j].endpoint, r.id * c + j);
      for (int d = 0; d < n; ++d) {
        const FabricPort& p = r.ports[c + d];
        EXPECT_EQ(p.peer_router, r.id ^ (1 << d)) << "router " << r.id << " dimension " << d;
        EXPECT_EQ(p.peer_port, c + d) << "the channel comes back on the same dimension";
        EXPECT_EQ(p.label, d + 1);
      }
    }
    EXPECT_EQ(count_router_links(f), static_cast<int>(routers) * n);
  }
}

TEST(HypercubeBuild, SizeLimitsAndRegistry) {
  EXPECT_EQ(hypercube_size_problem(10, 1), "");  // the paper's 1024 nodes, radix 11
  EXPECT_EQ(hypercube_size_problem(15, 1), "");  // 32768 endpoints, the head phit's reach
  EXPECT_EQ(hypercube_size_problem(4, 60), "");  // radix 64
  EXPECT_NE(hypercube_size_problem(5, 60).find("radix 65"), std::string::npos);
  EXPECT_NE(hypercube_size_problem(16, 1).find("32768"), std::string::npos);
  EXPECT_NE(hypercube_size_problem(14, 4).find("32768"), std::string::npos);
  EXPECT_NE(hypercube_size_problem(61, 4).find("radix 65"), std::string::npos);
  EXPECT_NE(hypercube_size_problem(40, 1).find("32768"), std::string::npos) << "no overflow";
  EXPECT_NE(Registry::get().topology("hypercube"), nullptr);
  const RoutingInfo* r = Registry::get().routing("hypercube", "ecube");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_vcs, 1) << "dimension order is deadlock-free on one VC";
  EXPECT_EQ(r->max_vcs, 2);
}

TEST(HypercubeSpec, ReadyFilesAndBadSizes) {
  const Spec s = spec_of("hypercube-10.yaml", {});
  EXPECT_EQ(spec_endpoint_count(s), 1024);
  EXPECT_EQ(s.vcs.count * s.vcs.buffer_units, 32 * 19) << "Table 1: buffering held constant";
  EXPECT_EQ(spec_endpoint_count(spec_of("hypercube-4.yaml", {})), 32);

  using spec_test::error_of;
  using spec_test::expect_says;
  SpecError e =
      error_of("profile: flatfly\ntopology:\n  family: hypercube\n  n: 16\nrouting: ecube\n");
  EXPECT_EQ(e.field(), "topology.n") << e.what();
  EXPECT_EQ(e.line(), 4);
  expect_says(e, "lower topology.n");
  e = error_of(
      "profile: flatfly\ntopology: {family: hypercube, n: 8, endpoints_per_router: 57}\n"
      "routing: ecube\n");
  EXPECT_EQ(e.field(), "topology.n") << e.what();
  expect_says(e, "radix 65");
  e = error_of("profile: flatfly\ntopology: {family: hypercube, n: 4}\nrouting: min\n");
  EXPECT_EQ(e.field(), "routing") << e.what();
  expect_says(e, "ecube");
  e = error_of("profile: flatfly\ntopology: {family: hypercube, n: 4, k: 4}\nrouting: ecube\n");
  EXPECT_EQ(e.field(), "topology.k") << e.what();
}

// The paper's hypercube: diameter n, and over the N - 1 destinations of a
// source n/2 N/(N-1) hops on average (each address bit differs for half of
// all N destinations, the source itself among them, with 0 hops).
TEST(HypercubeFigures, DiameterHopsBisectionDeadlock) {
  for (auto [n, c] : std::vector<std::pair<int, int>>{{10, 1}, {4, 2}, {5, 1}}) {
    for (int vcs : {1, 2}) {
      const Spec spec = hypercube_spec(n, c, vcs);
      const Fabric f = build_hypercube(spec);
      const FabricSummary s = summarize(spec, f);
      const double N = double(c << n);
      EXPECT_TRUE(s.exact);
      EXPECT_EQ(s.diameter, n);
      EXPECT_NEAR(s.avg_hops, n / 2.0 * N / (N - 1), 1e-9) << n << "-cube x " << c;
      EXPECT_NEAR(s.avg_hops_with_self, n / 2.0, 1e-9);
      EXPECT_EQ(s.bisection_links, int64_t{1} << (n - 1)) << "the top dimension's links";
      EXPECT_DOUBLE_EQ(s.capacity, 2.0 / c) << "2B/N";
      EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
      EXPECT_EQ(s.unroutable, 0u) << s.first_unroutable;
    }
  }
}

// "The bisection bandwidth is held constant across the four topologies"
// (section 3.3): the 10-cube's 512 channels across its bisection run at
// half rate (link.router_rate 0.5 in hypercube-10.yaml), so that it carries
// what the 32-ary 2-flat's 256 do: capacity 2B/N = 1 for both.
TEST(HypercubeFigures, BisectionBandwidthHeldToTheFlattenedButterflys) {
  const Spec cube = spec_of("hypercube-10.yaml", {});
  const Fabric f = build_hypercube(cube);
  for (const FabricRouter& r : f.routers)
    for (const FabricPort& p : r.ports)
      EXPECT_EQ(p.unit_ps, p.endpoint >= 0 ? 1600u : 3200u) << "channels at half rate";
  EXPECT_EQ(f.endpoints[0].unit_ps, 1600u);
  const FabricSummary s = summarize(cube, f);
  EXPECT_EQ(s.bisection_links, 512);
  EXPECT_DOUBLE_EQ(s.capacity, 1.0);
  const Spec fly = spec_of("flatfly-32x2.yaml", {});
  EXPECT_DOUBLE_EQ(summarize(fly, build_flatfly(fly)).capacity, s.capacity);
  // Cut-through across rates: the tail arrives at the last router 19 x 3.2
  // ns after the head, but the head's 31.25 ns pipeline there outlasts the
  // 30.4 ns the faster ejection link needs to let the tail catch up, so the
  // packet leaves after its pipeline and is serialised at the full rate.
  EXPECT_EQ(zero_load_latency_ps(cube, f, 0, 1, 19, TrafficClass::request),
            10000 + 2 * (31250 + 10000) + 19 * 1600);
  // With a 1 ns pipeline the head waits for its tail instead: the
  // serialisation is the slowest link's, and the last pipeline is hidden.
  const Spec fast = spec_of("hypercube-10.yaml", {"router.latency_ns=1"});
  EXPECT_EQ(zero_load_latency_ps(fast, build_hypercube(fast), 0, 1, 19, TrafficClass::request),
            3 * 10000 + 1000 + 19 * 3200);
}

// The engine holds a packet at a router until its tail, arriving on a
// slower link, could follow it onto a faster one: every uncontended packet
// takes exactly the traced zero-load latency, whichever of the pipeline and
// the tail holds it.
TEST(HypercubeRun, ZeroLoadAcrossLinkRates) {
  for (const char* pipeline : {"router.latency_ns=31.25", "router.latency_ns=1"}) {
    SCOPED_TRACE(pipeline);
    const Spec s = spec_of("hypercube-4.yaml", {"link.router_rate=0.5", pipeline,
                                                "traffic.load=0.002", "run.measure_ns=400000"});
    std::vector<Delivery> got;
    const RunResult r = run_exactly_once(s, &got);
    ASSERT_GT(got.size(), 300u);
    expect_at_zero_load(got, [&](const Delivery& d) {
      return zero_load_latency_ps(s, r.fabric, d.src, d.dst, 19, TrafficClass::request);
    });
  }
}

TEST(HypercubeRouting, ECubeLowestDifferingBitFirst) {
  for (int vcs : {1, 2}) {
    const int n = 4, c = 2;
    const Spec spec = hypercube_spec(n, c, vcs);
    const Fabric f = build_hypercube(spec);
    for_every_route(spec, f,
                    [&](uint32_t s, uint32_t d, TrafficClass cls, const std::vector<HopTrace>& p) {
                      const uint32_t from = s / c, to = d / c;
                      ASSERT_EQ(static_cast<int>(p.size()) - 1, hamming(from, to));
                      EXPECT_EQ(p.back().router, static_cast<int32_t>(to));
                      EXPECT_EQ(p.back().out_port, d % c);
                      // Each hop corrects the lowest bit still differing.
                      uint32_t at = from;
                      for (size_t i = 0; i + 1 < p.size(); ++i) {
                        const int dim = __builtin_ctz(at ^ to);
                        EXPECT_EQ(p[i].out_port, c + dim) << s << " -> " << d << " hop " << i;
                        at ^= 1u << dim;
                      }
                      const int vc = cls == TrafficClass::response && vcs == 2 ? 1 : 0;
                      for (const HopTrace& h : p) EXPECT_EQ(h.out_vc, vc);
                    });
  }
}

// ---- runs ------------------------------------------------------------------------

TEST(HypercubeRun, ZeroLoadLatencyAndHopsOfECube) {
  const Spec s = spec_of("hypercube-4.yaml", {"traffic.load=0.002", "run.measure_ns=400000"});
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(s, &got);
  ASSERT_GT(got.size(), 300u);
  for (const Delivery& d : got) EXPECT_EQ(static_cast<int>(d.hops), hamming(d.src / 2, d.dst / 2));
  expect_at_zero_load(got, [&](const Delivery& d) {
    const ps_t want = zero_load_latency_ps(s, r.fabric, d.src, d.dst, 19, TrafficClass::request);
    EXPECT_EQ(want, yarc_write_zero_load_ps(d.hops));
    return want;
  });
}

TEST(HypercubeRun, EveryPacketExactlyOnceBeyondSaturation) {
  expect_exactly_once(spec_of("hypercube-4.yaml", {"traffic.load=1.0", "traffic.reply_fraction=0.3",
                                                   "run.warmup_ns=0", "run.measure_ns=20000"}));
  // One VC for both classes, on two workers, with half-rate channels.
  expect_exactly_once(spec_of("hypercube-4.yaml",
                              {"vcs.count=1", "traffic.load=1.0", "traffic.reply_fraction=0.5",
                               "run.workers=2", "run.measure_ns=20000", "link.router_rate=0.5"}));
}

// Figure 6(a): the hypercube with the paper's router (switch speedup, half-
// rate channels for the flatfly's bisection) carries nearly all of uniform
// traffic. A head routed to an output with queues must ask to cross as soon
// as a crossing is free, not when the output link is: waiting for the link
// brought back head-of-line blocking at the injection input and held a
// 6-cube to 0.874 (0.876 for the 10-cube), whatever the buffers.
TEST(HypercubeRun, OutputQueuesRemoveHeadOfLineBlocking) {
  const RunResult r = run_collect(
      spec_of("hypercube-10.yaml", {"topology.n=6", "router.output_speedup=63", "traffic.load=1.0",
                                    "run.warmup_ns=10000", "run.measure_ns=20000"}),
      nullptr);
  EXPECT_GE(r.json["accepted_load"].get<double>(), 0.92);
}

TEST(HypercubeRun, CreditsConservedAtEveryEvent) {
  for (const char* rate : {"link.router_rate=1", "link.router_rate=0.5"}) {
    SCOPED_TRACE(rate);
    expect_credits_conserved(
        spec_of("hypercube-4.yaml",
                {rate, "traffic.load=1.0", "run.warmup_ns=2000", "run.measure_ns=10000"}));
  }
}

}  // namespace
}  // namespace fabemu
