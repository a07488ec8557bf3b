// The BlackWidow paper's Table 4 (section 7.8.1): worst-case link
// utilisation under random permutations, torus and radix-64 fat tree, from
// routes traced through the programmed tables (control/analysis/link_load.h,
// table4.h), and the rank-3 fat tree those analyses need
// (control/analysis/fat_tree_model.h).
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/fat_tree_model.h"
#include "control/analysis/link_load.h"
#include "control/analysis/table4.h"
#include "control/spec/spec_loader.h"
#include "control/topology/clos.h"
#include "control/topology/torus.h"
#include "dataplane/routing/yarc_updown.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

struct Traced {
  Spec spec;
  Fabric fabric;
  RoutePathFn trace;
};

// The torus of Table 4: minimal dimension order on the T3E tables.
Traced torus(int kx, int ky, int kz) {
  Traced t{t3e_spec(kx, ky, kz), {}, {}};
  t.spec.routing = "dimension_order";
  t.fabric = build_torus(t.spec);
  t.trace = make_route_path_tracer(t.spec, t.fabric);
  return t;
}

Traced fat_tree(int endpoints) {
  Traced t{fat_tree_spec(yarc_spec(2, 1024), endpoints), {}, {}};
  t.fabric = build_fat_tree(t.spec, endpoints);
  t.trace = make_route_path_tracer(t.spec, t.fabric);
  return t;
}

TEST(Table4Permutations, DerangementsAreDeterministicAndHaveNoFixedPoint) {
  for (uint64_t p = 0; p < 50; ++p) {
    const std::vector<uint32_t> d = random_derangement(64, 7, p);
    std::vector<uint32_t> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t i = 0; i < 64; ++i) {
      EXPECT_EQ(sorted[i], i);
      EXPECT_NE(d[i], i);
    }
    EXPECT_EQ(d, random_derangement(64, 7, p));
  }
  EXPECT_NE(random_derangement(64, 7, 0), random_derangement(64, 7, 1));
  EXPECT_NE(random_derangement(64, 7, 0), random_derangement(64, 8, 0));
}

TEST(Table4Permutations, StreamsStepThroughTheBitsEachRankHashesOn) {
  // Rank 1 hashes on bits 0..7 and rank 2 on bits 5..12 of the hash phit
  // (section 7.8.2): 32 streams of one transfer differ in both low fields.
  for (uint16_t base : {0x0000, 0x1234, 0x7FFF}) {
    std::vector<bool> r1(32), r2(32);
    for (int i = 0; i < 32; ++i) {
      const uint16_t h = stream_hash(base, i);
      r1[h & 31] = true;
      r2[(h >> 5) & 31] = true;
      EXPECT_EQ(h >> 10, base >> 10);
    }
    EXPECT_EQ(std::count(r1.begin(), r1.end(), true), 32);
    EXPECT_EQ(std::count(r2.begin(), r2.end(), true), 32);
  }
}

TEST(Table4Permutations, TorusShiftsLoadLinksExactly) {
  // 8x8x8 torus, dimension order: +1 in X puts 1 on each +X link; +4 in X
  // (a tie, which the T3E tables route +) puts 4 flows on each +X link.
  const Traced t = torus(8, 8, 8);
  std::vector<uint32_t> one(512), four(512);
  for (uint32_t s = 0; s < 512; ++s) {
    const uint32_t x = s / 64, rest = s % 64;
    one[s] = ((x + 1) % 8) * 64 + rest;
    four[s] = ((x + 4) % 8) * 64 + rest;
  }
  EXPECT_EQ(worst_link_load(t.fabric, t.trace, one, {1}, 1), std::vector<double>{1.0});
  EXPECT_EQ(worst_link_load(t.fabric, t.trace, four, {1}, 1), std::vector<double>{4.0});
}

