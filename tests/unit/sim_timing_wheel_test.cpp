// The kernel's calendar queue (dataplane/sim/timing_wheel.h): events come out
// by (time, insertion order) whether they sit in a wheel slot, in the near
// heap of the slot being drained or in the overflow heap beyond the horizon.
#include "dataplane/sim/timing_wheel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace fabemu {
namespace {

constexpr ps_t kSlotPs = ps_t{1} << TimingWheel::kSlotShift;
constexpr ps_t kHorizonPs = TimingWheel::kSlots << TimingWheel::kSlotShift;

Event ev(ps_t t, uint32_t id) {
  Event e{};
  e.t = t;
  e.a = id;
  return e;
}

// Pops everything left: (time, id) in pop order. Checks that next_time()
// announces each popped event's time.
std::vector<std::pair<ps_t, uint32_t>> drain(TimingWheel& w) {
  std::vector<std::pair<ps_t, uint32_t>> out;
  for (ps_t t = w.next_time(); t != kNever; t = w.next_time()) {
    const Event e = w.pop();
    EXPECT_EQ(e.t, t);
    out.emplace_back(e.t, e.a);
  }
  return out;
}

std::multiset<uint32_t> pending_ids(const TimingWheel& w) {
  std::multiset<uint32_t> ids;
  w.for_each([&](const Event& e) { ids.insert(e.a); });
  return ids;
}

TEST(TimingWheel, EmptyIsNever) {
  TimingWheel w;
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(w.size(), 0u);
  EXPECT_EQ(w.next_time(), kNever);
  w.push(ev(5 * kSlotPs + 3, 1));
  EXPECT_FALSE(w.empty());
  EXPECT_EQ(w.size(), 1u);
  EXPECT_EQ(w.next_time(), 5 * kSlotPs + 3);
  EXPECT_EQ(w.pop().a, 1u);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(w.next_time(), kNever);
  EXPECT_EQ(w.next_time(), kNever);  // asking again changes nothing
  EXPECT_TRUE(pending_ids(w).empty());
}

TEST(TimingWheel, OrdersByTime) {
  TimingWheel w;
  // Inside one slot, across neighbouring slots and across the wheel.
  const std::vector<ps_t> times = {7 * kSlotPs + 900, 3,           kSlotPs - 1, kSlotPs,
                                   7 * kSlotPs + 1,   2 * kSlotPs, 0,           4000 * kSlotPs,
                                   7 * kSlotPs + 500, 1};
  for (uint32_t i = 0; i < times.size(); i++) w.push(ev(times[i], i));
  EXPECT_EQ(w.size(), times.size());
  const auto out = drain(w);
  ASSERT_EQ(out.size(), times.size());
  std::vector<ps_t> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < out.size(); i++) {
    EXPECT_EQ(out[i].first, sorted[i]) << "pop " << i;
    EXPECT_EQ(times[out[i].second], out[i].first) << "pop " << i << " returned another event";
  }
  EXPECT_TRUE(w.empty());
}

TEST(TimingWheel, TiesRunInInsertionOrder) {
  TimingWheel w;
  const ps_t t = 3 * kSlotPs + 17;
  // Ties interleaved with earlier and later events of the same slot.
  uint32_t id = 0;
  for (int i = 0; i < 8; i++) {
    w.push(ev(t, id++));                 // ids 0, 3, 6, ... at t
    w.push(ev(t + 1 + i, 1000 + id++));  // later, same slot
    w.push(ev(t - 1 - i, 2000 + id++));  // earlier, same slot
  }
  const auto out = drain(w);
  ASSERT_EQ(out.size(), 24u);
  std::vector<uint32_t> at_t;
  for (const auto& [time, a] : out)
    if (time == t) at_t.push_back(a);
  ASSERT_EQ(at_t.size(), 8u);
  for (size_t i = 0; i < at_t.size(); i++) EXPECT_EQ(at_t[i], 3 * i) << "tie " << i;
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(),
                             [](const auto& x, const auto& y) { return x.first < y.first; }));
}

