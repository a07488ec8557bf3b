// The flattened butterfly (Kim, Dally & Abts, ISCA 2007, sections 2-3): the
// k-ary n-flat's routers, radix and equation (1) wiring; diameter, average
// hops, bisection and capacity; min and val routing through the real tables
// (every pair delivered, dimension order, VAL's two VCs and its acyclic
// channel dependencies); virtual-time runs that deliver every packet exactly
// once at the computed zero-load latency.
#include "control/topology/flatfly.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"
#include "control/topology/registry.h"
#include "dataplane/routing/flatfly_val.h"
#include "tests/support/flatfly_digits.h"
#include "tests/support/run_collect.h"
#include "tests/support/trace_pairs.h"

namespace fabemu {
namespace {

Spec flatfly_spec(int k, int n, const std::string& routing = "min") {
  return load_spec_text(
      "profile: flatfly\n",
      {"topology.k=" + std::to_string(k), "topology.n=" + std::to_string(n), "routing=" + routing},
      "t.yaml");
}

// The paper's sizes: a few shapes, the 32-ary 2-flat of section 3.2 and the
// 2-ary 4-flat of Figure 1(d).
const std::vector<std::pair<int, int>> kShapes{{4, 3}, {32, 2}, {2, 4}, {3, 3}, {8, 2}};

TEST(FlatflyBuild, RoutersRadixAndEquationOne) {
  for (auto [k, n] : kShapes) {
    const Fabric f = build_flatfly(flatfly_spec(k, n));
    const int dims = n - 1;
    const int64_t endpoints = ipow(k, n);
    ASSERT_EQ(static_cast<int64_t>(f.endpoints.size()), endpoints);
    ASSERT_EQ(static_cast<int64_t>(f.routers.size()), endpoints / k) << "N/k routers";
    for (const FabricRouter& r : f.routers) {
      ASSERT_EQ(static_cast<int>(r.ports.size()), n * (k - 1) + 1) << "radix n(k-1)+1";
      // Equation (1): in dimension d (1..n'), i links to
      // j = i + [m - (floor(i / k^(d-1)) mod k)] k^(d-1), m = 0..k-1, j != i.
      std::set<std::pair<int, int32_t>> want, got;
      for (int d = 1; d <= dims; ++d)
        for (int m = 0; m < k; ++m) {
          const int64_t j = r.id + (m - (r.id / ipow(k, d - 1)) % k) * ipow(k, d - 1);
          if (j != r.id) want.insert({d, static_cast<int32_t>(j)});
        }
      int endpoint_ports = 0;
      for (size_t p = 0; p < r.ports.size(); ++p) {
        const FabricPort& fp = r.ports[p];
        if (fp.endpoint >= 0) {
          ++endpoint_ports;
          EXPECT_EQ(fp.endpoint, r.id * k + static_cast<int32_t>(p));
          continue;
        }
        ASSERT_GE(fp.peer_router, 0) << "every port is used";
        got.insert({fp.label, fp.peer_router});
        // The channel comes back on the peer's port for this router.
        const FabricPort& back = f.routers[fp.peer_router].ports[fp.peer_port];
        EXPECT_EQ(back.peer_router, r.id);
        EXPECT_EQ(back.peer_port, static_cast<int16_t>(p));
        EXPECT_EQ(back.label, fp.label);
      }
      EXPECT_EQ(endpoint_ports, k) << "concentration k";
      EXPECT_EQ(got, want) << k << "-ary " << n << "-flat router " << r.id;
    }
    EXPECT_EQ(count_router_links(f), static_cast<int>(f.routers.size()) * dims * (k - 1));
  }
}

TEST(FlatflyBuild, PaperFigure1dNeighbours) {
  // "R4' is connected to R5' in dimension 1, R6' in dimension 2, and R0' in
  // dimension 3" (2-ary 4-flat).
  const Fabric f = build_flatfly(flatfly_spec(2, 4));
  std::set<std::pair<int, int32_t>> got;
  for (const FabricPort& p : f.routers[4].ports)
    if (p.peer_router >= 0) got.insert({p.label, p.peer_router});
  EXPECT_EQ(got, (std::set<std::pair<int, int32_t>>{{1, 5}, {2, 6}, {3, 0}}));
}

TEST(FlatflyBuild, SizeLimits) {
  EXPECT_EQ(flatfly_size_problem(32, 2), "");  // radix 63
  EXPECT_EQ(flatfly_size_problem(8, 5), "");   // N = 32768
  EXPECT_NE(flatfly_size_problem(33, 2).find("radix n(k-1)+1 = 65"), std::string::npos);
  EXPECT_NE(flatfly_size_problem(9, 5).find("k^n endpoints"), std::string::npos);
  EXPECT_NE(flatfly_size_problem(4, 1), "");
  EXPECT_NE(Registry::get().topology("flatfly"), nullptr);
  for (const char* r : {"min", "val"}) EXPECT_NE(Registry::get().routing("flatfly", r), nullptr);
}

// ---- spec ----------------------------------------------------------------------

TEST(FlatflySpec, ProfileDefaultsFromThePaper) {
  const Spec s = profile_defaults("flatfly");
  EXPECT_EQ(s.topology.family, "flatfly");
  EXPECT_EQ(s.topology.k, 32);  // section 3.2: 32-ary 2-flat, N = 1024
  EXPECT_EQ(s.topology.n, 2);
  EXPECT_EQ(s.routing, "min");
  EXPECT_EQ(s.vcs.count, 2);  // VAL: one VC per phase
  // 32 single-flit packets per port (a packet is 19 phits), over 2 VCs.
  EXPECT_EQ(s.vcs.count * s.vcs.buffer_units, 32 * 19);
  const Spec big = spec_of("flatfly-32x2.yaml", {});
  EXPECT_EQ(spec_endpoint_count(big), 1024);
  EXPECT_EQ(spec_endpoint_count(spec_of("flatfly-4x3.yaml", {})), 64);
}

SpecError error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load_spec_text(yaml, sets, "t.yaml");
  } catch (const SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a SpecError for:\n" << yaml;
  return SpecError("", 0, 0, "", "");
}

TEST(FlatflySpec, BadSizesAndVcsSayWhereAndWhatToDo) {
  SpecError e = error_of("profile: flatfly\ntopology:\n  k: 33\n");
  EXPECT_EQ(e.field(), "topology.k") << e.what();
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 6);
  EXPECT_NE(e.message().find("lower topology.k or topology.n"), std::string::npos) << e.what();

