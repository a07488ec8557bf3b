// Link-level retry through whole fabrics (link/link_retry.h): at a bit
// error rate every packet still arrives exactly once, undamaged (every
// delivery is decoded against its metadata), in order where the routing
// keeps a flow on one path, with credits conserved; the counts agree with
// the rate; a packet the link loses or sends twice is recovered (Spider's
// LLP: "dropped and duplicate micropackets"); with no errors retry changes
// nothing the fabric does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

LinkRetryCounters totals(const RunStats& st) {
  LinkRetryCounters all;
  for (const LinkStats& l : st.links) all.merge(l.retry);
  return all;
}

// Deliveries per (source, destination) in the order they happened: packet
// ids of one source rise with generation.
uint64_t out_of_order(const std::vector<Delivery>& got) {
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> last;
  uint64_t n = 0;
  for (const Delivery& d : got) {
    uint64_t& l = last[{d.src, d.dst}];
    if (d.id < l) n++;
    l = std::max(l, d.id);
  }
  return n;
}

// in_order: the routing keeps each flow on one path (T3E direction order;
// not the Clos, whose requests hash over the uplinks per packet).
LinkRetryCounters expect_recovers_at_ber(const std::string& file, std::vector<std::string> sets,
                                         uint64_t min_packets, bool in_order) {
  sets.insert(sets.end(), {"link.retry=true", "link.ber=1e-4", "run.check_invariants=true"});
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(spec_of(file, sets), &got);
  EXPECT_GE(r.stats.delivered_packets, min_packets);
  EXPECT_EQ(r.stats.invariant_failure, "");
  EXPECT_GT(r.stats.invariant_checks, 0u);
  const LinkRetryCounters t = totals(r.stats);
  // Errors at the rate asked for, over every bit sent under the CRC.
  const double want = 1e-4 * double(t.checked_bits);
  EXPECT_NEAR(double(t.bit_errors), want, 5 * std::sqrt(want));
  // Every damaged packet was caught, timed out, and its copy either
  // excised or discarded at its destination.
  EXPECT_GT(t.crc_errors, 100u);
  EXPECT_LE(t.crc_errors, t.bit_errors);
  EXPECT_EQ(t.timeouts, t.crc_errors);
  EXPECT_EQ(t.excised + t.bad_forwarded, t.crc_errors);
  EXPECT_EQ(r.stats.transmit_error_discards, t.bad_forwarded);
  EXPECT_GE(t.retries, t.crc_errors);
  // Retry adds no reordering to routings that keep a flow on one path.
  if (in_order) {
    EXPECT_EQ(out_of_order(got), 0u);
  }
  return t;
}

TEST(LinkRetry, TorusAtBer1e4DeliversEveryPacketOnceIntactAndInOrder) {
  expect_recovers_at_ber("t3e-4x4x4.yaml", {"run.measure_ns=300000"}, 40000, true);
}

TEST(LinkRetry, ClosAtBer1e4DeliversEveryPacketOnceIntactAndInOrder) {
  // Two workers: credits are checked at every window edge, and damaged
  // packets and resends cross cores.
  expect_recovers_at_ber(
      "yarc-r2-1024.yaml",
      {"router.model=input_queued", "run.workers=2", "run.warmup_ns=2000", "run.measure_ns=20000"},
      400000, false);
}

// The link layer sits on the links between routers, whatever the router
// inside: through the YARC tiled router a damaged packet leaves its input
// buffer when it crosses its row bus, and is excised there or moves on
// marked through the row and column buffers as through the input-queued
// router's switch.
TEST(LinkRetry, TiledClosAtBer1e4DeliversEveryPacketOnceIntact) {
  const LinkRetryCounters t = expect_recovers_at_ber(
      "yarc-r2-1024.yaml",
      {"router.model=yarc_tiled", "run.workers=2", "run.warmup_ns=2000", "run.measure_ns=20000"},
      400000, false);
  EXPECT_GT(t.excised, 0u);
  EXPECT_GT(t.bad_forwarded, 0u);
}

