// BookSim2's pipeline delays on the iSLIP router (router.routing_cycles,
// vc_alloc_cycles, sw_alloc_cycles, crossbar_cycles; input_queued_islip.h),
// reached through the BookSim import of routing_delay, vc_alloc_delay,
// sw_alloc_delay and st_prepare_delay + st_final_delay.
// Asserted: the import's lines and refusals; BookSim's zero-load latency in
// cycles, 4 per router after the first and 6 more with every delay at its
// lookahead default, plus each router's extra stage cycles (routing_delay,
// and each delay past its first cycle); every packet delivered once beyond
// saturation with long stages, virtual cut-through and wormhole.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/booksim_text.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

// topologies/booksim/*.cfg's iq router without its delay keys.
const char* kRouter =
    "use_noc_latency = 0; router = iq; vc_buf_size = 16; wait_for_tail_credit = 0;\n"
    "vc_allocator = islip; sw_allocator = islip; alloc_iters = 1; credit_delay = 1;\n"
    "input_speedup = 1; output_speedup = 1; internal_speedup = 1.0;\n"
    "warmup_periods = 0; sample_period = 20000; max_samples = 1; seed = 1;\n"
    "topology = mesh; k = 2; n = 4; routing_function = dim_order; num_vcs = 2;\n";

constexpr ps_t kCyclePs = 30400;  // the flatfly profile's cycle (the hypercube's import)

const BooksimText kText(kRouter);
BooksimSpec imported(const std::string& more) { return kText.imported(more); }
std::string refusal(const std::string& more) { return kText.refusal(more); }
Spec spec_from(const std::string& more, std::vector<std::string> sets = {}) {
  return kText.spec(more, std::move(sets));
}

struct Delays {
  int routing, va, sa, crossbar;
  std::string keys() const {
    return "routing_delay = " + std::to_string(routing) +
           "; vc_alloc_delay = " + std::to_string(va) +
           "; sw_alloc_delay = " + std::to_string(sa) +
           "; st_final_delay = " + std::to_string(crossbar) + ";\n";
  }
  // The cycles each router adds to the lookahead pipeline of 1-cycle stages.
  int extra() const { return routing + (va - 1) + (sa - 1) + (crossbar - 1); }
};

TEST(BooksimPipeline, DelaysImportAsTheRoutersStageCycles) {
  const std::string y = imported("routing_delay = 1; vc_alloc_delay = 3; sw_alloc_delay = 4;\n"
                                 "st_prepare_delay = 1; st_final_delay = 2; packet_size = 1;\n")
                            .yaml;
  EXPECT_NE(y.find("routing_cycles: 1"), std::string::npos) << y;
  EXPECT_NE(y.find("vc_alloc_cycles: 3"), std::string::npos) << y;
  EXPECT_NE(y.find("sw_alloc_cycles: 4"), std::string::npos) << y;
  EXPECT_NE(y.find("crossbar_cycles: 3"), std::string::npos) << y;  // BookSim's sum
  const Spec s = spec_from("routing_delay = 1; vc_alloc_delay = 3; sw_alloc_delay = 4;\n"
                           "st_prepare_delay = 1; st_final_delay = 2;\n");
  EXPECT_EQ(s.router.routing_cycles, 1);
  EXPECT_EQ(s.router.vc_alloc_cycles, 3);
  EXPECT_EQ(s.router.sw_alloc_cycles, 4);
  EXPECT_EQ(s.router.crossbar_cycles, 3);
}

TEST(BooksimPipeline, UnsetRoutingDelayIsBooksimsDefaultOfOne) {
  const Spec s = spec_from("packet_size = 1;\n");
  EXPECT_EQ(s.router.routing_cycles, 1);
  EXPECT_EQ(s.router.vc_alloc_cycles, 1);
  EXPECT_EQ(s.router.crossbar_cycles, 1);
  EXPECT_EQ(spec_from("routing_delay = 0;\n").router.routing_cycles, 0);
}

