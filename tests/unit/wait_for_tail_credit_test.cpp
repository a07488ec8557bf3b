// router.wait_for_tail_credit (dataplane/router/input_queued_islip.h,
// BookSim2's wait_for_tail_credit = 1): the iSLIP router gives an output VC
// to a new packet only once every credit of the last one is back. Asserted:
// the zero-load latency does not change (an idle VC's credits are all
// there); every packet is delivered once with credits conserved, with
// one-flit packets and with worms, beyond saturation; the saturation of
// BookSim's torus falls far below the plain router's, as BookSim2's does
// (0.118 against 0.654 with 2 VCs: a VC held from the allocation of one
// packet until it has left the next router); and the key is refused where
// it does not apply.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

Spec torus(std::vector<std::string> sets) {
  sets.push_back("router.wait_for_tail_credit=true");
  sets.push_back("run.progress_s=0");
  return spec_of("torus-4x4x4-booksim.yaml", sets);
}

// At zero load a VC's credits are back long before the next packet wants
// it: the same packets (same seed) take the same time as without the key.
TEST(WaitForTailCredit, ZeroLoadLatencyIsUnchanged) {
  std::vector<Delivery> held, plain;
  run_exactly_once(torus({"traffic.load=0.002"}), &held);
  Spec s = torus({"traffic.load=0.002"});
  s.router.wait_for_tail_credit = false;
  run_exactly_once(s, &plain);
  ASSERT_GT(held.size(), 100u);
  std::map<uint64_t, ps_t> latency;
  for (const Delivery& d : plain) latency[d.id] = d.latency;
  size_t same = 0;
  for (const Delivery& d : held) {
    const auto it = latency.find(d.id);
    ASSERT_NE(it, latency.end()) << "packet " << d.id << " only with the key";
    same += d.latency == it->second;
  }
  EXPECT_GE(double(same), 0.95 * double(held.size())) << same << " of " << held.size();
}

TEST(WaitForTailCredit, EveryPacketOnceAndCreditsConserved) {
  for (const char* vcs : {"vcs.count=2", "vcs.count=4"}) {
    SCOPED_TRACE(vcs);
    expect_exactly_once(
        torus({vcs, "traffic.load=1.0", "run.warmup_ns=0", "run.measure_ns=20000"}));
    expect_credits_conserved(torus({vcs, "traffic.load=1.0", "run.measure_ns=10000"}));
  }
  // Worms of 4 flits.
  expect_exactly_once(
      torus({"router.flow_control=wormhole", "packet.max_units=2", "traffic.sizes=[32]",
             "traffic.load=1.0", "run.warmup_ns=0", "run.measure_ns=20000"}));
}

TEST(WaitForTailCredit, HoldingVcsTillTheirCreditsReturnCutsSaturation) {
  const auto accepted = [](const Spec& s) {
    return run_collect(s, nullptr).json["accepted_load"].get<double>();
  };
  Spec plain = torus({"traffic.load=1.0", "run.measure_ns=10000"});
  plain.router.wait_for_tail_credit = false;
  const double held = accepted(torus({"traffic.load=1.0", "run.measure_ns=10000"}));
  EXPECT_LT(held, 0.5 * accepted(plain)) << held;
  EXPECT_GT(held, 0.05) << "packets still move";
}

TEST(WaitForTailCredit, RefusedWhereItDoesNotApply) {
  const auto refusal = [](const std::vector<std::string>& sets) {
    return spec_refusal("torus-4x4x4-booksim.yaml", sets);
  };
  EXPECT_NE(refusal({"router.wait_for_tail_credit=true", "router.switch_allocator=per_output"})
                .find("applies to router.switch_allocator"),
            std::string::npos);
  EXPECT_NE(refusal({"router.wait_for_tail_credit=true", "faults=[\"1us router=3 down\"]"})
                .find("router.wait_for_tail_credit"),
            std::string::npos);
  EXPECT_EQ(refusal({"router.wait_for_tail_credit=true",
                     "router.switch_allocator=separable_input_first"}),
            "")
      << "the separable allocator's router has it too";
}

}  // namespace
}  // namespace fabemu
