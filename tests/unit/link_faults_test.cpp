// Faults (control/run/fault_plan.h, dataplane/link/link_faults.h): a
// link or router that dies mid-run loses only what was on it or in it at
// that instant, every such packet counted with its reason; everything else
// arrives exactly once, credits stay conserved, and the tables programmed
// around the fault (BlackWidow §7.7 fault entries, T3E §2.1 and §9
// rerouted source table entries) keep the rest of the fabric flowing.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/run/fault_plan.h"
#include "control/spec/spec_refuse.h"
#include "control/topology/registry.h"
#include "tests/support/fault_checks.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

// Rank-1 router 0's uplink 33 goes to rank-2 router 33 (build_clos: uplink
// 32 + j to rank-2 router R1 + j, R1 = 32). The packets on that link, or
// routed to it when it died, are the only loss; the rest of the fabric
// goes on over the other 31 uplinks at the offered load. On both router
// models: the YARC tiled one (the profile's) and the input-queued one.
TEST(Faults, AClosLinkKilledMidRunLosesOnlyWhatWasOnIt) {
  for (const auto& [retry, model] :
       {std::pair{"false", "yarc_tiled"}, std::pair{"true", "yarc_tiled"},
        std::pair{"true", "input_queued"}}) {
    SCOPED_TRACE(model);
    std::vector<Delivery> got;
    const RunResult r = run_collect(
        spec_of("yarc-r2-1024.yaml",
                {"run.workers=2", "run.warmup_ns=2000", "run.measure_ns=12000",
                 "run.check_invariants=true", std::string("link.retry=") + retry,
                 std::string("router.model=") + model, "faults=[\"6us link=r0:p33 down\"]"}),
        &got);
    expect_once_or_counted(r, got);
    EXPECT_EQ(drops(r.stats, DropReason::no_route), 0u) << "every destination stays reachable";
    EXPECT_EQ(drops(r.stats, DropReason::lost_in_dead_router), 0u);
    // At most what the two directions' input buffers (2 VCs of 256 phits
    // each way) and the retransmit windows held, a phit or more each.
    const uint64_t lost =
        drops(r.stats, DropReason::dead_port) + drops(r.stats, DropReason::lost_in_flight);
    EXPECT_LE(lost, 2u * 2u * 256u) << retry;
    for (const auto& [router, port] : {std::pair{0, 33}, std::pair{33, 0}}) {
      const LinkStats& l = link_stats(r.stats, router, int16_t(port));
      EXPECT_EQ(l.went_down, 1u);
      EXPECT_TRUE(l.down_at_end);
      EXPECT_EQ(l.down_ps, r.stats.end_ps - 6'000'000) << "down from 6 us to the end";
    }
    // The rest of the fabric flows at the offered load.
    const nlohmann::json& j = r.json;
    EXPECT_NEAR(j["accepted_load"].get<double>(), j["offered_load"].get<double>(), 0.02) << retry;
  }
}

// A T3E link dies and comes back: the source tables route around it while
// it is down (direction order, another sign), and it carries traffic again.
TEST(Faults, ATorusLinkThatDiesAndComesBackIsRoutedAroundMeanwhile) {
  const std::vector<std::string> base{"run.warmup_ns=2000", "run.measure_ns=40000",
                                      "run.check_invariants=true"};
  auto with = [&](const char* faults) {
    std::vector<std::string> s = base;
    s.push_back(std::string("faults=") + faults);
    std::vector<Delivery> got;
    RunResult r = run_collect(spec_of("t3e-4x4x4.yaml", s), &got);
    expect_once_or_counted(r, got);
    return r;
  };
  const RunResult healthy = with("[]");
  const RunResult down = with("[\"5us link=r0:p0 down\"]");
  const RunResult back = with("[\"5us link=r0:p0 down\", \"20us link=r0:p0 up\"]");
  EXPECT_EQ(drops(down.stats, DropReason::no_route), 0u) << "a torus has paths around one link";
  const LinkStats& h = link_stats(healthy.stats, 0, 0);
  const LinkStats& d = link_stats(down.stats, 0, 0);
  const LinkStats& b = link_stats(back.stats, 0, 0);
  EXPECT_LT(d.packets, h.packets / 2) << "no traffic after 5 us of a 42 us run";
  EXPECT_GT(b.packets, d.packets) << "it carries traffic again after 20 us";
  EXPECT_EQ(b.down_ps, 15'000'000u);
  EXPECT_FALSE(b.down_at_end);
  EXPECT_EQ(b.went_down, 1u);
}

// Faults at a bit error rate: a damaged copy that had moved on marked
// transmit error (its good copy follows) and meets a dead link or router is
// discarded as its destination would have discarded it, not counted lost;
// the real losses still add up and the run drains (it waits for every
// marked copy to be discarded somewhere).
TEST(Faults, MarkedCopiesAFaultDiscardsAreNotLosses) {
  std::vector<Delivery> got;
  const RunResult r = run_collect(spec_of("t3e-4x4x4.yaml", torus_retry_and_faults()), &got);
  expect_once_or_counted(r, got);
  EXPECT_GT(r.stats.transmit_error_discards, 0u);
  LinkRetryCounters all;
  for (const LinkStats& l : r.stats.links) all.merge(l.retry);
  EXPECT_EQ(r.stats.transmit_error_discards, all.bad_forwarded) << "every marked copy discarded";
}

