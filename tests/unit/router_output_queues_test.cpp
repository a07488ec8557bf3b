// Output queues of the input-queued router with switch speedup
// (router.output_speedup > 1; the flattened butterfly paper's router, Kim,
// Dally & Abts 2007, section 3.2): the queues on their own, then runs with
// speedup that deliver exactly once, conserve credits, keep the zero-load
// latency and remove the input-queued switch's head-of-line limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "dataplane/router/crossing_slots.h"
#include "dataplane/router/output_queues.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

rte_mbuf* fake(uintptr_t i) { return reinterpret_cast<rte_mbuf*>(0x1000 + 64 * i); }

TEST(OutputQueues, DisabledWithoutSpeedup) {
  OutputQueues q;
  q.init(4, 2, {10, 10}, 1);
  EXPECT_FALSE(q.enabled());
  q.init(4, 2, {10, 10}, 2);
  EXPECT_TRUE(q.enabled());
}

TEST(OutputQueues, EachVcQueueIsAFifoCountedInUnits) {
  OutputQueues q;
  q.init(3, 2, {40, 20}, 4);
  EXPECT_EQ(q.space(1, 0), 40u);
  EXPECT_EQ(q.space(1, 1), 20u);
  EXPECT_EQ(q.nonempty(1), 0u);
  q.push(1, 0, fake(1), 10);
  q.push(1, 1, fake(2), 19);
  q.push(1, 0, fake(3), 30);
  EXPECT_EQ(q.space(1, 0), 0u);
  EXPECT_EQ(q.space(1, 1), 1u);
  EXPECT_EQ(q.len(1, 0), 2u);
  EXPECT_EQ(q.nonempty(1), 3u);
  EXPECT_EQ(q.nonempty(0) | q.nonempty(2), 0u) << "other outputs untouched";
  EXPECT_EQ(q.head(1, 0).m, fake(1));
  EXPECT_EQ(q.pop(1, 0).units, 10u);
  EXPECT_EQ(q.space(1, 0), 10u);
  EXPECT_EQ(q.pop(1, 0).m, fake(3));
  EXPECT_EQ(q.nonempty(1), 2u) << "VC 0 empty, VC 1 not";
  EXPECT_EQ(q.pop(1, 1).m, fake(2));
  EXPECT_EQ(q.nonempty(1), 0u);
  EXPECT_EQ(q.space(1, 1), 20u);
}

// Queues interleaved over one entry pool keep their own order however the
// pool's entries are reused, and for_each sees exactly what is queued.
TEST(OutputQueues, PoolReuseKeepsEveryQueueInOrder) {
  const uint32_t outs = 5, nv = 3;
  OutputQueues q;
  q.init(outs, nv, {1000, 1000, 1000}, 2);
  std::vector<std::deque<uintptr_t>> ref(outs * nv);
  uint64_t x = 12345;
  uintptr_t id = 0;
  for (int step = 0; step < 20000; step++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t o = uint32_t(x >> 33) % outs, v = uint32_t(x >> 40) % nv;
    auto& r = ref[o * nv + v];
    if ((x >> 50) % 3 != 0 && q.space(o, v) >= 7) {
      q.push(o, v, fake(++id), 7);
      r.push_back(id);
    } else if (!r.empty()) {
      ASSERT_EQ(q.pop(o, v).m, fake(r.front())) << step;
      r.pop_front();
    }
    ASSERT_EQ(q.len(o, v), r.size());
    ASSERT_EQ(q.space(o, v), 1000u - 7u * r.size());
  }
  size_t queued = 0, seen = 0;
  for (const auto& r : ref) queued += r.size();
  q.for_each([&](const OqEntry&) { seen++; });
  EXPECT_EQ(seen, queued);
}

TEST(OutputQueues, AnOutputTakesSpeedupPacketsAtATime) {
  OutputQueues q;
  q.init(2, 1, {100}, 3);
  EXPECT_EQ(q.output_free_at(0), 0u);
  q.occupy_output(0, 50);
  q.occupy_output(0, 70);
  EXPECT_EQ(q.output_free_at(0), 0u) << "a third crossing is free";
  q.occupy_output(0, 60);
  EXPECT_EQ(q.output_free_at(0), 50u) << "all three busy: the first frees at 50";
  q.occupy_output(0, 90);  // takes the crossing free first (the one busy until 50)
  EXPECT_EQ(q.output_free_at(0), 60u);
  EXPECT_EQ(q.output_free_at(1), 0u);
}

// ---- runs with switch speedup ------------------------------------------------