  e = error_of("profile: flatfly\ntopology: {k: 4, n: 9}\n");  // 4^9 endpoints
  EXPECT_EQ(e.field(), "topology.k") << e.what();
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(e.message().find("32768"), std::string::npos) << e.what();

  e = error_of("profile: flatfly\ntopology: {n: 1}\n");
  EXPECT_EQ(e.field(), "topology.n") << e.what();
  EXPECT_EQ(e.column(), 15);

  e = error_of("profile: flatfly\nrouting: val\nvcs: {count: 1}\n");
  EXPECT_EQ(e.field(), "vcs.count") << e.what();
  EXPECT_NE(e.message().find("at least 2"), std::string::npos) << e.what();

  e = error_of("profile: flatfly\nrouting: piggyback\n");
  EXPECT_NE(e.message().find("clos_ad"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("ugal_s"), std::string::npos) << e.what();
}

// ---- figures -------------------------------------------------------------------

// Average inter-router hops of minimal routing between distinct endpoints:
// each of the n' router digits of a uniformly random destination differs
// from the source's with probability (k-1)/k, so over all N destinations
// (the source itself included) the mean is n'(k-1)/k; leaving out the one
// zero-hop pair (src = dst) divides the same sum by N - 1 instead of N:
//   H_min = N n'(k-1) / (k (N - 1)).
// 32-ary 2-flat: 1024 * 31 / (32 * 1023) = 0.96970; 4-ary 3-flat: 1.52381.
double min_avg_hops(int k, int n) {
  const double N = double(ipow(k, n));
  return N * (n - 1) * (k - 1) / (k * (N - 1));
}

TEST(FlatflyFigures, DiameterHopsBisectionCapacity) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{4, 3}, {32, 2}, {2, 4}}) {
    const Spec spec = flatfly_spec(k, n);
    const Fabric f = build_flatfly(spec);
    const FabricSummary s = summarize(spec, f);
    const int64_t N = ipow(k, n);
    EXPECT_EQ(s.diameter, n - 1) << "n'";
    EXPECT_NEAR(s.avg_hops, min_avg_hops(k, n), 1e-9);
    EXPECT_NEAR(s.avg_hops_with_self, double(n - 1) * (k - 1) / k, 1e-9);
    // Even k: B = N/2 both ways, N/4 one way; capacity 2B/N = 1 (footnote 3).
    EXPECT_EQ(s.bisection_links, N / 4);
    EXPECT_DOUBLE_EQ(s.capacity, 1.0);
    EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
    EXPECT_EQ(s.unroutable, 0u) << s.first_unroutable;
  }
}

