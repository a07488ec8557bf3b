// Lanes of router links (dataplane/link/lanes.h, dataplane/link/
// lane_control.h): bits striped over the live lanes, a link's unit time at
// its width, per-lane retry counts against a threshold within a window;
// through whole fabrics, a link narrowed by lane faults runs exactly at its
// width and loses nothing, a noisy lane is dropped and then another
// (BlackWidow §7.7: 3, 2, then 1 lane wide), degrade off keeps the width,
// and a link whose last lane goes is dead, its losses counted and credits
// conserved. Bad lane specs are refused with what to do.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/run/fault_plan.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_refuse.h"
#include "dataplane/link/lanes.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

TEST(Lanes, BitsAreStripedOneAtATimeOverTheLiveLanes) {
  LinkLanes l;
  l.lanes = 3;
  const uint32_t bit[] = {0, 1, 2, 3};
  EXPECT_EQ(l.lanes_of(&bit[0], 1), 0b001u);
  EXPECT_EQ(l.lanes_of(&bit[1], 1), 0b010u);
  EXPECT_EQ(l.lanes_of(&bit[2], 1), 0b100u);
  EXPECT_EQ(l.lanes_of(&bit[3], 1), 0b001u);
  EXPECT_EQ(l.lanes_of(bit, 4), 0b111u);
  l.dropped = 0b001;  // lane 0 out: the bits alternate over lanes 1 and 2
  EXPECT_EQ(l.width(), 2u);
  EXPECT_EQ(l.lanes_of(&bit[0], 1), 0b010u);
  EXPECT_EQ(l.lanes_of(&bit[1], 1), 0b100u);
  EXPECT_EQ(l.lanes_of(&bit[2], 1), 0b010u);
  l.fault_down = 0b110;
  EXPECT_EQ(l.width(), 0u);
  EXPECT_FALSE(l.all_faulted()) << "lane 0 went for its retries, not a fault";
}

TEST(Lanes, AUnitTakesTheFullWidthsTimeTimesLanesOverLiveLanes) {
  // YARC: 24-bit phits on 3 lanes of 6.25 Gb/s (16b20b) take 1600 ps.
  EXPECT_EQ(unit_at_width(1600, 3, 3), 1600u);
  EXPECT_EQ(unit_at_width(1600, 3, 2), 2400u);
  EXPECT_EQ(unit_at_width(1600, 3, 1), 4800u);
  // T3E: a 70-bit flit on 14 signal lanes takes 13333 ps.
  EXPECT_EQ(unit_at_width(13333, 14, 14), 13333u);
  EXPECT_EQ(unit_at_width(13333, 14, 13), 14359u);  // 13333 x 14 / 13, rounded
  EXPECT_EQ(unit_at_width(13333, 14, 1), 14u * 13333u);
}

TEST(Lanes, ALaneIsDroppedAtTheRetryPastItsThresholdWithinItsWindow) {
  LaneTable t;
  t.init(1, 3);
  t.link(0).lanes = 3;
  const uint64_t lane1 = 0b010, lane0 = 0b001;
  EXPECT_EQ(t.note_retry(0, lane1, 0, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1, 50, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1, 99, 2, 100), lane1) << "the third within 100 ps of the first";
  EXPECT_EQ(t.note_retry(0, lane1, 110, 2, 100), 0u) << "its count starts again";
  EXPECT_EQ(t.note_retry(0, lane1, 120, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1, 210, 2, 100), 0u) << "a new window opens at 210";
  EXPECT_EQ(t.note_retry(0, lane1 | lane0, 220, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1 | lane0, 230, 2, 100), lane1) << "lane 0 has had two";
  t.link(0).dropped = lane0;
  for (ps_t at = 240; at < 300; at += 10)
    EXPECT_EQ(t.note_retry(0, lane0, at, 2, 100), 0u) << "a dropped lane counts nothing";
}

