// BookSim2's input_speedup and output_speedup on the cycle-synchronous
// router (router.input_speedup, output_speedup with router.switch_allocator
// islip; input_queued_islip.h): the switch's expanded inputs and outputs,
// an output queue sending one packet a cycle.
// Asserted: the import's lines and refusals; the spec's refusals (output
// queue capacity, more switch ports than the matcher has); speedup adds no
// cycle at zero load; every packet once beyond saturation with speedup,
// virtual cut-through and wormhole, long stages; saturation on the 4-cube
// within 3% of BookSim2's own figures, rising with the speedup as there.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/booksim_text.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

// BookSim's 4-cube (a 2-ary 4-mesh) with the iq router of
// topologies/booksim/*.cfg, lookahead routing.
const char* kCube =
    "use_noc_latency = 0; router = iq; vc_buf_size = 16; wait_for_tail_credit = 0;\n"
    "vc_allocator = islip; sw_allocator = islip; alloc_iters = 1; credit_delay = 1;\n"
    "internal_speedup = 1.0; routing_delay = 0; seed = 1;\n"
    "topology = mesh; k = 2; n = 4; routing_function = dim_order; traffic = uniform;\n";

constexpr ps_t kCyclePs = 30400;  // the hypercube import's cycle

const BooksimText kText(kCube);
BooksimSpec imported(const std::string& more) { return kText.imported(more); }
std::string refusal(const std::string& more) { return kText.refusal(more); }
Spec spec_from(const std::string& more, std::vector<std::string> sets = {}) {
  return kText.spec(more, std::move(sets));
}

TEST(BooksimSpeedup, SpeedupsImportAsTheRoutersOwn) {
  const std::string y = imported("num_vcs = 2; input_speedup = 2; output_speedup = 3;\n").yaml;
  EXPECT_NE(y.find("input_speedup: 2"), std::string::npos) << y;
  EXPECT_NE(y.find("output_speedup: 3"), std::string::npos) << y;
  const Spec s = spec_from("num_vcs = 2; input_speedup = 2; output_speedup = 3;\n");
  EXPECT_EQ(s.router.input_speedup, 2);
  EXPECT_EQ(s.router.output_speedup, 3);
  EXPECT_EQ(s.router.switch_allocator, "islip");
  const Spec plain = spec_from("num_vcs = 2;\n");
  EXPECT_EQ(plain.router.input_speedup, 1);
  EXPECT_EQ(plain.router.output_speedup, 1);
}

TEST(BooksimSpeedup, RefusesWhatIsNotModelled) {
  EXPECT_NE(refusal("internal_speedup = 2.0;\n").find("'internal_speedup = 2.0'"),
            std::string::npos);
  EXPECT_NE(refusal("input_speedup = 5;\n").find("input_speedup must be 1 to 4"),
            std::string::npos);
  EXPECT_NE(refusal("output_speedup = 0;\n").find("output_speedup must be 1 to 8"),
            std::string::npos);
}

TEST(BooksimSpeedup, SpecRefusesAnOutputQueueBoundAndTooManySwitchPorts) {
  // The cycle-synchronous router's output queue is BookSim's, unbounded.
  const std::string bound = spec_refusal(
      "torus-4x4x4-booksim.yaml", {"router.output_speedup=2", "router.output_queue_units=64"});
  EXPECT_NE(bound.find("router.output_queue_units"), std::string::npos) << bound;
  EXPECT_NE(bound.find("output_buffer_size"), std::string::npos) << bound;
  EXPECT_EQ(spec_refusal("torus-4x4x4-booksim.yaml",
                         {"router.input_speedup=4", "router.output_speedup=8"}),
            "")
      << "7 ports x 8 = 56 switch outputs fit";
  // The 32-ary 2-flat's 63-port routers: 126 switch inputs.
  const std::string wide =
      spec_refusal("flatfly-32x2-booksim.yaml", {"router.input_speedup=2"});
  EXPECT_NE(wide.find("router.input_speedup 2 gives this fabric's 63-port routers 126 switch "
                      "inputs"),
            std::string::npos)
      << wide;
}

TEST(BooksimSpeedup, ZeroLoadLatencyIsUnchanged) {
  // BookSim's 4 cycles per router after the first and 6 more, lookahead
  // routing: speedup only lets more packets through a cycle.
  for (const char* keys : {"input_speedup = 2;", "output_speedup = 2;",
                           "num_vcs = 4; input_speedup = 4; output_speedup = 3;"}) {
    SCOPED_TRACE(keys);
    Spec s = spec_from(std::string(keys) + " num_vcs = 2; injection_rate = 0.002;\n" +
                       "warmup_periods = 0; sample_period = 20000; max_samples = 1;\n");
    std::vector<Delivery> got;
    run_exactly_once(s, &got);
    ASSERT_GT(got.size(), 300u);
    expect_at_zero_load(got, [&](const Delivery& p) {
      const ps_t routers = __builtin_popcount(p.src ^ p.dst) + 1;  // e-cube on the 4-cube
      return (4 * (routers - 1) + 6) * kCyclePs;
    });
  }
}

TEST(BooksimSpeedup, EveryPacketOnceBeyondSaturation) {
  for (const std::string& more :
       {std::string("num_vcs = 4; input_speedup = 2; output_speedup = 2;\n"),
        std::string("num_vcs = 2; input_speedup = 2; output_speedup = 4; st_final_delay = 2; "
                    "routing_delay = 1; sw_alloc_delay = 2;\n"),
        std::string("num_vcs = 4; input_speedup = 3; output_speedup = 2; packet_size = 4; "
                    "wait_for_tail_credit = 1;\n")}) {
    SCOPED_TRACE(more);
    Spec s = spec_from("injection_rate = 0.95; warmup_periods = 0; sample_period = 3000; "
                       "max_samples = 1;\n" +
                       more);
    expect_exactly_once(s);
  }
}

// Accepted packets per node and cycle offered 1.0 (BookSim's sim_type
// throughput, 3000 cycles of warm-up, 3000 measured).
double saturation(const std::string& keys) {
  Spec s = spec_from(keys +
                     " injection_rate = 1.0; sim_type = throughput; warmup_periods = 1;"
                     " sample_period = 3000; max_samples = 2;\n");
  const RunResult r = run_collect(s, nullptr);
  EXPECT_TRUE(r.stats.error.empty()) << r.stats.error;
  return r.json["accepted_load"].get<double>();  // flits: one a packet
}

TEST(BooksimSpeedup, SaturationOnTheFourCubeIsBooksims) {
  // BookSim2 itself on these keys (2026-12-04): 2 VCs 0.8881, input
  // speedup 2 0.9120, both speedups 2 0.9159; 4 VCs with input speedup 4
  // 0.9902 (one switch input per VC: no VC waits behind another).
  const double plain = saturation("num_vcs = 2;");
  const double in2 = saturation("num_vcs = 2; input_speedup = 2;");
  const double both = saturation("num_vcs = 2; input_speedup = 2; output_speedup = 2;");
  const double vc4 = saturation("num_vcs = 4; input_speedup = 4;");
  EXPECT_NEAR(plain, 0.8881, 0.03 * 0.8881);
  EXPECT_NEAR(in2, 0.9120, 0.03 * 0.9120);
  EXPECT_NEAR(both, 0.9159, 0.03 * 0.9159);
  EXPECT_NEAR(vc4, 0.9902, 0.03 * 0.9902);
  EXPECT_GT(in2, plain + 0.01) << "input speedup lets two VCs of a port cross in a cycle";
  EXPECT_GT(vc4, in2);
}

}  // namespace
}  // namespace fabemu
