// The flattened butterfly paper's cost and power model (control/analysis/
// cost_model.h): its Tables 2, 3 and 5, the channel counts section 4.3 gives
// at 1K, and the figures its text states that the model reproduces.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "control/analysis/cost_model.h"
#include "control/cli/analyze_command.h"
#include "control/cli/cli.h"
#include "control/spec/spec_loader.h"
#include "control/topology/flatfly.h"

namespace fabemu {
namespace {

TEST(CostTable2, PricesAreThePapers) {
  const CostTechnology t;
  EXPECT_DOUBLE_EQ(t.router_cost(), 390);          // $90 chip + $6M / 20k parts
  EXPECT_NEAR(t.backplane_signal(), 1.95, 0.005);  // footnote 4: $3000 / 1536
  EXPECT_NEAR(t.cable_signal(2), 5.34, 1e-9);      // "routers within 2m"
  EXPECT_NEAR(t.cable_signal(6), 8.58, 1e-9);      // the line of Figure 7(b) at 6 m
}

TEST(CostTable3, EdgeAndDensity) {
  const CostTechnology t;
  CostOptions o;
  o.sizes = {1024};
  const CostRow r = run_cost(o)[0];
  EXPECT_EQ(r.cabinets, 8);
  EXPECT_NEAR(r.edge_m, std::sqrt(1024 / 75.0), 1e-12);
  // The footprint with its depth doubled gives 78, not Table 3's 75: the
  // model keeps the paper's D.
  EXPECT_NEAR(t.footprint_density(), 77.97, 0.01);
  EXPECT_NEAR(r.of(CostTopology::folded_clos).global_avg_m, r.edge_m / 4, 1e-12);
  EXPECT_NEAR(r.of(CostTopology::flattened_butterfly).global_avg_m, r.edge_m / 3, 1e-12);
  EXPECT_NEAR(r.of(CostTopology::hypercube).global_avg_m, (r.edge_m - 1) / std::log2(r.edge_m),
              1e-12);
}

TEST(CostTable5, PowerComponentsAsSection53StatesThem) {
  const CostTechnology t;
  EXPECT_DOUBLE_EQ(t.p_switch, 40);
  EXPECT_NEAR(1 - t.p_link_gl / t.p_link_gg, 0.20, 1e-12);  // "20% less"
  EXPECT_NEAR(t.p_link_gg / t.p_link_ll, 5.0, 1e-12);       // "over 5x"
  // YARC's 192 signals at 200 mW beside its 40 W switch: about 45% SerDes.
  const double serdes = 192 * t.p_link_gg;
  EXPECT_NEAR(serdes / (serdes + t.p_switch), 0.45, 0.05);
}

TEST(CostSection43, ChannelsAt1KFromTheTopologyBuilders) {
  CostOptions o;
  o.sizes = {1024};
  const CostRow r = run_cost(o)[0];
  const CostNetwork& fb = r.of(CostTopology::flattened_butterfly);
  const CostNetwork& clos = r.of(CostTopology::folded_clos);
  EXPECT_DOUBLE_EQ(clos.channels_per_node(1024) * 1024, 2048);  // "requires 2048 links"
  EXPECT_DOUBLE_EQ(fb.channels_per_node(1024) * 1024, 992);     // "31 x 32 = 992 links"
  EXPECT_EQ(fb.shape, "32-ary 2-flat, 32 of 32 routers of radix 63");
  EXPECT_DOUBLE_EQ(clos.routers, 48);  // 32 rank-1 YARCs, 32 half-YARC rank-2 routers
  EXPECT_DOUBLE_EQ(r.of(CostTopology::butterfly).routers, 32);
  EXPECT_DOUBLE_EQ(r.of(CostTopology::hypercube).channels_per_node(1024), 10);
  // The flattened butterfly at 1K by hand: 8 cabinets of 4 routers; each
  // router has 3 peers in its cabinet, 4 in the other of its pair, 24
  // further: channels 96 / 128 / 768, a global cable E/3 + 2 m long.
  EXPECT_DOUBLE_EQ(fb.backplane_channels, 96);
  EXPECT_DOUBLE_EQ(fb.short_channels, 128);
  EXPECT_DOUBLE_EQ(fb.global_channels, 768);
  const double cable = 3.72 + 0.81 * (std::sqrt(1024 / 75.0) / 3 + 2);
  const double links = 3 * (96 * 3000 / 1536.0 + 128 * 5.34 + 768 * cable) / 1024;
  EXPECT_NEAR(fb.cost(), 32 * 390 / 1024.0 + 2 * 3 * 3000 / 1536.0 + links, 1e-9);
}

TEST(CostSection43, FlattenedButterflyCountsAreTheBuildersAtFullSizes) {
  for (const auto& [nodes, k, n] : {std::tuple{256, 16, 2}, {1024, 32, 2}, {4096, 16, 3}}) {
    const FlatflyCostShape s = flatfly_cost_shape(nodes, 64);
    EXPECT_EQ(s.k, k) << nodes;
    EXPECT_EQ(s.n_prime + 1, n) << nodes;
    Spec spec = profile_defaults("flatfly");
    spec.topology.k = k;
    spec.topology.n = n;
    const Fabric f = build_flatfly(spec);
    int64_t channels = 0;
    for (const FabricRouter& r : f.routers)
      for (const FabricPort& p : r.ports) channels += p.peer_router >= 0;
    CostOptions o;
    o.sizes = {nodes};
    const CostRow row = run_cost(o)[0];
    EXPECT_DOUBLE_EQ(row.of(CostTopology::flattened_butterfly).routers, double(f.routers.size()));
    EXPECT_DOUBLE_EQ(row.of(CostTopology::flattened_butterfly).channels_per_node(nodes) * nodes,
                     double(channels))
        << nodes;
  }
  // Section 5.1.2's examples: n' = 1 reaches 1K, n' = 2 up to 9261, n' = 3 beyond.
  EXPECT_EQ(flatfly_cost_shape(2048, 64).n_prime, 2);
  EXPECT_EQ(flatfly_cost_shape(8192, 64).n_prime, 2);
  EXPECT_EQ(flatfly_cost_shape(16384, 64).n_prime, 3);
  EXPECT_EQ(flatfly_cost_shape(2048, 64).routers, 158);  // 13-ary, 2048 / 13 up
}

TEST(CostSection43, FiguresOfThePapersTextTheModelReproduces) {
  const CostOptions o;
  const std::vector<CostRow> rows = run_cost(o);
  std::map<std::string, CostClaim> by_what;
  for (const CostClaim& c : cost_claims(o, rows)) by_what[c.what] = c;
  for (const char* what : {
           "router: chip + development over the parts built",
           "backplane signal: $3000 over 1536 signals",
           "cable signal between routers within 2 m",
           "YARC SerDes share of power, 64 x 3 signals at P_link_gg",
           "P_link_gl below P_link_gg",
           "P_link_gg over P_link_ll",
           "folded Clos inter-router channels, N = 1K",
           "flat. butterfly inter-router channels, N = 1K (31 x 32)",
           "... 1K < N <= 8K",
           "cost step 1K -> 2K, folded Clos (a rank added)",
           "butterfly the cheapest, 1K < N <= 4K (two stages)",
           "L_avg of the flat. butterfly over the hypercube's, largest N",
           "flat. butterfly power saving over folded Clos, 4K-8K",
           "flat. butterfly below the butterfly in power, N = 1K",
       }) {
    ASSERT_TRUE(by_what.count(what)) << what;
    const CostClaim& c = by_what[what];
    EXPECT_TRUE(c.matches()) << what << ": paper " << c.paper << ", model " << c.ours_low << "-"
                             << c.ours_high;
  }
  // Where the model parts from the paper, it says why.
  for (const auto& [what, c] : by_what) {
    if (!c.matches()) {
      EXPECT_FALSE(c.note.empty()) << what;
    }
  }
  // Where it does not, the model's figures, so that a change to them is seen:
  // at 4K (the paper: about 53%) the 16-ary 3-flat saves 46%; from 1K to
  // 2K the flattened butterfly's cost steps by $29 (the paper: about $40).
  EXPECT_NEAR(by_what["... N = 4K"].ours_low, 45.8, 0.1);
  EXPECT_NEAR(by_what["cost step 1K -> 2K, flat. butterfly (a dimension added)"].ours_low, 29.0,
              0.1);
  EXPECT_NEAR(by_what["flat. butterfly cost saving over folded Clos, all sizes"].ours_low, 27.4,
              0.1);
  EXPECT_NEAR(by_what["flat. butterfly cost saving over folded Clos, all sizes"].ours_high, 48.2,
              0.1);
}

TEST(AnalyzeCost, PrintsTheFiguresTheClaimsAndTheAssumptions) {
  CostOptions o;
  o.sizes = {1024, 2048};
  std::ostringstream out, err;
  ASSERT_EQ(analyze_cost_command(o, {"-", 0}, out, err), kExitOk) << err.str();
  const std::string text = err.str();  // the JSON takes standard output
  for (const char* s : {"Cost per node", "Power per node", "32-ary 2-flat", "2048", "992",
                        "Assumptions:", "E = sqrt(N/D)", "$390", "agrees", "footnote 10"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["analysis"], "cost");
  EXPECT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["networks"][3]["topology"], "flattened butterfly");

  o.sizes = {1000};
  std::ostringstream out2, err2;
  EXPECT_EQ(analyze_cost_command(o, {}, out2, err2), kExitUsage);
  EXPECT_NE(err2.str().find("size 1000 is not a power of two"), std::string::npos) << err2.str();
  EXPECT_TRUE(out2.str().empty());
}

}  // namespace
}  // namespace fabemu
