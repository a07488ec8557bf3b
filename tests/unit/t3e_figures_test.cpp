// The Cray T3E paper's Table 4 and Figures 7 and 8 as `fabemu analyze t3e`
// computes them (control/analysis/t3e_figures.h), checked against the
// paper's numbers and against the rules worked by hand.
#include "control/analysis/t3e_figures.h"

#include <gtest/gtest.h>

#include "dataplane/codec/t3e_packets.h"

namespace fabemu {
namespace {

TEST(T3eFigures, Table3LengthsInFlits) {
  // Request / response flits: 2/2, 2/10, 4/2, 10/2; one or eight words.
  const uint32_t want[4][3] = {{2, 2, 1}, {2, 10, 8}, {4, 2, 1}, {10, 2, 8}};
  for (size_t i = 0; i < kT3ePacketTypes.size(); ++i) {
    const T3ePacketType& t = kT3ePacketTypes[i];
    EXPECT_EQ(t.request_flits(), want[i][0]) << t.name;
    EXPECT_EQ(t.response_flits(), want[i][1]) << t.name;
    EXPECT_EQ(t.payload_words(), want[i][2]) << t.name;
  }
  // Two header flits, but one on the single-word Get response and three on
  // the single-word Put request.
  EXPECT_EQ(t3e_packet_type("word_get")->response_header_flits, 1u);
  EXPECT_EQ(t3e_packet_type("word_put")->request_header_flits, 3u);
  EXPECT_EQ(t3e_packet_type("vector_get")->response_header_flits, 2u);
  EXPECT_EQ(t3e_packet_type("bulk_get"), nullptr);
}

TEST(T3eFigures, Table4FromTheProfilesLinkIsThePapers) {
  const T3eFigures f = run_t3e_figures({{2, 2, 2}});
  // One word per 13.3 ns flit: the paper's 600 MB/s peak.
  EXPECT_NEAR(f.flit_ns, 40.0 / 3, 0.001);
  EXPECT_NEAR(f.link_peak_mbps, 600, 0.1);
  ASSERT_EQ(f.table4.size(), 4u);
  const double paper[4][2] = {{300, 150}, {480, 400}, {150, 100}, {480, 400}};
  const double eff[4][2] = {{0.5, 0.25}, {0.8, 8.0 / 12}, {0.25, 1.0 / 6}, {0.8, 8.0 / 12}};
  for (size_t i = 0; i < 4; ++i) {
    const T3eTable4Row& r = f.table4[i];
    EXPECT_DOUBLE_EQ(r.one_way_efficiency, eff[i][0]) << r.type;
    EXPECT_DOUBLE_EQ(r.symmetrical_efficiency, eff[i][1]) << r.type;
    // The paper rounds to 10 MB/s (400 for 8/12 of 600).
    EXPECT_NEAR(r.one_way_mbps, paper[i][0], 0.1) << r.type;
    EXPECT_NEAR(r.symmetrical_mbps, paper[i][1], 0.1) << r.type;
    EXPECT_EQ(r.paper_one_way_mbps, paper[i][0]);
    EXPECT_EQ(r.paper_symmetrical_mbps, paper[i][1]);
  }
}

TEST(T3eFigures, Figure7RoundTripOf2x2x2ByHand) {
  const T3eFigures f = run_t3e_figures({{2, 2, 2}});
  ASSERT_EQ(f.sizes.size(), 1u);
  const T3eSizeRow& r = f.sizes[0];
  // From a node: 3 neighbours at 1 hop (source and destination routers,
  // 133 ns each), 3 at 2 hops (one turn, 80 ns), 1 at 3 (two turns).
  const double one_way[3] = {266, 346, 426};
  EXPECT_NEAR(r.avg_hops, (3 * 1 + 3 * 2 + 3) / 7.0, 1e-9);
  EXPECT_NEAR(r.avg_round_trip_ns, 2 * (3 * one_way[0] + 3 * one_way[1] + one_way[2]) / 7, 0.01);
  EXPECT_NEAR(r.max_round_trip_ns, 2 * one_way[2], 0.01);
}

TEST(T3eFigures, Figure7MaximumOn8x16x8) {
  const T3eFigures f = run_t3e_figures({{8, 16, 8}});
  const T3eSizeRow& r = f.sizes[0];
  // The farthest pair: 4 + 8 + 4 hops, 15 routers between the ends, two of
  // them turning (X to Y, Y to Z): 2 x (266 + 2 x 80 + 13 x 40) ns.
  EXPECT_NEAR(r.max_round_trip_ns, 2 * (266 + 2 * 80 + 13 * 40), 0.01);
  // Mean ring distances 2, 4, 2 over all 1024 destinations, 1023 distinct.
  EXPECT_NEAR(r.avg_hops, 8.0 * 1024 / 1023, 1e-9);
}

TEST(T3eFigures, Figure8BisectionAndTheBottleneck) {
  const T3eFigures f = run_t3e_figures({{4, 4, 4}, {4, 8, 4}, {8, 8, 8}, {8, 16, 8}});
  ASSERT_EQ(f.sizes.size(), 4u);
  // 64 nodes: the port is the bottleneck ((N-1)/N of the packets cross it).
  EXPECT_EQ(f.sizes[0].bottleneck, "port");
  EXPECT_NEAR(f.sizes[0].per_processor_mbps, 600.0 * 64 / 63, 0.1);
  EXPECT_NEAR(f.sizes[0].network_limit_mbps, 1200, 0.5);
  // 128 and 512: port and links equally used.
  EXPECT_EQ(f.sizes[1].bottleneck, "both");
  EXPECT_NEAR(f.sizes[1].per_processor_mbps, 600, 0.5);
  EXPECT_EQ(f.sizes[2].bottleneck, "both");
  // 512 and 1024: the 153.6 GB/s bisection (128 links each way at 600 MB/s).
  EXPECT_EQ(f.sizes[2].bisection_links, 128);
  EXPECT_NEAR(f.sizes[2].bisection_gbps, kT3ePaperMaxBisectionGbps, 0.05);
  EXPECT_NEAR(f.sizes[3].bisection_gbps, kT3ePaperMaxBisectionGbps, 0.05);
  // 1024: the Y dimension, 2 x 153.6 GB/s / 1024.
  EXPECT_EQ(f.sizes[3].bottleneck, "links");
  EXPECT_NEAR(f.sizes[3].per_processor_mbps, 300, 0.1);
}

TEST(T3eFigures, TheT3eSizesStopAt8x32x8) {
  const auto sizes = t3e_sizes();
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.back(), (std::array<int, 3>{8, 32, 8}));
  for (const auto& d : sizes) {
    EXPECT_LE(d[0], 8);
    EXPECT_LE(d[2], 8);
    EXPECT_LE(d[1], 32);
  }
}

}  // namespace
}  // namespace fabemu