// Links leaving `set` (a bit set over routers) in one direction.
int cut_links(const Fabric& f, uint32_t set) {
  int links = 0;
  for (const FabricRouter& r : f.routers)
    if ((set >> r.id) & 1u)
      for (const FabricPort& p : r.ports)
        links += p.peer_router >= 0 && !((set >> p.peer_router) & 1u);
  return links;
}

TEST(FlatflyFigures, BisectionIsTheMinimumOverEveryHalf) {
  // Lindsey's theorem, checked by brute force over every half of the routers.
  for (auto [k, n] : std::vector<std::pair<int, int>>{{3, 3}, {4, 3}, {2, 4}, {5, 2}}) {
    const Spec spec = flatfly_spec(k, n);
    const Fabric f = build_flatfly(spec);
    const int r = static_cast<int>(f.routers.size());
    int best = 1 << 30;
    for (uint32_t set = 0; set < (1u << r); ++set)
      if (__builtin_popcount(set) == r / 2) best = std::min(best, cut_links(f, set));
    EXPECT_EQ(flatfly_bisection_links(spec, f), best) << k << "-ary " << n << "-flat";
  }
}

// ---- routing through the programmed tables ------------------------------------

TEST(FlatflyRouting, MinIsDimensionOrderForEveryPair) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{4, 3}, {3, 3}, {8, 2}}) {
    const Spec spec = flatfly_spec(k, n);
    const Fabric f = build_flatfly(spec);
    for_every_route(
        spec, f, [&](uint32_t s, uint32_t d, TrafficClass cls, const std::vector<HopTrace>& p) {
          ASSERT_EQ(static_cast<int>(p.size()) - 1, differing_digits(s / k, d / k, k, n - 1));
          EXPECT_EQ(p.back().router, static_cast<int32_t>(d / k));
          EXPECT_EQ(p.back().out_port, d % k);
          int last_dim = 0;
          for (size_t i = 0; i + 1 < p.size(); ++i) {
            const int dim = f.routers[p[i].router].ports[p[i].out_port].label;
            EXPECT_GT(dim, last_dim) << "dimension order";
            last_dim = dim;
          }
          for (const HopTrace& h : p) EXPECT_EQ(h.out_vc, cls == TrafficClass::request ? 0 : 1);
        });
  }
}

// A VAL route: the intermediate router b, checked to be dimension order to
// b on VC `base`, then dimension order to the destination on VC `base` + 1.
int32_t val_intermediate(const Fabric& f, const std::vector<HopTrace>& p, int base) {
  int32_t b = -1;
  int last_dim = 0;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    const int dim = f.routers[p[i].router].ports[p[i].out_port].label;
    if (p[i].out_vc == base + 1 && b < 0) {
      b = p[i].router;
      last_dim = 0;
    }
    EXPECT_EQ(p[i].out_vc, b < 0 ? base : base + 1) << "phase 1 on VC 0, phase 2 on VC 1";
    EXPECT_GT(dim, last_dim) << "dimension order within a phase";
    last_dim = dim;
  }
  return b < 0 ? p.back().router : b;
}

