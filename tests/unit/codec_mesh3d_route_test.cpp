// The 3D mesh's source route (dataplane/codec/mesh3d_route.h): Figure 12's
// first word bit by bit, the state field and its complement, a router's
// step along the route.
#include "dataplane/codec/mesh3d_route.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace fabemu {
namespace {

MeshRoute random_route(std::mt19937& g) {
  MeshRoute r;
  const uint32_t n = g() % (kMeshSegments + 1);
  for (uint32_t i = 0; i < n; i++)
    EXPECT_TRUE(r.add(static_cast<MeshDir>(g() % 6), 1 + g() % kMeshMaxSegmentHops));
  return r;
}

TEST(Mesh3dRoute, Figure12BitPositions) {
  MeshRoute r;
  ASSERT_TRUE(r.add(MeshDir::xp, 5));   // Dir0 <7:9> = 0, Dist0 <10:13> = 4
  ASSERT_TRUE(r.add(MeshDir::zm, 16));  // Dir1 <14:16> = 5, Dist1 <17:20> = 15
  Word80 w0, w1;
  mesh_encode(r, 0x5555555, &w0, &w1);
  EXPECT_EQ(w0.get(0, 3), 0u) << "Route";
  EXPECT_EQ(w0.get(3, 4), 0u) << "HowFar";
  EXPECT_EQ(w0.get(7, 3), 0u);
  EXPECT_EQ(w0.get(10, 4), 4u);
  EXPECT_EQ(w0.get(14, 3), 5u);
  EXPECT_EQ(w0.get(17, 4), 15u);
  for (uint32_t i = 2; i < kMeshSegments; i++) EXPECT_EQ(w0.get(7 + 7 * i, 3), 7u) << "unused: end";
  EXPECT_EQ(w0.get(49, 31), 0x5555555u) << "Etc. <49:79>";
  EXPECT_EQ(w1.get(0, 7), 0x7fu) << "the complement of the state";
}

TEST(Mesh3dRoute, RoundTrip) {
  std::mt19937 g(7);
  for (int k = 0; k < 10000; k++) {
    const MeshRoute r = random_route(g);
    const uint32_t payload = g() & 0x7fffffff;
    Word80 w0, w1;
    mesh_encode(r, payload, &w0, &w1);
    MeshRoute back;
    ASSERT_TRUE(mesh_decode_route(w0, &back));
    ASSERT_EQ(back.segments, r.segments);
    for (uint32_t i = 0; i < r.segments; i++) {
      EXPECT_EQ(back.seg[i].dir, r.seg[i].dir);
      EXPECT_EQ(back.seg[i].hops, r.seg[i].hops);
    }
    EXPECT_EQ(w0.get(kMeshPayloadFirst, kMeshPayloadBits), payload);
    MeshRouteState s;
    EXPECT_TRUE(mesh_read_state(w0, w1, &s));
    EXPECT_EQ(s, (MeshRouteState{0, 0}));
  }
}

TEST(Mesh3dRoute, RoutesThatCannotBeWritten) {
  MeshRoute r;
  EXPECT_FALSE(r.add(MeshDir::xp, 0));
  EXPECT_FALSE(r.add(MeshDir::xp, 17)) << "a segment goes at most 16 hops";
  EXPECT_FALSE(r.add(MeshDir::end, 3));
  for (uint32_t i = 0; i < kMeshSegments; i++) EXPECT_TRUE(r.add(MeshDir::yp, 1));
  EXPECT_FALSE(r.add(MeshDir::yp, 1)) << "six segments at most";
  Word80 w0, w1;
  mesh_encode(r, 0, &w0, &w1);
  MeshRoute back;
  Word80 bad = w0;
  bad.set(7 + 7 * 2, 3, 6);
  EXPECT_FALSE(mesh_decode_route(bad, &back)) << "direction code 6";
  bad = w0;
  bad.set(7 + 7 * 1, 3, 7);
  EXPECT_FALSE(mesh_decode_route(bad, &back)) << "a segment after the end";
}

// Every error in the 14 state and complement bits is found unless it hits
// a state bit and its complement alike (exhaustive: 2^14 patterns); so
// every error of an odd number of those bits, and every single-bit error.
TEST(Mesh3dRoute, TheComplementCatchesStateErrors) {
  MeshRoute r;
  ASSERT_TRUE(r.add(MeshDir::xp, 3));
  ASSERT_TRUE(r.add(MeshDir::ym, 2));
  for (const MeshRouteState st : {MeshRouteState{0, 0}, MeshRouteState{0, 2}, MeshRouteState{1, 1}}) {
    Word80 w0, w1;
    mesh_encode(r, 0, &w0, &w1);
    mesh_write_state(st, &w0, &w1);
    uint32_t undetected = 0;
    for (uint32_t e = 1; e < (1u << 14); e++) {
      Word80 a = w0, b = w1;
      for (uint32_t i = 0; i < 7; i++) {
        if (e >> i & 1) a.flip(i);
        if (e >> (7 + i) & 1) b.flip(i);
      }
      MeshRouteState got;
      const bool ok = mesh_read_state(a, b, &got);
      const bool same_on_both = (e & 0x7f) == (e >> 7);
      EXPECT_EQ(ok, same_on_both) << std::hex << e;
      if (ok) undetected++;
      if (__builtin_popcount(e) % 2) {
        EXPECT_FALSE(ok) << std::hex << e;
      }
    }
    EXPECT_EQ(undetected, 127u);  // 2^7 - 1 patterns hit a bit and its complement alike
  }
}

// A router's step: the route's directions in order, the state the next
// router reads (always matched by its complement), delivery after the
// last hop; states no route can be in are invalid.
TEST(Mesh3dRoute, StepsFollowTheSegments) {
  std::mt19937 g(11);
  for (int k = 0; k < 2000; k++) {
    const MeshRoute r = random_route(g);
    Word80 w0, w1;
    mesh_encode(r, 0, &w0, &w1);
    std::vector<MeshDir> path;
    for (uint32_t guard = 0; guard < 200; guard++) {
      MeshRouteState s;
      ASSERT_TRUE(mesh_read_state(w0, w1, &s));
      const MeshStep st = mesh_step(r, s);
      ASSERT_NE(st.kind, MeshStep::Kind::invalid);
      if (st.kind == MeshStep::Kind::deliver) break;
      path.push_back(st.dir);
      mesh_write_state(st.next, &w0, &w1);
    }
    std::vector<MeshDir> want;
    for (uint32_t i = 0; i < r.segments; i++) want.insert(want.end(), r.seg[i].hops, r.seg[i].dir);
    EXPECT_EQ(path, want);
    EXPECT_EQ(path.size(), r.hops());
  }
  MeshRoute r;
  ASSERT_TRUE(r.add(MeshDir::zp, 4));
  EXPECT_EQ(mesh_step(r, {0, 4}).kind, MeshStep::Kind::invalid) << "HowFar past the segment";
  EXPECT_EQ(mesh_step(r, {2, 0}).kind, MeshStep::Kind::invalid) << "a segment past the last";
  EXPECT_EQ(mesh_step(r, {1, 1}).kind, MeshStep::Kind::invalid);
  EXPECT_EQ(mesh_step(r, {1, 0}).kind, MeshStep::Kind::deliver);
  const MeshStep last = mesh_step(r, {0, 3});
  EXPECT_EQ(last.dir, MeshDir::zp);
  EXPECT_EQ(last.next, (MeshRouteState{1, 0})) << "the next segment, HowFar 0";
}

}  // namespace
}  // namespace fabemu
