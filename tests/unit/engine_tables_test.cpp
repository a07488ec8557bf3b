// Routing tables replaced during a run (routing/table_slot.h): the way the
// BlackWidow system software reprograms up-routing tables after a fault
// (section 7.7), here without the fault itself. The new tables stop rank-1
// router 0 from using one of its uplinks; from the instant they take effect
// no packet crosses that link, nothing is lost, and runs stay deterministic.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/run/runner.h"
#include "control/spec/spec_loader.h"
#include "control/topology/clos.h"
#include "control/topology/registry.h"
#include "dataplane/routing/table_slot.h"

namespace fabemu {
namespace {

Spec clos_spec(int workers) {
  return load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/yarc-r2-1024.yaml",
                   {"run.progress_s=0", "topology.endpoints=128", "traffic.load=0.5",
                    "run.warmup_ns=0", "run.measure_ns=20000",
                    "run.workers=" + std::to_string(workers)});
}

// The first uplink of rank-1 router 0.
int first_uplink(const Fabric& f) {
  const FabricRouter& r = f.routers[0];
  for (size_t p = 0; p < r.ports.size(); p++)
    if (r.ports[p].peer_router >= 0 && r.ports[p].label == kClosUp) return int(p);
  return -1;
}

const LinkStats* link_of(const RunStats& st, int router, int port) {
  for (const LinkStats& l : st.links)
    if (l.router == router && l.port == port) return &l;
  return nullptr;
}

// A run in which, at emulated time `at` (kNever: never), router 0 stops
// using its first uplink.
RunResult run_avoiding(int workers, ps_t at) {
  const Spec spec = clos_spec(workers);
  return run_emulation(spec, [](EngineConfig& c) { c.progress = nullptr; }, {},
                       [&](EngineBase& engine, const RoutingInfo& routing, const Fabric& f) {
                         if (at == kNever) return;
                         Fabric avoid = f;
                         const int p = first_uplink(f);
                         ASSERT_GE(p, 0);
                         avoid.routers[0].ports[size_t(p)].label = kClosDown;  // no longer an uplink
                         ASSERT_TRUE(routing.reprogram(engine, spec, avoid, at));
                       });
}

TEST(EngineTables, ScheduledTablesTakeEffectAtTheirTime) {
  for (int workers : {1, 2}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    const RunResult base = run_avoiding(workers, kNever);
    const RunResult from0 = run_avoiding(workers, 0);
    const RunResult mid = run_avoiding(workers, 10000 * kPsPerNs);
    for (const RunResult* r : {&base, &from0, &mid}) {
      ASSERT_TRUE(r->stats.error.empty()) << r->stats.error;
      EXPECT_TRUE(r->stats.drained);
      EXPECT_EQ(r->stats.injected_packets, r->stats.delivered_packets);
    }
    const int p = first_uplink(base.fabric);
    ASSERT_GE(p, 0);
    const uint64_t all = link_of(base.stats, 0, p)->packets;
    const uint64_t none = link_of(from0.stats, 0, p)->packets;
    const uint64_t half = link_of(mid.stats, 0, p)->packets;
    // Uniform traffic at load 0.5: router 0's 32 endpoints send most of
    // their packets up, spread over 32 uplinks by the hash.
    EXPECT_GT(all, 100u);
    EXPECT_EQ(none, 0u);
    EXPECT_GT(half, 0u);
    EXPECT_LT(half, all);
    // The same traffic (the seed's), only routed differently.
    EXPECT_EQ(from0.stats.injected_packets, base.stats.injected_packets);
  }
}

TEST(EngineTables, ATableChangeKeepsRunsDeterministic) {
  const RunResult a = run_avoiding(2, 7000 * kPsPerNs);
  const RunResult b = run_avoiding(2, 7000 * kPsPerNs);
  ASSERT_TRUE(a.stats.error.empty()) << a.stats.error;
  EXPECT_EQ(a.stats.delivered_packets, b.stats.delivered_packets);
  EXPECT_EQ(a.stats.latency_ps.sum, b.stats.latency_ps.sum);
  EXPECT_EQ(a.stats.events, b.stats.events);
}

// The slot alone: scheduled sets in time order, a published set at the next
// edge, every set kept until the slot goes.
TEST(TableSlot, PublishedAndScheduledSets) {
  TableSlot<int> slot(std::make_shared<const int>(1));
  ASSERT_TRUE(slot.schedule(std::make_shared<const int>(3), 300));
  ASSERT_TRUE(slot.schedule(std::make_shared<const int>(2), 200));
  TableSlot<int>::Reader r;
  slot.attach(r);
  EXPECT_EQ(*r.tables, 1);
  EXPECT_EQ(slot.next_change(r), 200u);
  EXPECT_FALSE(slot.refresh(r, 199));
  EXPECT_TRUE(slot.refresh(r, 250));
  EXPECT_EQ(*r.tables, 2);
  EXPECT_EQ(slot.next_change(r), 300u);
  slot.publish(std::make_shared<const int>(9));
  EXPECT_TRUE(slot.refresh(r, 260));
  EXPECT_EQ(*r.tables, 9);
  EXPECT_TRUE(slot.refresh(r, 300));
  EXPECT_EQ(*r.tables, 3);
  EXPECT_EQ(slot.next_change(r), kNever);
  EXPECT_EQ(slot.sets(), 4u);
  // Once the run has begun the schedule is fixed; publishing still works.
  slot.freeze();
  EXPECT_FALSE(slot.schedule(std::make_shared<const int>(4), 400));
  EXPECT_EQ(slot.sets(), 4u);
  slot.publish(std::make_shared<const int>(5));
  EXPECT_TRUE(slot.refresh(r, 500));
  EXPECT_EQ(*r.tables, 5);
}

}  // namespace
}  // namespace fabemu