TEST(Lanes, ANoisyLaneDamagesOnlyTheBitsItCarries) {
  LaneTable t;
  t.init(1, 3);
  t.link(0).lanes = 3;
  EXPECT_TRUE(t.set_noise(0, 1, 1.0, 1, 1));  // every bit lane 1 carries is bad
  uint32_t pos[16];
  ASSERT_EQ(t.add_noise(0, 12, pos, 0, 16), 4u);
  EXPECT_EQ(std::vector<uint32_t>(pos, pos + 4), (std::vector<uint32_t>{1, 4, 7, 10}));
  // Merged in order with the link's own errors; a bit bad twice is one error.
  pos[0] = 4;
  pos[1] = 5;
  ASSERT_EQ(t.add_noise(0, 12, pos, 2, 16), 5u);
  EXPECT_EQ(std::vector<uint32_t>(pos, pos + 5), (std::vector<uint32_t>{1, 4, 5, 7, 10}));
  // Lane 0 out: lane 1 carries every other bit.
  t.link(0).dropped = 0b001;
  ASSERT_EQ(t.add_noise(0, 12, pos, 0, 16), 6u);
  EXPECT_EQ(std::vector<uint32_t>(pos, pos + 6), (std::vector<uint32_t>{0, 2, 4, 6, 8, 10}));
  // Lane 1 out: its noise crosses nothing.
  t.link(0).dropped = 0b010;
  EXPECT_EQ(t.add_noise(0, 12, pos, 0, 16), 0u);
  // At most `max` kept, the first ones.
  t.link(0).dropped = 0;
  ASSERT_EQ(t.add_noise(0, 300, pos, 0, 16), 16u);
  EXPECT_EQ(pos[15], 1u + 15u * 3u);
  EXPECT_FALSE(t.set_noise(0, 1, 0, 1, 1)) << "quiet again";
}

