// The YARC tiled router (router.model yarc_tiled, the yarc profile's
// default) in whole runs: rank-1 and rank-2 Clos fabrics deliver every
// packet exactly once with credits conserved at every event (the input
// buffers' against their senders, and the row and column buffers'), on
// one worker and on two, with every subswitch degree and packets longer
// than the row buffer; the zero-load latency is the pipeline's exactly;
// the input-queued router stays selectable and the spec refuses the tiled
// router where there is no YARC.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/spec/spec_error.h"
#include "tests/support/run_collect.h"

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
