// Analysis of large fabrics from a sample of routes (route_sample.h): the
// sample's plan, its estimates against the exact figures on fabrics small
// enough for both, the torus formulas, and what describe says about it.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/route_sample.h"
#include "control/cli/commands.h"
#include "control/topology/clos.h"
#include "control/topology/torus.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

SampleOptions at_most(uint64_t routes, uint64_t seed = 1) {
  SampleOptions o;
  o.max_routes = routes;
  o.seed = seed;
  return o;
}

TEST(RouteSample, ExactUpToTheLimit) {
  const RouteSample s = plan_route_sample(64, at_most(64 * 63 * 2));
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.routes_all, 64u * 63 * 2);
  EXPECT_EQ(s.routes(), s.routes_all);
  EXPECT_TRUE(plan_route_sample(64, at_most(0)).exact);  // 0: no limit
  EXPECT_TRUE(plan_route_sample(1, at_most(1)).exact);
}

TEST(RouteSample, SourcesAndRandomPairsAboveIt) {
  // 216 endpoints, 430 routes a source: half of 40000 is 46 sources, the
  // rest (40000 - 46 * 430) / 2 random pairs.
  const RouteSample s = plan_route_sample(216, at_most(40000));
  ASSERT_FALSE(s.exact);
  EXPECT_EQ(s.num_sources(), 46u);
  EXPECT_EQ(s.random_pairs, (40000u - 46 * 430) / 2);
  EXPECT_EQ(s.routes(), 46u * 430 + s.random_pairs * 2);
  EXPECT_TRUE(std::is_sorted(s.sources.begin(), s.sources.end()));
  EXPECT_EQ(std::set<uint32_t>(s.sources.begin(), s.sources.end()).size(), 46u);
  EXPECT_LT(s.sources.back(), 216u);
  for (uint64_t i = 0; i < s.random_pairs; ++i) {
    const auto [src, dst] = random_pair(s, i);
    ASSERT_LT(src, 216u);
    ASSERT_LT(dst, 216u);
    ASSERT_NE(src, dst);
  }
  // A function of the seed: the same again, another with another seed.
  EXPECT_EQ(plan_route_sample(216, at_most(40000)).sources, s.sources);
  EXPECT_NE(plan_route_sample(216, at_most(40000, 2)).sources, s.sources);
  // At least 32 sources, even past the budget; a sample of every source is
  // no sample.
  EXPECT_EQ(plan_route_sample(216, at_most(1000)).num_sources(), 32u);
  EXPECT_EQ(plan_route_sample(216, at_most(1000)).random_pairs, 0u);
  EXPECT_TRUE(plan_route_sample(32, at_most(100)).exact);
}

TEST(RouteSample, EveryPairOnceWhenExact) {
  const RouteSample s = plan_route_sample(40, at_most(0));
  std::vector<std::atomic<int>> seen(40 * 40);
  tbb::enumerable_thread_specific<uint64_t> calls(0);
  for_each_pair(s, calls, [&](uint64_t& n, uint32_t row, uint32_t src, uint32_t dst) {
    EXPECT_EQ(row, src);
    seen[src * 40 + dst]++;
    ++n;
  });
  for (uint32_t a = 0; a < 40; ++a)
    for (uint32_t b = 0; b < 40; ++b) EXPECT_EQ(seen[a * 40 + b].load(), a == b ? 0 : 1);
  EXPECT_EQ(calls.combine(std::plus<>()), 40u * 39);
}

TEST(RouteSample, SampledRowsThenRandomPairs) {
  const RouteSample s = plan_route_sample(216, at_most(40000));
  std::vector<std::atomic<int>> row_pairs(46);
  std::atomic<uint64_t> random{0};
  tbb::enumerable_thread_specific<int> unused(0);
  for_each_pair(s, unused, [&](int&, uint32_t row, uint32_t src, uint32_t dst) {
    EXPECT_NE(src, dst);
    if (row == kRandomPairRow) {
      ++random;
      return;
    }
    ASSERT_LT(row, 46u);
    EXPECT_EQ(src, s.sources[row]);
    row_pairs[row]++;
  });
  for (const auto& n : row_pairs) EXPECT_EQ(n.load(), 215);
  EXPECT_EQ(random.load(), s.random_pairs);
}

