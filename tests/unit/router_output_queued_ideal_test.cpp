// The ideal output-queued router (router.model output_queued_ideal,
// dataplane/router/output_queued_ideal.h): a router model added as new
// files and registrations only. It must deliver every packet exactly once,
// with credits conserved at every event, on the torus, the folded Clos and
// the flattened butterfly; and, having no head-of-line blocking, carry more
// uniform traffic than the input-queued router whose FIFOs it shares.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/fault_checks.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

struct Fabric3 {
  const char* file;
  std::vector<std::string> sets;
};

// Small fabrics of the three families, short runs, invariants on.
const std::vector<Fabric3>& fabrics() {
  static const std::vector<Fabric3> all = {
      {"t3e-4x4x4.yaml",
       {"routing=dimension_order", "run.measure_ns=3000", "run.warmup_ns=500",
        "run.drain_ns=50000"}},
      {"yarc-r1-32.yaml",
       {"routing=updown", "run.measure_ns=3000", "run.warmup_ns=500", "run.drain_ns=50000"}},
      {"flatfly-4x3.yaml",
       {"routing=min", "run.measure_ns=3000", "run.warmup_ns=500", "run.drain_ns=50000"}},
  };
  return all;
}

TEST(IdealOutputQueued, DeliversEveryPacketOnTorusClosAndFlatfly) {
  for (const Fabric3& f : fabrics())
    for (const char* load : {"traffic.load=0.2", "traffic.load=1.0"})
      for (const char* workers : {"run.workers=1", "run.workers=2"}) {
        std::vector<std::string> sets = f.sets;
        sets.insert(sets.end(), {"router.model=output_queued_ideal", "run.check_invariants=true",
                                 load, workers});
        SCOPED_TRACE(std::string(f.file) + " " + load + " " + workers);
        const Spec spec = spec_of(f.file, sets);
        std::vector<Delivery> got;
        const RunResult r = run_collect(spec, &got);
        EXPECT_EQ(r.stats.invariant_failure, "");
        EXPECT_GT(r.stats.invariant_checks, 0u);
        EXPECT_FALSE(r.stats.stalled);
        expect_exactly_once(r, got);
      }
}

// Link-level retry at a high bit error rate and faults mid-run (links and a
// whole router die, damaged copies move on marked): every packet arrives
// once or is counted lost, credits conserved throughout (its queued
// packets' credits go back when its router dies, before its input buffers').
TEST(IdealOutputQueued, RetryAndFaultsLoseNothingUncounted) {
  std::vector<std::string> sets = torus_retry_and_faults();
  sets.insert(sets.end(), {"routing=dimension_order", "router.model=output_queued_ideal"});
  std::vector<Delivery> got;
  const RunResult r = run_collect(spec_of("t3e-4x4x4.yaml", sets), &got);
  expect_once_or_counted(r, got);
  EXPECT_GT(r.stats.transmit_error_discards, 0u);
}

// Karol, Hluchyj & Morgan (IEEE Trans. Commun. 1987): head-of-line blocking
// limits FIFO input queueing under uniform traffic to 2 - sqrt(2) = 0.586 of
// the links, where output queueing is not limited. The 4-ary 3-flat with MIN
// routing at offered load 1.0 shows both: the input-queued router accepts
// 0.595, the ideal output-queued router 0.942.
TEST(IdealOutputQueued, NoHeadOfLineLimitUnderUniformTraffic) {
  auto accepted = [](const char* model) {
    const Spec spec = spec_of("flatfly-4x3.yaml",
                              {"routing=min", std::string("router.model=") + model,
                               "traffic.load=1.0", "run.measure_ns=20000", "run.warmup_ns=5000"});
    return run_collect(spec, nullptr).json["accepted_load"].get<double>();
  };
  const double iq = accepted("input_queued"), oq = accepted("output_queued_ideal");
  EXPECT_NEAR(iq, 0.586, 0.04) << "input-queued: the head-of-line limit";
  EXPECT_GT(oq, 0.9) << "ideal output-queued (input-queued: " << iq << ")";
}

}  // namespace
}  // namespace fabemu
