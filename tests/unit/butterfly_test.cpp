// The conventional butterfly of the flattened butterfly paper's topology
// comparison (Kim, Dally & Abts, ISCA 2007, section 3.3, Figure 6): a k-ary
// n-fly modelled as rows of its n stages (control/topology/butterfly.h).
// Wiring (stage d of row i to stage d + 1 of every row that differs in
// digit d only, itself included), destination routing through every stage
// for every pair, diameter and average hops n - 1, the flatfly's bisection,
// one VC deadlock-free, and runs that deliver every packet exactly once at
// the zero-load latency.
#include "control/topology/butterfly.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/spec/spec_loader.h"
#include "control/topology/flatfly.h"
#include "control/topology/registry.h"
#include "tests/support/run_collect.h"
#include "tests/support/trace_pairs.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

Spec butterfly_spec(int k, int n, std::vector<std::string> sets = {}) {
  sets.push_back("topology.k=" + std::to_string(k));
  sets.push_back("topology.n=" + std::to_string(n));
  sets.push_back("run.progress_s=0");
  return load_spec_text("profile: flatfly\ntopology: {family: butterfly}\nrouting: dest\n", sets,
                        "t.yaml");
}

int ipow(int k, int e) {
  int v = 1;
  for (int i = 0; i < e; ++i) v *= k;
  return v;
}

int digit(int row, int d, int k) { return row / ipow(k, d) % k; }

const std::vector<std::pair<int, int>> kShapes{{32, 2}, {4, 3}, {2, 4}, {3, 3}, {8, 2}};

TEST(ButterflyBuild, EveryStageLinksToTheNextInEachRowOfItsDigit) {
  for (auto [k, n] : kShapes) {
    const Fabric f = build_butterfly(butterfly_spec(k, n));
    const int rows = ipow(k, n - 1);
    ASSERT_EQ(static_cast<int>(f.routers.size()), rows) << "k^(n-1) routers per stage";
    ASSERT_EQ(static_cast<int>(f.endpoints.size()), ipow(k, n));
    for (const FabricRouter& r : f.routers) {
      ASSERT_EQ(static_cast<int>(r.ports.size()), n * k) << "n stages of radix k";
      for (int j = 0; j < k; ++j) EXPECT_EQ(r.ports[j].endpoint, r.id * k + j);
      for (int d = 0; d < n - 1; ++d)
        for (int m = 0; m < k; ++m) {
          const FabricPort& p = r.ports[k + d * k + m];
          const int own = digit(r.id, d, k);
          EXPECT_EQ(p.peer_router, r.id + (m - own) * ipow(k, d))
              << "row with digit " << d << " = " << m;
          EXPECT_EQ(p.peer_port, k + d * k + own) << "arrives on the port of this row's digit";
          EXPECT_EQ(p.label, d + 1);
        }
    }
    // k^(n-1) rows x (n-1) stages x k channels each, the loops included.
    EXPECT_EQ(count_router_links(f), rows * (n - 1) * k);
  }
}

TEST(ButterflyBuild, SizeLimitsSpecAndRegistry) {
  EXPECT_EQ(butterfly_size_problem(32, 2), "");  // the paper's: radix 64 merged
  EXPECT_EQ(butterfly_size_problem(2, 15), "");  // 32768 endpoints
  EXPECT_NE(butterfly_size_problem(33, 2).find("radix n k = 66"), std::string::npos);
  EXPECT_NE(butterfly_size_problem(2, 16).find("32768"), std::string::npos);
  EXPECT_NE(butterfly_size_problem(1, 2).find("k >= 2"), std::string::npos);
  const RoutingInfo* r = Registry::get().routing("butterfly", "dest");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_vcs, 1);
  EXPECT_TRUE(r->deadlock_free);

  const Spec s = spec_of("butterfly-32x2.yaml", {});
  EXPECT_EQ(spec_endpoint_count(s), 1024);
  EXPECT_EQ(s.vcs.count * s.vcs.buffer_units, 32 * 19) << "Table 1: buffering held constant";
  using spec_test::error_of;
  using spec_test::expect_says;
  SpecError e = error_of(
      "profile: flatfly\ntopology: {family: butterfly, k: 40, n: 2}\n"
      "routing: dest\n");
  EXPECT_EQ(e.field(), "topology.k") << e.what();
  expect_says(e, "lower topology.k or topology.n");
  e = error_of("profile: flatfly\ntopology: {family: butterfly, k: 4, n: 2}\nrouting: min\n");
  EXPECT_EQ(e.field(), "routing") << e.what();
  expect_says(e, "dest");
}