// A router dies: its buffers are lost, its endpoints' packets are refused
// at its dead ports, packets to its endpoints have no route; the other 63
// routers keep delivering. It comes back and its endpoints are reached again.
TEST(Faults, ADeadTorusRouterLosesItsBuffersAndItsEndpointsAreUnreachable) {
  auto with = [](const char* faults, std::vector<Delivery>* got) {
    RunResult r =
        run_collect(spec_of("t3e-4x4x4.yaml", {"run.warmup_ns=2000", "run.measure_ns=30000",
                                               "run.check_invariants=true", "run.workers=2",
                                               std::string("faults=") + faults}),
                    got);
    expect_once_or_counted(r, *got);
    return r;
  };
  std::vector<Delivery> dead, back;
  const RunResult d = with("[\"5us router=21 down\"]", &dead);
  const RunResult b = with("[\"5us router=21 down\", \"15us router=21 up\"]", &back);
  EXPECT_GT(drops(d.stats, DropReason::no_route), 0u) << "packets to its endpoints";
  EXPECT_GT(drops(d.stats, DropReason::dead_port), 0u) << "packets from its endpoints";
  EXPECT_LT(drops(b.stats, DropReason::no_route), drops(d.stats, DropReason::no_route));
  // Its endpoints are reached again once it is back.
  auto to_router_21 = [&](const std::vector<Delivery>& got) {
    uint64_t n = 0;
    for (const Delivery& x : got) n += d.fabric.endpoints[x.dst].router == 21;
    return n;
  };
  EXPECT_GT(to_router_21(back), 2 * to_router_21(dead));  // 51 and 11 when written
}

// Tables programmed for a fabric with dead links: every route they give
// avoids every dead port.
template <class Check>
void for_each_route(const Spec& spec, const Fabric& f, Check&& check) {
  const RoutingInfo* info = Registry::get().routing(spec.topology.family, spec.routing);
  ASSERT_NE(info, nullptr);
  const RoutePathFn trace = info->make_path_tracer(spec, f);
  std::vector<HopTrace> path;
  const uint32_t n = uint32_t(f.endpoints.size());
  for (uint32_t s = 0; s < n; s++)
    for (uint32_t d = 0; d < n; d++) {
      if (s == d) continue;
      const bool ok = trace(trace_meta(s, d, 5, TrafficClass::request, uint16_t(s * 7 + d)), path);
      check(s, d, ok, path);
    }
}

bool path_avoids_dead(const Fabric& f, const std::vector<HopTrace>& path) {
  for (const HopTrace& h : path) {
    const FabricRouter& r = f.routers[size_t(h.router)];
    if (r.dead || r.ports[h.out_port].dead) return false;
  }
  return true;
}

Fabric with_dead_links(const Spec& spec, const Fabric& healthy, int links, uint32_t seed,
                       const std::function<bool(int32_t, int)>& eligible) {
  FaultState state(healthy);
  std::mt19937 rng(seed);
  std::vector<std::pair<int32_t, int>> candidates;
  for (const FabricRouter& r : healthy.routers)
    for (size_t p = 0; p < r.ports.size(); p++)
      if (r.ports[p].peer_router > r.id && eligible(r.id, int(p)))
        candidates.push_back({r.id, int(p)});
  std::shuffle(candidates.begin(), candidates.end(), rng);
  for (int i = 0; i < links; i++) {
    FaultSpec f;
    const std::string text = "link=r" + std::to_string(candidates[size_t(i)].first) + ":p" +
                             std::to_string(candidates[size_t(i)].second) + " down";
    std::string why;
    EXPECT_TRUE(parse_fault(text, false, &f, &why)) << why;
    std::vector<FabricFault> changes;
    EXPECT_TRUE(state.apply(f, false, &changes, &why)) << why;
    EXPECT_EQ(changes.size(), 2u) << "both ends of the link";
  }
  EXPECT_EQ(state.dead_links(), links);
  return state.fabric();
}