// A crowded slot (a cycle of a large fabric) is sorted as keys, not by
// insertion: ties among hundreds of events still come out in insertion
// order, from the wheel and from beyond the horizon alike.
TEST(TimingWheel, CrowdedSlotsKeepTimeThenInsertionOrder) {
  for (const ps_t base : {5 * kSlotPs, kHorizonPs + 9 * kSlotPs}) {
    TimingWheel w;
    std::vector<std::pair<ps_t, uint32_t>> want;
    for (uint32_t id = 0; id < 300; id++) {
      const ps_t t = base + (id * 7919u) % 5 * 13;  // five times, interleaved
      w.push(ev(t, id));
      want.emplace_back(t, id);
    }
    std::stable_sort(want.begin(), want.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    EXPECT_EQ(drain(w), want) << "base " << base;
  }
}

// A slot's events are kept in chunks of kChunk: a slot holding one event
// less, exactly as many and one more than a chunk (and several chunks), in
// many slots at once, comes out in (time, insertion) order and is seen by
// for_each; later rounds take the chunks the earlier ones gave back, with
// the same order.
TEST(TimingWheel, SlotsSpanningChunksKeepOrderAndReuseChunks) {
  constexpr uint32_t k = TimingWheel::kChunk;
  TimingWheel w;
  uint32_t id = 0;
  for (int round = 0; round < 3; round++) {
    const ps_t base = (round * 40 + 1) * kSlotPs;
    std::vector<std::pair<ps_t, uint32_t>> want;
    const uint32_t counts[] = {k - 1, k, k + 1, 3 * k + 2, 1};
    for (uint32_t j = 0; j < 3 * k + 2; j++)  // slots interleaved: their chunks alternate
      for (uint32_t n = 0; n < 5; n++) {
        if (j >= counts[n]) continue;
        const ps_t t = base + n * 3 * kSlotPs + (j * 37u) % 11;  // ties and disorder in a slot
        w.push(ev(t, id));
        want.emplace_back(t, id++);
      }
    EXPECT_EQ(pending_ids(w).size(), want.size());
    std::stable_sort(want.begin(), want.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    EXPECT_EQ(drain(w), want) << "round " << round;
  }
}

TEST(TimingWheel, TiesAcrossOverflowAndWheelKeepInsertionOrder) {
  TimingWheel w;
  const ps_t far = 3 * kHorizonPs + 5;
  w.push(ev(far, 0));        // beyond the horizon: overflow heap
  w.push(ev(10, 1));         // in the wheel
  EXPECT_EQ(w.next_time(), 10u);
  EXPECT_EQ(w.pop().a, 1u);
  w.push(ev(far, 2));        // still beyond the horizon
  w.push(ev(far - 1, 3));
  w.push(ev(far, 4));
  const auto out = drain(w);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], std::make_pair(far - 1, 3u));
  EXPECT_EQ(out[1], std::make_pair(far, 0u));
  EXPECT_EQ(out[2], std::make_pair(far, 2u));
  EXPECT_EQ(out[3], std::make_pair(far, 4u));
}

TEST(TimingWheel, FarFutureBeyondHorizon) {
  TimingWheel w;
  const std::vector<ps_t> times = {10 * kHorizonPs + 7, kHorizonPs,     kHorizonPs - 1,
                                   0,                   2 * kHorizonPs, kHorizonPs + kSlotPs,
                                   1000 * kHorizonPs,   5,              2 * kHorizonPs - 1};
  for (uint32_t i = 0; i < times.size(); i++) w.push(ev(times[i], i));
  EXPECT_EQ(pending_ids(w).size(), times.size());
  // Pop half, then add more beyond the (moved) horizon and just inside it.
  std::vector<ps_t> popped;
  for (int i = 0; i < 4; i++) {
    ASSERT_NE(w.next_time(), kNever);
    popped.push_back(w.pop().t);
  }
  const ps_t now = popped.back();
  w.push(ev(now + kHorizonPs, 100));
  w.push(ev(now + kHorizonPs - 1, 101));
  w.push(ev(now + 5 * kHorizonPs, 102));
  for (const auto& [t, a] : drain(w)) popped.push_back(t);
  std::vector<ps_t> expect = times;
  expect.push_back(now + kHorizonPs);
  expect.push_back(now + kHorizonPs - 1);
  expect.push_back(now + 5 * kHorizonPs);
  std::sort(expect.begin(), expect.end());
  EXPECT_EQ(popped, expect);
}

TEST(TimingWheel, PushIntoTheSlotBeingDrained) {
  TimingWheel w;
  const ps_t base = 42 * kSlotPs;
  w.push(ev(base + 100, 0));
  w.push(ev(base + 500, 1));
  w.push(ev(base + 2 * kSlotPs, 2));  // a later slot
  ASSERT_EQ(w.next_time(), base + 100);
  EXPECT_EQ(w.pop().a, 0u);
  // The slot of base is being drained: these go to the near heap.
  w.push(ev(base + 100, 10));  // at the current time
  w.push(ev(base + 300, 11));
  w.push(ev(base + 500, 12));  // ties with event 1, inserted later
  w.push(ev(base + kSlotPs - 1, 13));
  w.push(ev(base + kSlotPs, 14));  // the next slot
  EXPECT_EQ(pending_ids(w), (std::multiset<uint32_t>{1, 2, 10, 11, 12, 13, 14}));
  const auto out = drain(w);
  const std::vector<std::pair<ps_t, uint32_t>> expect = {
      {base + 100, 10},         {base + 300, 11},     {base + 500, 1}, {base + 500, 12},
      {base + kSlotPs - 1, 13}, {base + kSlotPs, 14}, {base + 2 * kSlotPs, 2}};
  EXPECT_EQ(out, expect);
}

