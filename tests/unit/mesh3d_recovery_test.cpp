// Two-hop error detection and recovery on the 3D mesh (the petaflops
// 3D-mesh proposal, "Error Detection and Recovery", Figure 21;
// link.recovery: two_hop): the recovery memory of a router output keeps
// each copy until the neighbour's neighbour has it (ack2) or the neighbour
// consumed it (ack); at bit errors of 1e-4 every message arrives once and
// no memory outgrows the proposal's sizing; when a router dies mid-run,
// what its neighbours' memories hold is sent again around it and the
// second arrivals are dropped, so that only messages from or to the dead
// router are lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "control/topology/mesh3d.h"
#include "dataplane/link/recovery_memory.h"
#include "tests/unit/eal_fixture.h"
#include "tests/support/fault_checks.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

Spec mesh(std::vector<std::string> sets) {
  sets.push_back("topology.dims=[4,4,4]");
  return spec_of("mesh3d-4x4x4.yaml", sets);
}

// An mbuf of the test pool standing for a copy.
rte_mbuf* copy_buffer() {
  static rte_mempool* pool = nullptr;
  if (!pool) pool = rte_pktmbuf_pool_create("recov_test", 256, 0, 64, 256, SOCKET_ID_ANY);
  return pool ? rte_pktmbuf_alloc(pool) : nullptr;
}

// The memory holds a copy from its send until its ack's release time, and
// what is held when the link dies is handed over oldest first.
TEST(RecoveryMemory, HoldsUntilTheAckAndHandsOverWhatIsHeld) {
  ASSERT_TRUE(test_eal_init());
  RecoveryMemory mem;
  mem.init(2, 40);
  mem.keep(1, copy_buffer(), 10, 16, 1000);
  mem.keep(1, copy_buffer(), 11, 16, 2000);
  EXPECT_EQ(mem.occupancy(1), 32u);
  mem.ack(1, 11, 5000);  // the second one's ack2 first (its route was shorter)
  mem.ack(1, 99, 3000);  // not held: ignored
  mem.retire(1, 4999);
  EXPECT_EQ(mem.occupancy(1), 32u) << "nothing is back before 5000";
  mem.retire(1, 5000);
  EXPECT_EQ(mem.occupancy(1), 16u);
  EXPECT_EQ(mem.held(1), 1u);
  mem.keep(1, copy_buffer(), 12, 16, 6000);
  mem.keep(1, copy_buffer(), 13, 16, 6100);  // 48 words in a 40-word memory
  EXPECT_EQ(mem.counters().overflows, 1u);
  EXPECT_EQ(mem.peak(1), 48u);
  EXPECT_EQ(mem.counters().max_words, 48u);
  std::vector<uint64_t> handed;
  mem.take_held(1, 7000, [&](rte_mbuf* c) {
    handed.push_back(c ? 1 : 0);
    rte_pktmbuf_free(c);
  });
  EXPECT_EQ(handed.size(), 3u) << "10 (never acked), 12 and 13";
  EXPECT_EQ(mem.occupancy(1), 0u);
  EXPECT_EQ(mem.occupancy(0), 0u);
  EXPECT_EQ(mem.counters().kept, 4u);
  EXPECT_EQ(mem.counters().acks, 1u);
}

// Only what was in flight at a fault can arrive twice: deliveries from
// just before it (within the ack2's way back) and messages generated
// before it are remembered; later ones pass unremembered.
TEST(RecoveryMemory, DuplicateFilterRemembersWhatAFaultCouldCopy) {
  DuplicateFilter d;
  d.init(1100);
  EXPECT_FALSE(d.duplicate(1, 0, 5000));
  EXPECT_FALSE(d.duplicate(2, 0, 9500));
  EXPECT_FALSE(d.faulted());
  d.fault_at(10000);
  EXPECT_TRUE(d.faulted());
  EXPECT_TRUE(d.duplicate(2, 0, 10400)) << "delivered 0.5 ns before the fault: its copy may come";
  EXPECT_FALSE(d.duplicate(1, 0, 10500)) << "delivered long before: no copy was held";
  EXPECT_FALSE(d.duplicate(3, 9000, 12000));  // the original, first
  EXPECT_TRUE(d.duplicate(3, 9000, 12500));   // then its copy
  EXPECT_FALSE(d.duplicate(4, 10001, 13000));
  EXPECT_FALSE(d.duplicate(4, 10001, 13000)) << "generated after the fault: never copied";
  EXPECT_EQ(d.remembered(), 3u);
}

