// Round-robin arbitration over a requester bit set
// (dataplane/router/arbiter/round_robin.h) and the matrix arbiter
// (dataplane/router/arbiter/matrix.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <vector>

#include "dataplane/router/arbiter/matrix.h"
#include "dataplane/router/arbiter/round_robin.h"

namespace fabemu {
namespace {

struct Requests {
  explicit Requests(uint32_t nbits) : nbits(nbits), words((nbits + 63) / 64, 0) {}
  void set(uint32_t i) {
    if (!test(i)) n++;
    words[i >> 6] |= 1ull << (i & 63);
  }
  void clear(uint32_t i) {
    if (test(i)) n--;
    words[i >> 6] &= ~(1ull << (i & 63));
  }
  bool test(uint32_t i) const { return (words[i >> 6] >> (i & 63)) & 1; }
  int32_t pick(uint16_t* ptr) const {
    return RoundRobinArbiter::pick(words.data(), nbits, n, ptr, [](uint32_t) { return true; });
  }
  template <class F>
  int32_t pick(uint16_t* ptr, F&& accept) const {
    return RoundRobinArbiter::pick(words.data(), nbits, n, ptr, accept);
  }
  uint32_t nbits;
  uint32_t n = 0;
  std::vector<uint64_t> words;
};

TEST(RoundRobinArbiter, EachOfNRequestersWinsOncePerNGrants) {
  for (uint32_t nreq : {1u, 2u, 5u, 16u, 64u, 100u}) {
    Requests r(nreq);
    for (uint32_t i = 0; i < nreq; i++) r.set(i);
    uint16_t ptr = 0;
    for (int round = 0; round < 3; round++) {
      std::set<int32_t> winners;
      for (uint32_t g = 0; g < nreq; g++) {
        const int32_t w = r.pick(&ptr);
        ASSERT_GE(w, 0);
        EXPECT_EQ(w, static_cast<int32_t>(g)) << "nreq " << nreq << " round " << round;
        winners.insert(w);
      }
      EXPECT_EQ(winners.size(), nreq) << "nreq " << nreq;
    }
  }
}

TEST(RoundRobinArbiter, FairAmongSparseRequesters) {
  // 4 requesters among 40 bits, pointer starting in the middle.
  Requests r(40);
  for (uint32_t i : {3u, 17u, 18u, 33u}) r.set(i);
  uint16_t ptr = 20;
  std::vector<int32_t> order;
  for (int g = 0; g < 8; g++) order.push_back(r.pick(&ptr));
  EXPECT_EQ(order, (std::vector<int32_t>{33, 3, 17, 18, 33, 3, 17, 18}));
}

TEST(RoundRobinArbiter, PointerMovesPastTheWinner) {
  Requests r(16);
  for (uint32_t i : {2u, 5u, 9u, 15u}) r.set(i);
  uint16_t ptr = 0;
  EXPECT_EQ(r.pick(&ptr), 2);
  EXPECT_EQ(ptr, 3);
  EXPECT_EQ(r.pick(&ptr), 5);
  EXPECT_EQ(ptr, 6);
  ptr = 5;  // at a requester: it wins
  EXPECT_EQ(r.pick(&ptr), 5);
  EXPECT_EQ(ptr, 6);
  EXPECT_EQ(r.pick(&ptr), 9);
  EXPECT_EQ(ptr, 10);
  EXPECT_EQ(r.pick(&ptr), 15);
  EXPECT_EQ(ptr, 0);  // past the last bit: wraps
  EXPECT_EQ(r.pick(&ptr), 2);
  // A requester that withdrew is skipped.
  r.clear(5);
  EXPECT_EQ(r.pick(&ptr), 9);
}

TEST(RoundRobinArbiter, RefusedRequestersKeepTheirPlace) {
  Requests r(8);
  for (uint32_t i : {1u, 3u, 6u}) r.set(i);
  uint16_t ptr = 0;
  std::vector<uint32_t> asked;
  // 1 is refused: 3 wins, the pointer moves past 3 (not past 1 only).
  EXPECT_EQ(r.pick(&ptr,
                   [&](uint32_t i) {
                     asked.push_back(i);
                     return i != 1;
                   }),
            3);
  EXPECT_EQ(asked, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(ptr, 4);
  // Everyone refused: no winner, the pointer stays, each asked once.
  asked.clear();
  EXPECT_EQ(r.pick(&ptr,
                   [&](uint32_t i) {
                     asked.push_back(i);
                     return false;
                   }),
            -1);
  EXPECT_EQ(ptr, 4);
  EXPECT_EQ(asked, (std::vector<uint32_t>{6, 1, 3}));
  // The refused requester is reached within one turn of the pointer.
  EXPECT_EQ(r.pick(&ptr), 6);
  EXPECT_EQ(r.pick(&ptr), 1);
}

TEST(RoundRobinArbiter, WrapsAcrossWords) {
  Requests r(130);  // three words, the last with two bits
  for (uint32_t i : {3u, 63u, 64u, 129u}) r.set(i);
  uint16_t ptr = 65;  // inside word 1, past its only requester
  EXPECT_EQ(r.pick(&ptr), 129);
  EXPECT_EQ(ptr, 0);
  EXPECT_EQ(r.pick(&ptr), 3);
  EXPECT_EQ(r.pick(&ptr), 63);
  EXPECT_EQ(ptr, 64);
  EXPECT_EQ(r.pick(&ptr), 64);
  EXPECT_EQ(r.pick(&ptr), 129);
  // An empty word between the pointer and the next requester.
  Requests s(192);
  s.set(5);
  s.set(150);
  ptr = 20;
  EXPECT_EQ(s.pick(&ptr), 150);
  EXPECT_EQ(ptr, 151);
  EXPECT_EQ(s.pick(&ptr), 5);
  // Refusals across the wrap.
  ptr = 100;
  EXPECT_EQ(s.pick(&ptr, [](uint32_t i) { return i != 150; }), 5);
  EXPECT_EQ(ptr, 6);
}

// Against a reference: scan from the pointer over all nbits, wrapping.
TEST(RoundRobinArbiter, MatchesReferenceScan) {
  std::mt19937_64 rng(7);
  for (uint32_t nbits : {1u, 7u, 64u, 65u, 128u, 200u, 256u}) {
    Requests r(nbits);
    uint16_t ptr = 0, ref_ptr = 0;
    for (int step = 0; step < 5000; step++) {
      const uint32_t i = static_cast<uint32_t>(rng() % nbits);
      if (rng() % 2)
        r.set(i);
      else
        r.clear(i);
      if (r.n == 0) continue;
      const uint64_t refuse_seed = rng();
      auto accept = [&](uint32_t k) { return ((refuse_seed >> (k % 64)) & 3) != 0; };
      int32_t expect = -1;
      for (uint32_t j = 0; j < nbits; j++) {
        const uint32_t k = (ref_ptr + j) % nbits;
        if (r.test(k) && accept(k)) {
          expect = static_cast<int32_t>(k);
          ref_ptr = static_cast<uint16_t>((k + 1) % nbits);
          break;
        }
      }
      ASSERT_EQ(r.pick(&ptr, accept), expect) << "nbits " << nbits << " step " << step;
      ASSERT_EQ(ptr, ref_ptr) << "nbits " << nbits << " step " << step;
    }
  }
}

// ---- the matrix arbiter -------------------------------------------------------

struct Matrix {
  explicit Matrix(uint32_t n) : n(n), w(MatrixArbiter::words(n)) {
    MatrixArbiter::init(w.data(), n);
  }
  int32_t grant(uint64_t req) {
    const int32_t i = MatrixArbiter::pick(w.data(), req);
    if (i >= 0) MatrixArbiter::grant(w.data(), n, static_cast<uint32_t>(i));
    return i;
  }
  uint32_t n;
  std::vector<uint64_t> w;
};

TEST(MatrixArbiter, StartsLowestFirstAndTakesTurns) {
  for (uint32_t n : {1u, 2u, 8u, 32u, 64u}) {
    Matrix m(n);
    const uint64_t all = MatrixArbiter::all(n);
    for (int round = 0; round < 3; round++)
      for (uint32_t g = 0; g < n; g++) ASSERT_EQ(m.grant(all), static_cast<int32_t>(g)) << n;
  }
  Matrix m(8);
  EXPECT_EQ(m.grant(0), -1) << "no requester, no winner";
}

// The winner is always the requester granted least recently (those never
// granted first, in index order): a reference keeps the grant order.
TEST(MatrixArbiter, TheLeastRecentlyGrantedRequesterWins) {
  std::mt19937_64 rng(11);
  for (uint32_t n : {2u, 5u, 8u, 31u, 64u}) {
    Matrix m(n);
    std::deque<uint32_t> order;  // front: highest priority
    for (uint32_t i = 0; i < n; i++) order.push_back(i);
    for (int step = 0; step < 20000; step++) {
      const uint64_t req = rng() & MatrixArbiter::all(n);
      int32_t expect = -1;
      for (uint32_t i : order)
        if ((req >> i) & 1) {
          expect = static_cast<int32_t>(i);
          break;
        }
      ASSERT_EQ(m.grant(req), expect) << "n " << n << " step " << step;
      if (expect >= 0) {
        order.erase(std::find(order.begin(), order.end(), static_cast<uint32_t>(expect)));
        order.push_back(static_cast<uint32_t>(expect));
      }
    }
  }
}

// Strong fairness, where a round robin is weakly fair: a requester that
// asks only now and then wins as soon as it asks if it waited longer than
// the rest, whatever the pointer would say. Requesters 0 and 1 ask at
// every grant, requester 2 every third: it wins each time it asks.
TEST(MatrixArbiter, AnIntermittentRequesterIsNotPassedOver) {
  Matrix m(3);
  int wins2 = 0, asks2 = 0;
  for (int g = 0; g < 300; g++) {
    const bool asks = g % 3 == 2;
    asks2 += asks;
    const int32_t w = m.grant(0b011 | (asks ? 0b100 : 0));
    if (asks) {
      EXPECT_EQ(w, 2) << g;
    }
    wins2 += w == 2;
  }
  EXPECT_EQ(wins2, asks2);
}
}  // namespace
}  // namespace fabemu
