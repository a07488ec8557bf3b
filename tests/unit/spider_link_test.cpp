// Spider's data link layer on the spider profile (Galles, IEEE Micro 1997,
// "Data link layer"): go-back-N retry with a CRC on every link, so a
// micropacket (here: a message of them, fabemu's retry unit) damaged, lost
// or duplicated on a link is recovered; and port width negotiation: "if a
// Spider-to-Spider link is damaged in any of the upper 10 bits it can
// negotiate to use the lower 10 bits and operate at half bandwidth"; damaged
// in the lower 10 it has no width left and is down.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "control/spec/spec_loader.h"
#include "control/spec/spec_refuse.h"
#include "dataplane/link/lanes.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

// The spider profile's own fabric, whatever its family, with `sets`.
Spec spider(std::vector<std::string> sets) {
  const std::string path = ::testing::TempDir() + "spider_link_test.yaml";
  std::ofstream(path) << "profile: spider\n";
  sets.push_back("run.progress_s=0");
  return load_spec(path, sets);
}

// Router 0's first link to another router: (router 0's port, far router,
// far port).
struct LinkEnds {
  int32_t port, peer, peer_port;
};
LinkEnds first_link(const Spec& spec) {
  const Fabric f = build_spec_fabric(spec);
  const auto& ports = f.routers.at(0).ports;
  for (size_t p = 0; p < ports.size(); p++)
    if (ports[p].peer_router >= 0) return {int32_t(p), ports[p].peer_router, ports[p].peer_port};
  ADD_FAILURE() << "router 0 has no router link";
  return {0, 0, 0};
}

std::string lane_fault(const LinkEnds& l, const char* at, int lane, const char* what) {
  return "\"" + std::string(at) + " link=r0:p" + std::to_string(l.port) +
         " lane=" + std::to_string(lane) + " " + what + "\"";
}

TEST(SpiderLink, TheProfileRunsTheLlpOnEveryLinkAndNegotiatesTheLowerHalf) {
  const Spec s = spider({});
  EXPECT_TRUE(s.link.retry);
  EXPECT_EQ(s.link.width_negotiation, "lower_half");
  EXPECT_EQ(s.link.lanes, 20);
}

TEST(SpiderLink, AWidthIsTheFullPortOrItsLowerHalfOrNothing) {
  const uint64_t all = all_lanes(20), lower = all_lanes(10);
  EXPECT_EQ(usable_lanes(20, 0, true), all);
  EXPECT_EQ(usable_lanes(20, uint64_t{1} << 10, true), lower) << "bit 10 is the upper half's first";
  EXPECT_EQ(usable_lanes(20, (uint64_t{1} << 19) | (uint64_t{1} << 12), true), lower);
  EXPECT_EQ(usable_lanes(20, uint64_t{1} << 9, true), 0u) << "the lower half damaged: no width";
  EXPECT_EQ(usable_lanes(20, uint64_t{1} << 9, false), all & ~(uint64_t{1} << 9))
      << "BlackWidow's rule: any live lanes";
  LinkLanes l;
  l.lanes = 20;
  l.lower_half = true;
  l.full_unit_ps = 20000;
  l.dropped = uint64_t{1} << 15;
  EXPECT_EQ(l.width(), 10u);
  EXPECT_EQ(l.unit_ps(), 40000u) << "half the bits a transfer: twice the time";
  // Bits are striped over the lanes in use only: the lower ten.
  const uint32_t bit[] = {9, 10};
  EXPECT_EQ(l.lanes_of(&bit[0], 1), uint64_t{1} << 9);
  EXPECT_EQ(l.lanes_of(&bit[1], 1), uint64_t{1} << 0);
  l.fault_down = uint64_t{1} << 2;
  EXPECT_EQ(l.width(), 0u);
  EXPECT_TRUE(l.all_faulted()) << "faults alone leave it no width: the fault plan kills it";
}

