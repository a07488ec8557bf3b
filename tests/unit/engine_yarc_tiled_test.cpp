// The YARC tiled router (router.model yarc_tiled, the yarc profile's
// default) in whole runs: rank-1 and rank-2 Clos fabrics deliver every
// packet exactly once with credits conserved at every event (the input
// buffers' against their senders, and the row and column buffers'), on
// one worker and on two, with every subswitch degree and packets longer
// than the row buffer; the zero-load latency is the pipeline's exactly;
// uniform traffic on rank 1 saturates near full throughput, as the router
// alone does; the input-queued router stays selectable and the spec refuses the tiled
// router where there is no YARC.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "control/spec/spec_error.h"
#include "tests/support/run_collect.h"
#include "tests/support/tiled_router_driver.h"

namespace fabemu {
namespace {

TEST(EngineYarcTiled, TheYarcProfilesDefaultAndTheSimpleModelStaysSelectable) {
  EXPECT_EQ(spec_of("yarc-r1-32.yaml", {}).router.model, "yarc_tiled");
  EXPECT_EQ(spec_of("yarc-r1-32.yaml", {}).router.subswitch_degree, 8);
  EXPECT_EQ(spec_of("t3e-4x4x4.yaml", {}).router.model, "input_queued");
  EXPECT_EQ(spec_of("clos-fig6-64.yaml", {}).router.model, "input_queued");
  // The same light load through either model: the same packets, at the
  // same zero-load latency.
  for (const char* model : {"router.model=input_queued", "router.model=yarc_tiled"}) {
    SCOPED_TRACE(model);
    std::vector<Delivery> got;
    const Spec s =
        spec_of("yarc-r2-1024.yaml", {model, "topology.endpoints=64", "traffic.load=0.002",
                                      "traffic.reply_fraction=0", "run.measure_ns=200000"});
    run_exactly_once(s, &got);
    ASSERT_GT(got.size(), 50u);
    expect_at_zero_load(got, [](const Delivery& d) {
      return yarc_write_zero_load_ps(d.src / 32 == d.dst / 32 ? 0 : 2);
    });
  }
}

// Saturated, requests and responses (both VCs), packets of every length
// up to the longest, one and two workers: exactly once, credits conserved.
TEST(EngineYarcTiled, RanksOneAndTwoExactlyOnceCreditsConserved) {
  // Credits are checked at every event on one worker, at window edges on
  // two. Rank 2 with few uplinks: every router's tiles are walked at every
  // check.
  const std::vector<std::vector<std::string>> runs = {
      {"topology.rank=1", "topology.endpoints=32", "run.workers=1"},
      {"topology.endpoints=64", "topology.uplinks=2", "run.workers=1"},
      {"topology.endpoints=64", "topology.uplinks=2", "run.workers=2", "run.measure_ns=20000"},
      {"topology.endpoints=64", "topology.uplinks=2", "routing=adaptive", "run.workers=1"},
  };
  for (auto sets : runs) {
    sets.insert(sets.begin(),
                {"traffic.load=1.0", "traffic.reply_fraction=0.5", "traffic.sizes=[8, 32, 64, 200]",
                 "run.warmup_ns=0", "run.measure_ns=3000"});
    std::string what;
    for (const auto& x : sets) what += x + " ";
    SCOPED_TRACE(what);
    const Spec s = spec_of("yarc-r2-1024.yaml", sets);
    expect_exactly_once(s);
    expect_credits_conserved(s);
  }
}

// Every subswitch degree of Table 3, and packets longer than a row buffer
// and a column buffer together (their tails wait in the input buffer).
TEST(EngineYarcTiled, EveryDegreeAndLongPackets) {
  for (const char* p : {"2", "4", "16", "32"}) {
    SCOPED_TRACE(p);
    const Spec s =
        spec_of("yarc-r1-32.yaml", {std::string("router.subswitch_degree=") + p, "traffic.load=1.0",
                                    "run.warmup_ns=0", "run.measure_ns=5000"});
    expect_exactly_once(s);
    expect_credits_conserved(s);
  }
  const Spec long_packets =
      spec_of("yarc-r1-32.yaml", {"packet.max_units=40", "traffic.sizes=[16, 64, 90]",
                                  "router.row_buffer_units=12", "router.column_buffer_units=6",
                                  "traffic.load=1.0", "run.warmup_ns=0", "run.measure_ns=5000"});
  expect_exactly_once(long_packets);
  expect_credits_conserved(long_packets);
}

// Section 7.6 through the engine: uniform random traffic on a rank-1
// fabric (one YARC, its 32 processor ports 0..31 on tile rows 0-3) at full
// offered load. The tiles carry most of it, where the input-queued router
// stops at the head-of-line bound of FIFO inputs (Karol et al., the
// paper's [11]: 2 - sqrt(2) = 0.586); what remains below 1 is head-of-line
// blocking at the input and row buffers, more of it the longer the packet
// (section 7.5: a 19-phit write is longer than a row buffer). The engine's
// router is the one the router-alone driver measures Table 3 with
// (router_yarc_tiled_test.cpp), which the tiles' throughput here matches
// on the same ports, packets and links. Table 3's worst case itself needs
// traffic on all 64 ports of one YARC, which no BlackWidow fabric has (a
// rank-1 router has 32 processor ports; up-routing chooses the uplinks), so
// it stays with the driver.
TEST(EngineYarcTiled, UniformTrafficOnRankOneSaturatesNearFullThroughput) {
  auto accepted = [](const char* model, const std::vector<std::string>& packet) {
    std::vector<std::string> sets{std::string("router.model=") + model, "traffic.load=1.0",
                                  "traffic.reply_fraction=0", "run.warmup_ns=10000",
                                  "run.measure_ns=100000"};
    sets.insert(sets.end(), packet.begin(), packet.end());
    const RunResult r = run_collect(spec_of("yarc-r1-32.yaml", sets), nullptr);
    EXPECT_TRUE(r.stats.error.empty()) << r.stats.error;
    return r.json["accepted_load"].get<double>();
  };
  // The same router alone: 32 saturated sources, one VC, YARC's 1.6 ns links.
  auto alone = [](uint32_t units) {
    TiledRouterDriver::Options o;
    o.units = units;
    o.link_ps = 1600;
    o.sources = 32;
    o.record = false;
    TiledRouterDriver d(o, [](uint32_t in, Rng& r) {
      const uint32_t x = r.below(31);
      return x >= in ? x + 1 : x;
    });
    const ps_t warm = 200 * units * o.link_ps, measure = 2000 * units * o.link_ps;
    d.run(warm);
    d.measure_from(warm);
    d.run(warm + measure);
    return d.throughput(32);
  };
  // Section 4.1's shortest packet (head, two payload phits, EOP) and the
  // 32-byte write (19 phits).
  const std::vector<std::string> shortest{"packet.header_units=1", "traffic.sizes=[4]"};
  const std::vector<std::string> writes{"traffic.sizes=[32]"};
  const double tiled_short = accepted("yarc_tiled", shortest);
  const double tiled_writes = accepted("yarc_tiled", writes);
  const double iq_short = accepted("input_queued", shortest);
  const double alone_short = alone(4), alone_writes = alone(19);
  std::printf(
      "rank 1, uniform, offered 1.0: yarc_tiled 4-phit %.3f (router alone %.3f), 19-phit %.3f "
      "(alone %.3f); input_queued 4-phit %.3f\n",
      tiled_short, alone_short, tiled_writes, alone_writes, iq_short);
  EXPECT_GT(tiled_short, 0.90);
  EXPECT_GT(tiled_writes, 0.70);
  EXPECT_NEAR(iq_short, 2 - std::sqrt(2.0), 0.05 * (2 - std::sqrt(2.0)));
  EXPECT_NEAR(tiled_short, alone_short, 0.02);
  EXPECT_NEAR(tiled_writes, alone_writes, 0.02);
}

// Faults through the tiled router (link/link_faults.h): a dead link's sender
// discards what its output's second stage grants, a dead router loses what
// its input buffers and its tiles hold, and the tables route around both
// (rank-2 router 3; rank-1 router 1, whose endpoints then inject into a
// dead router and are unreachable).
// Every packet is delivered or counted lost with its reason, credits (the
// row and column buffers' too) conserved at every event, and the run drains.
TEST(EngineYarcTiled, FaultsLosePacketsCountedWithCreditsConserved) {
  for (const char* workers : {"run.workers=1", "run.workers=2"}) {
    SCOPED_TRACE(workers);
    const Spec s =
        spec_of("yarc-r2-1024.yaml",
                {workers, "topology.endpoints=64", "topology.uplinks=4", "traffic.load=0.6",
                 "traffic.sizes=[8, 32, 64]", "run.warmup_ns=0", "run.measure_ns=12000",
                 "run.check_invariants=true",
                 "faults=[\"2us link=r0:p34 down\", \"4us router=3 down\", \"5us router=1 down\", "
                 "\"9us link=r0:p34 up\"]"});
    const RunResult r = run_collect(s, nullptr);
    ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
    EXPECT_EQ(r.stats.invariant_failure, "");
    EXPECT_TRUE(r.stats.drained);
    auto drops = [&](DropReason why) { return r.stats.drops[static_cast<int>(why)]; };
    const uint64_t lost = drops(DropReason::dead_port) + drops(DropReason::lost_in_flight) +
                          drops(DropReason::lost_in_dead_router) + drops(DropReason::no_route);
    // A rank-1 router at saturation holds hundreds of packets, most in its tiles.
    EXPECT_GT(drops(DropReason::lost_in_dead_router), 100u);
    EXPECT_EQ(r.stats.delivered_packets + lost, r.stats.injected_packets);
  }
}

// Where the tiles come from in a spec, and where they are refused.
TEST(EngineYarcTiled, SpecChoosesAndRefusesTheModel) {
  auto refused = [](const std::string& file, std::vector<std::string> sets,
                    const std::string& want) {
    try {
      spec_of(file, sets);
      ADD_FAILURE() << "accepted; expected: " << want;
    } catch (const SpecError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  refused("t3e-4x4x4.yaml", {"router.model=yarc_tiled"},
          "router.model yarc_tiled is not available for routing 'direction_order'");
  refused("flatfly-4x3.yaml", {"router.model=yarc_tiled"}, "the clos family's");
  refused("yarc-r1-32.yaml", {"router.model=input_queued", "router.subswitch_degree=4"},
          "router.subswitch_degree applies to router.model yarc_tiled only");
  refused("yarc-r1-32.yaml", {"router.subswitch_degree=3"}, "give 2, 4, 8, 16 or 32, not 3");
  refused("yarc-r1-32.yaml", {"router.subswitch_degree=64"}, "give 2, 4, 8, 16 or 32, not 64");
  refused("yarc-r1-32.yaml", {"router.output_speedup=4"},
          "the YARC tiled router has no switch speedup");
  refused("t3e-4x4x4.yaml", {"router.subswitch_degree=4"}, "clos family only");
  // A yarc-profile fabric of another family keeps the input-queued router.
  const Spec torus = spec_of("t3e-4x4x4.yaml", {"profile=yarc", "vcs.count=4"});
  EXPECT_EQ(torus.router.model, "input_queued");
}

}  // namespace
}  // namespace fabemu
