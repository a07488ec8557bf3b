// BookSim2's router on the hypercube and the butterfly (docs/fabrics/
// booksim.md): BookSim's mesh of k = 2 (a binary n-cube, dim_order_mesh)
// as the hypercube family's routing dim_order, and its KNFly with
// dest_tag_fly as the butterfly family's routing dest_tag, both reached
// through the BookSim import (control/booksim/booksim_network.cpp).
// Asserted: the paths (e-cube; the butterfly's one path, BookSim's digit
// order once the import renumbers the nodes), every VC offered at every
// hop, BookSim's zero-load latency in cycles (4 per router after the
// first, 6 more: VC allocation, switch allocation, crossbar and channel
// per hop), and every packet delivered once on the iSLIP router.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "control/booksim/booksim_config.h"
#include "control/booksim/booksim_import.h"
#include "control/spec/spec_loader.h"
#include "control/topology/butterfly.h"
#include "control/topology/flatfly.h"
#include "control/topology/hypercube.h"
#include "dataplane/routing/butterfly_dest.h"
#include "dataplane/routing/flatfly_min.h"
#include "dataplane/routing/routing_context.h"
#include "tests/support/run_collect.h"
#include "tests/support/trace_pairs.h"

namespace fabemu {
namespace {

// The iq router of topologies/booksim/*.cfg.
const char* kRouter =
    "use_noc_latency = 0; router = iq; vc_buf_size = 16; wait_for_tail_credit = 0;\n"
    "vc_allocator = islip; sw_allocator = islip; alloc_iters = 1; credit_delay = 1;\n"
    "routing_delay = 0; vc_alloc_delay = 1; sw_alloc_delay = 1; st_final_delay = 1;\n"
    "input_speedup = 1; output_speedup = 1; internal_speedup = 1.0; packet_size = 1;\n"
    "warmup_periods = 0; sample_period = 20000; max_samples = 1; seed = 1;\n";

BooksimSpec imported(const std::string& network, const std::string& more = "") {
  BooksimConfig c;
  c.read_string(network + kRouter + more, "t.cfg");
  return booksim_to_spec(c);
}

Spec spec_from(const BooksimSpec& b, std::vector<std::string> sets = {}) {
  sets.push_back("run.progress_s=0");
  return load_spec_text(b.yaml, sets, "t.yaml");
}

std::string refusal(const std::string& network, const std::string& more = "") {
  try {
    imported(network, more);
  } catch (const BooksimConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "not refused: " << network << more;
  return "";
}

// The spec network + more imports to holds `text` (the YAML shown if not).
::testing::AssertionResult imports_with(const std::string& network, const std::string& more,
                                        const std::string& text) {
  const std::string yaml = imported(network, more).yaml;
  if (yaml.find(text) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no '" << text << "' in:\n" << yaml;
}
// network + more is refused with a message holding `text`.
::testing::AssertionResult refused_with(const std::string& network, const std::string& more,
                                        const std::string& text) {
  const std::string why = refusal(network, more);
  if (why.find(text) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "refused with '" << why << "', not '" << text << "'";
}

constexpr ps_t kCyclePs = 30400;  // the flatfly profile's cycle: one 19-phit packet

// Policy's candidates at router 0 for a packet from its first endpoint port
// to dst: every one of vcs VCs on the one port.
template <class Policy>
void expect_every_vc(const FlatflyTables& t, uint32_t dst, uint8_t port, uint8_t vcs) {
  PacketMeta m{};
  m.dst = dst;
  OfflineRouting off;
  RoutingContext ctx = off.ctx();
  RouteCandidates out;
  Policy::route(t, ctx, 0, 0, m, out);
  ASSERT_EQ(out.count, vcs);
  for (uint8_t v = 0; v < vcs; ++v) {
    EXPECT_EQ(out.c[v].port, port);
    EXPECT_EQ(out.c[v].vc, v);
  }
}

// A nearly idle run of the imported network: BookSim's 4 cycles per router
// after the first and 6 more (routers(d) the routers d crosses).
template <class Routers>
void expect_booksim_zero_load(const std::string& network, Routers&& routers) {
  const Spec s =
      spec_from(imported(network + "num_vcs = 2; traffic = uniform; injection_rate = 0.002;\n"));
  std::vector<Delivery> got;
  run_exactly_once(s, &got);
  ASSERT_GT(got.size(), 500u);
  expect_at_zero_load(got, [&](const Delivery& d) {
    const ps_t r = routers(d);
    EXPECT_EQ(ps_t{d.hops}, r - 1);
    return (4 * (r - 1) + 6) * kCyclePs;
  });
}

// ---- the hypercube ----------------------------------------------------------------

TEST(BooksimHypercube, MeshOfKTwoIsTheHypercubeRoutedDimOrder) {
  const BooksimSpec b = imported(
      "topology = mesh; k = 2; n = 6; routing_function = dim_order;\n"
      "num_vcs = 4; traffic = uniform; injection_rate = 0.1;\n");
  EXPECT_NE(b.yaml.find("family: hypercube"), std::string::npos) << b.yaml;
  EXPECT_NE(b.yaml.find("routing: dim_order"), std::string::npos) << b.yaml;
  EXPECT_DOUBLE_EQ(b.cycle_ns, 30.4);
  const Spec s = spec_from(b);
  EXPECT_EQ(s.topology.n, 6);
  EXPECT_EQ(s.topology.endpoints_per_router, 1);
  EXPECT_EQ(s.vcs.count, 4);
  EXPECT_EQ(s.router.switch_allocator, "islip");
  // k = 2 of three dimensions or fewer stays the torus family's mesh.
  EXPECT_TRUE(imports_with("topology = mesh; k = 2; n = 3; routing_function = dim_order;\n"
                           "num_vcs = 2; traffic = uniform; injection_rate = 0.1;\n",
                           "", "family: torus"));
}

TEST(BooksimHypercube, EveryPathIsECubeOnEveryVc) {
  const Spec s =
      spec_from(imported("topology = mesh; k = 2; n = 5; routing_function = dim_order;\n"
                         "num_vcs = 3; traffic = uniform; injection_rate = 0.1;\n"));
  const Fabric f = build_hypercube(s);
  for_every_route(
      s, f, [&](uint32_t src, uint32_t dst, TrafficClass, const std::vector<HopTrace>& p) {
        ASSERT_EQ(static_cast<int>(p.size()) - 1, __builtin_popcount(src ^ dst));
        uint32_t at = src;
        for (size_t i = 0; i + 1 < p.size(); ++i) {
          const int dim = __builtin_ctz(at ^ dst);
          EXPECT_EQ(p[i].out_port, 1 + dim) << src << " -> " << dst;  // port c + d, c = 1
          at ^= 1u << dim;
        }
        EXPECT_EQ(p.back().router, static_cast<int32_t>(dst));
      });
  // At router 0 towards endpoint 6 (bits 1 and 2 differ): dimension 1, any of the 3 VCs.
  expect_every_vc<FlatflyRanMin>(program_ghc_tables(s, f, hypercube_shape(s), 1), 6, 2, 3);
}

TEST(BooksimHypercube, ZeroLoadLatencyIsBooksimsInCycles) {
  expect_booksim_zero_load("topology = mesh; k = 2; n = 5; routing_function = dim_order;\n",
                           [](const Delivery& d) { return __builtin_popcount(d.src ^ d.dst) + 1; });
}

TEST(BooksimHypercube, EveryPacketOnceBeyondSaturation) {
  expect_exactly_once(
      spec_from(imported("topology = mesh; k = 2; n = 4; routing_function = dim_order;\n"
                         "num_vcs = 4; traffic = uniform; injection_rate = 1.0;\n"),
                {"run.measure_ns=30000"}));
}

TEST(BooksimHypercube, PatternsOnBooksimsNodeNumbers) {
  const std::string cube =
      "topology = mesh; k = 2; n = 6; routing_function = dim_order;\n"
      "num_vcs = 2; injection_rate = 0.1;\n";
  // Its neighbor moves every digit on by one: on k = 2 every bit flips.
  EXPECT_TRUE(imports_with(cube, "traffic = neighbor;", "pattern: bitcomp"));
  EXPECT_TRUE(imports_with(cube, "traffic = bitrev;", "pattern: bitrev"));
  EXPECT_EQ(imported(cube, "traffic = bitrev;").yaml.find("numbering"), std::string::npos)
      << "node i is endpoint i";
  EXPECT_TRUE(imports_with(cube, "traffic = hotspot({5});", "hotspot: 5"));
  EXPECT_TRUE(refused_with(cube, "traffic = tornado;", "send to itself"));
  EXPECT_TRUE(refused_with("topology = mesh; k = 2; n = 17; routing_function = dim_order;\n"
                           "num_vcs = 2; injection_rate = 0.1; traffic = uniform;\n",
                           "", "t.cfg:1: 'n = 17'"));
}

// ---- the butterfly ----------------------------------------------------------------

int ipow(int k, int e) {
  int v = 1;
  for (int i = 0; i < e; ++i) v *= k;
  return v;
}

TEST(BooksimFly, KnFlyIsTheButterflyRoutedDestTag) {
  const BooksimSpec b = imported(
      "topology = fly; k = 4; n = 3; routing_function = dest_tag;\n"
      "num_vcs = 4; traffic = uniform; injection_rate = 0.1;\n");
  EXPECT_NE(b.yaml.find("family: butterfly"), std::string::npos) << b.yaml;
  EXPECT_NE(b.yaml.find("routing: dest_tag"), std::string::npos) << b.yaml;
  const Spec s = spec_from(b);
  EXPECT_EQ(s.topology.k, 4);
  EXPECT_EQ(s.topology.n, 3);
  EXPECT_TRUE(refused_with("topology = fly; k = 4; n = 1; routing_function = dest_tag;\n"
                           "num_vcs = 2; traffic = uniform; injection_rate = 0.1;\n",
                           "", "at least 2 stages"));
  EXPECT_TRUE(refused_with("topology = fly; k = 4; n = 3; routing_function = dim_order;\n"
                           "num_vcs = 2; traffic = uniform; injection_rate = 0.1;\n",
                           "", "use dest_tag"));
}

// BookSim's stage s sets digit n-2-s of the router address: its node a k + p
// is fabemu's endpoint rev(a) k + p. Node 4 of the 4-ary 3-fly is router
// address 1 (digits 1, 0), port 0: fabemu's row 4, endpoint 16.
TEST(BooksimFly, NodesAreRenumberedForBooksimsDigitOrder) {
  const std::string fly =
      "topology = fly; k = 4; n = 3; routing_function = dest_tag;\n"
      "num_vcs = 2; injection_rate = 0.1;\n";
  EXPECT_TRUE(imports_with(fly, "traffic = hotspot({4});", "hotspot: 16"));
  EXPECT_TRUE(imports_with(fly, "traffic = hotspot({7});", "hotspot: 19"));
  // ~node is the same node whichever way the digits go.
  EXPECT_TRUE(imports_with(fly, "traffic = bitcomp;", "pattern: bitcomp"));
  EXPECT_TRUE(refused_with(fly, "traffic = transpose;", "use uniform, bitcomp, randperm or hotspot"));
}

TEST(BooksimFly, OnePathThroughEveryStageOnEveryVc) {
  const int k = 3, n = 3;
  const Spec s =
      spec_from(imported("topology = fly; k = 3; n = 3; routing_function = dest_tag;\n"
                         "num_vcs = 2; traffic = uniform; injection_rate = 0.1;\n"));
  const Fabric f = build_butterfly(s);
  for_every_route(s, f,
                  [&](uint32_t src, uint32_t dst, TrafficClass, const std::vector<HopTrace>& p) {
                    ASSERT_EQ(static_cast<int>(p.size()), n) << "one router per stage";
                    int row = static_cast<int>(src) / k;
                    const int to = static_cast<int>(dst) / k;
                    for (int st = 0; st + 1 < n; ++st) {
                      EXPECT_EQ(p[st].router, row);
                      const int m = to / ipow(k, st) % k, own = row / ipow(k, st) % k;
                      EXPECT_EQ(p[st].out_port, k + st * k + m) << src << " -> " << dst;
                      row += (m - own) * ipow(k, st);
                    }
                    EXPECT_EQ(p.back().router, to);
                    EXPECT_EQ(p.back().out_port, static_cast<int>(dst) % k);
                  });
  // Endpoint 25 is on row 8, digits 2, 2: from router 0, stage 0 takes digit 0 = 2.
  expect_every_vc<ButterflyDestTag>(program_ghc_tables(s, f, GhcShape{k, n - 1, k}, 1), 25,
                                    butterfly_port(k, k, 0, 2), 2);
}

TEST(BooksimFly, ZeroLoadLatencyIsBooksimsInCycles) {
  expect_booksim_zero_load("topology = fly; k = 4; n = 3; routing_function = dest_tag;\n",
                           [](const Delivery&) { return 3; });  // one router per stage
}

TEST(BooksimFly, EveryPacketOnceBeyondSaturation) {
  expect_exactly_once(
      spec_from(imported("topology = fly; k = 4; n = 3; routing_function = dest_tag;\n"
                         "num_vcs = 4; traffic = uniform; injection_rate = 1.0;\n"),
                {"run.measure_ns=30000"}));
}

// ---- the folded Clos ---------------------------------------------------------------

// BookSim2 has no folded Clos of YARC routers, but its router runs on
// fabemu's (updown and adaptive on router.switch_allocator islip), with
// the flatfly profile's BookSim cycle it takes BookSim's 4 cycles a hop.
Spec clos_on_islip(const std::string& routing, const std::string& load) {
  return spec_of(
      "clos-fig6-64.yaml",
      {"routing=" + routing, "router.model=input_queued", "router.switch_allocator=islip",
       "router.latency_ns=60.8", "link.wire_ns=30.4", "link.credit_delay_ns=30.4",
       "traffic.slot_units=19", "traffic.load=" + load, "run.progress_s=0"});
}

TEST(BooksimClos, ZeroLoadLatencyIsBooksimsInCycles) {
  for (const char* routing : {"updown", "adaptive"}) {
    SCOPED_TRACE(routing);
    Spec s = clos_on_islip(routing, "0.002");
    s.run.measure_ns = 400000;
    std::vector<Delivery> got;
    run_exactly_once(s, &got);
    ASSERT_GT(got.size(), 500u);
    expect_at_zero_load(got, [](const Delivery& d) {
      // 32 endpoints a rank-1 router: within one, 1 router; else up and down, 3.
      const ps_t routers = d.src / 32 == d.dst / 32 ? 1 : 3;
      EXPECT_EQ(ps_t{d.hops}, routers - 1);
      return (4 * (routers - 1) + 6) * kCyclePs;
    });
  }
}

TEST(BooksimClos, EveryPacketOnceBeyondSaturation) {
  for (const char* routing : {"updown", "adaptive"}) {
    SCOPED_TRACE(routing);
    Spec s = clos_on_islip(routing, "1.0");
    s.run.measure_ns = 30000;
    expect_exactly_once(s);
  }
}

}  // namespace
}  // namespace fabemu