TEST(Table4Permutations, FatTreeWithDiversity32SpreadsEveryTransferEvenly) {
  // 64 endpoints (two rank-1 routers): when every transfer leaves its rank-1
  // router, 32 streams per transfer put exactly 32 x 1/32 on every uplink
  // and downlink; one stream per transfer piles hashed transfers up.
  const Traced t = fat_tree(64);
  std::vector<uint32_t> swap(64);
  for (uint32_t s = 0; s < 64; ++s) swap[s] = s ^ 32;
  const std::vector<double> w = worst_link_load(t.fabric, t.trace, swap, {1, 2, 32}, 3);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_GT(w[0], 1.0);
  EXPECT_GE(w[0], w[1]);
  EXPECT_DOUBLE_EQ(w[2], 1.0);
}

TEST(Table4FatTree, Rank3ModelRoutesEveryPairThroughItsCommonAncestor) {
  // 2304 endpoints: subtrees of 1024, 1024 and 256, joined at rank 3.
  const Traced t = fat_tree(2304);
  EXPECT_TRUE(fat_tree_is_model(2304));
  int rank3 = 0;
  for (const FabricRouter& r : t.fabric.routers) rank3 += r.rank == 3;
  EXPECT_EQ(rank3, 1024);
  std::vector<HopTrace> path;
  for (uint32_t s = 0; s < 2304; s += 37)
    for (uint32_t d = 0; d < 2304; d += 5) {
      ASSERT_TRUE(t.trace(trace_meta(s, d, 4, TrafficClass::request, uint16_t(s + d)), path))
          << s << " -> " << d;
      const size_t routers = s / 32 == d / 32 ? 1 : s / 1024 == d / 1024 ? 3 : 5;
      ASSERT_EQ(path.size(), routers) << s << " -> " << d;
      EXPECT_EQ(t.fabric.routers[path[routers / 2].router].rank, int(routers + 1) / 2);
      EXPECT_EQ(t.fabric.routers[path.back().router].ports[path.back().out_port].endpoint,
                int32_t(d));
    }
  // Root detect of a rank-2 router in the second subtree, and rank 3's.
  const YarcTables tables = program_yarc_tables(t.spec, t.fabric);
  const int r1 = 72;
  EXPECT_EQ(tables.routers[r1 + 32 + 7].root_location, 1024);
  EXPECT_EQ(tables.routers[r1 + 32 + 7].root_mask, 0x3FF);
  EXPECT_EQ(tables.routers[r1 + 96].root_location, 0);
  EXPECT_EQ(tables.routers[r1 + 96].root_mask, 0x7FFF);
  EXPECT_EQ(tables.routers[r1 + 96].hash_shift, 10);
  EXPECT_EQ(tables.routers[r1 + 96].down_shift, 10);
}

TEST(Table4FatTree, Rank3ModelIsDeadlockFreeAndRoutable) {
  const Traced t = fat_tree(4096);
  SampleOptions sample;
  sample.sample_routes = uint64_t{1} << 18;
  const FabricSummary sum = summarize(t.spec, t.fabric, sample);
  EXPECT_EQ(sum.unroutable, 0u);
  EXPECT_TRUE(sum.deadlock_free) << sum.deadlock_cycle;
  EXPECT_EQ(sum.diameter, 4);  // rank 1 - 2 - 3 - 2 - 1
}

TEST(Table4Torus, AverageLinkTrafficIsKOver8) {
  // Table 4: "Average link traffic for global traffic in a bi-directional,
  // radix-k torus is simply k/8": uniform traffic, every destination
  // (itself included), over the 6N links.
  for (int k : {4, 8}) {
    const Traced t = torus(k, k, k);
    const FabricSummary sum = summarize(t.spec, t.fabric);
    const double n = k * k * k;
    EXPECT_NEAR(sum.avg_hops_with_self * n / sum.links, k / 8.0, 1e-12) << k;
  }
  // Random derangements leave the self-transfer out: k/8 x N / (N - 1).
  const Traced t = torus(8, 8, 8);
  PermutationLoadOptions opts;
  opts.permutations = 200;
  const PermutationLoad load = permutation_link_load(t.fabric, t.trace, opts);
  EXPECT_NEAR(load.mean_link[0], 512.0 / 511.0, 0.01);
  EXPECT_EQ(load.unroutable, 0u);
  EXPECT_EQ(load.links, 512u * 6u);
}