TEST(RouteSample, RatioEstimate) {
  // Per-source means 1, 2, 3 of one pair each, 3 of 10 sources: s^2 = 1,
  // variance (1 - 3/10) * 1 / 3.
  const Estimate e = ratio_estimate({1, 2, 3}, {1, 1, 1}, 10);
  EXPECT_DOUBLE_EQ(e.value, 2.0);
  EXPECT_DOUBLE_EQ(e.ci95, 1.96 * std::sqrt(0.7 / 3));
  EXPECT_EQ(ratio_estimate({1, 2, 3}, {1, 1, 1}, 3).ci95, 0.0);   // every source
  EXPECT_EQ(ratio_estimate({2, 2, 2}, {1, 1, 1}, 10).ci95, 0.0);  // no spread
}

// A torus is vertex-transitive under direction-order routing: every source
// sees the same distances, so a sample of sources gives the exact means
// (interval 0) and the exact diameter.
TEST(AnalysisSampled, AgreesWithExactOnATorus) {
  const Spec spec = t3e_spec(6, 6, 6);
  const Fabric f = build_torus(spec);
  const FabricSummary exact = summarize(spec, f, at_most(0));
  const FabricSummary s = summarize(spec, f, at_most(40000));
  ASSERT_TRUE(exact.exact);
  ASSERT_FALSE(s.exact);
  EXPECT_EQ(s.sampled_sources, 46u);
  EXPECT_EQ(s.random_pairs, (40000u - 46 * 430) / 2);
  EXPECT_EQ(s.routes_all, exact.routes_traced);
  EXPECT_EQ(s.routes_traced, 46u * 430 + s.random_pairs * 2);
  EXPECT_NEAR(s.avg_hops, exact.avg_hops, 1e-12);
  EXPECT_NEAR(s.avg_hops_with_self, exact.avg_hops_with_self, 1e-12);
  EXPECT_NEAR(s.avg_hops_ci95, 0.0, 1e-9);
  EXPECT_EQ(s.zero_load_ps_typical, exact.zero_load_ps_typical);
  EXPECT_EQ(s.diameter, exact.diameter);
  EXPECT_EQ(s.zero_load_ps_max, exact.zero_load_ps_max);
  EXPECT_EQ(s.unroutable, 0u);
  EXPECT_TRUE(s.deadlock_free);
  EXPECT_FALSE(s.deadlock_verdict_certain());  // a sample proves nothing
  EXPECT_TRUE(exact.deadlock_verdict_certain());
  EXPECT_LE(s.dependencies, exact.dependencies);
  EXPECT_LE(s.channels, exact.channels);
  EXPECT_GT(s.dependencies, exact.dependencies / 2);  // the random pairs spread it
  // The exact mode has no sampling figures.
  EXPECT_EQ(exact.sampled_sources, 0u);
  EXPECT_EQ(exact.avg_hops_ci95, 0.0);
  EXPECT_EQ(exact.dependencies_seen_once, 0u);
}

TEST(AnalysisSampled, SameOnOneThreadAsOnAll) {
  const Spec spec = t3e_spec(6, 6, 6);
  const Fabric f = build_torus(spec);
  const FabricSummary all = summarize(spec, f, at_most(40000));
  FabricSummary one;
  tbb::task_arena arena(1);
  arena.execute([&] { one = summarize(spec, f, at_most(40000)); });
  EXPECT_EQ(one.avg_hops, all.avg_hops);
  EXPECT_EQ(one.zero_load_ps_typical, all.zero_load_ps_typical);
  EXPECT_EQ(one.dependencies, all.dependencies);
  EXPECT_EQ(one.dependencies_seen_once, all.dependencies_seen_once);
  EXPECT_EQ(one.channels, all.channels);
}

// Two rank-1 routers of 32 and 16 endpoints: sources see different
// distances, so the sample's means are estimates whose interval must
// cover the exact figure in most samples (95% nominal; at least 16 of 20
// seeds here).
TEST(AnalysisSampled, IntervalsCoverTheExactMeanOnAnUnevenClos) {
  const Spec spec = yarc_spec(2, 48);
  const Fabric f = build_clos(spec);
  const FabricSummary exact = summarize(spec, f, at_most(0));
  int covered = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const FabricSummary s = summarize(spec, f, at_most(1000, seed));
    ASSERT_FALSE(s.exact);
    EXPECT_GT(s.avg_hops_ci95, 0.0);
    EXPECT_EQ(s.diameter, 2);
    covered +=
        std::abs(s.avg_hops - exact.avg_hops) <= s.avg_hops_ci95 &&
        std::abs(s.avg_hops_with_self - exact.avg_hops_with_self) <= s.avg_hops_with_self_ci95 &&
        std::abs(double(s.zero_load_ps_typical) - double(exact.zero_load_ps_typical)) <=
            s.zero_load_ps_typical_ci95 + 1;
  }
  EXPECT_GE(covered, 16);
}

