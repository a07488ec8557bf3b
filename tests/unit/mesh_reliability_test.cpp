// The proposal's reliability standard on small meshes: the bitset
// connectivity check (control/topology/mesh_reach.h) against a plain
// search per pair, the fast programming of the turn lists (deadlock free,
// one dead link leaves every pair connected), the run's routes around
// faults (mesh_routes.h) against mesh_source_route, and the analysis
// (control/analysis/mesh_reliability.h) the same for a seed at any thread
// count.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cstdio>
#include <random>

#include "control/analysis/mesh_reliability.h"
#include "control/topology/mesh_reach.h"
#include "control/topology/mesh_routes.h"

namespace fabemu {
namespace {

const MeshShape kShapes[] = {MeshShape{{4, 4, 4}}, MeshShape{{6, 5, 4}}};

// Whether any legal route leads from s to d: a search over (router, way
// in) states that knows nothing of channels or bitsets.
bool legal_route_exists(const MeshShape& m, const MeshFaults& f, const std::vector<MeshTurns>& at,
                        int s, int d) {
  if (f.routers.count(s) || f.routers.count(d)) return false;
  if (s == d) return true;
  std::vector<uint8_t> seen(size_t(m.routers()) * 7, 0);
  std::vector<int> stack{s * 7 + 6};
  while (!stack.empty()) {
    const int st = stack.back(), r = st / 7, in = st % 7;
    stack.pop_back();
    if (r == d) return true;
    for (int o = 0; o < 6; o++) {
      if (in != 6 && in != o && !at[size_t(r)].allowed[in][o]) continue;
      const int n = m.neighbour(r, static_cast<MeshDir>(o));
      if (n < 0 || f.routers.count(n) || f.link_dead(r, static_cast<MeshDir>(o))) continue;
      if (!seen[size_t(n) * 7 + size_t(o)]) {
        seen[size_t(n) * 7 + size_t(o)] = 1;
        stack.push_back(n * 7 + o);
      }
    }
  }
  return false;
}

MeshFaults random_faults(const MeshShape& m, std::mt19937& rng, int links, int routers) {
  MeshFaults f = mesh_fault_pattern(m, false, links, rng(), 0);
  const MeshFaults dead = mesh_fault_pattern(m, true, routers, rng(), 0);
  f.routers = dead.routers;
  return f;
}

// Whether the XYZ route from s to d is alive (as mesh_source_route takes it).
bool xyz_alive(const MeshShape& m, const MeshFaults& f, int s, int d) {
  const auto a = m.coord(s), b = m.coord(d);
  int r = s;
  for (int dim = 0; dim < 3; dim++)
    for (int c = a[dim]; c != b[dim]; c += b[dim] > a[dim] ? 1 : -1) {
      const MeshDir dir = static_cast<MeshDir>(2 * dim + (b[dim] > a[dim] ? 0 : 1));
      const int n = m.neighbour(r, dir);
      if (f.link_dead(r, dir) || f.routers.count(n)) return false;
      r = n;
    }
  return true;
}

int turns_of(const MeshRoute& r) {
  int t = 0;
  for (uint32_t i = 1; i < r.segments; i++) t += r.seg[i].dir != r.seg[i - 1].dir;
  return t;
}

TEST(MeshReliability, ConnectivityCheckAgreesWithASearchPerPair) {
  std::mt19937 rng(7);
  for (const MeshShape& m : kShapes)
    for (int trial = 0; trial < 6; trial++) {
      const MeshFaults f = random_faults(m, rng, 1 + trial, trial % 3);
      for (const bool programmed : {false, true}) {
        const std::vector<MeshTurns> at =
            programmed ? program_turn_lists(m, f, xyz_turns()).at
                       : std::vector<MeshTurns>(size_t(m.routers()), fault_turns());
        const MeshLinks links(m, f);
        const MeshReach reach(links, at);
        ASSERT_TRUE(reach.acyclic());
        uint64_t missing = 0;
        for (int s = 0; s < m.routers(); s++)
          for (int d = 0; d < m.routers(); d++) {
            if (f.routers.count(s) || f.routers.count(d)) continue;
            const bool legal = legal_route_exists(m, f, at, s, d);
            ASSERT_EQ(reach.connected(s, d), legal) << s << " -> " << d << " trial " << trial;
            missing += !legal;
            if (mesh_source_route(m, f, at, s, d)) {
              EXPECT_TRUE(legal);
            }
          }
        EXPECT_EQ(reach.disconnected(), missing);
        uint64_t listed = 0;
        reach.for_each_disconnected([&](int s, int d) {
          listed++;
          EXPECT_FALSE(legal_route_exists(m, f, at, s, d));
        });
        EXPECT_EQ(listed, missing);
        EXPECT_EQ(mesh_disconnected_pairs(m, f, at), missing);
      }
    }
}

// Turns admitted one by one keep the bitsets what a fresh pass computes,
// and turns that would close a cycle are refused.
TEST(MeshReliability, AdmittedTurnsKeepTheReachExactAndAcyclic) {
  std::mt19937 rng(11);
  const MeshShape m{{5, 4, 3}};
  const MeshFaults f = random_faults(m, rng, 3, 1);
  const MeshLinks links(m, f);
  MeshReach reach(links, std::vector<MeshTurns>(size_t(m.routers()), xyz_turns()));
  int refused = 0;
  for (int i = 0; i < 400; i++) {
    const int r = int(rng() % uint32_t(m.routers())), from = int(rng() % 6), to = int(rng() % 6);
    if (from / 2 == to / 2) continue;
    refused += !reach.admit(r, from, to);
  }
  EXPECT_GT(refused, 0);
  EXPECT_TRUE(mesh_turns_deadlock_free(m, f, reach.lists()));
  const MeshReach fresh(links, reach.lists());
  for (int s = 0; s < m.routers(); s++)
    for (int d = 0; d < m.routers(); d++) ASSERT_EQ(reach.connected(s, d), fresh.connected(s, d));
  EXPECT_FALSE(MeshReach(links, std::vector<MeshTurns>(size_t(m.routers()), all_turns())).acyclic());
}

// "For hard failure of one link: System and all applications continue
// running": every single dead link of both meshes, and the dead routers.
TEST(MeshReliability, OneDeadLinkLeavesEveryPairConnected) {
  for (const MeshShape& m : kShapes) {
    int links = 0, whole_routers = 0;
    uint32_t added = 0;
    for (int r = 0; r < m.routers(); r++) {
      for (MeshDir d : {MeshDir::xp, MeshDir::yp, MeshDir::zp}) {
        if (m.neighbour(r, d) < 0) continue;
        MeshFaults f;
        f.kill_link(m, r, d);
        const MeshTurnLists lists = program_turn_lists(m, f, xyz_turns());
        EXPECT_EQ(lists.unroutable, 0u) << "link " << r << " dir " << int(d);
        EXPECT_TRUE(mesh_turns_deadlock_free(m, f, lists.at));
        added += lists.added;
        links++;
      }
      MeshFaults g;
      g.routers.insert(r);
      const MeshTurnLists lists = program_turn_lists(m, g, xyz_turns());
      EXPECT_TRUE(mesh_turns_deadlock_free(m, g, lists.at));
      whole_routers += lists.unroutable == 0;
    }
    std::printf("%dx%dx%d: %d single dead links, every pair connected, %u turns admitted; %d of "
                "%d single dead routers leave every pair of survivors connected\n",
                m.k[0], m.k[1], m.k[2], links, added, whole_routers, m.routers());
  }
}

// From the fault model instead of XYZ, a dead X link defeats the lists:
// any way round it turns into -X (or +X) somewhere, and every such turn
// closes a cycle of four turns the model allows.
TEST(MeshReliability, FromTheFaultModelADeadXLinkInTheMiddleCannotBeRoutedAround) {
  const MeshShape m{{6, 5, 4}};
  MeshFaults f;
  f.kill_link(m, m.id(2, 2, 1), MeshDir::xp);
  const MeshTurnLists lists = program_turn_lists(m, f, fault_turns());
  EXPECT_GT(lists.unroutable, 0u);
  EXPECT_EQ(program_turn_lists(m, f, xyz_turns()).unroutable, 0u);
}

TEST(MeshReliability, RoutesAroundFaultsAgreeWithMeshSourceRoute) {
  std::mt19937 rng(5);
  for (const MeshShape& m : kShapes)
    for (int trial = 0; trial < 5; trial++) {
      const MeshFaults f = random_faults(m, rng, 2 + trial, trial % 2 ? 2 : 0);
      const std::vector<MeshTurns> at = program_turn_lists(m, f, xyz_turns()).at;
      MeshRouteWork work;
      const std::vector<MeshException> routes = mesh_exceptions(m, f, at, &work);
      EXPECT_GT(work.forward_searches + work.reverse_searches, 0u);
      size_t i = 0;
      for (int s = 0; s < m.routers(); s++)
        for (int d = 0; d < m.routers(); d++) {
          if (s == d || f.routers.count(s) || f.routers.count(d) || xyz_alive(m, f, s, d)) continue;
          ASSERT_LT(i, routes.size());
          const MeshException& x = routes[i++];
          ASSERT_EQ(x.src_router, uint32_t(s));
          ASSERT_EQ(x.dst_router, uint32_t(d));
          const auto want = mesh_source_route(m, f, at, s, d);
          ASSERT_EQ(x.routable, want.has_value()) << s << " -> " << d;
          if (!want) continue;
          EXPECT_EQ(x.route.hops(), want->hops());
          EXPECT_EQ(turns_of(x.route), turns_of(*want));
          const auto walk = mesh_walk(m, s, x.route);
          ASSERT_TRUE(walk);
          EXPECT_EQ(walk->back(), d);
          int v = s;
          for (uint32_t g = 0; g < x.route.segments; g++) {
            if (g > 0 && x.route.seg[g].dir != x.route.seg[g - 1].dir) {
              EXPECT_TRUE(at[size_t(v)].allowed[int(x.route.seg[g - 1].dir)][int(x.route.seg[g].dir)]);
            }
            for (uint32_t h = 0; h < x.route.seg[g].hops; h++) {
              EXPECT_FALSE(f.link_dead(v, x.route.seg[g].dir));
              v = m.neighbour(v, x.route.seg[g].dir);
              EXPECT_FALSE(f.routers.count(v));
            }
          }
        }
      EXPECT_EQ(i, routes.size()) << "only pairs whose XYZ route meets a fault";
    }
}

// The header's six segments: after programming, one dead link or one
// dead router leaves every pair of survivors a legal route of at most six
// segments (every one on 6x5x4, a sample on 8x8x8), deadlock free.
TEST(MeshReliability, OneFaultLeavesEveryPairARouteOfAtMostSixSegments) {
  for (const MeshShape m : {MeshShape{{6, 5, 4}}, MeshShape{{8, 8, 8}}}) {
    const int step = m.routers() > 200 ? 37 : 1;
    int patterns = 0;
    for (int i = 0; i < 4 * m.routers(); i += step) {
      MeshFaults f;
      if (i < 3 * m.routers()) {
        const MeshDir d = static_cast<MeshDir>(2 * (i % 3));
        if (m.neighbour(i / 3, d) < 0) continue;
        f.kill_link(m, i / 3, d);
      } else {
        f.routers.insert(i - 3 * m.routers());
      }
      patterns++;
      const MeshTurnLists lists = program_turn_lists(m, f, xyz_turns());
      EXPECT_EQ(lists.unroutable, 0u) << "pattern " << i;
      EXPECT_TRUE(mesh_turns_deadlock_free(m, f, lists.at)) << "pattern " << i;
      size_t too_long = 0;
      for (const MeshException& x : mesh_exceptions(m, f, lists.at)) {
        too_long += !x.routable;
        EXPECT_LE(x.route.segments, kMeshSegments);
      }
      EXPECT_EQ(too_long, 0u) << "pattern " << i;
    }
    std::printf("%dx%dx%d: %d single faults, every pair a route of at most six segments\n",
                m.k[0], m.k[1], m.k[2], patterns);
  }
}

TEST(MeshReliability, FaultPatternsAreDistinctAndSeeded) {
  const MeshShape m{{4, 4, 4}};
  const MeshFaults a = mesh_fault_pattern(m, false, 10, 3, 0);
  EXPECT_EQ(a.links.size(), 20u) << "ten links, both ends";
  EXPECT_EQ(mesh_fault_pattern(m, false, 10, 3, 0).links, a.links);
  EXPECT_NE(mesh_fault_pattern(m, false, 10, 3, 1).links, a.links);
  EXPECT_EQ(mesh_fault_pattern(m, true, 10, 3, 0).routers.size(), 10u);
}

TEST(MeshReliability, TheAnalysisIsTheSameForASeedAtAnyThreadCount) {
  MeshReliabilityOptions o;
  o.dims = {4, 4, 4};
  o.patterns = 40;
  o.seed = 9;
  o.dead_links = 6;
  o.dead_routers = 3;
  o.routes = true;
  std::vector<MeshReliabilityRow> one, two;
  tbb::task_arena(1).execute([&] { one = run_mesh_reliability(o); });
  tbb::task_arena(2).execute([&] { two = run_mesh_reliability(o); });
  ASSERT_EQ(one.size(), 4u) << "1 and 6 links, 1 and 3 routers";
  ASSERT_EQ(two.size(), one.size());
  for (size_t i = 0; i < one.size(); i++) {
    EXPECT_EQ(one[i].kind, two[i].kind);
    EXPECT_EQ(one[i].faults, two[i].faults);
    EXPECT_EQ(one[i].connected, two[i].connected);
    EXPECT_EQ(one[i].disconnected_mean, two[i].disconnected_mean);
    EXPECT_EQ(one[i].added_mean, two[i].added_mean);
    EXPECT_EQ(one[i].too_long_mean, two[i].too_long_mean);
    EXPECT_EQ(one[i].deadlock_free, o.patterns);
  }
  EXPECT_EQ(one[0].kind, "links");
  EXPECT_EQ(one[0].faults, 1);
  EXPECT_EQ(one[0].connected, o.patterns) << "one dead link leaves every pair connected";
  EXPECT_EQ(one[0].routable, o.patterns);
}

}  // namespace
}  // namespace fabemu
