// The engine against the papers' numbers and its own invariants: zero-load
// latency equals the spec's hops x router latency + wires + serialization;
// every packet delivered exactly once, also beyond saturation; credits
// conserved at every event; accepted throughput within the spec's bounds;
// runs deterministic for a seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/run/runner.h"
#include "control/spec/spec_loader.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

// ---- zero-load latency ------------------------------------------------------

void expect_zero_load(const Spec& spec, uint32_t units) {
  std::vector<Delivery> got;
  RunResult r = run_collect(spec, &got);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_GT(got.size(), 100u);
  size_t exact = 0;
  for (const auto& d : got) {
    const ps_t want = zero_load_latency_ps(spec, r.fabric, d.src, d.dst, units, TrafficClass::request);
    ASSERT_GE(d.latency, want) << "packet " << d.id << " beat the zero-load latency";
    if (d.latency == want) exact++;
  }
  // At a load of 0.002 almost no packet meets another.
  EXPECT_GE(double(exact), 0.95 * double(got.size())) << exact << " of " << got.size();
}

TEST(EngineZeroLoad, TorusMatchesTable2FallThroughPlusSerialisation) {
  Spec s = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.002", "run.measure_ns=400000"});
  expect_zero_load(s, 10);  // 64 bytes = 2 header flits + 8 words
}

TEST(EngineZeroLoad, TorusNeighbourByHand) {
  // Endpoint 0 on router (0,0,0) to endpoint 1 on router (0,0,1): one +Z hop.
  // Table 2: end-point fall-through at both routers (133 ns each, the wire is
  // inside) + 10 flits x 13.333 ns (virtual cut-through serialises once).
  Spec s = spec_of("t3e-4x4x4.yaml",
                   {"traffic.load=0.002", "traffic.pattern=neighbor", "run.measure_ns=200000"});
  std::vector<Delivery> got;
  RunResult r = run_collect(s, &got);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  const ps_t want = 133000 + 133000 + 10 * 13333;
  size_t seen = 0;
  for (const auto& d : got)
    if (d.src == 0 && d.dst == 1) {
      seen++;
      EXPECT_EQ(d.latency, want);
      EXPECT_EQ(d.hops, 1u);
    }
  EXPECT_GT(seen, 0u);
}

TEST(EngineZeroLoad, ClosMatchesRouterLatencyWiresAndSerialisation) {
  Spec s = spec_of("yarc-r2-1024.yaml",
                   {"topology.endpoints=128", "traffic.load=0.002", "traffic.reply_fraction=0",
                                         "run.measure_ns=200000"});
  expect_zero_load(s, 19);  // a 32-byte write: 6 header + 12 data + 1 EOP phits
}

TEST(EngineZeroLoad, ClosFarPairByHand) {
  // Across rank 2: three routers x 31.25 ns, four links (injection, up, down,
  // ejection) x 10 ns, and 19 phits x 1.6 ns once.
  Spec s = spec_of("yarc-r2-1024.yaml", {"topology.endpoints=64", "traffic.load=0.002", "traffic.reply_fraction=0",
                                         "traffic.pattern=bitcomp", "run.measure_ns=200000"});
  std::vector<Delivery> got;
  RunResult r = run_collect(s, &got);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  const ps_t want = 3 * 31250 + 4 * 10000 + 19 * 1600;
  size_t exact = 0;
  for (const auto& d : got) {
    EXPECT_EQ(d.hops, 2u);
    if (d.latency == want) exact++;
  }
  EXPECT_GE(double(exact), 0.95 * double(got.size()));
}

// ---- exactly once, no deadlock ------------------------------------------------

TEST(EngineDelivery, TorusBeyondSaturationMillionPackets) {
  // Offered load 1.0 is far past the 4x4x4 torus's saturation; single-word
  // puts (8 bytes, 3 flits). Over 10^6 packets, none lost, none twice, no deadlock.
  Spec s = spec_of("t3e-4x4x4.yaml", {"traffic.load=1.0", "traffic.sizes=[8]",
                                      "run.warmup_ns=0", "run.measure_ns=1100000"});
  std::vector<Delivery> got;
  RunResult r = run_collect(s, &got);
  ASSERT_TRUE(r.stats.drained);
  EXPECT_GE(r.stats.delivered_packets, 1000000u);
  expect_exactly_once(r, got);
}

TEST(EngineDelivery, TorusRequestResponseMixedSizes) {
  Spec s = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.8", "traffic.reply_fraction=0.5",
                                      "traffic.sizes=[8, 64, 200]", "run.measure_ns=60000"});
  expect_exactly_once(s);
}

TEST(EngineDelivery, ShortestPacketsTheSpecAllows) {
  // Packet buffers hold DPDK's headroom plus the longest packet: with
  // packet.max_units 5 or less every run used to stop at its first packet
  // ("could not be encoded").
  for (const char* units : {"packet.max_units=3", "packet.max_units=5", "packet.max_units=9"}) {
    SCOPED_TRACE(units);
    expect_exactly_once(
        spec_of("t3e-4x4x4.yaml", {units, "traffic.sizes=[8, 64]", "traffic.reply_fraction=0.5",
                                   "run.warmup_ns=0", "run.measure_ns=5000"}));
  }
  expect_exactly_once(spec_of(
      "yarc-r1-32.yaml", {"packet.max_units=4", "packet.header_units=1",
                          "traffic.reply_fraction=0.5", "run.warmup_ns=0", "run.measure_ns=5000"}));
}

