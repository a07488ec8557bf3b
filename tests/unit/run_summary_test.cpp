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

}  // namespace
}  // namespace fabemu
