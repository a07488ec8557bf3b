// The torus family with dimensions of 1 (BookSim2's k-ary 1- and 2-cubes)
// and without wrap links (topology.wrap false: BookSim's mesh), routed by
// BookSim's dim_order (dataplane/routing/torus_booksim_dor.h): on a mesh
// BookSim's dim_order_mesh, X then Y then Z the one way there is, any VC.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/analysis/deadlock.h"
#include "control/topology/registry.h"
#include "control/topology/torus.h"
#include "dataplane/routing/torus_booksim_dor.h"
#include "tests/support/fabric_specs.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

Spec booksim_spec(int kx, int ky, int kz, bool wrap, int vcs) {
  Spec s = t3e_spec(kx, ky, kz);
  s.routing = "dim_order";
  s.topology.wrap = wrap;
  s.vcs.count = vcs;
  return s;
}

int links(const Fabric& f) {
  int n = 0;
  for (const FabricRouter& r : f.routers)
    for (int d = 0; d < kT3eDirections; ++d) n += r.ports[d].connected();
  return n;
}

TEST(TorusMesh, MeshHasNoLinkOutOfALinesEnds) {
  const Fabric f = build_torus(booksim_spec(8, 8, 1, false, 2));
  EXPECT_EQ(f.routers.size(), 64u);
  EXPECT_EQ(links(f), 2 * 2 * 8 * 7);  // 2 dimensions x 2 ways x 8 lines of 7 links
  EXPECT_EQ(f.name, "mesh 8x8x1");
  for (const FabricRouter& r : f.routers) {
    const int x = r.coord[0], y = r.coord[1];
    EXPECT_EQ(r.ports[0].connected(), x < 7) << x << "," << y;  // +X
    EXPECT_EQ(r.ports[3].connected(), x > 0) << x << "," << y;  // -X
    EXPECT_EQ(r.ports[1].connected(), y < 7) << x << "," << y;  // +Y
    EXPECT_EQ(r.ports[4].connected(), y > 0) << x << "," << y;  // -Y
    EXPECT_FALSE(r.ports[2].connected());                       // Z is 1 router
    EXPECT_FALSE(r.ports[5].connected());
  }
  // A two-router line is one link each way, not the torus's two.
  EXPECT_EQ(links(build_torus(booksim_spec(2, 1, 1, false, 2))), 2);
  EXPECT_EQ(links(build_torus(booksim_spec(2, 1, 1, true, 2))), 4);
}

TEST(TorusMesh, BisectionCutsALineOnceAndARingTwice) {
  const TopologyInfo& t = *Registry::get().topology("torus");
  const Spec mesh = booksim_spec(8, 8, 1, false, 2), torus = booksim_spec(8, 8, 1, true, 2);
  const Fabric fm = t.build(mesh), ft = t.build(torus);
  EXPECT_EQ(t.bisection_links(mesh, fm), 8);
  EXPECT_EQ(t.bisection_links(torus, ft), 16);
  // One cut in the middle of X and one of Y, each crossed by 8 links.
  const std::vector<BisectionCut> cuts = t.bisection_cuts(mesh, fm);
  ASSERT_EQ(cuts.size(), 2u);
  for (const BisectionCut& side : cuts) {
    int crossing = 0, high = 0;
    for (const FabricRouter& r : fm.routers) {
      high += side[r.id];
      for (int d = 0; d < kT3eDirections; ++d)
        if (r.ports[d].connected())
          crossing += side[r.id] == 0 && side[r.ports[d].peer_router] == 1;
    }
    EXPECT_EQ(crossing, 8);
    EXPECT_EQ(high, 32);
  }
}

// Every pair of a mesh: X first, then Y, then Z, each the one way, the
// Manhattan distance in all; every hop may take any VC.
TEST(TorusMesh, DimOrderOnAMeshTakesXThenYTheOneWay) {
  const Spec spec = booksim_spec(5, 4, 3, false, 2);
  const Fabric f = build_torus(spec);
  const RoutingInfo& r = *Registry::get().routing("torus", "dim_order");
  EXPECT_TRUE(r.routes_mesh);
  const auto trace = r.make_tracer(spec, f);
  const uint32_t n = static_cast<uint32_t>(f.endpoints.size());
  for (uint32_t s = 0; s < n; ++s)
    for (uint32_t d = 0; d < n; ++d) {
      const auto path = trace(trace_meta(s, d, 2, TrafficClass::request));
      const auto& sc = f.routers[f.endpoints[s].router].coord;
      const auto& dc = f.routers[f.endpoints[d].router].coord;
      int want = 0;
      for (int k = 0; k < 3; ++k) want += std::abs(sc[k] - dc[k]);
      ASSERT_EQ(static_cast<int>(path.size()) - 1, want) << s << " -> " << d;
      int last_dim = 0;
      for (size_t i = 0; i + 1 < path.size(); ++i) {
        const int port = path[i].out_port, dim = port % 3;
        const auto& c = f.routers[path[i].router].coord;
        EXPECT_GE(dim, last_dim) << s << " -> " << d;
        EXPECT_EQ(port < 3, dc[dim] > c[dim]) << "the one way, " << s << " -> " << d;
        last_dim = dim;
      }
      EXPECT_EQ(path.back().out_port, f.endpoints[d].port);
    }
}