TEST(EngineDelivery, ClosBeyondSaturation) {
  Spec s = spec_of("yarc-r2-1024.yaml", {"traffic.load=1.0", "run.warmup_ns=0",
                                         "run.measure_ns=20000", "traffic.reply_fraction=0.3"});
  expect_exactly_once(s);
}

TEST(EngineDelivery, TwoWorkersTorus) {
  Spec s = spec_of("t3e-4x4x4.yaml",
                   {"traffic.load=1.0", "run.workers=2", "run.measure_ns=60000"});
  expect_exactly_once(s);
}

// Each worker's share of the run, for load balance: its events and hops add
// up to the run's, and only workers that meet at window edges wait there.
TEST(EngineReport, PerWorkerEventsHopsAndEdgeWaits) {
  for (const int workers : {1, 2}) {
    const RunResult r = run_collect(
        spec_of("t3e-4x4x4.yaml", {"traffic.load=0.3", "run.workers=" + std::to_string(workers),
                                   "run.measure_ns=10000"}),
        nullptr);
    ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
    const nlohmann::json& w = r.json["performance"]["workers"];
    ASSERT_EQ(w.size(), size_t(workers));
    uint64_t events = 0, hops = 0;
    for (const auto& x : w) {
      EXPECT_GT(x["events"].get<uint64_t>(), 0u);
      EXPECT_GT(x["packet_hops"].get<uint64_t>(), 0u);
      events += x["events"].get<uint64_t>();
      hops += x["packet_hops"].get<uint64_t>();
      EXPECT_GE(x["edge_wait_s"].get<double>(), 0.0);
      if (workers == 1) {
        EXPECT_EQ(x["edge_wait_s"].get<double>(), 0.0);
      }
    }
    EXPECT_EQ(events, r.stats.events) << workers << " worker(s)";
    EXPECT_EQ(hops, r.stats.packet_hops) << workers << " worker(s)";
  }
}

// ---- credit conservation ------------------------------------------------------

TEST(EngineCredits, ConservedAtEveryEventUnderSaturation) {
  for (const char* file : {"t3e-4x4x4.yaml", "yarc-r1-32.yaml"}) {
    Spec s = spec_of(file, {"traffic.load=1.0", "run.check_invariants=true",
                            "run.warmup_ns=2000", "run.measure_ns=15000"});
    RunResult r = run_collect(s, nullptr);
    EXPECT_TRUE(r.stats.invariant_failure.empty()) << file << ": " << r.stats.invariant_failure;
    EXPECT_TRUE(r.stats.error.empty()) << file << ": " << r.stats.error;
    EXPECT_GT(r.stats.invariant_checks, 10000u) << file;
    EXPECT_GT(r.json["credit_stalls"].get<uint64_t>(), 0u) << file << " was not saturated";
  }
}

TEST(EngineCredits, ConservedAtWindowEdgesWithTwoWorkers) {
  Spec s = spec_of("t3e-4x4x4.yaml", {"traffic.load=1.0", "run.check_invariants=true",
                                      "run.workers=2", "run.measure_ns=20000"});
  RunResult r = run_collect(s, nullptr);
  EXPECT_TRUE(r.stats.invariant_failure.empty()) << r.stats.invariant_failure;
  EXPECT_GT(r.stats.invariant_checks, 1000u);
}

// ---- throughput bounds --------------------------------------------------------

void expect_throughput(const std::string& file, std::vector<std::string> sets) {
  Spec base = spec_of(file, sets);
  RunResult probe = run_collect(base, nullptr);
  const FabricSummary sum = summarize(base, probe.fabric);
  const double bound = std::min(1.0, sum.bisection_bound);
  for (double load : {0.1, 0.25, 0.5 * bound}) {
    auto s2 = sets;
    s2.push_back("traffic.load=" + std::to_string(load));
    RunResult r = run_collect(spec_of(file, s2), nullptr);
    const double off = r.json["offered_load"].get<double>();
    const double acc = r.json["accepted_load"].get<double>();
    EXPECT_NEAR(acc, off, 0.02 * off) << file << " at offered " << off;
  }
  auto s3 = sets;
  s3.push_back("traffic.load=1.0");
  RunResult sat = run_collect(spec_of(file, s3), nullptr);
  EXPECT_LE(sat.json["accepted_load"].get<double>(), bound * 1.005) << file;
}

TEST(EngineThroughput, TorusWithinBounds) {
  expect_throughput("t3e-4x4x4.yaml", {"traffic.sizes=[8]", "run.measure_ns=150000"});
}

TEST(EngineThroughput, ClosWithinBounds) {
  expect_throughput("yarc-r2-1024.yaml", {"topology.endpoints=256", "run.measure_ns=40000"});
}

// ---- determinism --------------------------------------------------------------

nlohmann::json strip_wall(nlohmann::json j) {
  j.erase("performance");
  return j;
}

TEST(EngineDeterminism, SameSeedSameJson) {
  for (const char* workers : {"1", "2"}) {
    Spec s = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.6", "run.seed=7",
                                        std::string("run.workers=") + workers,
                                        "run.measure_ns=30000"});
    RunResult a = run_collect(s, nullptr), b = run_collect(s, nullptr);
    EXPECT_EQ(strip_wall(a.json).dump(), strip_wall(b.json).dump()) << "workers " << workers;
  }
  Spec s8 = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.6", "run.seed=8", "run.measure_ns=30000"});
  Spec s7 = spec_of("t3e-4x4x4.yaml", {"traffic.load=0.6", "run.seed=7", "run.measure_ns=30000"});
  EXPECT_NE(strip_wall(run_collect(s7, nullptr).json).dump(),
            strip_wall(run_collect(s8, nullptr).json).dump());
}

}  // namespace
}  // namespace fabemu
