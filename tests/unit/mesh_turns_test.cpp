// Source routes on the 3D mesh under the turn model
// (control/topology/mesh_turns.h): XYZ inside the fault model, both free of
// deadlock, XYZ wherever it is alive, the shortest legal detour around
// faults, and the proposal's reliability standard for one dead link
// ("one dead link leaves every pair connected by a legal route").
#include "control/topology/mesh_turns.h"

#include <gtest/gtest.h>

#include "control/topology/mesh_segments.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace fabemu {
namespace {

int manhattan(const MeshShape& m, int a, int b) {
  const auto p = m.coord(a), q = m.coord(b);
  return std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2]);
}

// Every turn of a route is one the set allows.
bool legal(const MeshRoute& r, const MeshTurns& t) {
  for (uint32_t i = 1; i < r.segments; i++) {
    const int a = static_cast<int>(r.seg[i - 1].dir), b = static_cast<int>(r.seg[i].dir);
    if (a != b && !t.allowed[a][b]) return false;
  }
  return true;
}

// Calls f(router, direction, faults) with each link of m dead in turn (its
// +X, +Y or +Z side named); returns how many links there are.
template <class F>
int for_each_dead_link(const MeshShape& m, F&& f) {
  int links = 0;
  for (int r = 0; r < m.routers(); r++)
    for (MeshDir d : {MeshDir::xp, MeshDir::yp, MeshDir::zp}) {
      if (m.neighbour(r, d) < 0) continue;
      links++;
      MeshFaults dead;
      dead.kill_link(m, r, d);
      f(r, d, dead);
    }
  return links;
}

TEST(MeshTurns, XyzIsASubsetOfTheFaultModelAndBothAreDeadlockFree) {
  for (const bool xp : {false, true})
    for (const bool yp : {false, true}) {
      EXPECT_TRUE(turns_contain(fault_turns(xp, yp), xyz_turns()));
      for (const MeshShape m : {MeshShape{{4, 4, 4}}, MeshShape{{5, 3, 4}}})
        EXPECT_TRUE(mesh_turns_deadlock_free(m, fault_turns(xp, yp))) << xp << yp;
    }
  EXPECT_FALSE(turns_contain(xyz_turns(), fault_turns())) << "the fault model allows more";
  for (const MeshShape m : {MeshShape{{4, 4, 4}}, MeshShape{{5, 3, 4}}, MeshShape{{8, 8, 8}}}) {
    EXPECT_TRUE(mesh_turns_deadlock_free(m, xyz_turns()));
    EXPECT_TRUE(mesh_turns_deadlock_free(m, fault_turns()));
    EXPECT_FALSE(mesh_turns_deadlock_free(m, all_turns())) << "the check finds cycles";
  }
  // A turn the fault model forbids, allowed, closes a cycle.
  MeshTurns t = fault_turns();
  t.allowed[static_cast<int>(MeshDir::yp)][static_cast<int>(MeshDir::xm)] = true;
  EXPECT_FALSE(mesh_turns_deadlock_free(MeshShape{{3, 3, 1}}, t));
}

TEST(MeshTurns, HealthyRoutesAreXyz) {
  const MeshShape m{{27, 16, 24}};  // the proposal's machine
  const MeshFaults none;
  const auto r = mesh_source_route(m, none, fault_turns(), m.id(0, 0, 0), m.id(26, 15, 23));
  ASSERT_TRUE(r);
  // 26 X hops in two segments (16 + 10), 15 Y, 23 Z (16 + 7): corner to corner.
  ASSERT_EQ(r->segments, 5u);
  EXPECT_EQ(r->seg[0].dir, MeshDir::xp);
  EXPECT_EQ(r->seg[0].hops, 16);
  EXPECT_EQ(r->seg[1].hops, 10);
  EXPECT_EQ(r->seg[2].dir, MeshDir::yp);
  EXPECT_EQ(r->seg[4].dir, MeshDir::zp);
  EXPECT_EQ(r->hops(), 26u + 15 + 23);
  const auto walk = mesh_walk(m, m.id(0, 0, 0), *r);
  ASSERT_TRUE(walk);
  EXPECT_EQ(walk->back(), m.id(26, 15, 23));
}