// k-ary rings: the mean distance over all destinations, the source itself
// included, is k/4 per dimension for even k; average hops with self is the
// sum over dimensions, the diameter the sum of k/2.
TEST(AnalysisSampled, TorusFormulas) {
  for (const auto& dims : std::vector<std::array<int, 3>>{{16, 16, 16}, {32, 8, 4}}) {
    const Spec spec = t3e_spec(dims[0], dims[1], dims[2]);
    const Fabric f = build_torus(spec);
    const FabricSummary s = summarize(spec, f, at_most(1'000'000));
    const double e = double(f.endpoints.size());
    const double with_self = dims[0] / 4.0 + dims[1] / 4.0 + dims[2] / 4.0;
    ASSERT_FALSE(s.exact) << f.name;
    EXPECT_NEAR(s.avg_hops_with_self, with_self, 1e-9) << f.name;
    EXPECT_NEAR(s.avg_hops, with_self * e / (e - 1), 1e-9) << f.name;
    EXPECT_NEAR(s.avg_hops_ci95, 0.0, 1e-9) << f.name;
    EXPECT_EQ(s.diameter, dims[0] / 2 + dims[1] / 2 + dims[2] / 2) << f.name;
    EXPECT_TRUE(s.deadlock_free) << f.name;
    EXPECT_EQ(s.unroutable, 0u) << f.name;
  }
  const Spec spec = t3e_spec(4, 4, 4);
  EXPECT_DOUBLE_EQ(summarize(spec, build_torus(spec)).avg_hops_with_self, 3.0);
}

TEST(DescribeSampled, SaysSoInTextAndJson) {
  const std::string json = ::testing::TempDir() + "/describe_sampled.json";
  DescribeOptions opts;
  opts.json_out = json;
  opts.max_routes = 40000;
  const SpecArgs args{FABEMU_SOURCE_DIR "/topologies/t3e-4x4x4.yaml", {"topology.dims=[6,6,6]"}};
  std::ostringstream out, err;
  ASSERT_EQ(describe_command(args, opts, out, err), 0) << err.str();
  // The rows wrap: read the text with its white space folded.
  std::string text;
  std::istringstream words(out.str());
  for (std::string w; words >> w;) text += w + ' ';
  EXPECT_NE(text.find("SAMPLED: 92.9k routes, more than --max-routes 40000"), std::string::npos)
      << text;
  EXPECT_NE(text.find("46 random sources"), std::string::npos) << text;
  EXPECT_NE(text.find("NOT PROVEN"), std::string::npos) << text;
  EXPECT_NE(text.find("at least"), std::string::npos) << text;
  EXPECT_NE(text.find("±"), std::string::npos) << text;
  EXPECT_NE(text.find("(a sample of 92880)"), std::string::npos) << text;

  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_TRUE(j["deadlock_free"].is_null());  // not proven, not refuted
  const nlohmann::json& a = j["analysis"];
  EXPECT_EQ(a["exact"], false);
  EXPECT_EQ(a["routes_all"], 92880);
  EXPECT_EQ(a["sampled_sources"], 46);
  EXPECT_EQ(a["figures"]["avg_hops"], "estimate");
  EXPECT_EQ(a["figures"]["diameter"], "lower_bound");
  EXPECT_EQ(a["figures"]["deadlock_free"], "sample");
  EXPECT_EQ(a["figures"]["routers"], "exact");
  EXPECT_TRUE(a["ci95"].contains("avg_hops"));

  // Below the limit: exact, and JSON's deadlock_free a plain verdict.
  opts.max_routes = 0;
  std::ostringstream out2;
  ASSERT_EQ(describe_command(args, opts, out2, err), 0) << err.str();
  EXPECT_NE(out2.str().find("exact: every route traced"), std::string::npos) << out2.str();
  EXPECT_EQ(out2.str().find("SAMPLED"), std::string::npos);
  std::ifstream in2(json);
  const nlohmann::json j2 = nlohmann::json::parse(in2);
  EXPECT_EQ(j2["deadlock_free"], true);
  EXPECT_EQ(j2["analysis"]["exact"], true);
  EXPECT_EQ(j2["analysis"]["figures"]["deadlock_free"], "exact");
  EXPECT_FALSE(j2["analysis"].contains("ci95"));
}

}  // namespace
}  // namespace fabemu