TEST(FlatflyRouting, ValDeliversEveryPairThroughUniformIntermediates) {
  const Spec spec = flatfly_spec(4, 3, "val");
  const Fabric f = build_flatfly(spec);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  const int k = 4, dims = 2;
  std::vector<int> as_intermediate(f.routers.size(), 0);
  uint64_t hops = 0, pairs = 0;
  for (uint32_t s = 0; s < 64; ++s)
    for (uint32_t d = 0; d < 64; ++d) {
      if (s == d) continue;
      const std::vector<HopTrace> p = trace(trace_meta(s, d, 19, TrafficClass::request));
      ASSERT_FALSE(p.empty()) << s << " -> " << d;
      EXPECT_EQ(p.back().out_port, d % k);
      const int32_t b = val_intermediate(f, p, 0);
      as_intermediate[b]++;
      ASSERT_EQ(static_cast<int>(p.size()) - 1,
                differing_digits(s / k, b, k, dims) + differing_digits(b, d / k, k, dims));
      hops += p.size() - 1;
      ++pairs;
    }
  for (int c : as_intermediate) EXPECT_GT(c, 4032 / 16 / 2) << "every router serves as b";
  // b uniform and independent of s and d: 2 n'(k-1)/k = 3 hops on average.
  EXPECT_NEAR(double(hops) / double(pairs), 2.0 * dims * (k - 1) / k, 0.1);
}

TEST(FlatflyRouting, ValResponsesTakeTheirOwnVcPairWithFourVcs) {
  const Spec spec =
      load_spec_text("profile: flatfly\n",
                     {"topology.k=4", "topology.n=3", "routing=val", "vcs.count=4"}, "t.yaml");
  const Fabric f = build_flatfly(spec);
  const RouteTraceFn trace = make_route_tracer(spec, f);
  for (uint32_t d = 1; d < 64; ++d) {
    const std::vector<HopTrace> p = trace(trace_meta(0, d, 19, TrafficClass::response));
    ASSERT_FALSE(p.empty());
    val_intermediate(f, p, 2);
  }
}

// The channel dependency graph of every VAL route, for every source router,
// intermediate router and destination router: dimension order to b on
// phase_vc[0], then to the destination on phase_vc[1].
ChannelDependencyGraph every_val_route(const Spec& spec, const Fabric& f, uint8_t vc1,
                                       uint8_t vc2) {
  const FlatflyTables t = program_flatfly_tables(spec, f, 2);
  ChannelDependencyGraph g(f);
  const int32_t routers = static_cast<int32_t>(f.routers.size());
  for (int32_t s = 0; s < routers; ++s)
    for (int32_t b = 0; b < routers; ++b)
      for (int32_t d = 0; d < routers; ++d) {
        std::vector<HopTrace> path;
        int32_t at = s;
        uint8_t in_port = 0, in_vc = vc1;  // injected on endpoint port 0
        for (int32_t target : {b, d}) {
          const uint8_t vc = target == b ? vc1 : vc2;
          for (int p; (p = flatfly_dimension_order(t, at, target)) >= 0;) {
            path.push_back({at, in_port, in_vc, static_cast<uint8_t>(p), vc, 0});
            const FabricPort& fp = f.routers[at].ports[p];
            at = fp.peer_router;
            in_port = static_cast<uint8_t>(fp.peer_port);
            in_vc = vc;
          }
        }
        path.push_back({at, in_port, in_vc, 0, in_vc, 0});
        EXPECT_TRUE(g.add_path(path));
      }
  return g;
}