// Around faults: a legal route (its turns allowed), no dead link or router
// on it, ending at the destination; the shortest legal one.
TEST(MeshTurns, DetoursAroundFaultsAreLegalAndShortest) {
  const MeshShape m{{4, 4, 4}};
  MeshFaults f;
  f.kill_link(m, m.id(1, 0, 0), MeshDir::xp);  // on 0,0,0 -> 3,0,0's XYZ route
  const auto r = mesh_source_route(m, f, fault_turns(), m.id(0, 0, 0), m.id(3, 0, 0));
  ASSERT_TRUE(r);
  EXPECT_TRUE(legal(*r, fault_turns()));
  EXPECT_EQ(r->hops(), 5u) << "two hops more than the straight line";
  const auto walk = mesh_walk(m, m.id(0, 0, 0), *r);
  ASSERT_TRUE(walk);
  EXPECT_EQ(walk->back(), m.id(3, 0, 0));
  for (size_t i = 1; i < walk->size(); i++)
    EXPECT_FALSE((*walk)[i - 1] == m.id(1, 0, 0) && (*walk)[i] == m.id(2, 0, 0));
  // Going -X must come first: a destination behind a dead -X link on the
  // only row it can be reached by -X first has no legal route.
  MeshFaults g;
  const MeshShape line{{3, 1, 1}};
  g.kill_link(line, line.id(1, 0, 0), MeshDir::xm);
  EXPECT_FALSE(mesh_source_route(line, g, fault_turns(), line.id(2, 0, 0), line.id(0, 0, 0)));
  // A dead router is neither source, destination nor on the way.
  MeshFaults h;
  h.routers.insert(m.id(1, 1, 1));
  EXPECT_FALSE(mesh_source_route(m, h, fault_turns(), m.id(1, 1, 1), 0));
  const auto around = mesh_source_route(m, h, fault_turns(), m.id(0, 1, 1), m.id(3, 1, 1));
  ASSERT_TRUE(around);
  const auto around_walk = mesh_walk(m, m.id(0, 1, 1), *around);
  ASSERT_TRUE(around_walk);
  for (int v : *around_walk) EXPECT_NE(v, m.id(1, 1, 1));
}

// The proposal's standard, "one dead link leaves every pair connected by
// a legal route", is beyond one turn list for every router: a dead X link
// at a mesh's edge leaves a pair that needs its X direction first on one
// side and last on the other (router 1 reaches router 0 only by -X first
// under -X-first models, router 0 router 1 only by +X under +X-first).
// Where one of the four models does connect every pair, every route is
// legal and alive. (The per-router lists of allowed turns the proposal
// describes do route around every one: the next test.)
TEST(MeshTurns, OneTurnListForEveryRouterCannotRouteAroundEveryDeadLink) {
  const MeshShape m{{4, 3, 3}};
  const int n = m.routers();
  MeshFaults corner;
  corner.kill_link(m, m.id(0, 0, 0), MeshDir::xp);
  EXPECT_FALSE(choose_fault_turns(m, corner));
  int links = 0, connected = 0;
  links = for_each_dead_link(m, [&](int r, MeshDir d, const MeshFaults& f) {
      const auto turns = choose_fault_turns(m, f);
      if (!turns) {
        EXPECT_EQ(d, MeshDir::xp) << "only X links defeat every model (router " << r << ")";
        return;
      }
      connected++;
      for (int s = 0; s < n; s++)
        for (int t = 0; t < n; t++) {
          if (s == t) continue;
          const auto route = mesh_source_route(m, f, *turns, s, t);
          ASSERT_TRUE(route);
          EXPECT_TRUE(legal(*route, *turns));
          EXPECT_GE(route->hops(), uint32_t(manhattan(m, s, t)));
          const auto walk = mesh_walk(m, s, *route);
          ASSERT_TRUE(walk);
          EXPECT_EQ(walk->back(), t);
          for (size_t i = 1; i < walk->size(); i++) {
            const bool on_dead = ((*walk)[i - 1] == r && (*walk)[i] == m.neighbour(r, d)) ||
                                 ((*walk)[i] == r && (*walk)[i - 1] == m.neighbour(r, d));
            EXPECT_FALSE(on_dead);
          }
        }
  });
  EXPECT_EQ(links, 3 * 3 * 3 + 4 * 2 * 3 + 4 * 3 * 2);
  EXPECT_GT(connected, 0);
  EXPECT_LT(connected, links);
  std::printf("4x3x3: %d of %d single dead links leave every pair connected under one of the "
              "four models\n", connected, links);
}