// Destination routing: stage s leaves on the channel named by digit s of
// the destination's row (the loop when it is the row's own), so every
// packet crosses all n stages, n - 1 channels, and the last stage ejects.
TEST(ButterflyRouting, DestinationDigitAtEveryStage) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{4, 3}, {2, 4}, {3, 2}}) {
    for (int vcs : {1, 2}) {
      const Spec spec = butterfly_spec(k, n, {"vcs.count=" + std::to_string(vcs)});
      const Fabric f = build_butterfly(spec);
      for_every_route(
          spec, f, [&](uint32_t s, uint32_t d, TrafficClass cls, const std::vector<HopTrace>& p) {
            const int from = static_cast<int>(s) / k, to = static_cast<int>(d) / k;
            ASSERT_EQ(static_cast<int>(p.size()), n) << "one router per stage";
            int row = from;
            for (int st = 0; st + 1 < n; ++st) {
              EXPECT_EQ(p[st].router, row);
              const int m = digit(to, st, k);
              EXPECT_EQ(p[st].out_port, k + st * k + m) << s << " -> " << d;
              row += (m - digit(row, st, k)) * ipow(k, st);
            }
            EXPECT_EQ(p.back().router, to);
            EXPECT_EQ(p.back().out_port, static_cast<int>(d) % k);
            const int vc = cls == TrafficClass::response && vcs == 2 ? 1 : 0;
            for (const HopTrace& h : p) EXPECT_EQ(h.out_vc, vc);
          });
    }
  }
}

// Every packet crosses n - 1 channels; the halves of the rows are joined by
// k^n / 4 channels one way for even k (the 32-ary 2-fly's 256, as the
// 32-ary 2-flat's: the paper holds bisection constant, capacity 1).
TEST(ButterflyFigures, HopsBisectionCapacityDeadlock) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{32, 2}, {4, 3}, {2, 4}}) {
    const Spec spec = butterfly_spec(k, n, {"vcs.count=1"});
    const FabricSummary s = summarize(spec, build_butterfly(spec));
    EXPECT_TRUE(s.exact);
    EXPECT_EQ(s.diameter, n - 1);
    EXPECT_DOUBLE_EQ(s.avg_hops, n - 1);
    EXPECT_EQ(s.bisection_links, ipow(k, n) / 4);
    EXPECT_DOUBLE_EQ(s.capacity, 1.0) << "2B/N";
    EXPECT_TRUE(s.deadlock_free) << s.deadlock_cycle;
    EXPECT_EQ(s.unroutable, 0u) << s.first_unroutable;
  }
  const Spec fly = spec_of("flatfly-32x2.yaml", {});
  const Spec bfly = spec_of("butterfly-32x2.yaml", {});
  EXPECT_EQ(summarize(bfly, build_butterfly(bfly)).bisection_links,
            summarize(fly, build_flatfly(fly)).bisection_links);
}

// ---- runs ------------------------------------------------------------------------

TEST(ButterflyRun, ZeroLoadLatencyThroughEveryStage) {
  const Spec s = butterfly_spec(4, 3, {"traffic.load=0.002", "run.measure_ns=200000"});
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(s, &got);
  ASSERT_GT(got.size(), 300u);
  for (const Delivery& d : got) EXPECT_EQ(d.hops, 2u) << "n - 1 channels, loops too";
  expect_at_zero_load(got, [&](const Delivery& d) {
    const ps_t want = zero_load_latency_ps(s, r.fabric, d.src, d.dst, 19, TrafficClass::request);
    EXPECT_EQ(want, yarc_write_zero_load_ps(2));
    return want;
  });
}

TEST(ButterflyRun, EveryPacketExactlyOnceAndCreditsConserved) {
  expect_exactly_once(butterfly_spec(4, 3,
                                     {"traffic.load=1.0", "traffic.reply_fraction=0.3",
                                      "run.warmup_ns=0", "run.measure_ns=20000"}));
  expect_exactly_once(
      butterfly_spec(4, 3,
                     {"vcs.count=1", "traffic.load=1.0", "traffic.reply_fraction=0.5",
                      "run.workers=2", "run.measure_ns=20000"}));
  expect_credits_conserved(
      butterfly_spec(4, 3, {"traffic.load=1.0", "run.warmup_ns=2000", "run.measure_ns=10000"}));
}

// Figure 6(b): "the conventional butterfly throughput is severely limited and
// performs identically to a flattened butterfly with minimal routing" (section
// 3.3): one path per pair, so the
// worst case (every endpoint of row i to row i + 1) shares the single
// channel from row i to row i + 1 among k sources: 1/k.
TEST(ButterflyRun, WorstCaseIsOneOverK) {
  const RunResult r =
      run_collect(butterfly_spec(8, 2,
                                 {"traffic.pattern=flatfly_worst", "traffic.load=1.0",
                                  "run.warmup_ns=5000", "run.measure_ns=20000"}),
                  nullptr);
  EXPECT_NEAR(r.json["accepted_load"].get<double>(), 1.0 / 8, 0.05 / 8);
}

}  // namespace
}  // namespace fabemu
