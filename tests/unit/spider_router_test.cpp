// The SGI Spider router (router.model spider, dataplane/router/spider.h),
// against Galles, "Spider: A High-Speed Network Interconnect", IEEE Micro
// 1997: "Crossbar arbitration" (a list per output in each VC buffer, so no
// head-of-line blocking across outputs; up to six winners among up to 120
// candidates each cycle; priority by age, oldest first, rotating among
// equals; ages stop at 239, 240..255 are set at the source), "Error
// handling" (the deadlock time-out), and the zero-load latency of the
// profile's router (40 ns pin to pin), the same as the input-queued router's.
// One router alone (tests/support/spider_router_driver.h), then whole runs
// of the profile's 16-endpoint hypercube.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/router/input_queued.h"
#include "dataplane/router/spider.h"
#include "tests/support/fault_checks.h"
#include "tests/support/run_collect.h"
#include "tests/support/spider_router_driver.h"

namespace fabemu {
namespace {

constexpr ps_t kNs = 1000;

using Spider = SpiderDriver<SpiderRouter>;
using InputQueued = SpiderDriver<InputQueuedRouter>;

template <class D>
const typename D::Left* left_of(const D& d, uint32_t id) {
  for (const auto& l : d.left())
    if (l.id == id) return &l;
  return nullptr;
}

// "A blocked message targeting one output port will not prevent a
// subsequent message in that same buffer from exiting on a different output
// port": A (for output 1, whose downstream buffer is full) arrives first in
// input 0's VC 0 buffer, B (for output 2) behind it. The input-queued
// router's B waits behind A; Spider's leaves when through the pipeline.
TEST(SpiderRouter, NoHeadOfLineBlockingAcrossOutputs) {
  Spider sp({});
  InputQueued iq({});
  uint32_t a = 0, b = 0;
  auto go = [&](auto& d) {
    d.hold(1, 0);
    a = d.send(0, 0, 1, 4);
    b = d.send(0, 0, 2, 4, 0, 80 * kNs);  // behind A's tail (4 micropackets of 20 ns)
    d.run(2000 * kNs);
  };
  go(sp);
  go(iq);
  ASSERT_NE(left_of(sp, b), nullptr) << "Spider: B held behind A";
  EXPECT_EQ(left_of(sp, b)->at, 120 * kNs) << "B's arrival plus the 40 ns router";
  EXPECT_EQ(left_of(sp, a), nullptr);
  EXPECT_EQ(left_of(iq, b), nullptr) << "input-queued: B waits behind the blocked A";
  // Output 1's buffer drains: A goes, and (input-queued) B after it.
  sp.release(1, 0);
  iq.release(1, 0);
  sp.run(4000 * kNs);
  iq.run(4000 * kNs);
  EXPECT_NE(left_of(sp, a), nullptr);
  ASSERT_NE(left_of(iq, b), nullptr);
  EXPECT_EQ(left_of(iq, b)->at, 2000 * kNs + 4 * 20 * kNs) << "after A's four micropackets";
}

// "Each arbitration cycle, the arbiter chooses up to six winners from as
// many as 120 arbitration candidates": every (input, VC) of the 6-port,
// 4-VC chip holds a message for each of the five other outputs; the first
// arbitration sees all 120 and sends six, one per input and output.
TEST(SpiderRouter, SixWinnersAmong120Candidates) {
  Spider d({});
  for (uint32_t in = 0; in < 6; in++)
    for (uint32_t v = 0; v < 4; v++)
      for (uint32_t out = 0; out < 6; out++)
        if (out != in) d.send(in, v, out, 2);
  d.run(40 * kNs);  // through the pipeline: the first arbitration
  EXPECT_EQ(d.router().counters().arbitrations, 1u);
  EXPECT_EQ(d.router().counters().candidates, 120u);
  EXPECT_EQ(d.router().counters().winners, 6u);
  ASSERT_EQ(d.left().size(), 6u);
  uint32_t ins = 0, outs = 0;
  for (const auto& l : d.left()) {
    ins |= 1u << l.in;
    outs |= 1u << l.out;
    EXPECT_EQ(l.at, 40 * kNs);
  }
  EXPECT_EQ(ins, 0x3Fu);
  EXPECT_EQ(outs, 0x3Fu);
  d.run(10000 * kNs);
  EXPECT_EQ(d.left().size(), 120u) << "all leave";
}

// Oldest first: four inputs compete for output 5 with ages 5, 200, 100 and
// the high-priority 250 (ages fixed: router.age_period_ns 0).
TEST(SpiderRouter, OldestFirst) {
  Spider::Options o;
  o.spider.age_period_ps = 0;
  Spider d(o);
  const uint8_t ages[] = {5, 200, 100, 250};
  for (uint32_t in = 0; in < 4; in++) d.send(in, 0, 5, 1, ages[in]);
  d.run(1000 * kNs);
  ASSERT_EQ(d.left().size(), 4u);
  std::vector<uint8_t> order;
  for (const auto& l : d.left()) order.push_back(l.age);
  EXPECT_EQ(order, (std::vector<uint8_t>{250, 200, 100, 5}));
}

// "The chip rotates the arbiter each arbitration cycle": two inputs with
// messages of equal age for one output take turns.
TEST(SpiderRouter, EqualAgesTakeTurns) {
  Spider::Options o;
  o.spider.age_period_ps = 0;
  Spider d(o);
  for (int k = 0; k < 4; k++) {
    d.send(1, 0, 0, 1, 7);
    d.send(2, 0, 0, 1, 7);
  }
  d.run(2000 * kNs);
  ASSERT_EQ(d.left().size(), 8u);
  for (size_t k = 1; k < d.left().size(); k++)
    EXPECT_NE(d.left()[k].in, d.left()[k - 1].in) << "message " << k;
}

// Equal ages take turns at a busy output while another output has a winner
// too: inputs 1, 2 and 3 send to output 0, all of age 7, and input 4 sends
// to output 5 messages as old or older. (One rotation pointer per chip,
// moved past the cycle's first winner, gave output 0's ties to input 1
// whenever output 5 won first: with the older messages, every time.)
TEST(SpiderRouter, EqualAgesTakeTurnsWhileAnotherOutputWins) {
  for (uint8_t other_age : {7, 200}) {
    SCOPED_TRACE(int(other_age));
    Spider::Options o;
    o.spider.age_period_ps = 0;
    Spider d(o);
    for (int k = 0; k < 6; k++) {
      for (uint32_t in = 1; in <= 3; in++) d.send(in, 0, 0, 1, 7);
      d.send(4, 0, 5, 1, other_age);
    }
    d.run(4000 * kNs);
    ASSERT_EQ(d.left().size(), 24u);
    std::vector<uint32_t> at0;
    for (const auto& l : d.left())
      if (l.out == 0) at0.push_back(l.in);
    ASSERT_EQ(at0.size(), 18u);
    for (size_t k = 0; k + 3 <= at0.size(); k += 3) {
      std::vector<uint32_t> turn(at0.begin() + k, at0.begin() + k + 3);
      std::sort(turn.begin(), turn.end());
      EXPECT_EQ(turn, (std::vector<uint32_t>{1, 2, 3})) << "departures " << k << " to " << k + 2;
    }
  }
}

// The messages of one list leave one after the other, each as soon as the
// link has sent the one before it (nothing else in the router to wake it).
TEST(SpiderRouter, AListsMessagesLeaveBackToBack) {
  Spider d({});
  for (int k = 0; k < 3; k++) d.send(0, 0, 1, 2);
  d.run(1000 * kNs);
  ASSERT_EQ(d.left().size(), 3u);
  for (uint32_t k = 0; k < 3; k++) EXPECT_EQ(d.left()[k].at, (40 + 40 * k) * kNs) << k;
}

// "Once a message enters a Spider chip, it ages at a programmable rate until
// it exits"; "standard messages do not age beyond a value of 239"; 240..255
// are the source's. One step per router.age_period_ns (40 ns) waited here.
TEST(SpiderRouter, AgeGrowsWhileWaitingAndStopsAt239) {
  Spider d({});
  d.hold(1, 0);
  const uint32_t young = d.send(0, 0, 1, 1, 10);
  const uint32_t old = d.send(2, 0, 1, 1, 230);
  const uint32_t high = d.send(3, 0, 1, 1, 245);
  d.run(1000 * kNs);
  d.release(1, 0);
  d.run(2000 * kNs);
  ASSERT_EQ(d.left().size(), 3u);
  EXPECT_EQ(left_of(d, high)->age, 245) << "high priority never ages";
  EXPECT_EQ(left_of(d, old)->age, 239) << "capped";
  const auto* y = left_of(d, young);
  EXPECT_EQ(y->age, 10 + y->at / (40 * kNs)) << "one step per 40 ns waited, left at " << y->at;
  EXPECT_GE(y->age, 35);
}

// "If a given virtual channel remains full with no progress for a time-out
// period, the chip sets a deadlock time-out bit and resets the port": a ring
// of four looped-back ports on one VC, each buffer filled with messages for
// the next port. Without the time-out nothing ever moves again; with it the
// buffers are reset, their messages counted deadlock_timeout and their
// credits returned to the senders.
TEST(SpiderRouter, DeadlockTimeoutResetsAFullBufferThatMakesNoProgress) {
  for (const ps_t timeout : {ps_t(0), 2000 * kNs}) {
    SCOPED_TRACE(timeout);
    Spider::Options o;
    o.nv = 1;
    o.spider.deadlock_timeout_ps = timeout;
    Spider d(o);
    d.loop(4);
    for (uint32_t in = 0; in < 4; in++)
      for (int k = 0; k < 4; k++) d.send_ring(in, 0, 8, 5, 4);  // 16 units: full
    d.run(100000 * kNs);
    EXPECT_TRUE(d.idle());
    uint32_t held = 0;
    for (uint32_t c = 0; c < 4; c++) held += d.router().len(c);
    if (timeout == 0) {
      EXPECT_EQ(held, 16u) << "deadlocked";
      EXPECT_EQ(d.drops(DropReason::deadlock_timeout), 0u);
      EXPECT_EQ(d.router().counters().deadlock_resets, 0u);
    } else {
      EXPECT_EQ(held, 0u);
      EXPECT_EQ(d.drops(DropReason::deadlock_timeout), 16u);
      EXPECT_EQ(d.router().counters().deadlock_resets, 4u);
      for (uint32_t c = 0; c < 4; c++) EXPECT_EQ(d.returned(c), 16u) << "input " << c;
    }
  }
}

// "Resets the port": the deadlock time-out of one VC buffer discards what
// every VC buffer of that input holds. Input 0's VC 1 holds a message for
// output 5, whose VC 1 has no credits; the VC 0 ring deadlocks as above.
// Input 0's reset takes the VC 1 message too (it could not have left).
TEST(SpiderRouter, DeadlockTimeoutResetsTheWholePort) {
  Spider::Options o;
  o.nv = 2;
  o.spider.deadlock_timeout_ps = 2000 * kNs;
  Spider d(o);
  d.loop(4);
  d.hold(5, 1);
  d.send(0, 1, 5, 4);
  for (uint32_t in = 0; in < 4; in++)
    for (int k = 0; k < 4; k++) d.send_ring(in, 0, 8, 5, 4);  // VC 0: full
  d.run(100000 * kNs);
  EXPECT_TRUE(d.idle());
  EXPECT_EQ(d.router().len(1), 0u) << "input 0's VC 1, reset with its port";
  EXPECT_EQ(d.drops(DropReason::deadlock_timeout), 17u);
  EXPECT_EQ(d.router().counters().deadlock_resets, 4u);
}

// ---- whole runs: the spider profile's 16-endpoint hypercube --------------------

Spec spider_spec(std::vector<std::string> sets) {
  sets.push_back("run.progress_s=0");
  return load_spec_text("profile: spider\n", sets);
}

// At zero load the arbiter is in bypass mode: every message takes exactly
// the time it takes through the input-queued router (40 ns per chip).
TEST(SpiderRouter, ZeroLoadLatencyIsTheInputQueuedRoutersOne) {
  std::map<std::string, std::map<uint64_t, ps_t>> lat;
  for (const char* model : {"spider", "input_queued"}) {
    std::vector<Delivery> got;
    run_collect(spider_spec({std::string("router.model=") + model, "traffic.load=0.01",
                             "run.measure_ns=20000"}),
                &got);
    for (const Delivery& d : got) lat[model][d.id] = d.latency;
  }
  ASSERT_GT(lat["spider"].size(), 10u);
  EXPECT_EQ(lat["spider"], lat["input_queued"]);
}

// router.latency_ns is the chip's pin-to-pin time (the profile's 40 ns),
// settable on a fat hypercube like any other family's router latency: at
// 50 ns every message takes 10 ns longer for each chip it crosses.
TEST(SpiderRouter, RouterLatencyIsEachChipsPinToPinTime) {
  std::map<uint64_t, Delivery> at40, at50;
  for (auto [set, into] :
       {std::pair{"router.latency_ns=40", &at40}, std::pair{"router.latency_ns=50", &at50}}) {
    std::vector<Delivery> got;
    run_collect(spider_spec({set, "traffic.load=0.01", "run.measure_ns=20000"}), &got);
    for (const Delivery& d : got) (*into)[d.id] = d;
  }
  ASSERT_GT(at40.size(), 10u);
  ASSERT_EQ(at40.size(), at50.size());
  for (const auto& [id, d] : at40) {
    ASSERT_EQ(at50.count(id), 1u) << id;
    EXPECT_EQ(at50[id].latency - d.latency, ps_t(d.hops + 1) * 10 * kNs)
        << "message " << id;  // (hops: links between chips)
  }
}

TEST(SpiderRouter, DeliversEveryMessageOnceWithCreditsConserved) {
  for (const char* load : {"traffic.load=0.3", "traffic.load=1.0"})
    for (const char* workers : {"run.workers=1", "run.workers=2"}) {
      SCOPED_TRACE(std::string(load) + " " + workers);
      std::vector<Delivery> got;
      const RunResult r = run_collect(
          spider_spec({"router.model=spider", "run.check_invariants=true", "run.measure_ns=5000",
                       "traffic.sizes=[16, 64, 256]", load, workers}),
          &got);
      EXPECT_EQ(r.stats.invariant_failure, "");
      EXPECT_GT(r.stats.invariant_checks, 0u);
      EXPECT_FALSE(r.stats.stalled);
      expect_exactly_once(r, got);
    }
}

// Links and a router die mid-run: every message arrives once or is counted
// lost, credits conserved throughout; with the tail time-out, the messages
// cut off by a dying link are counted tail_timeout instead.
TEST(SpiderRouter, FaultsLoseNothingSilently) {
  for (const char* tail : {"router.tail_timeout_ns=0", "router.tail_timeout_ns=500"}) {
    SCOPED_TRACE(tail);
    std::vector<Delivery> got;
    const RunResult r =
        run_collect(spider_spec({"router.model=spider", "run.check_invariants=true",
                                 "traffic.load=0.6", "run.measure_ns=20000", tail,
                                 "faults=[\"3us link=r0:p1 down\", \"6us router=5 down\", \"9us "
                                 "link=r3:p2 down\"]"}),
                    &got);
    ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
    ASSERT_TRUE(r.stats.drained);
    EXPECT_EQ(r.stats.invariant_failure, "");
    EXPECT_EQ(got.size(), r.stats.delivered_packets);
    EXPECT_EQ(r.stats.delivered_packets + fault_losses(r.stats) +
                  drops(r.stats, DropReason::tail_timeout),
              r.stats.injected_packets);
    EXPECT_GT(fault_losses(r.stats), 0u);
  }
}

// A sink that stops taking: without the deadlock time-out the run stalls
// and says where the messages wait; with it the buffers full of messages
// for the stopped endpoint are reset (counted deadlock_timeout) and the run
// ends when the endpoint takes again.
TEST(SpiderRouter, AStoppedSinkStallsOrTimesOut) {
  const RunResult stalled =
      run_collect(spider_spec({"router.model=spider", "traffic.load=0.3", "run.measure_ns=5000",
                               "faults=[\"1us endpoint=5 stop\"]"}),
                  nullptr);
  EXPECT_TRUE(stalled.stats.stalled);
  EXPECT_NE(stalled.stats.stranded.find("router 5 input port"), std::string::npos)
      << stalled.stats.stranded;
  const RunResult reset =
      run_collect(spider_spec({"router.model=spider", "traffic.load=0.3", "run.measure_ns=5000",
                               "run.check_invariants=true", "router.deadlock_timeout_ns=1000",
                               "faults=[\"1us endpoint=5 stop\", \"40us endpoint=5 start\"]"}),
                  nullptr);
  EXPECT_FALSE(reset.stats.stalled) << reset.stats.stranded;
  EXPECT_EQ(reset.stats.invariant_failure, "");
  EXPECT_GT(drops(reset.stats, DropReason::deadlock_timeout), 0u);
  EXPECT_GT(reset.stats.deadlock_resets, 0u);
  EXPECT_EQ(reset.stats.delivered_packets + drops(reset.stats, DropReason::deadlock_timeout),
            reset.stats.injected_packets);
}

// "Endpoints distant from the hot spot will have a higher priority when
// they arrive at the hot spot": every source sends to endpoint 0; the
// farthest (endpoint 15, four hops) waits less with aging than without.
TEST(SpiderRouter, AgingShortensTheFarthestSourcesWaitAtAHotSpot) {
  auto far_mean = [](const char* period) {
    std::vector<Delivery> got;
    run_collect(
        spider_spec({"router.model=spider", period, "traffic.pattern=hotspot", "traffic.hotspot=0",
                     "traffic.hotspot_fraction=0.99", "traffic.load=0.1", "run.measure_ns=20000"}),
        &got);
    double sum = 0;
    uint32_t n = 0;
    for (const Delivery& d : got)
      if (d.src == 15 && d.dst == 0) sum += double(d.latency), n++;
    EXPECT_GT(n, 10u);
    return sum / n;
  };
  const double aging = far_mean("router.age_period_ns=40"),
               none = far_mean("router.age_period_ns=0");
  std::printf("endpoint 15 -> 0 mean latency: %.0f ns with aging, %.0f ns without\n", aging / 1000,
              none / 1000);
  EXPECT_LT(aging, 0.5 * none);  // measured: 6.4 us against 32.9 us
}

// The same at a hot spot (docs/fabrics/spider.md's reproduction of the
// problem one pointer per chip had): endpoints 1, 2, 4 and 8 send to
// endpoint 0, each on a link of its own into chip 0, while endpoint 0 sends
// to the other outputs; ages fixed, so every tie at chip 0's endpoint port
// is an equal age. The four links carry within 2% of one another (one
// pointer per chip: 2,101, 96, 43 and 30 messages; now 571 to 573, as with
// aging or the input-queued router).
TEST(SpiderRouter, EqualAgesShareAHotSpotWhileItsEndpointSendsElsewhere) {
  const RunResult r = run_collect(
      spider_spec({"router.model=spider", "router.age_period_ns=0", "traffic.pattern=hotspot",
                   "traffic.hotspot=0", "traffic.hotspot_fraction=0.99", "traffic.load=1.0",
                   "run.measure_ns=200000", "run.source_queue_packets=16",
                   "traffic.sources=[0, 1, 2, 4, 8]"}),
      nullptr);
  ASSERT_TRUE(r.stats.drained);
  std::vector<uint64_t> into0;
  for (int32_t k = 0; k < 4; k++)
    into0.push_back(link_stats(r.stats, 1 << k, int16_t(k + 1)).packets);
  const auto [least, most] = std::minmax_element(into0.begin(), into0.end());
  std::printf("links into chip 0: %llu, %llu, %llu, %llu messages\n",
              static_cast<unsigned long long>(into0[0]), static_cast<unsigned long long>(into0[1]),
              static_cast<unsigned long long>(into0[2]), static_cast<unsigned long long>(into0[3]));
  EXPECT_GT(*least, 500u);
  EXPECT_LE(double(*most), 1.02 * double(*least));
}

// No starvation at a hot spot: every other source sends to endpoint 0 of
// the profile's 16-endpoint hypercube at offered load 1.0, 15 times what it
// takes, so every source queue (16 messages) stays full and what each
// source delivers is the share the arbiters give it. With aging every
// source gets at least a third of an equal share and waits a bounded time;
// without it each merge of the tables' paths splits a share again, as
// round robin does (the parking lot): some sources get far less and wait
// far longer. Measured (200 us, 2026-12-01): with aging 100 to 257
// messages a source, the longest wait 55.5 us; without, 44 to 571 and
// 227.6 us.
TEST(SpiderRouter, NoSourceStarvesAtAHotSpotWithAging) {
  struct Shares {
    std::vector<uint64_t> delivered = std::vector<uint64_t>(16);
    uint64_t total = 0;
    ps_t longest = 0;
  };
  auto shares = [](const char* period) {
    std::vector<Delivery> got;
    const RunResult r = run_collect(
        spider_spec({"router.model=spider", period, "traffic.pattern=hotspot", "traffic.hotspot=0",
                     "traffic.hotspot_fraction=0.99", "traffic.load=1.0", "run.measure_ns=200000",
                     "run.source_queue_packets=16",
                     "traffic.sources=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]"}),
        &got);
    EXPECT_TRUE(r.stats.drained);
    EXPECT_GT(drops(r.stats, DropReason::source_queue_full), 0u) << "every source backlogged";
    Shares s;
    for (const Delivery& d : got)
      if (d.dst == 0) {
        s.delivered[d.src]++;
        s.total++;
        s.longest = std::max(s.longest, d.latency);
      }
    return s;
  };
  const Shares aging = shares("router.age_period_ns=40"), none = shares("router.age_period_ns=0");
  ASSERT_GT(aging.total, 1000u);
  const double equal = double(aging.total) / 15;
  for (const auto& [name, s] : {std::pair{"with aging", &aging}, std::pair{"without", &none}}) {
    const auto [least, most] = std::minmax_element(s->delivered.begin() + 1, s->delivered.end());
    std::printf("hot spot %s: %llu to %llu messages a source of %llu, longest wait %.1f us\n", name,
                static_cast<unsigned long long>(*least), static_cast<unsigned long long>(*most),
                static_cast<unsigned long long>(s->total), double(s->longest) / 1e6);
  }
  uint64_t least_without = none.total;
  for (uint32_t src = 1; src < 16; src++) {
    EXPECT_GE(double(aging.delivered[src]), equal / 3) << "source " << src << " starves";
    least_without = std::min(least_without, none.delivered[src]);
  }
  EXPECT_LT(double(least_without), equal / 3) << "without aging some source gets little";
  EXPECT_LT(2 * aging.longest, none.longest) << "aging bounds the longest wait";
}

}  // namespace
}  // namespace fabemu