// Each turn of a route is allowed at the router where it turns.
bool legal_at(const MeshShape& m, int src, const MeshRoute& r, const std::vector<MeshTurns>& at) {
  int v = src;
  for (uint32_t i = 0; i < r.segments; i++) {
    for (uint32_t h = 0; h < r.seg[i].hops; h++) v = m.neighbour(v, r.seg[i].dir);
    if (i + 1 < r.segments) {
      const int a = static_cast<int>(r.seg[i].dir), b = static_cast<int>(r.seg[i + 1].dir);
      if (a != b && !at[size_t(v)].allowed[a][b]) return false;
    }
  }
  return true;
}

// The proposal's standard met with per-router turn lists: every single
// dead link of a 4x3x3 mesh, the lists programmed from XYZ's turns (from
// the far more permissive -X-first model, the first turn into -X a route
// around an edge link needs closes a cycle); every pair of routers has a
// legal route around it, and the lists stay free of deadlock with every
// admitted turn.
TEST(MeshTurns, PerRouterListsLeaveEveryPairConnectedAroundOneDeadLink) {
  const MeshShape m{{4, 3, 3}};
  const int n = m.routers();
  uint32_t added = 0;
  int links = 0;
  links = for_each_dead_link(m, [&](int r, MeshDir d, const MeshFaults& f) {
      const MeshTurnLists lists = program_turn_lists(m, f, xyz_turns());
      EXPECT_EQ(lists.unroutable, 0u) << "link " << r << " dir " << int(d);
      EXPECT_TRUE(mesh_turns_deadlock_free(m, f, lists.at)) << "link " << r << " dir " << int(d);
      added += lists.added;
      for (int s = 0; s < n; s++)
        for (int t = 0; t < n; t++) {
          if (s == t) continue;
          const auto route = mesh_source_route(m, f, lists.at, s, t);
          ASSERT_TRUE(route) << s << " -> " << t;
          EXPECT_TRUE(legal_at(m, s, *route, lists.at));
          const auto walk = mesh_walk(m, s, *route);
          ASSERT_TRUE(walk);
          EXPECT_EQ(walk->back(), t);
        }
  });
  std::printf("4x3x3: every one of %d single dead links routed around; %u turns admitted in all\n",
              links, added);
  // A dead router: the greedy programming (pairs in order, each turn kept
  // once admitted) may leave some survivors without a legal route.
  uint32_t whole = 0, unroutable = 0;
  for (int dead = 0; dead < n; dead++) {
    MeshFaults f;
    f.routers.insert(dead);
    const MeshTurnLists lists = program_turn_lists(m, f, xyz_turns());
    EXPECT_TRUE(mesh_turns_deadlock_free(m, f, lists.at)) << "router " << dead;
    whole += lists.unroutable == 0;
    unroutable += lists.unroutable;
  }
  std::printf("4x3x3: %u of %d single dead routers leave every pair of survivors a route; %u "
              "of %d ordered pairs unroutable in all\n",
              whole, n, unroutable, n * (n - 1) * (n - 2));
  EXPECT_GT(whole, 0u);
  EXPECT_LT(unroutable, uint32_t(n * (n - 1) * (n - 2)) / 100) << "under 1% of the pairs";
  // Healthy, nothing is added: XYZ serves every pair.
  const MeshTurnLists healthy = program_turn_lists(m, MeshFaults{}, xyz_turns());
  EXPECT_EQ(healthy.added, 0u);
  EXPECT_EQ(healthy.unroutable, 0u);
}

