// The BlackWidow paper's Table 2 (section 7.3): zero-load latency of the
// radix-64 folded Clos and the 3-D torus with BlackWidow technology and the
// router bandwidth held constant (control/analysis/table2.h).
#include <gtest/gtest.h>

#include <cmath>

#include "control/analysis/table2.h"

namespace fabemu {
namespace {

TEST(Table2, At576EndpointsFromTheTraceOfEveryRoute) {
  Table2Options opts;
  opts.sizes = {576};
  const std::vector<Table2Row> rows = run_table2(opts);
  ASSERT_EQ(rows.size(), 1u);
  const Table2Row& r = rows[0];
  // Clos (rank 2, 18 rank-1 routers): 1 router to the 31 others on one's
  // own rank-1 router, 3 to the 544 others, then L/b = 312 / 18.75 Gb/s.
  const double routers = (31 * 1 + 544 * 3) / 575.0;
  EXPECT_TRUE(r.clos.exact);
  EXPECT_NEAR(r.clos.avg_routers, routers, 1e-9);
  EXPECT_NEAR(r.clos.latency_us, (routers * 20 + 312 / 18.75) / 1e3, 1e-6);
  // Torus 8x8x9: mean ring distances 2, 2, 80/36 over all 576 destinations,
  // 575 of them distinct; one router more than links; L / (64 x 18.75 / 7).
  const double hops = (2 + 2 + 80.0 / 36) * 576 / 575;
  EXPECT_EQ(r.torus.shape, "8x8x9");
  EXPECT_NEAR(r.torus.avg_routers, hops + 1, 1e-9);
  EXPECT_NEAR(r.torus.latency_us, ((hops + 1) * 20 + 312 / (64 * 18.75 / 7)) / 1e3, 2e-6);
  // Table 2 of the paper: 0.078 and 0.144 us, within 5%.
  EXPECT_NEAR(r.clos.latency_us, *r.paper_clos_us, 0.05 * 0.078);
  EXPECT_NEAR(r.torus.latency_us, *r.paper_torus_us, 0.05 * 0.144);
  // The paper's Clos column is 2 tr log64(N) + L/b.
  EXPECT_NEAR(r.clos_formula_us, 0.078, 0.0005);
}

TEST(Table2, ThePapersClosColumnIsItsFormula) {
  Table2Options opts;
  for (int n : {576, 2304, 9216, 30720}) {
    const double formula = (2 * 20 * std::log(double(n)) / std::log(64.0) + 312 / 18.75) / 1e3;
    EXPECT_NEAR(formula, *paper_table2_clos_us(n), 0.0006) << n;
  }
  EXPECT_FALSE(paper_table2_clos_us(1000));
  EXPECT_DOUBLE_EQ(*paper_table2_torus_us(30720), 0.484);
}

TEST(Table2, TorusShapesCanBeGiven) {
  Table2Options opts;
  opts.sizes = {576};
  opts.torus_dims[576] = {4, 12, 12};
  EXPECT_EQ(table2_options_problem(opts), "");
  const std::vector<Table2Row> rows = run_table2(opts);
  EXPECT_EQ(rows[0].torus.shape, "4x12x12");
  EXPECT_NEAR(rows[0].torus.avg_routers, 7.0 * 576 / 575 + 1, 1e-9);
  opts.torus_dims[576] = {4, 12, 13};
  EXPECT_NE(table2_options_problem(opts).find("not 576"), std::string::npos);
  opts.torus_dims.clear();
  opts.sizes = {2 * 4099};
  EXPECT_NE(table2_options_problem(opts).find("--torus-dims 8198="), std::string::npos);
  opts.sizes = {576};
  opts.router_ns = 0;
  EXPECT_NE(table2_options_problem(opts).find("--router-ns"), std::string::npos);
}

}  // namespace
}  // namespace fabemu
