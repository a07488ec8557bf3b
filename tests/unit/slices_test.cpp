// Network slices (Scott et al., ISCA 2006, section 2.2: "Each BW processor
// has four injection ports into the network, with each port connecting to a
// different network slice. Each slice is a completely separate network").
// The replicated fabric keeps every link inside its slice; a run delivers
// every packet once to its processor, whatever slice it took; the slices
// carry equal shares; a slice is as fast as the network alone at zero load;
// a request's slice follows its address, so one address stays in order; and
// a response leaves a congested slice for the processor's other ports.
#include "control/topology/slices.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/spec/spec_error.h"
#include "control/topology/registry.h"
#include "tests/support/run_collect.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

Fabric build_one(const Spec& spec) {
  return Registry::get().topology(spec.topology.family)->build(spec);
}

TEST(SlicesBuild, EveryCopyIsTheNetworkRenumberedAndLinksStayInTheirSlice) {
  const Spec spec = spec_of("yarc-r1.5-288-slices.yaml", {});
  const Fabric one = build_one(spec);
  const auto R = static_cast<int32_t>(one.routers.size());
  const auto P = static_cast<int32_t>(one.endpoints.size());
  ASSERT_EQ(R, 9);
  ASSERT_EQ(P, 288);
  const Fabric f = replicate_slices(one, 4);
  ASSERT_EQ(f.slices, 4u);
  ASSERT_EQ(f.slice_routers, 9u);
  ASSERT_EQ(f.routers.size(), 36u);
  ASSERT_EQ(f.endpoints.size(), 1152u);
  EXPECT_EQ(f.processors(), 288u);
  for (int32_t s = 0; s < 4; s++)
    for (int32_t r = 0; r < R; r++) {
      const FabricRouter& a = one.routers[size_t(r)];
      const FabricRouter& b = f.routers[size_t(s * R + r)];
      EXPECT_EQ(b.id, s * R + r);
      EXPECT_EQ(b.coord, a.coord);
      EXPECT_EQ(b.rank, a.rank);
      EXPECT_EQ(f.table_router(b.id), r) << "every copy routes by slice 0's tables";
      ASSERT_EQ(b.ports.size(), a.ports.size());
      for (size_t p = 0; p < a.ports.size(); p++) {
        const FabricPort& x = a.ports[p];
        const FabricPort& y = b.ports[p];
        EXPECT_EQ(y.peer_router, x.peer_router < 0 ? -1 : x.peer_router + s * R);
        EXPECT_EQ(y.peer_port, x.peer_port);
        EXPECT_EQ(y.endpoint, x.endpoint < 0 ? -1 : x.endpoint + s * P);
        EXPECT_EQ(y.label, x.label);
        EXPECT_EQ(y.unit_ps, x.unit_ps);
        EXPECT_EQ(y.wire_ps, x.wire_ps);
      }
    }
  for (uint32_t e = 0; e < f.endpoints.size(); e++) {
    const FabricEndpoint& fe = f.endpoints[e];
    EXPECT_EQ(fe.id, int32_t(e));
    EXPECT_EQ(fe.router / R, int32_t(e) / P) << "endpoint " << e << " is on its slice";
    EXPECT_EQ(f.routers[size_t(fe.router)].ports[size_t(fe.port)].endpoint, int32_t(e));
    EXPECT_EQ(f.processor(e), e % 288u);
    EXPECT_EQ(f.slice_endpoint(f.processor(e), e / 288u), e);
  }
  // Slice 0 back is the network the builder made.
  const Fabric back = first_slice(f);
  ASSERT_EQ(back.routers.size(), one.routers.size());
  ASSERT_EQ(back.endpoints.size(), one.endpoints.size());
  for (size_t r = 0; r < one.routers.size(); r++)
    for (size_t p = 0; p < one.routers[r].ports.size(); p++)
      EXPECT_EQ(back.routers[r].ports[p].peer_router, one.routers[r].ports[p].peer_router);
}

