// The fixed traffic patterns on BookSim2's node numbers (traffic.numbering
// booksim: its k-ary n-cube numbers node x + kx (y + ky z), x fastest) and
// the bit patterns bitrev and shuffle (dataplane/endpoint/traffic.h). Each
// expected destination is worked out here from the router coordinates, the
// way BookSim's traffic.cpp defines the pattern.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "control/topology/torus.h"
#include "dataplane/endpoint/traffic.h"
#include "tests/support/fabric_specs.h"

namespace fabemu {
namespace {

struct Cube {
  Fabric f;
  std::array<int, 3> k;
  // BookSim's node of endpoint e and fabemu's endpoint of a node.
  int node(uint32_t e) const {
    const auto& c = f.routers[f.endpoints[e].router].coord;
    return c[0] + k[0] * (c[1] + k[1] * c[2]);
  }
  uint32_t endpoint(int node) const {
    for (uint32_t e = 0; e < f.endpoints.size(); ++e)
      if (this->node(e) == node) return e;
    ADD_FAILURE() << "no endpoint of node " << node;
    return 0;
  }
};

Cube cube(int kx, int ky, int kz) {
  return Cube{build_torus(t3e_spec(kx, ky, kz)), {kx, ky, kz}};
}

std::vector<uint32_t> fixed(const Fabric& f, Pattern p, bool booksim, std::string* err = nullptr) {
  TrafficConfig cfg;
  cfg.pattern = p;
  cfg.booksim_numbering = booksim;
  TrafficPattern tp;
  std::string e;
  const bool ok = tp.init(f, cfg, 1, &e);
  if (err) *err = e;
  if (!ok) return {};
  return tp.fixed();
}

// For every endpoint: the pattern's destination is the endpoint of
// want(BookSim node of the source).
template <class Want>
void expect_nodes(const Cube& c, Pattern p, Want want) {
  const std::vector<uint32_t> d = fixed(c.f, p, true);
  ASSERT_EQ(d.size(), c.f.endpoints.size());
  for (uint32_t e = 0; e < d.size(); ++e)
    EXPECT_EQ(d[e], c.endpoint(want(c.node(e)))) << "node " << c.node(e);
}

TEST(TrafficNumbering, BooksimNodesRunXFastest) {
  const Cube c = cube(4, 2, 3);
  // fabemu's router (x ky + y) kz + z; BookSim's node x + 4 (y + 2 z).
  EXPECT_EQ(c.node(0), 0);
  const uint32_t e = (3 * 2 + 1) * 3 + 2;  // router (3, 1, 2)
  EXPECT_EQ(c.node(e), 3 + 4 * (1 + 2 * 2));
}

TEST(TrafficNumbering, BitPatternsOnBooksimNodes) {
  const Cube c = cube(4, 4, 1);  // 16 nodes, 4 bits: x the low two
  expect_nodes(c, Pattern::bitcomp, [](int n) { return 15 - n; });
  expect_nodes(c, Pattern::bitrev, [](int n) {
    return ((n & 1) << 3) | ((n & 2) << 1) | ((n & 4) >> 1) | ((n & 8) >> 3);
  });
  expect_nodes(c, Pattern::shuffle, [](int n) { return ((n << 1) & 15) | (n >> 3); });
  // The halves of the bits swapped: (x, y) to (y, x).
  expect_nodes(c, Pattern::transpose, [](int n) { return (n % 4) * 4 + n / 4; });
}

TEST(TrafficNumbering, DigitPatternsOnEachDimension) {
  const Cube c = cube(5, 4, 3);
  const auto digits = [](int n, int by_x, int by_y, int by_z) {
    const int x = n % 5, y = n / 5 % 4, z = n / 20;
    return (x + by_x) % 5 + 5 * ((y + by_y) % 4 + 4 * ((z + by_z) % 3));
  };
  // neighbor: every digit on by one; tornado: by (k + 1) / 2 - 1.
  expect_nodes(c, Pattern::neighbor, [&](int n) { return digits(n, 1, 1, 1); });
  expect_nodes(c, Pattern::tornado, [&](int n) { return digits(n, 2, 1, 1); });
}

TEST(TrafficNumbering, FabemuNumberingKeepsItsOwnNeighbor) {
  // fabemu's neighbor is router i to router i + 1, which on the torus is
  // the next Z (router ids run z fastest); BookSim's moves every digit.
  const Cube c = cube(4, 4, 4);
  const std::vector<uint32_t> own = fixed(c.f, Pattern::neighbor, false);
  ASSERT_EQ(own.size(), 64u);
  EXPECT_EQ(own[0], 1u);
  const std::vector<uint32_t> booksim = fixed(c.f, Pattern::neighbor, true);
  EXPECT_EQ(booksim[0], c.endpoint(1 + 4 + 16));
}

TEST(TrafficNumbering, BitrevAndShuffleOnTheEndpointIndex) {
  const Cube c = cube(8, 1, 1);
  const std::vector<uint32_t> rev = fixed(c.f, Pattern::bitrev, false);
  ASSERT_EQ(rev.size(), 8u);
  EXPECT_EQ(rev[1], 4u);  // 001 -> 100
  EXPECT_EQ(rev[6], 3u);  // 110 -> 011
  const std::vector<uint32_t> sh = fixed(c.f, Pattern::shuffle, false);
  EXPECT_EQ(sh[5], 3u);  // 101 -> 011
  EXPECT_EQ(sh[4], 1u);  // 100 -> 001
}

TEST(TrafficNumbering, RefusalsSayWhy) {
  std::string err;
  EXPECT_TRUE(fixed(cube(3, 3, 1).f, Pattern::bitrev, false, &err).empty());
  EXPECT_NE(err.find("bitrev needs a power-of-two endpoint count, got 9"), std::string::npos)
      << err;
  // 8 nodes: 3 bits do not split in halves.
  EXPECT_TRUE(fixed(cube(8, 1, 1).f, Pattern::transpose, true, &err).empty());
  EXPECT_NE(err.find("even power of two"), std::string::npos) << err;
  // Two endpoints a router: BookSim's cube has one node per router.
  const Fabric two = build_torus(t3e_spec(2, 2, 2, 2));
  EXPECT_TRUE(fixed(two, Pattern::neighbor, true, &err).empty());
  EXPECT_NE(err.find("one per router of the torus family"), std::string::npos) << err;
  // fabemu's bitcomp needs no power of two (n - 1 - e).
  EXPECT_EQ(fixed(cube(3, 3, 1).f, Pattern::bitcomp, false, &err).size(), 9u) << err;
}

}  // namespace
}  // namespace fabemu