TEST(Table4Torus, DegradeFactorAsThePaperStates) {
  // "the average worst-case link traffic is an additional 4-5 times higher"
  // than the average: 8x8x8 under the T3E tables' dimension order.
  Table4Options opts;
  opts.sizes = {512};
  opts.fat_tree = false;
  opts.permutations = 300;
  const std::vector<Table4Row> rows = run_table4(opts);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].dims, (std::array<int, 3>{8, 8, 8}));
  EXPECT_NEAR(rows[0].torus_k_over_8(), 1.0, 1e-12);
  EXPECT_GT(rows[0].degrade_factor(), kPaperDegradeLow);
  EXPECT_LT(rows[0].degrade_factor(), kPaperDegradeHigh * 1.1);
}

TEST(Table4, ResultsDoNotDependOnTheThreadCount) {
  const Traced t = fat_tree(512);
  PermutationLoadOptions opts;
  opts.permutations = 40;
  opts.diversities = {1, 4, 32};
  PermutationLoad one, two;
  tbb::task_arena(1).execute([&] { one = permutation_link_load(t.fabric, t.trace, opts); });
  tbb::task_arena(2).execute([&] { two = permutation_link_load(t.fabric, t.trace, opts); });
  EXPECT_EQ(one.mean_worst, two.mean_worst);
  EXPECT_EQ(one.mean_link, two.mean_link);
  EXPECT_EQ(one.max_worst, two.max_worst);
  opts.seed = 2;
  EXPECT_NE(permutation_link_load(t.fabric, t.trace, opts).mean_worst, one.mean_worst);
}

TEST(Table4FatTree, PaperFiguresAt32K) {
  // Table 4 at 32K endpoints: "up to 7.6 times higher than the injection
  // bandwidth" with one path per transfer, "only 1.6" with 32 (the full
  // 10,000 permutations are `fabemu analyze table4`'s; 24 are enough here).
  Table4Options opts;
  opts.sizes = {32768};
  opts.torus = false;
  opts.diversities = {1, 32};
  opts.permutations = 24;
  const std::vector<Table4Row> rows = run_table4(opts);
  ASSERT_EQ(rows.size(), 1u);
  const PermutationLoad& ft = rows[0].fat_tree;
  EXPECT_EQ(ft.unroutable, 0u);
  EXPECT_NEAR(ft.mean_worst[0], *paper_fat_tree_worst(32768, 1), 0.05 * 7.6);
  EXPECT_NEAR(ft.mean_worst[1], *paper_fat_tree_worst(32768, 32), 0.05 * 1.6);
  // A fully configured fat tree carries the injection bandwidth on average.
  EXPECT_NEAR(ft.mean_link[0], ft.mean_link[1], 1e-9);
}

TEST(Table4, TorusShapes) {
  EXPECT_EQ(cubic_torus_dims(64), (std::array<int, 3>{4, 4, 4}));
  EXPECT_EQ(cubic_torus_dims(32768), (std::array<int, 3>{32, 32, 32}));
  EXPECT_EQ(cubic_torus_dims(1024), (std::array<int, 3>{8, 8, 16}));
  EXPECT_EQ(cubic_torus_dims(576), (std::array<int, 3>{8, 8, 9}));
  EXPECT_EQ(cubic_torus_dims(2304), (std::array<int, 3>{12, 12, 16}));
  EXPECT_EQ(cubic_torus_dims(30720), (std::array<int, 3>{30, 32, 32}));
  EXPECT_FALSE(cubic_torus_dims(2 * 4099));
}

TEST(Table4, OptionProblemsSayWhatToDo) {
  Table4Options opts;
  EXPECT_EQ(table4_options_problem(opts), "");
  opts.sizes = {32};
  EXPECT_NE(table4_options_problem(opts).find("64 to 32768"), std::string::npos);
  opts.sizes = {2 * 4099};
  EXPECT_NE(table4_options_problem(opts).find("--network fat-tree"), std::string::npos);
  opts.torus = false;
  EXPECT_EQ(table4_options_problem(opts), "");
  opts.diversities = {0};
  EXPECT_NE(table4_options_problem(opts).find("1 to 32"), std::string::npos);
}

}  // namespace
}  // namespace fabemu