TEST(SlicesBuild, CountsOutsideOneToEightAreRefused) {
  const Fabric one = build_one(spec_of("yarc-r1-32.yaml", {}));
  EXPECT_THROW(replicate_slices(one, 0), std::invalid_argument);
  EXPECT_THROW(replicate_slices(one, 9), std::invalid_argument);
  EXPECT_THROW(replicate_slices(replicate_slices(one, 2), 2), std::invalid_argument);
  EXPECT_EQ(replicate_slices(one, 1).routers.size(), one.routers.size());
  const SpecError e = spec_test::error_of("profile: yarc\ntopology:\n  slices: 9\n");
  spec_test::expect_at(e, "topology.slices", 3, 11);
}

TEST(SlicesBuild, FaultsOnASlicedFabricAreRefusedWithTheReason) {
  const SpecError e = spec_test::error_of("profile: yarc\ntopology:\n  slices: 4\n",
                                          {"faults=[\"5us link=r0:p0 down\"]"});
  spec_test::expect_says(e, "share slice 0's routing tables");
}

// Slice shares of the packets the processors sent, from the packet ids
// (source port << 40 | sequence).
std::vector<double> slice_shares(const std::vector<Delivery>& got, uint32_t processors,
                                 uint32_t slices) {
  std::vector<double> n(slices, 0);
  for (const Delivery& d : got) n[(d.id >> 40) / processors] += 1;
  for (double& x : n) x /= double(got.size());
  return n;
}

TEST(SlicesRun, EveryPacketReachesItsProcessorOnceAndTheSlicesShareTheLoad) {
  for (const char* model : {"yarc_tiled", "input_queued"}) {
    SCOPED_TRACE(model);
    std::vector<Delivery> got;
    const Spec spec = spec_of("yarc-r1.5-288-slices.yaml",
                              {"run.measure_ns=4000", "run.workers=2", "run.check_invariants=true",
                               std::string("router.model=") + model});
    const RunResult r = run_exactly_once(spec, &got);
    ASSERT_TRUE(r.stats.invariant_failure.empty()) << r.stats.invariant_failure;
    ASSERT_GT(got.size(), 50000u);
    for (const Delivery& d : got) {
      ASSERT_LT(d.src, 288u) << "packets carry processor numbers";
      ASSERT_LT(d.dst, 288u);
      ASSERT_EQ((d.id >> 40) % 288, d.src) << "sent from a port of its processor";
    }
    for (double share : slice_shares(got, 288, 4)) EXPECT_NEAR(share, 0.25, 0.01);
    ASSERT_TRUE(r.json.contains("slices"));
    for (const auto& s : r.json["slices"]) {
      EXPECT_NEAR(s["packet_share"].get<double>(), 0.25, 0.01);
      EXPECT_NEAR(s["entered_load"].get<double>(), r.json["entered_load"].get<double>(), 0.02);
    }
    EXPECT_EQ(r.json["fabric"]["processors"].get<uint32_t>(), 288u);
  }
}

// A message of several packets spreads over the slices and is whole again
// at its processor, whichever ports its packets came by; its answer goes
// back the same way.
TEST(SlicesRun, MessagesSpreadOverSlicesAreReassembledAndAnswered) {
  std::vector<Delivery> got;
  const Spec spec =
      spec_of("yarc-r1.5-288-slices.yaml",
              {"traffic.sizes=[600]", "traffic.reply_fraction=0.5", "traffic.reply_bytes=300",
               "traffic.load=0.3", "run.measure_ns=3000", "run.workers=2"});
  const RunResult r = run_exactly_once(spec, &got);
  EXPECT_GT(r.stats.generated_messages, 1000u);
  EXPECT_EQ(r.stats.delivered_messages, r.stats.generated_messages);
  EXPECT_EQ(drops(r.stats, DropReason::reassembly_overflow), 0u);
  EXPECT_GT(r.stats.injected_packets, 3 * r.stats.generated_messages) << "several packets each";
}