// A rank-2 Clos of two rank-1 routers (0, 1) and four rank-2 routers
// (2..5): rank-1 router 0's uplink 32 + j goes to rank-2 router 2 + j, its
// port 0 (build_clos). YARC links: 3 lanes, 1600 ps a phit.
std::vector<std::string> clos64(std::vector<std::string> more) {
  std::vector<std::string> s{"topology.endpoints=64", "topology.uplinks=4",
                             "router.model=input_queued", "run.check_invariants=true"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

// Every packet of a single batch sent and delivered within the measurement
// window: a link's busy time is its units times its unit time, exactly.
std::vector<std::string> one_batch() {
  return {"traffic.process=single_batch", "traffic.batch_size=16", "traffic.reply_fraction=0",
          "run.warmup_ns=0", "run.measure_ns=1000000"};
}

std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Lanes out of service by faults from the start (both directions): the link
// runs at the width its other lanes give it, exactly 1600, 2400 and 4800 ps a
// phit on 3, 2 and 1 YARC lanes; it stays up and nothing is lost.
TEST(Lanes, ALinkRunsAtItsWidthAndADeadLanesSiblingsKeepItUp) {
  for (const auto& [faults, width, unit] :
       {std::tuple{"[]", 3, 1600}, std::tuple{"[\"0ns link=r0:p32 lane=1 down\"]", 2, 2400},
        std::tuple{"[\"0ns link=r0:p32 lane=0 down\", \"0ns link=r0:p32 lane=2 down\"]", 1,
                   4800}}) {
    SCOPED_TRACE(faults);
    std::vector<Delivery> got;
    const RunResult r = run_exactly_once(
        spec_of("yarc-r2-1024.yaml", clos64(plus(one_batch(), {std::string("faults=") + faults}))),
        &got);
    EXPECT_EQ(r.stats.invariant_failure, "");
    for (const auto& [router, port] : {std::pair{0, 32}, std::pair{2, 0}}) {
      const LinkStats& l = link_stats(r.stats, router, int16_t(port));
      EXPECT_GT(l.units, 100u);
      EXPECT_EQ(l.busy_ps, l.units * ps_t(unit)) << "router " << router;
      EXPECT_EQ(l.went_down, 0u);
      if (width < 3) {
        EXPECT_EQ(l.width, width);
        EXPECT_EQ(l.unit_ps, ps_t(unit));
      }
    }
    EXPECT_EQ(link_stats(r.stats, 0, 33).busy_ps, link_stats(r.stats, 0, 33).units * 1600)
        << "the other uplinks keep their width";
  }
}

// The same on a T3E link, 13 of its 14 signal lanes out: one lane carries
// the 70-bit flits, 14 times as slow.
TEST(Lanes, ATorusLinkOnOneOfItsFourteenLanesTakesFourteenTimesAsLong) {
  std::string faults = "faults=[";
  for (int k = 1; k < 14; k++)
    faults +=
        std::string(k > 1 ? ", " : "") + "\"0ns link=r0:p0 lane=" + std::to_string(k) + " down\"";
  faults += "]";
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(
      spec_of("t3e-4x4x4.yaml",
              plus(one_batch(), {faults, "traffic.batch_size=4", "run.check_invariants=true"})),
      &got);
  const LinkStats& l = link_stats(r.stats, 0, 0);
  EXPECT_GT(l.units, 0u);
  EXPECT_EQ(l.width, 1u);
  EXPECT_EQ(l.busy_ps, l.units * 14 * 13333);
  EXPECT_EQ(link_stats(r.stats, 0, 1).busy_ps, link_stats(r.stats, 0, 1).units * 13333);
}

// Link-level retry with lane degrade: lane 0 of the link between routers 0
// and 2 is noisy from the start and lane 1 from 30 us. Each is dropped once
// its retries pass the threshold: the link runs 2 lanes wide, then 1, its
// phit time three times the full width's at the end; nothing is lost.
std::vector<std::string> noisy_lanes(const char* degrade) {
  return clos64({"link.retry=true", std::string("link.lane_degrade=") + degrade, "traffic.load=0.3",
                 "run.warmup_ns=2000", "run.measure_ns=60000",
                 "faults=[\"0ns link=r0:p32 lane=0 ber=2e-3\", "
                 "\"30us link=r0:p32 lane=1 ber=2e-3\"]"});
}

TEST(Lanes, NoisyLanesAreDroppedOneByOneAndTheLinkRunsOneLaneWide) {
  std::vector<std::string> s = noisy_lanes("true");
  s.push_back("link.lane_retry_threshold=4");
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(spec_of("yarc-r2-1024.yaml", s), &got);
  EXPECT_EQ(r.stats.invariant_failure, "");
  for (const auto& [router, port] : {std::pair{0, 32}, std::pair{2, 0}}) {
    SCOPED_TRACE(router);
    const LinkStats& l = link_stats(r.stats, router, int16_t(port));
    ASSERT_EQ(l.lane_log.size(), 2u);
    EXPECT_EQ(l.lane_log[0].lane, 0u);
    EXPECT_EQ(l.lane_log[0].cause, LaneCause::retries);
    EXPECT_EQ(l.lane_log[0].width, 2u);
    EXPECT_LT(l.lane_log[0].at, 30'000'000u);
    EXPECT_EQ(l.lane_log[1].lane, 1u);
    EXPECT_EQ(l.lane_log[1].cause, LaneCause::retries);
    EXPECT_EQ(l.lane_log[1].width, 1u);
    EXPECT_GT(l.lane_log[1].at, 30'000'000u);
    EXPECT_EQ(l.width, 1u);
    EXPECT_EQ(l.lowest_width, 1u);
    EXPECT_EQ(l.unit_ps, 3u * 1600u);
    EXPECT_EQ(l.went_down, 0u);
    // Each lane went at its 5th retry (threshold 4, all within one window),
    // and only their bits were damaged.
    EXPECT_EQ(l.retry.timeouts, 2u * 5u);
  }
  EXPECT_EQ(link_stats(r.stats, 0, 33).width, 3u);
}

TEST(Lanes, WithDegradeOffANoisyLinkKeepsItsWidth) {
  std::vector<Delivery> got;
  const RunResult r = run_exactly_once(spec_of("yarc-r2-1024.yaml", noisy_lanes("false")), &got);
  for (const auto& [router, port] : {std::pair{0, 32}, std::pair{2, 0}}) {
    const LinkStats& l = link_stats(r.stats, router, int16_t(port));
    EXPECT_EQ(l.width, 3u);
    EXPECT_EQ(l.lowest_width, 3u);
    EXPECT_TRUE(l.lane_log.empty());
    EXPECT_GT(l.retry.crc_errors, 50u) << "its lanes stay noisy";
  }
}

// Every lane of a link noisy: degrade drops them all and the link dies,
// both ways, as BlackWidow's deasserted link-active signal makes it. Its
// losses are counted (the tables are not reprogrammed: packets routed to it
// are discarded there), credits stay conserved, the run drains. One worker,
// and two with the link between them.
TEST(Lanes, ALinkWhoseLastLaneIsDroppedIsDeadAndItsLossesCounted) {
  for (const char* workers : {"run.workers=1", "run.workers=2"}) {
    SCOPED_TRACE(workers);
    std::vector<std::string> s =
        clos64({workers, "link.retry=true", "link.lane_degrade=true", "link.lane_retry_threshold=2",
                "traffic.load=0.3", "run.warmup_ns=2000", "run.measure_ns=20000",
                "faults=[\"0ns link=r0:p35 lane=0 ber=2e-3\", \"0ns link=r0:p35 lane=1 ber=2e-3\", "
                "\"0ns link=r0:p35 lane=2 ber=2e-3\"]"});
    std::vector<Delivery> got;
    const RunResult r = run_collect(spec_of("yarc-r2-1024.yaml", s), &got);
    ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
    EXPECT_TRUE(r.stats.drained);
    EXPECT_EQ(r.stats.invariant_failure, "");
    EXPECT_GT(r.stats.invariant_checks, 0u);
    const uint64_t lost =
        drops(r.stats, DropReason::dead_port) + drops(r.stats, DropReason::lost_in_flight);
    EXPECT_GT(drops(r.stats, DropReason::dead_port), 0u) << "what is routed to it is discarded";
    EXPECT_EQ(r.stats.delivered_packets + lost, r.stats.injected_packets);
    EXPECT_EQ(got.size(), r.stats.delivered_packets);
    const LinkStats& up = link_stats(r.stats, 0, 35);
    const LinkStats& down = link_stats(r.stats, 5, 0);
    EXPECT_EQ(std::min(up.lowest_width, down.lowest_width), 0u) << "a direction lost every lane";
    for (const LinkStats* l : {&up, &down}) {
      EXPECT_EQ(l->went_down, 1u);
      EXPECT_TRUE(l->down_at_end);
    }
  }
}

// Every lane down by faults is the link down: the fault plan reprograms the
// tables around it (nothing unroutable) and it comes back with a lane.
TEST(Lanes, AllLanesDownByFaultsIsALinkDownAndOneLaneBringsItBack) {
  const RunResult r = run_collect(
      spec_of("yarc-r2-1024.yaml",
              clos64({"traffic.load=0.3", "run.warmup_ns=2000", "run.measure_ns=30000",
                      "faults=[\"5us link=r0:p32 lane=0 down\", \"5us link=r0:p32 lane=1 down\", "
                      "\"5us link=r0:p32 lane=2 down\", \"20us link=r0:p32 lane=1 up\"]"})),
      nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_TRUE(r.stats.drained);
  EXPECT_EQ(r.stats.invariant_failure, "");
  EXPECT_EQ(drops(r.stats, DropReason::no_route), 0u);
  for (const auto& [router, port] : {std::pair{0, 32}, std::pair{2, 0}}) {
    const LinkStats& l = link_stats(r.stats, router, int16_t(port));
    EXPECT_EQ(l.went_down, 1u);
    EXPECT_FALSE(l.down_at_end);
    EXPECT_EQ(l.down_ps, 15'000'000u);
    EXPECT_EQ(l.lowest_width, 0u);
    EXPECT_EQ(l.width, 1u);
    EXPECT_EQ(l.unit_ps, 4800u);
    ASSERT_EQ(l.lane_log.size(), 4u);
    EXPECT_EQ(l.lane_log[3].cause, LaneCause::fault_up);
  }
  const uint64_t lost =
      drops(r.stats, DropReason::dead_port) + drops(r.stats, DropReason::lost_in_flight);
  EXPECT_EQ(r.stats.delivered_packets + lost, r.stats.injected_packets);
}

// ---- specs that are refused ---------------------------------------------

std::string refusal(const std::vector<std::string>& sets, bool with_faults) {
  try {
    const Spec spec = spec_of("yarc-r2-1024.yaml", clos64(sets));
    if (with_faults) plan_faults(spec, build_spec_fabric(spec));
  } catch (const SpecError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(Lanes, BadLaneSpecsAreRefusedWithWhatToDo) {
  EXPECT_NE(refusal({"faults=[\"5us link=r0:p32 lane=3 down\"]"}, true)
                .find("lane 3 does not exist: the links of this fabric have 3 lanes (link.lanes), "
                      "so name lane=0 to lane=2"),
            std::string::npos);
  EXPECT_NE(refusal({"faults=[\"5us link=r0:p32 lane=0 ber=1e-4\"]"}, true)
                .find("bit errors need link-level retry"),
            std::string::npos);
  for (const char* key : {"link.lane_retry_threshold=4", "link.lane_retry_window_ns=5000"}) {
    const std::string why = refusal({key}, false);
    EXPECT_NE(why.find("link-level retry is off: set link.retry: true and link.lane_degrade: "
                       "true"),
              std::string::npos)
        << why;
    EXPECT_NE(refusal({key, "link.retry=true"}, false)
                  .find("shapes lane degrade, which is off: set link.lane_degrade: true"),
              std::string::npos);
  }
  EXPECT_NE(refusal({"link.lane_degrade=true"}, false).find("set link.retry: true"),
            std::string::npos);
  EXPECT_NE(refusal({"link.retry_limit=3"}, false)
                .find("a retry limit of 3 bounds link-level retries, which are off"),
            std::string::npos);
  EXPECT_NE(refusal({"link.retry=true", "link.lane_degrade=true", "link.lanes=65"}, false)
                .find("at most 64 lanes"),
            std::string::npos);
  FaultSpec f;
  std::string why;
  EXPECT_FALSE(parse_fault("5us router=2 lane=0 down", true, &f, &why));
  EXPECT_NE(why.find("a lane belongs to a link"), std::string::npos) << why;
  EXPECT_FALSE(parse_fault("5us link=r0:p32 lane=x down", true, &f, &why));
  EXPECT_NE(why.find("write the lane as lane=L"), std::string::npos) << why;
  ASSERT_TRUE(parse_fault("link=r0:p32 lane=2 ber=1e-5", false, &f, &why)) << why;
  EXPECT_EQ(f.lane, 2);
  EXPECT_EQ(f.kind, FaultSpec::Kind::ber);
}

}  // namespace
}  // namespace fabemu