TEST(FlatflyDeadlock, ValNeedsItsTwoVcs) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{4, 3}, {8, 2}, {2, 4}}) {
    const Spec spec = flatfly_spec(k, n, "val");
    const Fabric f = build_flatfly(spec);
    EXPECT_TRUE(every_val_route(spec, f, 0, 1).find_cycle().empty()) << "one VC per phase";
    EXPECT_FALSE(every_val_route(spec, f, 0, 0).find_cycle().empty()) << "both phases on one VC";
    const DeadlockReport rep = check_deadlock(spec, f);  // what describe runs
    EXPECT_TRUE(rep.deadlock_free) << rep.description;
    EXPECT_EQ(rep.unroutable, 0u);
    const FabricSummary sum = summarize(spec, f);
    EXPECT_EQ(sum.diameter, 2 * (n - 1)) << "VAL doubles the worst case, n' to 2n'";
  }
}

// ---- runs ----------------------------------------------------------------------

TEST(FlatflyRun, MinAtZeroLoadMatchesAnalysis) {
  const Spec s = spec_of("flatfly-4x3.yaml", {"traffic.load=0.002", "run.measure_ns=200000"});
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(s, &got);
  ASSERT_GT(got.size(), 300u);
  for (const Delivery& d : got)
    EXPECT_EQ(static_cast<int>(d.hops), differing_digits(d.src / 4, d.dst / 4, 4, 2));
  expect_at_zero_load(got, [&](const Delivery& d) {
    const ps_t want = zero_load_latency_ps(s, r.fabric, d.src, d.dst, 19, TrafficClass::request);
    EXPECT_EQ(want, yarc_write_zero_load_ps(d.hops));
    return want;
  });
}

TEST(FlatflyRun, ValAtZeroLoadTakesTwoPhases) {
  const Spec s =
      spec_of("flatfly-4x3.yaml", {"routing=val", "traffic.load=0.002", "run.measure_ns=200000"});
  std::vector<Delivery> got;
  run_exactly_once(s, &got);
  ASSERT_GT(got.size(), 300u);
  uint64_t hops = 0;
  for (const Delivery& d : got) {
    EXPECT_LE(d.hops, 4u) << "at most 2n'";
    hops += d.hops;
  }
  expect_at_zero_load(got, [](const Delivery& d) { return yarc_write_zero_load_ps(d.hops); });
  EXPECT_NEAR(double(hops) / double(got.size()), 3.0, 0.15) << "2n'(k-1)/k";
}

TEST(FlatflyRun, EveryPacketExactlyOnceBeyondSaturation) {
  for (const char* routing : {"min", "val"}) {
    SCOPED_TRACE(routing);
    expect_exactly_once(
        spec_of("flatfly-4x3.yaml",
                {std::string("routing=") + routing, "traffic.load=1.0",
                 "traffic.reply_fraction=0.3", "run.warmup_ns=0", "run.measure_ns=20000"}));
  }
  expect_exactly_once(spec_of(
      "flatfly-4x3.yaml", {"routing=val", "vcs.count=4", "traffic.load=1.0",
                           "traffic.reply_fraction=0.5", "run.workers=2", "run.measure_ns=20000"}));
}

TEST(FlatflyRun, CreditsConservedAtEveryEvent) {
  for (const char* routing : {"min", "val"}) {
    SCOPED_TRACE(routing);
    expect_credits_conserved(
        spec_of("flatfly-4x3.yaml", {std::string("routing=") + routing, "traffic.load=1.0",
                                     "run.warmup_ns=2000", "run.measure_ns=10000"}));
  }
}

TEST(FlatflyRun, ValCarriesAtMostHalfTheCapacity) {
  // Section 3.2: "VAL achieves only half of network capacity regardless of
  // the traffic pattern" (each packet crosses twice the channels on average).
  const RunResult r = run_collect(
      spec_of("flatfly-4x3.yaml", {"routing=val", "traffic.load=1.0", "run.measure_ns=20000"}),
      nullptr);
  EXPECT_LE(r.json["accepted_load"].get<double>(), 0.5 * 1.02);
}

}  // namespace
}  // namespace fabemu
