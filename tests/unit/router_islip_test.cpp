// iSLIP (dataplane/router/arbiter/islip.h): matches are valid, pointers move
// only on first-iteration accepts, enough iterations give a maximal match,
// and under persistent all-to-all requests one iteration desynchronises the
// pointers into a full match (McKeown 1999, section III).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "dataplane/router/arbiter/islip.h"
#include "dataplane/router/input_queued_islip.h"

namespace fabemu {
namespace {

// Every input matched to a distinct output it requested.
void expect_valid(const uint64_t* req, uint32_t n, const int8_t* match, uint32_t matched) {
  uint64_t outs = 0;
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (match[i] < 0) continue;
    const uint32_t o = static_cast<uint32_t>(match[i]);
    EXPECT_TRUE((req[i] >> o) & 1) << "input " << i << " matched to unrequested " << o;
    EXPECT_FALSE((outs >> o) & 1) << "output " << o << " matched twice";
    outs |= 1ull << o;
    count++;
  }
  EXPECT_EQ(count, matched);
}

TEST(Islip, OneIterationOnAFreshSwitchMatchesOnePairPerContestedOutput) {
  // Every input asks every output; all pointers at 0: every output grants
  // input 0, which accepts output 0. One match, and only those pointers move.
  const uint32_t n = 4;
  uint64_t req[n] = {0xF, 0xF, 0xF, 0xF};
  IslipPointers ptr;
  int8_t match[n];
  EXPECT_EQ(islip_match(req, n, ptr, 1, match), 1u);
  EXPECT_EQ(match[0], 0);
  EXPECT_EQ(ptr.grant[0], 1);
  EXPECT_EQ(ptr.accept[0], 1);
  for (uint32_t o = 1; o < n; o++) EXPECT_EQ(ptr.grant[o], 0) << "granted, not accepted";
}

TEST(Islip, PersistentUniformRequestsDesynchroniseToAFullMatch) {
  for (uint32_t n : {4u, 16u, 63u}) {
    const uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1;
    uint64_t req[64];
    for (uint32_t i = 0; i < n; i++) req[i] = all;
    IslipPointers ptr;
    int8_t match[64];
    uint32_t last = 0;
    for (uint32_t cycle = 0; cycle < 2 * n; cycle++) last = islip_match(req, n, ptr, 1, match);
    EXPECT_EQ(last, n) << n << " ports";
    expect_valid(req, n, match, last);
  }
}

TEST(Islip, IterationsFillTheMatchUpToMaximalAndOnlyTheFirstMovesPointers) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; trial++) {
    const uint32_t n = 2 + static_cast<uint32_t>(rng() % 62);
    uint64_t req[64];
    for (uint32_t i = 0; i < n; i++) req[i] = rng() & rng() & ((n == 64 ? 0 : (1ull << n)) - 1);
    IslipPointers base;
    for (uint32_t i = 0; i < n; i++) {
      base.grant[i] = static_cast<uint8_t>(rng() % n);
      base.accept[i] = static_cast<uint8_t>(rng() % n);
    }
    IslipPointers p1 = base, pn = base;
    int8_t m1[64], mn[64];
    const uint32_t one = islip_match(req, n, p1, 1, m1);
    const uint32_t many = islip_match(req, n, pn, n, mn);
    expect_valid(req, n, m1, one);
    expect_valid(req, n, mn, many);
    EXPECT_GE(many, one);
    for (uint32_t i = 0; i < n; i++) {  // the first iteration is the same in both
      if (m1[i] >= 0) {
        EXPECT_EQ(mn[i], m1[i]);
      }
      EXPECT_EQ(p1.grant[i], pn.grant[i]);
      EXPECT_EQ(p1.accept[i], pn.accept[i]);
    }
    // Maximal: no request joins an unmatched input to an unmatched output.
    uint64_t used = 0;
    for (uint32_t i = 0; i < n; i++)
      if (mn[i] >= 0) used |= 1ull << mn[i];
    for (uint32_t i = 0; i < n; i++)
      if (mn[i] < 0) {
        EXPECT_EQ(req[i] & ~used, 0u) << "trial " << trial << " input " << i;
      }
  }
}

// Given the asking inputs, a sparse cycle writes the match of those alone,
// and its match and pointers are the plain call's.
TEST(Islip, GivenTheAskingInputsOnlyTheirMatchIsWritten) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; trial++) {
    const uint32_t n = 63;
    uint64_t req[64] = {};
    uint64_t asking = 0;
    for (int k = 0; k < 1 + trial % 5; k++) {
      const uint32_t i = static_cast<uint32_t>(rng() % n);
      req[i] |= 1ull << (rng() % n);
      asking |= 1ull << i;
    }
    IslipPointers whole, sparse;
    for (uint32_t i = 0; i < n; i++) {
      whole.grant[i] = sparse.grant[i] = static_cast<uint8_t>(rng() % n);
      whole.accept[i] = sparse.accept[i] = static_cast<uint8_t>(rng() % n);
    }
    int8_t mw[64], ms[64];
    for (int8_t& m : ms) m = 99;  // untouched where nobody asks
    const uint32_t iterations = 1 + static_cast<uint32_t>(trial % 3);
    EXPECT_EQ(islip_match_asking(req, n, asking, sparse, iterations, ms),
              islip_match(req, n, whole, iterations, mw));
    for (uint32_t i = 0; i < n; i++) {
      EXPECT_EQ(ms[i], (asking >> i) & 1 ? mw[i] : 99) << "trial " << trial << " input " << i;
      EXPECT_EQ(sparse.grant[i], whole.grant[i]);
      EXPECT_EQ(sparse.accept[i], whole.accept[i]);
    }
  }
}

// The iSLIP router's outputs with requesters, per router, whatever the
// radix: its outputs' bits may straddle two words (radix 63: router 1's
// are bits 63 to 125).
TEST(Islip, ActiveOutputsFollowRequestsAcrossWords) {
  for (const uint32_t radix : {7u, 63u, 64u}) {
    IslipRouter rt;
    const uint32_t routers = 5, nv = 2;
    rt.init(routers, radix, nv, 4);
    rt.init_islip(routers, radix, nv, 1);
    std::mt19937_64 rng(radix);
    std::vector<uint64_t> want(routers, 0);
    std::vector<uint32_t> count(size_t(routers) * radix, 0);
    for (int step = 0; step < 2000; step++) {
      const uint32_t lr = static_cast<uint32_t>(rng() % routers);
      const uint32_t p = static_cast<uint32_t>(rng() % radix), o = rt.output(lr, p);
      const uint32_t i = rt.requester(static_cast<uint32_t>(rng() % radix), 0);
      const uint64_t bit = uint64_t{1} << p;
      if (count[o] && rng() % 2) {  // withdraw one of its requests (any index will do)
        rt.withdraw(o, i);
        if (--count[o] == 0) want[lr] &= ~bit;
      } else {
        rt.request(o, i);
        count[o]++;
        want[lr] |= bit;
      }
      for (uint32_t r = 0; r < routers; r++)
        ASSERT_EQ(rt.active_outputs(r), want[r]) << "radix " << radix << " step " << step;
    }
  }
}

}  // namespace
}  // namespace fabemu