// The routing's candidates at one router: on a mesh every VC of the one
// way; on the torus a dateline class's half.
std::vector<RouteCandidate> candidates(bool mesh, uint8_t vcs, int32_t router, uint8_t in_port,
                                       std::array<uint8_t, 3> to) {
  TorusBooksimTables t;
  t.k = {4, 4, 1};
  t.vcs = vcs;
  t.mesh = mesh;
  for (uint8_t x = 0; x < 4; ++x)
    for (uint8_t y = 0; y < 4; ++y) t.coord.push_back({x, y, 0});
  PacketMeta m{};
  m.route[0] = to[0];
  m.route[1] = to[1];
  m.route[2] = to[2];
  m.route[5] = kT3eNoDirection;
  OfflineRouting off;
  RoutingContext ctx = off.ctx();
  RouteCandidates out;
  TorusBooksimDor::route(t, ctx, router, in_port, m, out);
  return {out.c, out.c + out.count};
}

TEST(TorusMesh, DimOrderOnAMeshOffersEveryVcAtEveryHop) {
  // Router (3, 0) (id x * 4 + y = 12) to (0, 2): -X on a mesh (the torus
  // would wrap +X, one hop), VCs 0, 1 and 2.
  const auto mesh = candidates(true, 3, 12, kT3eFirstPePort, {0, 2, 0});
  ASSERT_EQ(mesh.size(), 3u);
  for (uint8_t v = 0; v < 3; ++v) {
    EXPECT_EQ(mesh[v].port, 3) << int(v);
    EXPECT_EQ(mesh[v].vc, v);
  }
  // Going on in Y from -Y's input: +Y, every VC.
  const auto on = candidates(true, 4, 1, 4, {0, 3, 0});
  ASSERT_EQ(on.size(), 4u);
  for (const RouteCandidate& c : on) EXPECT_EQ(c.port, 1);
  // On the torus the same packet wraps, in the class of the packets
  // entering above their destination: the upper half of 4 VCs.
  const auto torus = candidates(false, 4, 12, kT3eFirstPePort, {0, 2, 0});
  ASSERT_EQ(torus.size(), 2u);
  EXPECT_EQ(torus[0].port, 0);
  EXPECT_EQ(torus[0].vc, 2);
  EXPECT_EQ(torus[1].vc, 3);
}

TEST(TorusMesh, TwoDimensionalTorusIsMinimalAndDeadlockFree) {
  for (const bool wrap : {true, false}) {
    for (const auto& dims : {std::array<int, 3>{8, 8, 1}, std::array<int, 3>{5, 1, 1},
                             std::array<int, 3>{1, 4, 3}}) {
      const Spec spec = booksim_spec(dims[0], dims[1], dims[2], wrap, wrap ? 2 : 1);
      const Fabric f = build_torus(spec);
      const DeadlockReport rep = check_deadlock(spec, f);
      EXPECT_TRUE(rep.deadlock_free) << f.name << ": " << rep.description;
      EXPECT_EQ(rep.unroutable, 0u) << f.name;
    }
  }
  // The 8-ary 2-cube's routes are the rings' shorter ways.
  const Spec spec = booksim_spec(8, 8, 1, true, 2);
  const Fabric f = build_torus(spec);
  const auto trace = Registry::get().routing("torus", "dim_order")->make_tracer(spec, f);
  for (uint32_t s = 0; s < 64; s += 7)
    for (uint32_t d = 0; d < 64; ++d) {
      const auto& sc = f.routers[f.endpoints[s].router].coord;
      const auto& dc = f.routers[f.endpoints[d].router].coord;
      int want = 0;
      for (int k = 0; k < 2; ++k) {
        const int a = std::abs(sc[k] - dc[k]);
        want += std::min(a, 8 - a);
      }
      EXPECT_EQ(static_cast<int>(trace(trace_meta(s, d, 2, TrafficClass::request)).size()) - 1,
                want);
    }
}

const char* kMeshYaml =
    "profile: t3e\n"
    "topology:\n"
    "  family: torus\n"
    "  dims: [8, 8, 1]\n"
    "  wrap: false\n"
    "routing: dim_order\n"
    "vcs:\n"
    "  count: 1\n";

TEST(TorusMesh, SpecAcceptsAMeshWithOneVc) {
  const Spec s = spec_test::load(kMeshYaml);
  EXPECT_FALSE(s.topology.wrap);
  EXPECT_EQ(s.topology.dims[2], 1);
}

TEST(TorusMesh, SpecRefusesT3eRoutingsOnAMesh) {
  const SpecError e = spec_test::error_of(kMeshYaml, {"routing=direction_order", "vcs.count=4"});
  EXPECT_EQ(e.field(), "topology.wrap") << e.what();
  spec_test::expect_says(e, "needs the torus's wrap links: use routing dim_order");
}

TEST(TorusMesh, SpecRefusesOneVcOnATorus) {
  const SpecError e = spec_test::error_of(kMeshYaml, {"topology.wrap=true"});
  EXPECT_EQ(e.field(), "vcs.count") << e.what();
  spec_test::expect_says(e, "needs at least 2 VCs");
}

TEST(TorusMesh, SpecRefusesADimensionOfNone) {
  const SpecError e = spec_test::error_of(kMeshYaml, {"topology.dims=[8,0,1]"});
  EXPECT_EQ(e.field(), "topology.dims[1]") << e.what();
  spec_test::expect_says(e, "at least 1 router");
}

}  // namespace
}  // namespace fabemu