TEST(OutputQueuesRun, EveryPacketExactlyOnce) {
  for (const char* routing : {"min", "val", "ugal", "clos_ad"})
    for (const char* speedup : {"2", "16"}) {
      SCOPED_TRACE(std::string(routing) + " speedup " + speedup);
      const bool adaptive = routing[0] == 'u' || routing[0] == 'c';  // n' + 1 VCs
      expect_exactly_once(
          spec_of("flatfly-4x3.yaml",
                  {std::string("routing=") + routing, adaptive ? "vcs.count=3" : "vcs.count=2",
                   std::string("router.output_speedup=") + speedup, "traffic.pattern=flatfly_worst",
                   "traffic.load=1.0", "traffic.reply_fraction=0.3", "run.warmup_ns=0",
                   "run.measure_ns=10000"}));
    }
  // Small queues (one packet per VC): inputs wait for room; two workers.
  expect_exactly_once(
      spec_of("flatfly-32x2.yaml",
              {"routing=min", "router.output_speedup=8", "router.output_queue_units=19",
               "traffic.load=1.0", "run.workers=2", "run.warmup_ns=0", "run.measure_ns=3000"}));
}

TEST(OutputQueuesRun, CreditsConservedAtEveryEvent) {
  for (const char* queue : {"0", "19"}) {
    const RunResult r =
        run_collect(spec_of("flatfly-4x3.yaml",
                            {"routing=ugal", "vcs.count=3", "router.output_speedup=4",
                             std::string("router.output_queue_units=") + queue, "traffic.load=1.0",
                             "traffic.pattern=flatfly_worst", "run.check_invariants=true",
                             "run.warmup_ns=2000", "run.measure_ns=5000"}),
                    nullptr);
    EXPECT_TRUE(r.stats.invariant_failure.empty()) << queue << ": " << r.stats.invariant_failure;
    EXPECT_GT(r.stats.invariant_checks, 0u);
  }
}

// An uncontended packet crosses into its output queue and onto the link at
// once (cut-through): speedup changes no zero-load latency.
TEST(OutputQueuesRun, ZeroLoadLatencyUnchanged) {
  const Spec s = spec_of("flatfly-4x3.yaml", {"router.output_speedup=8", "traffic.load=0.002",
                                              "run.measure_ns=200000"});
  std::vector<Delivery> got;
  const RunResult r = run_collect(s, &got);
  expect_exactly_once(r, got);
  ASSERT_GT(got.size(), 300u);
  expect_at_zero_load(got, [&](const Delivery& d) {
    return zero_load_latency_ps(s, r.fabric, d.src, d.dst, 19, TrafficClass::request);
  });
}

// The input-queued switch's head-of-line limit under uniform traffic (about
// 0.59 of capacity; 0.55 on the 32-ary 2-flat) goes with speedup: MIN then
// carries what the paper's Figure 4(a) shows for it, near 1.
TEST(OutputQueuesRun, SpeedupRemovesHeadOfLineBlocking) {
  auto accepted = [](const char* speedup) {
    const RunResult r =
        run_collect(spec_of("flatfly-32x2.yaml", {"routing=min", "traffic.load=1.0",
                                                  std::string("router.output_speedup=") + speedup,
                                                  "run.warmup_ns=5000", "run.measure_ns=10000"}),
                    nullptr);
    EXPECT_TRUE(r.stats.error.empty()) << r.stats.error;
    return r.json["accepted_load"].get<double>();
  };
  const double without = accepted("1"), with = accepted("63");
  EXPECT_LT(without, 0.6);
  EXPECT_GT(with, 0.93);
}

}  // namespace
}  // namespace fabemu

namespace fabemu {
namespace {

// The crossing slots are a min-heap: whatever the order of occupations,
// the first free slot and the multiset of busy-until times are those of
// the plain definition (n slots, the earliest-free one taken each time).
TEST(CrossingSlots, TheHeapKeepsTheSlotsOfTheLinearDefinition) {
  std::mt19937_64 rng(7);
  for (uint32_t n : {1u, 2u, 3u, 4u, 7u, 63u}) {
    std::vector<ps_t> heap(n, 0), plain(n, 0);
    ps_t now = 0;
    for (int step = 0; step < 2000; step++) {
      now += rng() % 50;
      const ps_t until = now + 1 + rng() % 400;
      occupy_crossing(heap.data(), n, until);
      *std::min_element(plain.begin(), plain.end()) = until;
      ASSERT_EQ(crossing_free_at(heap.data(), n), *std::min_element(plain.begin(), plain.end()))
          << n << " slots, step " << step;
      std::vector<ps_t> a = heap, b = plain;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      ASSERT_EQ(a, b) << n << " slots, step " << step;
    }
  }
}

}  // namespace
}  // namespace fabemu
