// Spec loading, limits: times and rates bounded by what the engine's integer
// picosecond clock represents and what makes physical sense, and packet
// formats the codec can encode in the buffers the engine allocates. What
// `check` accepts, `run` can run.
#include <gtest/gtest.h>

#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

TEST(SpecLimits, TimesFitTheClock) {
  struct Case {
    const char* set;
    const char* field;
    const char* message;
  };
  const Case cases[] = {
      // Accepted before and then never ended (or overflowed the clock).
      {"run.measure_ns=1e15", "run.measure_ns", "must be from 0.001 to 1e+10"},
      {"run.warmup_ns=1e300", "run.warmup_ns", "must be from 0 to 1e+10"},
      {"run.drain_ns=1e308", "run.drain_ns", "must be from 0 to 1e+10"},
      // Rounded to 0 ps: a zero-latency link stalls conservative windows.
      {"link.wire_ns=1e-9", "link.wire_ns", "rounds to 0 below 0.001 ns"},
      {"router.straight_ns=0.0001", "router.straight_ns", "from 0.001 to 1e+06"},
      {"router.turn_ns=2e6", "router.turn_ns", "slower than 1 ms is no fabric"},
      {"run.measure_ns=0.0004", "run.measure_ns", "from 0.001"},
      {"run.time_scale=1e300", "run.time_scale", "from 1 to 1e+06"},
      {"run.duration_s=1e20", "run.duration_s", "0 or from 0.001 to 1e+06"},
      {"run.progress_s=1e-9", "run.progress_s", "0 or from 0.01"},
      {"run.mac_aging_s=1e300", "run.mac_aging_s", "from 0.001 to 1e+06"},
      {"traffic.load=1e-300", "traffic.load", "0 or from 1e-06 to 1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    const SpecError e = error_of("", {c.set});
    EXPECT_EQ(e.field(), c.field) << e.what();
    expect_says(e, c.message);
  }
  const Spec s = load(
      "run: {warmup_ns: 0, measure_ns: 1e10, drain_ns: 0, progress_s: 0}\n"
      "link: {wire_ns: 0.001}\n");
  EXPECT_DOUBLE_EQ(s.run.measure_ns, 1e10);
  EXPECT_DOUBLE_EQ(s.link.wire_ns, 0.001);
}

TEST(SpecLimits, LinkRatesFitTheClock) {
  // A lane rate beyond any SerDes: it used to pass check and fail at run
  // with "zero unit time (link rate missing)".
  SpecError e = error_of("link:\n  lane_gbps: 1e9\n");
  expect_at(e, "link.lane_gbps", 2, 14);
  expect_says(e, "must be from 0.001 to 1000");

  // Each field in range, the unit time still below one tick.
  e = error_of("link: {lanes: 256, lane_gbps: 1000, phit_bits: 1, phits_per_unit: 1}\n");
  expect_at(e, "link.lane_gbps", 1, 31);
  expect_says(e,
              "a 1-bit flow unit on 256 lanes of 1000 Gb/s (coding 1) takes 0.00391 ps, less "
              "than the engine's clock tick of 1 ps");
  // ... and above a millisecond.
  e = error_of("link: {lanes: 1, lane_gbps: 0.001, coding: 0.01, phits_per_unit: 64}\n");
  expect_says(e, "more than the 1 ms a link may take per unit");

  expect_at(error_of("link:\n  coding: 0.001\n"), "link.coding", 2, 11);
  EXPECT_DOUBLE_EQ(load("link: {lane_gbps: 224}\n").link.lane_gbps, 224.0);
}

TEST(SpecLimits, PacketsTheCodecEncodes) {
  // Every T3E length of Table 3 with room in the buffers (1-flit packets
  // carry no header beyond the head flit).
  for (int u = 3; u <= 10; ++u)
    EXPECT_EQ(load("packet:\n  max_units: " + std::to_string(u) + "\n").packet.max_units, u);
  SpecError e = error_of("vcs: {buffer_units: 22}\npacket:\n  max_units: 11\n");
  expect_at(e, "packet.max_units", 3, 14);
  expect_says(e, "a T3E packet is at most 10 flits long: set packet.max_units to at most 10");
  e = error_of("packet: {header_units: 8, max_units: 10}\n");
  expect_at(e, "packet.header_units", 1, 24);
  expect_says(e, "at most 7 header flits");

  // A message the T3E header cannot count the segments of.
  e = error_of("packet: {max_units: 3}\ntraffic: {sizes: [64, 65536]}\n");
  expect_at(e, "packet.max_units", 1, 21);
  expect_says(e,
              "a 65536-byte message is 8192 packets of at most 8 payload bytes, more than the "
              "4095 the T3E header can count");

  // YARC: head, hash and 7 transport phits at most, and responses carry no
  // hash phit, so 9 header phits encode requests but not responses.
  EXPECT_EQ(load("profile: yarc\npacket: {header_units: 9, max_units: 19}\n").packet.header_units,
            9);
  e = error_of(
      "profile: yarc\npacket: {header_units: 9, max_units: 19}\n"
      "traffic: {reply_fraction: 0.5}\n");
  expect_at(e, "packet.header_units", 2, 24);
  expect_says(e,
              "of a 8-byte response (8 payload bytes, 13 phits of which 9 header) cannot be "
              "encoded as a YARC packet");
  // Head, header and the EOP phit leave no payload.
  e = error_of("profile: yarc\npacket: {header_units: 6, max_units: 7}\n");
  expect_says(e, "6 header phits and 1 tail leave no room for payload");
  expect_at(error_of("profile: yarc\npacket: {max_units: 65}\nvcs: {buffer_units: 256}\n"),
            "packet.max_units", 2, 21);

  // More endpoints than the header addresses.
  e = error_of("topology: {dims: [32, 32, 32], endpoints_per_router: 3}\n");
  expect_at(e, "topology.dims", 1, 18);
  expect_says(e, "the T3E header addresses 65536 endpoints, and this fabric has 98304");
}

TEST(SpecLimits, TrafficThatWouldNeverStart) {
  // A tiny load for huge batches of huge messages: a gap of weeks between
  // batches, which overflowed the clock when drawn.
  const SpecError e = error_of(
      "profile: yarc\npacket: {max_units: 64}\ntraffic:\n  load: 1e-6\n  process: batch\n"
      "  batch_size: 65536\n  sizes: [65536]\n");
  expect_at(e, "traffic.load", 4, 9);
  expect_says(e, "each endpoint would start a batch every 2.82e+06 s on average, longer than any "
                 "run");
  EXPECT_DOUBLE_EQ(load("traffic: {load: 1e-6}\n").traffic.load, 1e-6);
}

TEST(SpecLimits, BuffersTheRouterFifosKeep) {
  // A router FIFO keeps 32767 packets behind its ring; a 40000-flit buffer
  // of 1-flit packets passed check and failed at run.
  SpecError e = error_of("vcs:\n  buffer_units: 40000\n");
  expect_at(e, "vcs.buffer_units", 2, 17);
  expect_says(e, "a buffer of 40000 units holds up to 40000 packets of the shortest (1 unit), more "
                 "than the 32767 a router FIFO keeps: set it to at most 32767");
  EXPECT_EQ(load("vcs: {buffer_units: 32767}\n").vcs.buffer_units, 32767);
  // YARC packets are at least 4 phits.
  expect_says(error_of("profile: yarc\nvcs: {buffer_units: 200000}\n"), "at most 131071");
  EXPECT_EQ(load("profile: yarc\nvcs: {buffer_units: 131071}\n").vcs.buffer_units, 131071);
}

}  // namespace
}  // namespace fabemu