// The same on one worker, credits (the tiles' included) checked at every
// event, with packets longer than a row buffer whose tails a damaged
// packet's resend finds still in the input buffer.
TEST(LinkRetry, TiledClosCreditsHoldAtEveryEvent) {
  const LinkRetryCounters t = expect_recovers_at_ber(
      "yarc-r2-1024.yaml",
      {"router.model=yarc_tiled", "topology.endpoints=64", "topology.uplinks=4", "run.workers=1",
       "traffic.sizes=[8, 32, 64, 200]", "run.warmup_ns=2000", "run.measure_ns=50000"},
      5000, false);
  EXPECT_GT(t.excised, 0u);
  EXPECT_GT(t.bad_forwarded, 0u);
}

TEST(LinkRetry, WithoutErrorsTheFabricBehavesAsWithout) {
  for (const auto& [file, model] :
       {std::pair{"t3e-4x4x4.yaml", "input_queued"}, std::pair{"yarc-r2-1024.yaml", "input_queued"},
        std::pair{"yarc-r2-1024.yaml", "yarc_tiled"}}) {
    SCOPED_TRACE(model);
    const std::vector<std::string> base{"run.warmup_ns=2000", "run.measure_ns=20000",
                                        std::string("router.model=") + model};
    std::vector<std::string> on = base;
    on.push_back("link.retry=true");
    const RunResult a = run_collect(spec_of(file, base), nullptr);
    const RunResult b = run_collect(spec_of(file, on), nullptr);
    ASSERT_TRUE(a.stats.error.empty() && b.stats.error.empty()) << a.stats.error << b.stats.error;
    EXPECT_EQ(a.stats.delivered_packets, b.stats.delivered_packets) << file;
    EXPECT_EQ(a.stats.latency_ps.sum, b.stats.latency_ps.sum) << file;
    EXPECT_EQ(a.stats.end_ps, b.stats.end_ps) << file;
    const LinkRetryCounters t = totals(b.stats);
    EXPECT_GT(t.checked_bits, 0u);
    EXPECT_EQ(t.bit_errors + t.crc_errors + t.retries + t.timeouts + t.seq_discards, 0u);
  }
}

// The link from router 0 port 0 of the torus loses its 5th packet and
// sends its 9th twice; the link from router 1 port 1 loses its 2nd.
TEST(LinkRetry, ALostAndADuplicatedPacketAreRecovered) {
  Spec spec = spec_of("t3e-4x4x4.yaml", {"link.retry=true", "run.check_invariants=true",
                                         "run.warmup_ns=2000", "run.measure_ns=20000"});
  std::vector<Delivery> got;
  auto mu = std::make_shared<std::mutex>();
  const RunResult r = run_emulation(spec, [&](EngineConfig& c) {
    c.progress = nullptr;
    c.retry.packet_faults = {{0, 0, 5, LinkPacketFault::Kind::drop},
                             {0, 0, 9, LinkPacketFault::Kind::duplicate},
                             {1, 1, 2, LinkPacketFault::Kind::drop}};
    c.on_deliver = [&got, mu](uint64_t id, uint32_t s, uint32_t d, ps_t lat, uint32_t hops) {
      std::lock_guard<std::mutex> g(*mu);
      got.push_back({id, s, d, lat, hops});
    };
  });
  expect_exactly_once(r, got);
  const LinkRetryCounters t = totals(r.stats);
  EXPECT_EQ(t.dropped_on_purpose, 2u);
  EXPECT_EQ(t.duplicated_on_purpose, 1u);
  EXPECT_EQ(t.timeouts, 2u) << "each loss is recovered by one time-out";
  EXPECT_GE(t.seq_discards, 1u) << "the duplicate, and what followed a loss, are discarded";
  EXPECT_EQ(t.crc_errors, 0u);
  EXPECT_EQ(out_of_order(got), 0u);
}

