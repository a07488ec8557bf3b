// BookSim2's measurement rule (trafficmanager.cpp _SingleSim, read from a
// run's sample periods: control/booksim/booksim_convergence.h).
// Asserted on made-up periods: a run stops three periods after its warm-up
// when the figures hold and measures those periods only; rising figures run
// to max_samples; a throughput run minds the accepted rate alone; packets
// stuck in flight make a latency run unstable, and any run whose measured
// packets never arrive; a
// warm-up of warmup_periods 0 ends when two periods agree. On BookSim's 4x4x4
// torus (shared/reference/booksim-torus.md): at 0.3 the run stops after 6
// periods (BookSim2's 6,063 cycles) at BookSim2's latency; at 0.8, past
// saturation, the latency run is unstable as BookSim2's.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "control/booksim/booksim_convergence.h"
#include "control/booksim/booksim_import.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

constexpr double kPeriod = 10;  // cycles of 1 ns

// A period of one node: `arrived` packets generated mid-period that arrive
// in it with latency `lat`, `generated` generated (mid-period) in it.
struct Period {
  double generated = 5, arrived = 5, lat = 10;
};

nlohmann::json report(const std::vector<Period>& ps) {
  nlohmann::json cells = nlohmann::json::array();
  for (size_t i = 0; i < ps.size(); i++) {
    const Period& p = ps[i];
    const double mid = (double(i) + 0.5) * kPeriod;
    nlohmann::json later = nlohmann::json::array();
    later.push_back({p.arrived, p.arrived * p.lat});
    for (int d = 1; d < 16; d++) later.push_back({0, 0});
    cells.push_back({{"generated", p.generated},
                     {"generated_messages", p.generated},
                     {"generated_ns_sum", p.generated * mid},
                     {"sent", p.generated},
                     {"arrived", p.arrived},
                     {"arrived_generated_ns_sum", p.arrived * mid},
                     {"flit_latency_ns", {{"sum", p.arrived * p.lat}, {"min", p.lat}, {"max", p.lat}}},
                     {"messages_arrived", p.arrived},
                     {"arrived_latency_ns_sum", p.arrived * p.lat},
                     {"messages", p.arrived},
                     {"latency_ns", {{"sum", p.arrived * p.lat}, {"min", p.lat}, {"max", p.lat}}},
                     {"network_latency_ns", {{"sum", p.arrived * p.lat}, {"min", p.lat}, {"max", p.lat}}},
                     {"hops_sum", p.arrived * 2},
                     {"last_arrival_ns", p.arrived ? mid + p.lat : 0.0},
                     {"arrived_later", later}});
  }
  return {{"fabric", {{"endpoints", 1}}},
          {"sample_periods", {{"period_ns", kPeriod}, {"cells", cells}}}};
}

BooksimMeasure measure(bool latency_run = true) {
  BooksimMeasure m;
  m.latency_run = latency_run;
  m.sample_period = kPeriod;
  return m;
}

TEST(BooksimConvergence, StopsThreePeriodsAfterWarmupAndMeasuresThoseAlone) {
  std::vector<Period> ps(10);
  ps[3].lat = 10.0, ps[4].lat = 10.2, ps[5].lat = 10.1;  // changes under 5%
  for (size_t i = 6; i < ps.size(); i++) ps[i].lat = 40;  // after BookSim stops
  const BooksimFigures f = booksim_figures(report(ps), measure(), 1.0);
  EXPECT_FALSE(f.unstable);
  EXPECT_EQ(f.warmup_periods, 3);
  EXPECT_EQ(f.end_period, 6);
  EXPECT_NEAR(f.plat_avg, (10.0 + 10.2 + 10.1) / 3, 1e-9);
  EXPECT_DOUBLE_EQ(f.plat_min, 10.0);
  EXPECT_DOUBLE_EQ(f.plat_max, 10.2);
  EXPECT_EQ(f.packets, 15u);
  EXPECT_DOUBLE_EQ(f.accepted_flits, 0.5);  // 5 a period of 10 cycles, one node
  EXPECT_DOUBLE_EQ(f.injected_flits, 0.5);
  EXPECT_DOUBLE_EQ(f.hops, 2.0);
  // It stops at 60 cycles; the last measured packet arrives at 55 + 10.1,
  // and what was in flight then drains in period 6's longest latency, 40.
  EXPECT_DOUBLE_EQ(f.time_taken, 66.1 + 40);
}

