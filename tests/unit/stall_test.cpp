// A run whose event queues all run dry while packets are still in the
// fabric can never move them: it stops at once (not at the end of
// run.drain_ns) and says where they wait.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

TEST(Stall, AFabricBackedUpBehindAStoppedSinkStopsAtOnceNamingWhereItWaits) {
  // Endpoint 5 stops accepting for good and no forward-progress timer is
  // set: its backlog waits for credits that never come.
  const Spec spec = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.2", "run.warmup_ns=2000",
                                              "run.measure_ns=10000", "run.drain_ns=1000000",
                                              "faults=[\"5us endpoint=5 stop\"]"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_FALSE(r.stats.drained);
  EXPECT_TRUE(r.stats.stalled);
  // Stopped when the sources did, a few packet times later; not after the
  // millisecond of drain.
  EXPECT_LT(r.stats.end_ps, ps_t(100000) * 1000);
  const FabricEndpoint& ep = r.fabric.endpoints[5];
  const std::string want = "router " + std::to_string(ep.router) + " input port ";
  EXPECT_NE(r.stats.stranded.find(want), std::string::npos) << r.stats.stranded;
  EXPECT_NE(r.stats.stranded.find("for output port " + std::to_string(ep.port) + " (an endpoint) VC "),
            std::string::npos)
      << r.stats.stranded;
  EXPECT_NE(r.stats.stranded.find("short: waiting for credits"), std::string::npos)
      << r.stats.stranded;
  EXPECT_EQ(r.json["run"]["stalled"], true);
  EXPECT_EQ(r.json["run"]["stranded"], r.stats.stranded);
  EXPECT_GT(drops(r.stats, DropReason::undelivered_at_end), 0u);
}

TEST(Stall, AScheduledFaultThatFreesThePacketsIsWaitedFor) {
  // The sink stops at 5 us and starts again at 60 us, long after the
  // sources stopped: the fabric is idle in between, but not stalled.
  const Spec spec = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.2", "run.warmup_ns=2000",
                                              "run.measure_ns=10000", "run.drain_ns=1000000",
                                              "faults=[\"5us endpoint=5 stop\", "
                                              "\"60us endpoint=5 start\"]"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_FALSE(r.stats.stalled) << r.stats.stranded;
  EXPECT_TRUE(r.stats.drained);
  EXPECT_GE(r.stats.end_ps, ps_t(60000) * 1000);
  EXPECT_EQ(r.stats.delivered_packets, r.stats.injected_packets);
}

TEST(Stall, ARunThatDrainsIsNotStalled) {
  const RunResult r = run_collect(
      spec_of("t3e-4x4x4.yaml", {"traffic.load=0.2", "run.warmup_ns=2000", "run.measure_ns=5000"}),
      nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_TRUE(r.stats.drained);
  EXPECT_FALSE(r.stats.stalled);
  EXPECT_TRUE(r.stats.stranded.empty());
  EXPECT_EQ(r.json["run"]["stalled"], false);
}

}  // namespace
}  // namespace fabemu