// BlackWidow §7.7: up to 10 random dead links of the rank-2 Clos, the fault
// entries route every pair around them, so every random permutation is
// still routable (the issue asks for at least 99%).
TEST(Faults, TenDeadClosLinksLeaveEveryPermutationRoutable) {
  const Spec spec = spec_of("yarc-r2-1024.yaml", {});
  const Fabric healthy = build_spec_fabric(spec);
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Fabric f = with_dead_links(spec, healthy, 10, seed, [](int32_t, int) { return true; });
    std::vector<std::vector<bool>> routable(f.endpoints.size(),
                                            std::vector<bool>(f.endpoints.size(), true));
    uint64_t bad_paths = 0, unroutable = 0;
    for_each_route(spec, f, [&](uint32_t s, uint32_t d, bool ok, const std::vector<HopTrace>& p) {
      if (!ok) {
        unroutable++;
        routable[s][d] = false;
      } else if (!path_avoids_dead(f, p)) {
        bad_paths++;
        routable[s][d] = false;
      }
    });
    EXPECT_EQ(bad_paths, 0u) << "seed " << seed;
    EXPECT_EQ(unroutable, 0u) << "seed " << seed;
    std::mt19937 rng(seed);
    std::vector<uint32_t> perm(f.endpoints.size());
    int good = 0;
    for (int k = 0; k < 1000; k++) {
      std::iota(perm.begin(), perm.end(), 0u);
      std::shuffle(perm.begin(), perm.end(), rng);
      bool all = true;
      for (uint32_t s = 0; s < perm.size(); s++)
        all = all && (perm[s] == s || routable[s][perm[s]]);
      good += all;
    }
    EXPECT_GE(good, 990) << "seed " << seed;
  }
}

// More shadowed subtrees than a router's seven fault entries: merged
// entries still avoid every dead link (fewer uplinks for some subtrees).
TEST(Faults, MoreShadowsThanFaultEntriesAreMergedAndStillAvoided) {
  const Spec spec = spec_of("yarc-r2-1024.yaml", {});
  const Fabric healthy = build_spec_fabric(spec);
  // Only rank-1 routers 1..31 down to rank-2: 16 links shadow 16 subtrees
  // as seen from router 0 (which has 7 entries for them).
  const Fabric f =
      with_dead_links(spec, healthy, 16, 9, [](int32_t r, int) { return r >= 1 && r < 32; });
  uint64_t bad = 0, unroutable = 0;
  for_each_route(spec, f, [&](uint32_t s, uint32_t, bool ok, const std::vector<HopTrace>& p) {
    if (s >= 32) return;  // sources under router 0
    unroutable += !ok;
    bad += ok && !path_avoids_dead(f, p);
  });
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(unroutable, 0u);
}

// T3E: three dead links of the 4x4x4 torus; every rewritten source table
// entry is a direction-ordered path around them.
TEST(Faults, TorusTablesRouteEveryPairAroundDeadLinks) {
  const Spec spec = spec_of("t3e-4x4x4.yaml", {});
  const Fabric healthy = build_spec_fabric(spec);
  const Fabric f = with_dead_links(spec, healthy, 3, 5, [](int32_t, int p) { return p < 6; });
  uint64_t bad = 0, unroutable = 0, pairs = 0;
  for_each_route(spec, f, [&](uint32_t, uint32_t, bool ok, const std::vector<HopTrace>& p) {
    pairs++;
    unroutable += !ok;
    bad += ok && !path_avoids_dead(f, p);
  });
  EXPECT_EQ(bad, 0u);
  EXPECT_LE(unroutable, pairs / 100) << "at least 99% of pairs keep a path";
}

TEST(Faults, AFaultOnAnEndpointPortOrAMissingRouterIsRefused) {
  const Spec spec = spec_of("t3e-4x4x4.yaml", {});
  const Fabric healthy = build_spec_fabric(spec);
  FaultState state(healthy);
  std::vector<FabricFault> changes;
  std::string why;
  FaultSpec f;
  ASSERT_TRUE(parse_fault("link=r0:p6 down", false, &f, &why)) << why;
  EXPECT_FALSE(state.apply(f, false, &changes, &why));
  EXPECT_NE(why.find("not a link to another router"), std::string::npos) << why;
  ASSERT_TRUE(parse_fault("router=64 down", false, &f, &why)) << why;
  EXPECT_FALSE(state.apply(f, false, &changes, &why));
  EXPECT_NE(why.find("does not exist"), std::string::npos) << why;
  ASSERT_TRUE(parse_fault("link=r0:p0 ber=1e-5", false, &f, &why)) << why;
  EXPECT_FALSE(state.apply(f, false, &changes, &why));
  EXPECT_NE(why.find("link.retry"), std::string::npos) << why;
  for (const char* bad : {"5us link=r0 down", "5 link=r0:p0 down", "5us link=r0:p0 sideways",
                          "5us router=x down", "5us link=r0:p0 ber=2", "link=r0:p0 down"}) {
    EXPECT_FALSE(parse_fault(bad, true, &f, &why)) << bad;
    EXPECT_NE(why.find("is not a fault"), std::string::npos) << why;
  }
  ASSERT_TRUE(parse_fault("1.5us link=r3:p2 up", true, &f, &why)) << why;
  EXPECT_EQ(f.at, 1'500'000u);
  EXPECT_EQ(f.router, 3);
  EXPECT_EQ(f.port, 2);
  EXPECT_EQ(f.kind, FaultSpec::Kind::up);
}

}  // namespace
}  // namespace fabemu