TEST(BooksimPipeline, RefusesDelaysBooksimOrFabemuCannotRun) {
  EXPECT_NE(refusal("vc_alloc_delay = 0;\n")
                .find("t.cfg:6: 'vc_alloc_delay = 0': vc_alloc_delay must be 1 to 8 cycles"),
            std::string::npos);
  EXPECT_NE(refusal("sw_alloc_delay = 9;\n").find("sw_alloc_delay = 9"), std::string::npos);
  EXPECT_NE(refusal("routing_delay = -1;\n").find("routing_delay = -1"), std::string::npos);
  EXPECT_NE(refusal("st_final_delay = 0;\n").find("crossbar takes at least a cycle"),
            std::string::npos);
  // (BookSim's routing stage of two or more cycles lets heads through in batches.)
  EXPECT_NE(refusal("routing_delay = 2;\n").find("routing_delay above 1"), std::string::npos);
}

TEST(BooksimPipeline, SpecRefusesStagesWithFaultsAndOnOtherAllocators) {
  const auto refusal = [](const std::vector<std::string>& sets) {
    return spec_refusal("torus-4x4x4-booksim.yaml", sets);
  };
  EXPECT_NE(refusal({"router.sw_alloc_cycles=2", "faults=[\"1us router=3 down\"]"})
                .find("router.sw_alloc_cycles"),
            std::string::npos);
  EXPECT_NE(refusal({"router.vc_alloc_cycles=2", "faults=[\"1us router=3 down\"]"})
                .find("router.vc_alloc_cycles"),
            std::string::npos);
  EXPECT_NE(refusal({"router.sw_alloc_cycles=2", "router.forward_progress_ns=100000"})
                .find("router.forward_progress_ns"),
            std::string::npos);
  EXPECT_NE(refusal({"router.routing_cycles=1", "router.switch_allocator=per_output"})
                .find("applies to router.switch_allocator"),
            std::string::npos);
  EXPECT_EQ(refusal({"router.crossbar_cycles=2", "router.routing_cycles=1",
                     "router.switch_allocator=separable_input_first"}),
            "")
      << "the separable allocator's router has them too";
}

// A nearly idle run: BookSim's 4 cycles per router after the first and 6
// more, and each router's `extra` stage cycles.
void expect_zero_load(const std::string& keys, int extra, std::vector<std::string> sets = {}) {
  Spec s = spec_from(keys + "traffic = uniform; injection_rate = 0.002;\n", std::move(sets));
  s.run.measure_ns = 20000 * 30.4;
  std::vector<Delivery> got;
  run_exactly_once(s, &got);
  ASSERT_GT(got.size(), 300u);
  expect_at_zero_load(got, [&](const Delivery& p) {
    const ps_t routers = __builtin_popcount(p.src ^ p.dst) + 1;  // e-cube on the 4-cube
    EXPECT_EQ(ps_t{p.hops}, routers - 1);
    return (4 * (routers - 1) + 6 + routers * extra) * kCyclePs;
  });
}

TEST(BooksimPipeline, ZeroLoadLatencyAddsEachRoutersStageCycles) {
  for (const Delays& d : {Delays{1, 1, 1, 1}, Delays{0, 2, 1, 1}, Delays{0, 1, 2, 1},
                          Delays{0, 1, 1, 2}, Delays{1, 3, 2, 3}}) {
    SCOPED_TRACE(d.keys());
    expect_zero_load(d.keys(), d.extra());
  }
  // fabemu's own routing stage runs past BookSim's one cycle, pipelined.
  expect_zero_load(Delays{0, 1, 1, 1}.keys(), 3, {"router.routing_cycles=3"});
}

TEST(BooksimPipeline, EveryPacketOnceBeyondSaturationWithLongStages) {
  for (const std::string& more :
       {std::string("routing_delay = 1; vc_alloc_delay = 2; sw_alloc_delay = 2;\n"),
        std::string("routing_delay = 0; vc_alloc_delay = 3; sw_alloc_delay = 1; "
                    "wait_for_tail_credit = 1;\n"),
        std::string("routing_delay = 1; vc_alloc_delay = 2; sw_alloc_delay = 3; "
                    "st_final_delay = 2; packet_size = 4;\n")}) {
    SCOPED_TRACE(more);
    Spec s = spec_from("traffic = uniform; injection_rate = 0.9;\n" + more);
    s.run.measure_ns = 3000 * 30.4;
    expect_exactly_once(s);
  }
}

}  // namespace
}  // namespace fabemu
