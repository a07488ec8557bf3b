// Up to kMaxVcs (16) VCs, BookSim2's default num_vcs, on its iq router:
// a config file without num_vcs imports with 16; on BookSim's torus
// dim_order every one of them carries router-to-router traffic, each ring
// partition's VCs half of it (BookSim's VC classes), none left idle; every
// packet once beyond saturation with 16 VCs, speedup and wormhole.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/support/booksim_text.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

const BooksimText kTorus(
    "use_noc_latency = 0; router = iq; vc_buf_size = 8; credit_delay = 1;\n"
    "routing_delay = 0; seed = 1; topology = torus; k = 4; n = 2;\n"
    "routing_function = dim_order; traffic = uniform;\n"
    "warmup_periods = 1; sample_period = 2000; max_samples = 2;\n");

TEST(BooksimVcs, BooksimsDefaultOfSixteenVcsImports) {
  EXPECT_EQ(kTorus.spec("injection_rate = 0.3;\n").vcs.count, 16);
  EXPECT_NE(kTorus.refusal("num_vcs = 17;\n").find("num_vcs must be 1 to 16"), std::string::npos);
}

TEST(BooksimVcs, EachOfSixteenVcsCarriesTorusTraffic) {
  const Spec s = kTorus.spec("injection_rate = 0.5;\n");
  const RunResult r = run_collect(s, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  uint64_t per_vc[kMaxVcs] = {}, total = 0;
  for (const LinkStats& l : r.stats.links)
    if (l.router >= 0 && l.peer_router >= 0)
      for (int v = 0; v < kMaxVcs; v++) per_vc[v] += l.vc_packets[v], total += l.vc_packets[v];
  ASSERT_GT(total, 10000u);
  // BookSim's dim_order takes any VC of the packet's ring partition (VCs
  // 0-7 or 8-15, routefunc.cpp dim_order_torus), the two carrying as much
  // on a symmetric torus; its VC allocator gives the lowest free VC of the
  // class to a head whose accept pointer is on another port, so the upper
  // VCs of a class carry least at load 0.5, but none is idle.
  uint64_t low = 0;
  for (int v = 0; v < kMaxVcs; v++) {
    EXPECT_GT(per_vc[v], total / 1000) << "VC " << v << " idle";
    low += v < 8 ? per_vc[v] : 0;
  }
  EXPECT_NEAR(double(low), total / 2.0, total * 0.05) << "the partitions carry alike";
}

TEST(BooksimVcs, EveryPacketOnceBeyondSaturationWithSixteenVcs) {
  for (const std::string& more :
       {std::string("num_vcs = 16; input_speedup = 4; output_speedup = 2;\n"),
        std::string("num_vcs = 16; packet_size = 4; wait_for_tail_credit = 1;\n")}) {
    SCOPED_TRACE(more);
    expect_exactly_once(kTorus.spec("injection_rate = 0.95;\n" + more));
  }
}

}  // namespace
}  // namespace fabemu
