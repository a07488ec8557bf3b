// BlackWidow's forward-progress timer (section 7.7; dataplane/link/
// progress_timer.h): an endpoint that stops accepting backs the fabric up
// into its router, whose ejection VC times out; the router reports that port
// and discards what is bound for it, so the rest of the fabric keeps flowing.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "control/run/fault_plan.h"
#include "control/spec/spec_refuse.h"
#include "tests/support/fault_checks.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

struct Outcome {
  RunResult r;
  uint64_t others = 0;  // packets delivered to endpoints other than the stopped one
};

Outcome run_with(const std::string& file, std::vector<std::string> sets, uint32_t stopped) {
  sets.insert(sets.end(),
              {"run.warmup_ns=2000", "run.measure_ns=30000", "run.check_invariants=true"});
  Outcome out;
  std::vector<Delivery> got;
  out.r = run_collect(spec_of(file, sets), &got);
  for (const Delivery& d : got) out.others += d.dst != stopped;
  return out;
}

void expect_timer_catches_a_stopped_sink(const std::string& file, std::vector<std::string> base) {
  constexpr uint32_t kStopped = 5;
  const std::string stop = "faults=[\"5us endpoint=5 stop\", \"25us endpoint=5 start\"]";
  std::vector<std::string> timer = base, no_timer = base, idle = base;
  timer.insert(timer.end(), {stop, "router.forward_progress_ns=5000"});
  no_timer.push_back(stop);
  idle.push_back("router.forward_progress_ns=5000");
  const Outcome healthy = run_with(file, base, kStopped);
  const Outcome caught = run_with(file, timer, kStopped);
  const Outcome stuck = run_with(file, no_timer, kStopped);
  const Outcome quiet = run_with(file, idle, kStopped);
  for (const Outcome* o : {&healthy, &caught, &stuck, &quiet}) {
    ASSERT_TRUE(o->r.stats.error.empty()) << o->r.stats.error;
    EXPECT_TRUE(o->r.stats.drained);
    EXPECT_EQ(o->r.stats.invariant_failure, "");
    EXPECT_EQ(o->r.stats.delivered_packets + fault_losses(o->r.stats) +
                  drops(o->r.stats, DropReason::forward_progress),
              o->r.stats.injected_packets);
  }
  // A timer that never expires changes nothing.
  EXPECT_EQ(quiet.r.stats.delivered_packets, healthy.r.stats.delivered_packets);
  EXPECT_EQ(quiet.r.stats.latency_ps.mean(), healthy.r.stats.latency_ps.mean());
  EXPECT_EQ(quiet.r.json["forward_progress_timeouts"].size(), 0u);
  // The stopped endpoint's ejection port, and only it, timed out: a period
  // or more after the stop (packets leave until its receive buffer's
  // credits run out), and before it accepts again.
  const FabricEndpoint& ep = caught.r.fabric.endpoints[kStopped];
  const nlohmann::json& t = caught.r.json["forward_progress_timeouts"];
  ASSERT_EQ(t.size(), 1u) << t.dump();
  EXPECT_EQ(t[0]["router"], ep.router);
  EXPECT_EQ(t[0]["port"], ep.port);
  EXPECT_EQ(t[0]["endpoint"], kStopped);
  EXPECT_GE(t[0]["first_at_ns"].get<double>(), 5000.0 + 5000.0);
  EXPECT_LT(t[0]["first_at_ns"].get<double>(), 25000.0);
  EXPECT_GT(drops(caught.r.stats, DropReason::forward_progress), 0u);
  EXPECT_EQ(drops(stuck.r.stats, DropReason::forward_progress), 0u);
  EXPECT_EQ(stuck.r.json.contains("forward_progress_timeouts"), false);
  // The rest of the fabric keeps flowing with the timer.
  EXPECT_GE(double(caught.others), 0.98 * double(healthy.others));
  std::printf("%s: packets to other endpoints: healthy %llu, timer %llu, no timer %llu\n",
              file.c_str(), (unsigned long long)healthy.others, (unsigned long long)caught.others,
              (unsigned long long)stuck.others);
}

TEST(ForwardProgress, ATorusRouterDiscardsForAnEndpointThatStoppedAccepting) {
  expect_timer_catches_a_stopped_sink("t3e-4x4x4.yaml", {"traffic.load=0.2"});
  // Without it the stopped sink's backlog (12-flit buffers) holds up others'
  // packets behind it: tested in the function's print (not asserted: the
  // Clos's 256-phit buffers absorb 20 us of it).
}

TEST(ForwardProgress, AClosTiledRouterOnTwoWorkersDoesTheSame) {
  expect_timer_catches_a_stopped_sink(
      "yarc-r2-1024.yaml", {"topology.endpoints=64", "run.workers=2", "traffic.load=0.2"});
}

TEST(ForwardProgress, AnEndpointStopIsRefusedWhereNoEndpointIs) {
  const Spec spec = spec_of("t3e-4x4x4.yaml", {});
  FaultState state(build_spec_fabric(spec));
  std::vector<FabricFault> changes;
  std::string why;
  FaultSpec f;
  ASSERT_TRUE(parse_fault("endpoint=63 stop", false, &f, &why)) << why;
  EXPECT_TRUE(state.apply(f, false, &changes, &why)) << why;
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].op, FabricFault::Op::sink_stop);
  ASSERT_TRUE(parse_fault("endpoint=64 stop", false, &f, &why)) << why;
  EXPECT_FALSE(state.apply(f, false, &changes, &why));
  EXPECT_NE(why.find("endpoint 64 does not exist"), std::string::npos) << why;
  for (const char* bad : {"5us endpoint=3 down", "5us endpoint=x stop", "5us router=3 stop"})
    EXPECT_FALSE(parse_fault(bad, true, &f, &why)) << bad;
}

// The control socket's `status` names the dead links as its replies count
// them: a dead router's links too, not only those a link fault set down.
TEST(FaultStatus, ADeadRoutersLinksAreNamedAsTheyAreCounted) {
  const Spec spec = spec_of("t3e-4x4x4.yaml", {});
  FaultState state(build_spec_fabric(spec));
  for (const char* text : {"link=r0:p0 down", "router=21 down"}) {
    FaultSpec f;
    std::string why;
    ASSERT_TRUE(parse_fault(text, false, &f, &why)) << why;
    std::vector<FabricFault> changes;
    ASSERT_TRUE(state.apply(f, false, &changes, &why)) << why;
  }
  const std::vector<std::string> names = state.dead_link_names();
  EXPECT_EQ(int(names.size()), state.dead_links());
  EXPECT_EQ(names.size(), 7u) << "r0:p0 and the six links of router 21 (a 3-D torus)";
  EXPECT_NE(std::find(names.begin(), names.end(), "r0:p0"), names.end());
}

}  // namespace
}  // namespace fabemu