// Per destination, the best (hops, turns) of a legal route of at most six
// segments from s ((-1, -1): none), by a search one hop at a time over
// (router, way in, segments, hops in the segment): nothing of the segment
// search's layers or sliding minimum.
std::vector<std::pair<int, int>> brute_segments(const MeshShape& m, const MeshFaults& f,
                                                const std::vector<MeshTurns>& at, int s) {
  std::vector<std::pair<int, int>> out(size_t(m.routers()), {-1, -1});
  if (f.routers.count(s)) return out;
  const auto id = [](int r, int in, int segs, int h) {
    return size_t(((r * 7 + in) * 7 + segs) * 17 + h);
  };
  std::vector<int> turns(size_t(m.routers()) * 7 * 7 * 17, -1), first(turns.size(), -1);
  std::vector<std::array<int, 4>> cur{{s, 6, 0, 0}}, next;
  turns[id(s, 6, 0, 0)] = 0, first[id(s, 6, 0, 0)] = 0;
  for (int hops = 0; !cur.empty(); hops++) {
    for (const auto& [r, in, segs, h] : cur) {
      const int t = turns[id(r, in, segs, h)];
      auto& best = out[size_t(r)];
      if (best.first < 0) best = {hops, t};
      else if (best.first == hops) best.second = std::min(best.second, t);
    }
    next.clear();
    for (const auto& [r, in, segs, h] : cur) {
      const int t = turns[id(r, in, segs, h)];
      for (int o = 0; o < 6; o++) {
        if (in != 6 && (o == (in ^ 1) || (o != in && !at[size_t(r)].allowed[in][o]))) continue;
        const int n = m.neighbour(r, static_cast<MeshDir>(o));
        if (n < 0 || f.routers.count(n) || f.link_dead(r, static_cast<MeshDir>(o))) continue;
        const bool more = o == in && h < int(kMeshMaxSegmentHops);
        const int segs2 = more ? segs : segs + 1, h2 = more ? h + 1 : 1;
        if (segs2 > int(kMeshSegments)) continue;
        const int t2 = t + (in != 6 && o != in);
        const size_t x = id(n, o, segs2, h2);
        if (first[x] < 0) {
          first[x] = hops + 1, turns[x] = t2;
          next.push_back({n, o, segs2, h2});
        } else if (first[x] == hops + 1) {
          turns[x] = std::min(turns[x], t2);
        }
      }
    }
    std::swap(cur, next);
  }
  return out;
}

TEST(MeshTurns, SegmentSearchAgreesWithABruteForce) {
  std::mt19937 rng(7);
  // 19 x 3 x 2: straight runs over 16 hops take two segments.
  for (const MeshShape m : {MeshShape{{4, 3, 3}}, MeshShape{{5, 4, 3}}, MeshShape{{19, 3, 2}}})
    for (int trial = 0; trial < 6; trial++) {
      MeshFaults f;
      for (int i = 0; i < 2 + trial; i++)
        f.kill_link(m, int(rng() % uint32_t(m.routers())), static_cast<MeshDir>(rng() % 6));
      if (trial % 2) f.routers.insert(int(rng() % uint32_t(m.routers())));
      // Lists: XYZ, or programmed, or random turns (may deadlock: the
      // search does not care).
      std::vector<MeshTurns> at = program_turn_lists(m, f, xyz_turns()).at;
      if (trial >= 4)
        for (MeshTurns& t : at)
          for (int a = 0; a < 6; a++)
            for (int b = 0; b < 6; b++) t.allowed[a][b] |= a != b && (a ^ 1) != b && rng() % 3 == 0;
      const MeshLinks links(m, f);
      std::vector<std::vector<std::pair<int, int>>> brute;
      for (int src = 0; src < m.routers(); src++) brute.push_back(brute_segments(m, f, at, src));
      for (int root = 0; root < m.routers(); root++)
        for (const bool reverse : {false, true}) {
          const MeshSegmentSearch search(links, at, root, reverse);
          for (int v = 0; v < m.routers(); v++) {
            const int src = reverse ? v : root, dst = reverse ? root : v;
            const auto want = brute[size_t(src)][size_t(dst)];
            const auto got = search.route(v);
            ASSERT_EQ(got.has_value(), want.first >= 0) << src << " -> " << dst;
            if (!got) continue;
            EXPECT_EQ(int(got->hops()), want.first) << src << " -> " << dst;
            int turns = 0;
            for (uint32_t i = 1; i < got->segments; i++)
              turns += got->seg[i].dir != got->seg[i - 1].dir;
            EXPECT_EQ(turns, want.second) << src << " -> " << dst;
            EXPECT_TRUE(legal_at(m, src, *got, at));
            int at_router = src;
            for (uint32_t g = 0; g < got->segments; g++)
              for (uint32_t h = 0; h < got->seg[g].hops; h++) {
                at_router = links.next[size_t(at_router) * 6 + size_t(got->seg[g].dir)];
                ASSERT_GE(at_router, 0) << "a dead or missing hop";
              }
            EXPECT_EQ(at_router, dst);
          }
        }
    }
}

}  // namespace
}  // namespace fabemu