// Bit errors at 1e-4 with link-level retry and two-hop recovery: every
// message once; every copy acknowledged and let go (nothing held at the
// end); no memory holds more than the proposal's 6 Bi + 5 Bo + 12 x delay
// line, which the report gives.
TEST(Mesh3dRecovery, BitErrors1e4EveryMessageOnceWithinTheSizing) {
  const Spec s = mesh({"traffic.load=0.3", "run.measure_ns=2000", "link.retry=true",
                       "link.ber=1e-4", "link.recovery=two_hop"});
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(s, &got);
  const nlohmann::json& rec = r.json["recovery"];
  EXPECT_GT(r.json["link_retry"]["crc_errors"].get<uint64_t>(), 500u);
  EXPECT_EQ(rec["copies_kept"].get<uint64_t>(), rec["acks"].get<uint64_t>());
  EXPECT_GT(rec["copies_kept"].get<uint64_t>(), r.stats.delivered_packets) << "a copy a hop";
  EXPECT_EQ(rec["unacknowledged_at_end"].get<uint64_t>(), 0u);
  EXPECT_EQ(rec["overflows"].get<uint64_t>(), 0u);
  EXPECT_EQ(rec["resent"].get<uint64_t>(), 0u);
  const Mesh3dRecoveryMemory sizing = mesh3d_recovery_memory(s, r.fabric);
  EXPECT_EQ(rec["memory_words"].get<uint64_t>(), uint64_t(std::ceil(sizing.per_output)));
  EXPECT_GT(rec["max_occupancy_words"].get<uint64_t>(), 32u) << "more than one packet at a time";
  EXPECT_LT(rec["max_occupancy_fraction"].get<double>(), 1.0);
}

// Messages of a bit-complement pattern (source s to 63 - s; through the
// middle of the 4x4x4 mesh) while router 42, in the middle, dies mid-run.
struct Killed {
  RunResult r;
  std::vector<Delivery> got;
};
Killed kill_router_42(const std::string& recovery, int workers, bool invariants = false) {
  Killed k;
  k.r = run_collect(mesh({"traffic.load=0.2", "traffic.pattern=bitcomp", "run.warmup_ns=500",
                          "run.measure_ns=3000",
                          std::string("run.check_invariants=") + (invariants ? "true" : "false"),
                          "run.workers=" + std::to_string(workers), "link.recovery=" + recovery,
                          "faults=[\"2us router=42 down\"]"}),
                    &k.got);
  return k;
}

// Sources whose deliveries skip a packet number (a message lost), other
// than the dead router's endpoint and the one that sends to it.
std::set<uint32_t> sources_with_gaps(const std::vector<Delivery>& got) {
  std::map<uint32_t, std::vector<uint64_t>> seqs;
  for (const Delivery& d : got) seqs[d.src].push_back(d.id & ((uint64_t{1} << 40) - 1));
  std::set<uint32_t> gaps;
  for (auto& [src, v] : seqs) {
    if (src == 42 || src == 63 - 42) continue;
    std::sort(v.begin(), v.end());
    if (v.back() + 1 != v.size()) gaps.insert(src);
  }
  return gaps;
}

TEST(Mesh3dRecovery, RouterKilledMidRunNothingInTransitLost) {
  const Killed k = kill_router_42("two_hop", 1, true);
  expect_once_or_counted(k.r, k.got);  // (each delivery once, every loss counted)
  const nlohmann::json& rec = k.r.json["recovery"];
  EXPECT_GT(rec["resent"].get<uint64_t>(), 0u);
  EXPECT_GT(rec["recovered"].get<uint64_t>(), 0u) << "originals lost with the router, copies arrived";
  EXPECT_GT(rec["duplicates_dropped"].get<uint64_t>(), 0u) << "originals that had got past it";
  EXPECT_EQ(rec["resent_lost"].get<uint64_t>(), rec["resent"].get<uint64_t>() -
                                                     rec["recovered"].get<uint64_t>() -
                                                     rec["duplicates_dropped"].get<uint64_t>());
  EXPECT_GT(rec["freed_with_router"].get<uint64_t>(), 0u) << "the dead router's own memories";
  EXPECT_TRUE(sources_with_gaps(k.got).empty()) << "a message between live routers was lost";
  EXPECT_EQ(drops(k.r.stats, DropReason::illegal_turn), 0u);
  // Without recovery the same fault loses what was in transit through it.
  const Killed none = kill_router_42("none", 1);
  EXPECT_FALSE(sources_with_gaps(none.got).empty());
  EXPECT_GT(drops(none.r.stats, DropReason::lost_in_dead_router), 0u);
}

// The same run on two workers (acks between them cross by the rings):
// the same deliveries, copies and duplicates.
TEST(Mesh3dRecovery, TwoWorkersSameRecovery) {
  const Killed one = kill_router_42("two_hop", 1), two = kill_router_42("two_hop", 2, true);
  expect_once_or_counted(two.r, two.got);
  EXPECT_TRUE(sources_with_gaps(two.got).empty());
  EXPECT_EQ(two.r.stats.delivered_packets, one.r.stats.delivered_packets);
  EXPECT_EQ(two.r.json["recovery"], one.r.json["recovery"]);
}

// Recovery acknowledges a packet where it leaves its input for the output
// link: a router that queues it at the output first is refused, with the
// keys to change.
TEST(Mesh3dRecovery, OutputQueuesAreRefused) {
  try {
    mesh({"link.recovery=two_hop", "router.model=input_queued", "router.output_speedup=2"});
    ADD_FAILURE() << "two-hop recovery with output queues was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("router.output_speedup: 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fabemu
