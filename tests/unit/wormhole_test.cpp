// router.flow_control wormhole (dataplane/router/input_queued_islip.h): a
// message's packets are the flits of one worm, as BookSim2's iq router
// moves a packet of several flits. Its head is allocated an output VC and
// holds it until the tail has crossed; the flits behind it skip routing
// and VC allocation and follow a cycle apart where nothing holds them up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

constexpr uint32_t kFlits = 4;
constexpr ps_t kCycle = 1000;  // torus-4x4x4-booksim.yaml: one flit, 1 ns

// The BookSim torus with messages of kFlits one-cycle packets.
Spec worm_spec(const std::string& flow, std::vector<std::string> sets, bool check = true) {
  sets.push_back("router.flow_control=" + flow);
  sets.push_back("packet.max_units=2");
  sets.push_back("traffic.sizes=[" + std::to_string(8 * kFlits) + "]");
  sets.push_back("run.warmup_ns=1000");
  if (check) sets.push_back("run.check_invariants=true");  // credits add up at every event
  return spec_of("torus-4x4x4-booksim.yaml", sets);
}

// A packet's message: its source and the message's number there (every
// message is kFlits packets, numbered in order at each source).
std::pair<uint32_t, uint64_t> message_of(const Delivery& d) {
  return {d.src, (d.id & ((uint64_t{1} << 40) - 1)) / kFlits};
}

TEST(Wormhole, AtZeroLoadEachFlitFollowsTheOneAheadByACycle) {
  std::vector<Delivery> got;
  const RunResult r =
      run_collect(worm_spec("wormhole", {"traffic.load=0.01", "run.measure_ns=20000"}), &got);
  ASSERT_EQ(r.stats.invariant_failure, "");
  std::map<std::pair<uint32_t, uint64_t>, std::vector<ps_t>> flits;  // latencies in id order
  for (const Delivery& d : got) flits[message_of(d)].push_back(d.latency);
  size_t whole = 0, even = 0;
  for (auto& [m, lat] : flits) {
    if (lat.size() != kFlits) continue;  // (cut off at the run's end)
    whole++;
    bool spaced = true;
    for (uint32_t i = 1; i < kFlits; i++) spaced = spaced && lat[i] == lat[0] + ps_t(i) * kCycle;
    even += spaced;
  }
  ASSERT_GT(whole, 100u);
  // A worm meets another one at a sixty-fourth of this load: nearly all go
  // undisturbed, their flits one cycle apart.
  EXPECT_GT(double(even), 0.95 * double(whole)) << even << " of " << whole;
  // A message's latency is its tail's (BookSim2's packet latency).
  ASSERT_TRUE(r.json.contains("message_latency_ns"));
  const double message_ns = r.json["message_latency_ns"]["mean"].get<double>();
  const double flit_ns = r.json["latency_ns"]["mean"].get<double>();
  EXPECT_NEAR(message_ns - flit_ns, (kFlits - 1) / 2.0, 0.1) << message_ns << " " << flit_ns;
}

// At a destination, the most messages begun and not yet whole at once: a
// worm holds the ejection channel's VC, so with wormhole at most one per
// VC; packets switched on their own interleave more.
uint32_t most_open_at_a_sink(const std::vector<Delivery>& got) {
  std::map<uint32_t, std::map<std::pair<uint32_t, uint64_t>, uint32_t>> open;  // dst: message: flits
  uint32_t most = 0;
  for (const Delivery& d : got) {
    auto& at = open[d.dst];
    if (++at[message_of(d)] == kFlits) at.erase(message_of(d));
    most = std::max(most, static_cast<uint32_t>(at.size()));
  }
  return most;
}

TEST(Wormhole, AWormHoldsItsVcToTheTailSoASinkHasAtMostOneOpenPerVc) {
  std::vector<Delivery> worms, packets;
  const std::vector<std::string> sets = {"traffic.load=0.4", "run.measure_ns=3000"};
  const RunResult w = run_collect(worm_spec("wormhole", sets), &worms);
  const RunResult p = run_collect(worm_spec("virtual_cut_through", sets, false), &packets);
  ASSERT_EQ(w.stats.invariant_failure, "");
  ASSERT_GT(worms.size(), 5000u);
  const uint32_t vcs = 2;
  EXPECT_LE(most_open_at_a_sink(worms), vcs);
  EXPECT_GT(most_open_at_a_sink(packets), vcs);  // (so the count can tell them apart)
  // Each message arrives whole and in order.
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> last_id;
  for (const Delivery& d : worms) {
    auto [it, first] = last_id.try_emplace(message_of(d), d.id);
    if (!first) {
      EXPECT_EQ(d.id, it->second + 1) << "message " << d.src << ":" << message_of(d).second;
      it->second = d.id;
    }
  }
  EXPECT_EQ(w.stats.generated_messages * kFlits, w.stats.injected_packets);
}

TEST(Wormhole, IsTheIslipRoutersAndRefusesFaults) {
  const auto error = [](const std::vector<std::string>& sets) {
    return spec_refusal("torus-4x4x4-booksim.yaml", sets);
  };
  EXPECT_NE(error({"router.flow_control=wormhole", "router.switch_allocator=per_output"})
                .find("router.flow_control applies to router.switch_allocator islip only"),
            std::string::npos);
  EXPECT_NE(error({"router.flow_control=wormhole", "faults=[\"1us link=r0:p0 down\"]"})
                .find("faults are not modelled with router.flow_control wormhole"),
            std::string::npos);
  EXPECT_NE(error({"router.flow_control=store_and_forward"}).find("router.flow_control"),
            std::string::npos);
}

}  // namespace
}  // namespace fabemu