// At zero load a packet crosses its slice exactly as it crosses the network
// alone: the fastest delivery per hop count is the same.
TEST(SlicesRun, ASliceIsAsFastAsTheNetworkAloneAtZeroLoad) {
  std::map<uint32_t, ps_t> fastest[2];
  for (int sliced = 0; sliced < 2; sliced++) {
    std::vector<Delivery> got;
    const Spec spec =
        spec_of("yarc-r1.5-288-slices.yaml",
                {"traffic.load=0.002", "traffic.reply_fraction=0", "run.measure_ns=20000",
                 "run.workers=1", sliced ? "topology.slices=4" : "topology.slices=1"});
    run_exactly_once(spec, &got);
    ASSERT_GT(got.size(), 500u);
    for (const Delivery& d : got) {
      auto [it, fresh] = fastest[sliced].try_emplace(d.hops, d.latency);
      if (!fresh) it->second = std::min(it->second, d.latency);
    }
  }
  EXPECT_EQ(fastest[0], fastest[1]);
  EXPECT_EQ(fastest[1].size(), 2u) << "local (0 hops) and over a sidelink (1 hop)";
}

// Requests spread over the slices by address, responses by queue: the
// packets between one pair of processors take several slices (one flow of
// frames, one hash, stays on one: port_test's sliced Clos).
TEST(SlicesRun, APairsPacketsSpreadOverTheSlices) {
  std::vector<Delivery> got;
  const Spec spec = spec_of(
      "yarc-r1.5-288-slices.yaml",
      {"traffic.load=0.3", "traffic.pattern=permutation", "run.measure_ns=3000", "run.workers=1"});
  run_exactly_once(spec, &got);
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> slices_of_pair;
  for (const Delivery& d : got) slices_of_pair[{d.src, d.dst}].insert(uint32_t(d.id >> 40) / 288);
  size_t all_four = 0;
  for (const auto& [pair, s] : slices_of_pair) all_four += s.size() == 4;
  EXPECT_GT(all_four, slices_of_pair.size() * 9 / 10) << "a pair's packets use every slice";
}