TEST(BooksimConvergence, RisingFiguresRunToMaxSamples) {
  std::vector<Period> ps(10);
  for (size_t i = 0; i < ps.size(); i++) ps[i].arrived = ps[i].generated = 5 * std::pow(1.3, i);
  const BooksimFigures f = booksim_figures(report(ps), measure(), 1.0);
  EXPECT_FALSE(f.unstable);
  EXPECT_EQ(f.end_period, 10);
}

TEST(BooksimConvergence, ThroughputRunMindsTheAcceptedRateAlone) {
  std::vector<Period> ps(10);
  for (size_t i = 0; i < ps.size(); i++) ps[i].lat = 10 * std::pow(1.5, i);
  BooksimMeasure m = measure(false);
  EXPECT_EQ(booksim_figures(report(ps), m, 1.0).end_period, 6);
  m = measure(true);
  m.latency_thres = -1;  // (off: the latency rises past 500)
  EXPECT_EQ(booksim_figures(report(ps), m, 1.0).end_period, 10);
}

TEST(BooksimConvergence, PacketsStuckInFlightMakeALatencyRunUnstable) {
  std::vector<Period> ps(10);
  for (size_t i = 2; i < ps.size(); i++) ps[i].arrived = 0;  // nothing arrives from period 2
  BooksimMeasure m = measure();
  m.latency_thres = 20;
  const BooksimFigures f = booksim_figures(report(ps), m, 1.0);
  EXPECT_TRUE(f.unstable);
  EXPECT_EQ(f.unstable_line, "Average latency for class 0 exceeded 20 cycles. Aborting simulation.");
  // A throughput run does not check the latency, but its measured packets
  // never arrive: BookSim would drain for ever.
  m.latency_run = false;
  const BooksimFigures t = booksim_figures(report(ps), m, 1.0);
  EXPECT_TRUE(t.unstable);
  EXPECT_NE(t.unstable_line.find("never arrived"), std::string::npos) << t.unstable_line;
}

TEST(BooksimConvergence, WarmupOfZeroPeriodsEndsWhenTwoPeriodsAgree) {
  std::vector<Period> ps(12);
  for (Period& p : ps) p.lat = 50;
  ps[0].lat = 100;  // period 1: cumulative 75 against 100, not yet;
  // period 2 (reset): 50 against 75, not yet; period 3: 50 against 50,
  // warmed up: running from period 4
  BooksimMeasure m = measure();
  m.warmup_periods = 0;
  m.max_samples = 12;
  const BooksimFigures f = booksim_figures(report(ps), m, 1.0);
  EXPECT_EQ(f.warmup_periods, 4);
  EXPECT_EQ(f.end_period, 7);
  EXPECT_DOUBLE_EQ(f.plat_avg, 50.0);
}

// BookSim's 4x4x4 torus through the importer, at `rate`.
struct TorusRun {
  BooksimSpec spec;
  BooksimFigures figures;
};
TorusRun torus(const std::string& rate) {
  BooksimConfig c;
  c.read_file(std::string(FABEMU_SOURCE_DIR) + "/topologies/booksim/torus-4x4x4.cfg");
  c.apply_override("injection_rate=" + rate);
  TorusRun t;
  t.spec = booksim_to_spec(c);
  const RunResult r = run_collect(load_spec_text(t.spec.yaml, {"run.progress_s=0"}, "t.yaml"), nullptr);
  EXPECT_TRUE(r.stats.error.empty()) << r.stats.error;
  t.figures = booksim_figures(r.json, t.spec.measure, t.spec.cycle_ns);
  return t;
}

TEST(BooksimConvergence, TorusStopsWhereBooksimDoes) {
  // BookSim2 at 0.3: 19.27 cycles, 0.3012 accepted, 6,063 cycles taken
  // (3 warm-up and 3 running periods of 1,000, then the drain).
  const TorusRun t = torus("0.3");
  EXPECT_FALSE(t.figures.unstable);
  EXPECT_EQ(t.figures.end_period, 6);
  EXPECT_NEAR(t.figures.plat_avg, 19.27, 0.05 * 19.27);
  EXPECT_NEAR(t.figures.accepted_flits, 0.3012, 0.05 * 0.3012);
  EXPECT_GT(t.figures.time_taken, 6000);
  EXPECT_LT(t.figures.time_taken, 6200);
  // Past saturation (0.654) the latency run is unstable, as BookSim2's.
  const TorusRun over = torus("0.8");
  EXPECT_TRUE(over.figures.unstable);
  EXPECT_NE(booksim_results(nlohmann::json::object(), over.spec).find("Packet latency"),
            std::string::npos);  // (a report without periods: the run's own window)
}

}  // namespace
}  // namespace fabemu
