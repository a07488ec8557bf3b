// traffic.process on_off, BookSim2's bursty source (its injection.cpp's
// OnOffInjectionProcess): each slot a source turns on with burst_alpha or
// off with burst_beta, and an on source generates with r1 = p (alpha +
// beta) / alpha, so that it offers traffic.load on average but in bursts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/spec/spec_error.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

struct Figures {
  uint64_t generated = 0;
  double mean_latency_ps = 0;
};

Figures run(std::vector<std::string> sets) {
  sets.push_back("run.warmup_ns=1000");
  sets.push_back("run.measure_ns=20000");
  std::vector<Delivery> got;
  const RunResult r = run_collect(spec_of("torus-4x4x4-booksim.yaml", sets), &got);
  Figures f;
  f.generated = r.stats.generated_messages;
  for (const Delivery& d : got) f.mean_latency_ps += double(d.latency);
  if (!got.empty()) f.mean_latency_ps /= double(got.size());
  return f;
}

TEST(OnOff, OffersTheLoadOnAverage) {
  const Figures bern = run({"traffic.load=0.2"});
  // On a third of the slots (alpha / (alpha + beta)), at r1 = 0.6 then.
  const Figures bursts = run({"traffic.load=0.2", "traffic.process=on_off",
                              "traffic.burst_alpha=0.05", "traffic.burst_beta=0.1"});
  ASSERT_GT(bern.generated, 10000u);
  EXPECT_NEAR(double(bursts.generated) / double(bern.generated), 1.0, 0.04)
      << bursts.generated << " against " << bern.generated;
}

TEST(OnOff, BurstsQueueLongerThanBernoulliAtTheSameLoad) {
  const Figures bern = run({"traffic.load=0.3"});
  // Bursts of 50 slots on average at r1 = 0.9: a source outruns its share
  // (34 cycles against 20 for Bernoulli).
  const Figures bursts = run({"traffic.load=0.3", "traffic.process=on_off",
                              "traffic.burst_alpha=0.01", "traffic.burst_beta=0.02"});
  EXPECT_GT(bursts.mean_latency_ps, 1.3 * bern.mean_latency_ps)
      << bursts.mean_latency_ps << " ps against " << bern.mean_latency_ps;
  // With beta 0 a source, once on, never turns off: Bernoulli at r1 = p.
  const Figures always = run({"traffic.load=0.3", "traffic.process=on_off",
                              "traffic.burst_alpha=1", "traffic.burst_beta=0"});
  EXPECT_NEAR(double(always.generated) / double(bern.generated), 1.0, 0.04);
  EXPECT_NEAR(always.mean_latency_ps / bern.mean_latency_ps, 1.0, 0.05);
}

TEST(OnOff, RefusesALoadItsBurstsCannotCarry) {
  try {
    spec_of("torus-4x4x4-booksim.yaml", {"traffic.load=0.8", "traffic.process=on_off",
                                         "traffic.burst_alpha=0.1", "traffic.burst_beta=0.9"});
    ADD_FAILURE() << "a load of 0.8 on a tenth of the slots was accepted";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("on_off is on 0.1 of the slots"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fabemu