// Every message of one batch, delivered within the window: a link's busy
// time is its micropackets times its micropacket time, exactly.
std::vector<std::string> one_batch(std::vector<std::string> more) {
  std::vector<std::string> s{"traffic.process=single_batch", "traffic.batch_size=16",
                             "traffic.reply_fraction=0",     "run.warmup_ns=0",
                             "run.measure_ns=1000000",       "run.check_invariants=true"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

// A micropacket is 160 bits on 20 pins at 400 Mb/s: 20 ns; on the lower
// ten, 40 ns. Lanes of the lower half going down instead kill the link (the
// fault plan reprograms the tables around it, as for a link fault).
TEST(SpiderLink, ALinkDamagedInItsUpperTenBitsRunsOnTheLowerTenAtHalfBandwidth) {
  const LinkEnds l = first_link(spider({}));
  const std::string faults =
      "faults=[" + lane_fault(l, "0ns", 14, "down") + ", " + lane_fault(l, "0ns", 19, "down") + "]";
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(spider(one_batch({faults})), &got);
  EXPECT_EQ(r.stats.invariant_failure, "");
  for (const auto& [router, port] : {std::pair{0, l.port}, std::pair{l.peer, l.peer_port}}) {
    SCOPED_TRACE(router);
    const LinkStats& ls = link_stats(r.stats, router, int16_t(port));
    EXPECT_GT(ls.units, 0u);
    EXPECT_EQ(ls.width, 10u);
    EXPECT_EQ(ls.unit_ps, 40000u);
    EXPECT_EQ(ls.busy_ps, ls.units * 40000u);
    EXPECT_EQ(ls.went_down, 0u);
  }
}

TEST(SpiderLink, ALinkDamagedInItsLowerTenBitsIsDownAndComesBackWithThem) {
  const LinkEnds l = first_link(spider({}));
  const std::string faults =
      "faults=[" + lane_fault(l, "5us", 3, "down") + ", " + lane_fault(l, "20us", 3, "up") + "]";
  const RunResult r =
      run_collect(spider({"traffic.load=0.3", "run.warmup_ns=2000", "run.measure_ns=30000",
                          "run.check_invariants=true", faults}),
                  nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_TRUE(r.stats.drained);
  EXPECT_EQ(r.stats.invariant_failure, "");
  for (const auto& [router, port] : {std::pair{0, l.port}, std::pair{l.peer, l.peer_port}}) {
    SCOPED_TRACE(router);
    const LinkStats& ls = link_stats(r.stats, router, int16_t(port));
    EXPECT_EQ(ls.went_down, 1u);
    EXPECT_EQ(ls.down_ps, 15'000'000u);
    EXPECT_EQ(ls.lowest_width, 0u);
    EXPECT_EQ(ls.width, 20u) << "back at full width";
    EXPECT_EQ(ls.unit_ps, 20000u);
  }
  const uint64_t lost =
      drops(r.stats, DropReason::dead_port) + drops(r.stats, DropReason::lost_in_flight);
  EXPECT_EQ(r.stats.delivered_packets + lost, r.stats.injected_packets) << "every loss counted";
}

// Lane degrade under the same rule: a noisy upper lane is dropped for its
// retries and the link goes on at half width; then a noisy lower lane
// leaves it nothing and the link dies of its lanes, both ways.
TEST(SpiderLink, RetriesOnAnUpperLaneHalveTheWidthAndOnALowerLaneEndTheLink) {
  const LinkEnds l = first_link(spider({}));
  const std::string faults = "faults=[" + lane_fault(l, "0ns", 17, "ber=1e-2") + ", " +
                             lane_fault(l, "30us", 4, "ber=1e-2") + "]";
  const RunResult r = run_collect(
      spider({"link.lane_degrade=true", "link.lane_retry_threshold=2", "traffic.load=0.5",
              "run.warmup_ns=2000", "run.measure_ns=60000", "run.check_invariants=true", faults}),
      nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_EQ(r.stats.invariant_failure, "");
  // The faults make both directions noisy; the first to lose its lower
  // lane takes the link down both ways (the other is told, as lane_control.h
  // says, and keeps its last width in its log).
  const LinkStats& a = link_stats(r.stats, 0, int16_t(l.port));
  const LinkStats& b = link_stats(r.stats, l.peer, int16_t(l.peer_port));
  const LinkStats& ls = a.lane_log.size() >= 2 ? a : b;
  ASSERT_GE(ls.lane_log.size(), 2u);
  EXPECT_EQ(ls.lane_log[0].lane, 17u);
  EXPECT_EQ(ls.lane_log[0].cause, LaneCause::retries);
  EXPECT_EQ(ls.lane_log[0].width, 10u);
  EXPECT_LT(ls.lane_log[0].at, 30'000'000u);
  EXPECT_EQ(ls.lane_log[1].lane, 4u);
  EXPECT_EQ(ls.lane_log[1].width, 0u);
  EXPECT_GT(ls.lane_log[1].at, 30'000'000u);
  for (const LinkStats* d : {&a, &b}) {
    EXPECT_EQ(d->went_down, 1u);
    EXPECT_TRUE(d->down_at_end);
  }
  const uint64_t lost =
      drops(r.stats, DropReason::dead_port) + drops(r.stats, DropReason::lost_in_flight);
  EXPECT_EQ(r.stats.delivered_packets + lost, r.stats.injected_packets);
}

// The LLP's claim: dropped and duplicate micropackets, and damaged ones, are
// recovered: every message arrives once and intact (each delivery is decoded
// against its metadata), in order, credits conserved.
TEST(SpiderLink, LostDuplicatedAndDamagedMicropacketsAreRecovered) {
  const LinkEnds l = first_link(spider({}));
  Spec spec = spider({"run.check_invariants=true", "run.warmup_ns=2000", "run.measure_ns=40000",
                      "traffic.load=0.5", "link.ber=1e-4"});
  std::vector<Delivery> got;
  auto mu = std::make_shared<std::mutex>();
  const RunResult r = run_emulation(spec, [&](EngineConfig& c) {
    c.progress = nullptr;
    c.retry.packet_faults = {
        {0, uint32_t(l.port), 3, LinkPacketFault::Kind::drop},
        {0, uint32_t(l.port), 7, LinkPacketFault::Kind::duplicate},
        {uint32_t(l.peer), uint32_t(l.peer_port), 2, LinkPacketFault::Kind::drop}};
    c.on_deliver = [&got, mu](uint64_t id, uint32_t s, uint32_t d, ps_t lat, uint32_t hops) {
      std::lock_guard<std::mutex> g(*mu);
      got.push_back({id, s, d, lat, hops});
    };
  });
  expect_exactly_once(r, got);
  EXPECT_EQ(r.stats.invariant_failure, "");
  LinkRetryCounters t;
  for (const LinkStats& ls : r.stats.links) t.merge(ls.retry);
  EXPECT_EQ(t.dropped_on_purpose, 2u);
  EXPECT_EQ(t.duplicated_on_purpose, 1u);
  EXPECT_GT(t.crc_errors, 0u) << "bit errors at 1e-4 damage some micropackets";
  EXPECT_GE(t.seq_discards, 1u) << "the duplicate is discarded by its sequence number";
  EXPECT_EQ(r.stats.transmit_error_discards, t.bad_forwarded);
  // One path per (source, destination): retry reorders nothing.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> last;
  for (const Delivery& d : got) {
    uint64_t& prev = last[{d.src, d.dst}];
    EXPECT_GE(d.id, prev) << d.src << " -> " << d.dst;
    prev = d.id;
  }
}

TEST(SpiderLink, LowerHalfNeedsAnEvenNumberOfLanes) {
  try {
    spider({"link.lanes=7"});
    ADD_FAILURE() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("give an even number of lanes (Spider: 20)"),
              std::string::npos)
        << e.what();
  }
}

// The sideband's Vch is 2 bits: a fifth VC would be tagged as the first.
TEST(SpiderLink, TheSidebandTagsAtMostFourVcs) {
  try {
    spider({"vcs.count=5", "router.model=input_queued", "routing=spider_tables"});
    ADD_FAILURE() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("set vcs.count to at most 4"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fabemu
