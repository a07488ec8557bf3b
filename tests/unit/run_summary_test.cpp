// What `fabemu run`'s summary and report say of a run's outcome: which side
// of saturation it is on (the sweep's rule), and "no packets measured"
// rather than latencies of zero.
#include "control/run/run_summary.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "control/run/report.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

std::string summary_of(const Spec& spec, const RunResult& r) {
  testing::internal::CaptureStdout();
  print_run_summary(spec, r);
  fflush(stdout);
  return testing::internal::GetCapturedStdout();
}

TEST(RunSummary, PastSaturationTheRunSaysSo) {
  // The 4x4x4 torus under uniform traffic accepts about 0.5 of injection
  // bandwidth; offered all of it, the source queues refuse the rest.
  const Spec spec =
      spec_of("t3e-4x4x4.yaml", {"traffic.load=1.0", "run.warmup_ns=2000", "run.measure_ns=10000"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  const double offered = r.json["offered_load"], accepted = r.json["accepted_load"];
  ASSERT_LT(accepted, kSaturatedFraction * offered);
  EXPECT_EQ(r.json["saturation"]["saturated"], true);
  const std::string text = summary_of(spec, r);
  EXPECT_NE(text.find(": SATURATED (accepted below 95% of offered"), std::string::npos) << text;
}

TEST(RunSummary, BelowSaturationTheRunSaysSo) {
  const Spec spec =
      spec_of("t3e-4x4x4.yaml", {"traffic.load=0.1", "run.warmup_ns=2000", "run.measure_ns=10000"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_GE(r.json["accepted_load"].get<double>(),
            kSaturatedFraction * r.json["offered_load"].get<double>());
  EXPECT_EQ(r.json["saturation"]["saturated"], false);
  const std::string text = summary_of(spec, r);
  EXPECT_NE(text.find("): below saturation\n"), std::string::npos) << text;
  EXPECT_NE(text.find("latency    mean "), std::string::npos) << text;
}

TEST(RunSummary, ARunThatMeasuredNothingSaysSoInsteadOfZeros) {
  // At load 0.001 a source starts its first message about 1,000 packet
  // times in: none does within the first nanosecond.
  const Spec spec = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.001", "run.warmup_ns=0",
                                               "run.measure_ns=1", "run.drain_ns=0"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_EQ(r.json["latency_ns"]["count"], 0u);
  const std::string text = summary_of(spec, r);
  EXPECT_NE(text.find("latency    no packets measured: "), std::string::npos) << text;
  EXPECT_NE(text.find("hops       none measured"), std::string::npos) << text;
  EXPECT_EQ(text.find("mean 0.0 ns"), std::string::npos) << text;
}

TEST(RunSummary, TheFaultsOfTheRunHaveALine) {
  const Spec spec =
      spec_of("t3e-4x4x4.yaml", {"traffic.load=0.1", "run.warmup_ns=1000", "run.measure_ns=10000",
                                 "faults=[\"5us link=r0:p0 down\"]"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_EQ(r.json["faults"].size(), 1u);
  const uint64_t dead = r.json["faults"][0]["dead_links"];
  const std::string text = summary_of(spec, r);
  EXPECT_NE(text.find("faults     1 given, 1 applied: '5us link=r0:p0 down'; after them " +
                      std::to_string(dead) + " dead link"),
            std::string::npos)
      << text;
}

TEST(RunSummary, ARunWithoutFaultsHasNoFaultsLine) {
  const Spec spec = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.1", "run.measure_ns=1000"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_EQ(summary_of(spec, r).find("faults "), std::string::npos);
}

TEST(RunSummary, TheReportNamesTheBuildItCameFrom) {
  const Spec spec = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.1", "run.measure_ns=100"});
  const RunResult r = run_collect(spec, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_EQ(r.json["fabemu"]["version"], FABEMU_VERSION);
  const std::string commit = r.json["fabemu"]["commit"];
  EXPECT_FALSE(commit.empty());
}

TEST(RunSummary, TheRuleIsTheSweeps) {
  std::ifstream in(std::string(FABEMU_SOURCE_DIR) + "/scripts/fabemu-sweep");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_NE(s.str().find("SATURATED = " + std::to_string(kSaturatedFraction).substr(0, 4)),
            std::string::npos)
      << "scripts/fabemu-sweep's SATURATED differs from report.h's kSaturatedFraction";
}

// A real-time run's timing verdict from its counters (made up here): the
// shares of late events and frames, the busiest worker, what it carried.
TEST(RealtimeTiming, SharesOfLateEventsAndFramesDecideTheVerdict) {
  RunStats st;
  st.realtime = true;
  st.wall_s = 2.0;
  st.lateness_bound_ps = 10 * 1000 * 1000;
  for (int i = 0; i < 1000; i++) st.lateness_ps.add(i < 5 ? 50'000'000 : 1000);
  st.events_over_bound = 5;  // 0.5%
  PortStats a, b;
  a.tx_frames = 300;
  a.tx_bytes = 300 * 1500;
  b.tx_frames = 100;
  b.tx_bytes = 100 * 64;
  for (int i = 0; i < 300; i++) a.frame_lateness_ps.add(2000);
  for (int i = 0; i < 100; i++) b.frame_lateness_ps.add(i < 2 ? 40'000'000 : 2000);
  b.frames_over_bound = 2;  // 2 of 400: 0.5%
  st.ports = {a, b};
  st.worker_busy_s = {0.5, 1.0};  // the busiest was busy half of the 2 s
  st.delivered_messages = 400;
  RealtimeTiming t = realtime_timing(st);
  EXPECT_DOUBLE_EQ(t.late_events, 0.005);
  EXPECT_DOUBLE_EQ(t.late_frames, 0.005);
  EXPECT_EQ(t.frames, 400u);
  EXPECT_EQ(t.frames_over_bound, 2u);
  EXPECT_DOUBLE_EQ(t.busiest, 0.5);
  EXPECT_DOUBLE_EQ(t.frames_per_s, 200);
  EXPECT_DOUBLE_EQ(t.frame_capacity_per_s, 400);  // 200/s at half the busiest core
  EXPECT_TRUE(t.faithful);

  // Over 1% of the frames late: not faithful, though the events were.
  st.ports[1].frames_over_bound = 6;
  EXPECT_FALSE(realtime_timing(st).faithful);
  st.ports[1].frames_over_bound = 2;
  // Over 1% of the events late.
  st.events_over_bound = 11;
  EXPECT_FALSE(realtime_timing(st).faithful);
  st.events_over_bound = 5;
  // Once run.overload_bound_ns behind.
  st.overload_episodes = 1;
  EXPECT_FALSE(realtime_timing(st).faithful);
  // Virtual time has no verdict to give.
  st.realtime = false;
  EXPECT_TRUE(realtime_timing(st).faithful);
}

}  // namespace
}  // namespace fabemu
