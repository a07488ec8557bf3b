// BookSim2's randperm (traffic.permutation_seed; knuth_ran_array.h): the
// permutation of a perm_seed, drawn with Knuth's ran_array as BookSim draws
// it. Asserted: Knuth's own check value of ran_array (TAOCP vol. 2, 3.6:
// seed 310952, 2,010 batches of 1,009, first number 995235265); BookSim2's
// permutations of 8, 16 and 64 nodes for several seeds (printed by
// BookSim2's rng.c with its traffic.cpp loop); on the torus the permutation
// works on BookSim's node numbers; the importer's translation of
// randperm(S), randperm({S}) and perm_seed, and its refusals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/topology/torus.h"
#include "dataplane/endpoint/knuth_ran_array.h"
#include "dataplane/endpoint/traffic.h"
#include "tests/support/booksim_text.h"
#include "tests/support/fabric_specs.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

TEST(BooksimRandperm, KnuthsCheckValue) {
  KnuthRanArray r(310952);
  std::vector<int64_t> a(2009);
  for (int m = 0; m <= 2009; m++) r.fill(a.data(), 1009);
  EXPECT_EQ(a[0], 995235265);
  KnuthRanArray s(310952);
  for (int m = 0; m <= 1009; m++) s.fill(a.data(), 2009);
  EXPECT_EQ(a[0], 995235265);
}

TEST(BooksimRandperm, BooksimsPermutations) {
  EXPECT_EQ(booksim_random_permutation(8, 0), (std::vector<uint32_t>{7, 6, 2, 5, 0, 3, 4, 1}));
  EXPECT_EQ(booksim_random_permutation(8, 1), (std::vector<uint32_t>{4, 2, 3, 5, 7, 6, 0, 1}));
  EXPECT_EQ(booksim_random_permutation(16, 42),
            (std::vector<uint32_t>{1, 2, 10, 12, 7, 5, 3, 13, 11, 9, 4, 6, 8, 14, 0, 15}));
  const std::vector<uint32_t> p64 = booksim_random_permutation(64, 0);
  EXPECT_EQ(std::vector<uint32_t>(p64.begin(), p64.begin() + 8),
            (std::vector<uint32_t>{54, 30, 25, 6, 57, 53, 17, 9}));
  EXPECT_EQ(p64.back(), 23u);
}

TEST(BooksimRandperm, OnTheTorusItWorksOnBooksimsNodeNumbers) {
  const Fabric f = build_torus(t3e_spec(4, 4, 4));
  TrafficConfig cfg;
  cfg.pattern = Pattern::permutation;
  cfg.permutation_seed = 0;
  cfg.booksim_numbering = true;
  TrafficPattern tp;
  std::string err;
  ASSERT_TRUE(tp.init(f, cfg, 1, &err)) << err;
  const std::vector<uint32_t> p = booksim_random_permutation(64, 0);
  const auto node = [&](uint32_t e) {
    const auto& c = f.routers[f.endpoints[e].router].coord;
    return uint32_t(c[0] + 4 * (c[1] + 4 * c[2]));
  };
  for (uint32_t e = 0; e < 64; e++) EXPECT_EQ(node(tp.fixed()[e]), p[node(e)]) << "endpoint " << e;
}

const BooksimText kTorus(
    "topology = torus; k = 4; n = 3; routing_function = dim_order; use_noc_latency = 0;\n"
    "router = iq; num_vcs = 2; vc_buf_size = 16; credit_delay = 1; routing_delay = 0;\n");

TEST(BooksimRandperm, ImportsPermSeed) {
  EXPECT_NE(kTorus.imported("traffic = randperm;").yaml.find("permutation_seed: 0"),
            std::string::npos);
  EXPECT_NE(kTorus.imported("traffic = randperm(7);").yaml.find("permutation_seed: 7"),
            std::string::npos);
  EXPECT_NE(kTorus.imported("traffic = randperm({9});").yaml.find("permutation_seed: 9"),
            std::string::npos);
  EXPECT_NE(kTorus.imported("traffic = randperm; perm_seed = 12;").yaml.find("permutation_seed: 12"),
            std::string::npos);
  EXPECT_NE(kTorus.refusal("traffic = randperm; perm_seed = time;").find("t.cfg:"),
            std::string::npos);
  EXPECT_NE(kTorus.refusal("traffic = randperm({1,2});").find("one perm_seed"), std::string::npos);
  EXPECT_NE(spec_refusal("torus-4x4x4-booksim.yaml", {"traffic.permutation_seed=3"})
                .find("traffic.permutation_seed chooses BookSim2's random permutation"),
            std::string::npos);
}

}  // namespace
}  // namespace fabemu