TEST(TimingWheel, PushAfterTheLastPopOfASlot) {
  TimingWheel w;
  w.push(ev(50, 0));
  ASSERT_EQ(w.next_time(), 50u);
  EXPECT_EQ(w.pop().a, 0u);
  EXPECT_TRUE(w.empty());
  // The drained slot is still current: same slot, a later one, and far.
  w.push(ev(kHorizonPs + 60, 3));
  w.push(ev(60, 1));
  w.push(ev(kSlotPs + 1, 2));
  const auto out = drain(w);
  const std::vector<std::pair<ps_t, uint32_t>> expect = {
      {60, 1}, {kSlotPs + 1, 2}, {kHorizonPs + 60, 3}};
  EXPECT_EQ(out, expect);
}

TEST(TimingWheel, ForEachVisitsEveryPendingEvent) {
  TimingWheel w;
  // Fill every place an event can wait: wheel slots, the sorted current slot,
  // the near heap and the overflow heap.
  w.push(ev(100, 0));
  w.push(ev(200, 1));
  w.push(ev(300, 2));
  w.push(ev(5 * kSlotPs, 3));
  w.push(ev(7 * kHorizonPs, 4));
  ASSERT_EQ(w.next_time(), 100u);
  EXPECT_EQ(w.pop().a, 0u);       // current slot now holds 1, 2
  w.push(ev(250, 5));             // near heap
  w.push(ev(kHorizonPs * 3, 6));  // overflow
  w.push(ev(9 * kSlotPs, 7));     // wheel
  EXPECT_EQ(pending_ids(w), (std::multiset<uint32_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(w.size(), 7u);
  EXPECT_EQ(w.pop().a, 1u);
  EXPECT_EQ(pending_ids(w), (std::multiset<uint32_t>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(w.next_time(), 250u);
}

// A discrete-event simulation against a reference ordered set: pops come out
// by (time, insertion order) and for_each sees exactly what is pending.
void run_against_reference(uint64_t seed, int steps) {
  std::mt19937_64 rng(seed);
  TimingWheel w;
  std::set<std::pair<ps_t, uint32_t>> ref;  // (time, id); ids are in insertion order
  uint32_t next_id = 0;
  ps_t now = 0;
  auto push = [&](ps_t t) {
    w.push(ev(t, next_id));
    ref.emplace(t, next_id);
    next_id++;
  };
  auto delay = [&]() -> ps_t {
    switch (rng() % 8) {
      case 0: return 0;                                      // a tie with now
      case 1: return rng() % kSlotPs;                        // likely the current slot
      case 2: return rng() % (kHorizonPs / 4);
      case 3: return rng() % (3 * kHorizonPs);              // often beyond the horizon
      case 4: return kHorizonPs - kSlotPs + rng() % (2 * kSlotPs);  // around the edge
      default: return rng() % (64 * kSlotPs);
    }
  };
  for (int i = 0; i < 2000; i++) push(delay());
  for (int step = 0; step < steps; step++) {
    const int pushes = static_cast<int>(rng() % 3);
    for (int i = 0; i < pushes; i++) push(now + delay());
    if (step % 4096 == 0) {
      std::multiset<uint32_t> ids;
      for (const auto& [t, id] : ref) ids.insert(id);
      ASSERT_EQ(pending_ids(w), ids) << "seed " << seed << " step " << step;
    }
    ASSERT_EQ(w.size(), ref.size());
    const ps_t t = w.next_time();
    if (ref.empty()) {
      ASSERT_EQ(t, kNever);
      push(now + delay());
      continue;
    }
    ASSERT_EQ(t, ref.begin()->first) << "seed " << seed << " step " << step;
    const Event e = w.pop();
    ASSERT_EQ(std::make_pair(e.t, e.a), *ref.begin()) << "seed " << seed << " step " << step;
    ref.erase(ref.begin());
    now = e.t;
  }
  while (!ref.empty()) {
    ASSERT_EQ(w.next_time(), ref.begin()->first);
    const Event e = w.pop();
    ASSERT_EQ(std::make_pair(e.t, e.a), *ref.begin());
    ref.erase(ref.begin());
  }
  EXPECT_EQ(w.next_time(), kNever);
  EXPECT_TRUE(w.empty());
}

TEST(TimingWheel, InterleavedPushPopMatchesReference) {
  for (uint64_t seed : {1, 2, 3, 4}) {
    run_against_reference(seed, 60000);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace fabemu