// Responses take the processor's port with the fewest packets queued,
// requests the slice their address hash names. Slice 3's injection links
// are made four times slower: its ports' queues then hold the requests
// hashed onto it (they keep the slow link 60% busy), and the responses go
// to the other slices. Under tornado traffic (processor a asks
// a + 15 of 32, which answers) the direction tells a request (+15) from a
// response (+17). The same run with every link at full speed is the
// control: there responses spread evenly too.
TEST(SlicesRun, ResponsesLeaveACongestedSlice) {
  const Spec spec = spec_of("yarc-r1-32.yaml", {"topology.slices=4", "traffic.pattern=tornado",
                                                "traffic.reply_fraction=1", "traffic.load=0.15",
                                                "run.measure_ns=20000", "run.workers=1"});
  constexpr uint32_t kP = 32, kSlow = 3;
  double share[2][2][4] = {};  // [congested][response][slice]
  double mean_ns[2][4] = {};   // [congested][slice]: the requests' mean latency
  for (int congested = 0; congested < 2; congested++) {
    std::vector<Delivery> got;
    const RunResult r = run_collect(spec, &got, [&](Fabric& f) {
      EXPECT_EQ(f.processors(), kP);
      // (Not slice 0: the sources' generation slot is endpoint 0's unit time.)
      if (congested)
        for (uint32_t p = 0; p < kP; p++) f.endpoints[f.slice_endpoint(p, kSlow)].unit_ps *= 4;
    });
    const RunStats& st = r.stats;
    ASSERT_TRUE(st.error.empty()) << st.error;
    ASSERT_TRUE(st.drained);
    EXPECT_EQ(st.delivered_packets, st.injected_packets);
    EXPECT_EQ(drops(st, DropReason::source_queue_full), 0u) << "requests keep their slice";
    double count[2] = {0, 0}, lat[4] = {}, n[4] = {};
    for (const Delivery& d : got) {
      const uint32_t ahead = (d.dst + kP - d.src) % kP;
      ASSERT_TRUE(ahead == 15 || ahead == 17) << d.src << " -> " << d.dst;
      const int response = ahead == 17;
      const uint32_t slice = uint32_t(d.id >> 40) / kP;  // the sending port's
      share[congested][response][slice]++;
      count[response]++;
      if (!response) lat[slice] += double(d.latency) / 1000, n[slice]++;
    }
    ASSERT_GT(count[0], 10000);
    ASSERT_GT(count[1], 10000);
    for (int response = 0; response < 2; response++)
      for (double& s : share[congested][response]) s /= count[response];
    for (int s = 0; s < 4; s++) mean_ns[congested][s] = lat[s] / n[s];
  }
  for (int s = 0; s < 4; s++) {
    SCOPED_TRACE(s);
    // Requests follow their hash whatever the queues: a quarter each.
    EXPECT_NEAR(share[0][0][s], 0.25, 0.02);
    EXPECT_NEAR(share[1][0][s], 0.25, 0.02);
    // Uncongested, responses spread over the slices as well.
    EXPECT_NEAR(share[0][1][s], 0.25, 0.03);
  }
  // The slow slice is congested: its requests wait in their queue.
  for (int s = 0; s < 3; s++) EXPECT_GT(mean_ns[1][kSlow], 2 * mean_ns[1][s]) << s;
  // Responses leave it (0.092 of them stay, against 0.25 at full speed:
  // those that find every queue empty keep their hash's slice)...
  EXPECT_LT(share[1][1][kSlow], 0.15);
  EXPECT_LT(share[1][1][kSlow], 0.5 * share[0][1][kSlow]);
  // ... for the next slice going round from it, where a tie between the
  // empty queues of the others goes (0.40); slices 1 and 2 keep their
  // quarter.
  EXPECT_GT(share[1][1][0], 0.35);
  EXPECT_NEAR(share[1][1][1], 0.25, 0.03);
  EXPECT_NEAR(share[1][1][2], 0.25, 0.03);
}

// A processor's ports send for it and reassemble for it: the engine refuses
// a placement that puts one of them on another worker, with the reason.
TEST(SlicesRun, APlacementThatSplitsAProcessorsPortsIsRefused) {
  const Spec spec = spec_of("yarc-r1.5-288-slices.yaml", {"run.measure_ns=100", "run.workers=2"});
  std::string error;
  try {
    const RunResult r = run_emulation(spec, [](EngineConfig& c) {
      c.progress = nullptr;
      for (size_t i = 0; i < c.router_worker.size(); i++) c.router_worker[i] = i < 9 ? 0 : 1;
    });
    error = r.stats.error;
  } catch (const std::exception& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("slice copies on one worker"), std::string::npos) << error;
}

// Capture filters name processors, which is what packets carry.
TEST(SlicesRun, CaptureFiltersNameProcessors) {
  for (const char* src : {"capture.src=[287]", "capture.src=[288]"}) {
    const std::string path = "/tmp/fabemu-slices-test.pcapng";
    const Spec spec = spec_of(
        "yarc-r1.5-288-slices.yaml",
        {"run.measure_ns=200", "run.workers=1", "capture.taps=[all]", "capture.file=" + path, src});
    std::string error;
    try {
      const RunResult r = run_collect(spec, nullptr);
      error = r.stats.error;
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::remove(path.c_str());
    if (std::string(src).find("287") != std::string::npos)
      EXPECT_EQ(error, "") << "the last processor";
    else
      EXPECT_NE(error.find("processors 0..287"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace fabemu