// link.retry_limit 1 at a bit error rate that damages about a third of the
// packets: a packet damaged twice in a row at the head of its window is
// given up, discarded and counted; every other arrives once; credits stay
// conserved (the given-up packet's come back to its sender, and the
// receiver skips its number). One worker and two (the skip crosses cores).
TEST(LinkRetry, ARetryLimitOfOneDiscardsAndCountsWhatItGivesUp) {
  for (const char* workers : {"run.workers=1", "run.workers=2"}) {
    SCOPED_TRACE(workers);
    std::vector<Delivery> got;
    const RunResult r =
        run_collect(spec_of("t3e-4x4x4.yaml", {workers, "link.retry=true", "link.ber=5e-4",
                                               "link.retry_limit=1", "run.check_invariants=true",
                                               "run.warmup_ns=2000", "run.measure_ns=20000"}),
                    &got);
    ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
    EXPECT_TRUE(r.stats.drained);
    EXPECT_EQ(r.stats.invariant_failure, "");
    EXPECT_GT(r.stats.invariant_checks, 0u);
    const uint64_t given = drops(r.stats, DropReason::retry_limit_exceeded);
    EXPECT_GT(given, 20u);
    EXPECT_EQ(r.stats.delivered_packets + given, r.stats.injected_packets);
    EXPECT_EQ(drops(r.stats, DropReason::undelivered_at_end), 0u);
    // (A damaged copy that had moved on marked can be given up on a later
    // link too: a transmit-error discard, not a packet given up.)
    EXPECT_EQ(totals(r.stats).given_up, given);
    std::vector<uint64_t> ids;
    for (const Delivery& d : got) ids.push_back(d.id);
    std::sort(ids.begin(), ids.end());
    EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end()) == ids.end()) << "a packet twice";
    EXPECT_EQ(ids.size(), r.stats.delivered_packets);
  }
}

// At error rates that damage most packets, with any limit, both ends of
// every link stay in step (the receiver skips exactly the numbers its
// sender gave up), delivered + given up = injected, and given_up counts
// only packets (not the damaged copies that moved on marked). Damaged
// packets whose CRC-16 still matched are taken as good at both ends and
// counted (undetected_errors): the runs below meet some.
TEST(LinkRetry, AnyLimitAtAnyErrorRateKeepsBothEndsInStep) {
  uint64_t undetected = 0;
  for (const char* file : {"t3e-4x4x4.yaml", "yarc-r2-1024.yaml"})
    for (const char* limit : {"link.retry_limit=1", "link.retry_limit=2", "link.retry_limit=5"})
      for (const char* ber : {"link.ber=1e-2", "link.ber=3e-3"}) {
        SCOPED_TRACE(std::string(file) + " " + limit + " " + ber);
        std::vector<std::string> sets = {"link.retry=true", limit, ber,
                                         "run.check_invariants=true", "run.warmup_ns=2000",
                                         "run.measure_ns=5000"};
        if (std::string(file) == "yarc-r2-1024.yaml")
          sets.insert(sets.end(), {"topology.endpoints=64", "router.model=input_queued"});
        const RunResult r = run_collect(spec_of(file, sets), nullptr);
        ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
        EXPECT_TRUE(r.stats.drained);
        EXPECT_EQ(r.stats.invariant_failure, "");
        const LinkRetryCounters t = totals(r.stats);
        const uint64_t given = drops(r.stats, DropReason::retry_limit_exceeded);
        EXPECT_GT(given, 0u);
        EXPECT_EQ(t.given_up, given);
        EXPECT_EQ(r.stats.delivered_packets + given, r.stats.injected_packets);
        undetected += t.undetected_errors;
      }
  EXPECT_GT(undetected, 0u) << "no CRC miss met: the in-step check above did not cover one";
}

TEST(LinkRetry, WithoutALimitTheSameErrorsLoseNothing) {
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(
      spec_of("t3e-4x4x4.yaml", {"link.retry=true", "link.ber=5e-4", "run.check_invariants=true",
                                 "run.warmup_ns=2000", "run.measure_ns=20000"}),
      &got);
  EXPECT_EQ(r.stats.invariant_failure, "");
  EXPECT_EQ(totals(r.stats).given_up, 0u);
  EXPECT_GT(totals(r.stats).timeouts, 100u);
}

TEST(LinkRetry, ATimeOutShorterThanTheRoundTripIsRefused) {
  const RunResult r = run_collect(
      spec_of("t3e-4x4x4.yaml", {"link.retry=true", "link.retry_timeout_ns=1"}), nullptr);
  EXPECT_NE(r.stats.error.find("shorter than the round trip"), std::string::npos) << r.stats.error;
}

}  // namespace
}  // namespace fabemu
