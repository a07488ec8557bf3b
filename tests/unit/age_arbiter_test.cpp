// The Spider age arbiter (dataplane/router/arbiter/age.h): the oldest
// candidate wins, equal ages take turns, a cycle's winners form a match (one
// per input and per output, at most the bound), and no candidate of the
// oldest age waits forever.
#include "dataplane/router/arbiter/age.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace fabemu {
namespace {

// Candidate slots with their ports and ages, all requesting unless cleared.
struct Candidates {
  uint64_t req[AgeArbiter::kWords] = {};
  uint8_t input[AgeArbiter::kMaxCandidates] = {};
  uint8_t output[AgeArbiter::kMaxCandidates] = {};
  uint8_t age[AgeArbiter::kMaxCandidates] = {};
  uint32_t n = 0;
  uint32_t add(uint8_t in, uint8_t out, uint8_t a) {
    input[n] = in, output[n] = out, age[n] = a;
    req[n >> 6] |= uint64_t{1} << (n & 63);
    return n++;
  }
  std::vector<uint16_t> pick(uint16_t* ptr, uint32_t max_winners) {
    uint16_t w[AgeArbiter::kMaxCandidates];
    const uint32_t k = AgeArbiter::pick(req, n, input, output, age, ptr, max_winners, w);
    return std::vector<uint16_t>(w, w + k);
  }
};

TEST(AgeArbiter, OldestWinsWhateverThePointer) {
  for (uint16_t start = 0; start < 3; start++) {
    Candidates c;
    c.add(0, 5, 10);
    const uint32_t oldest = c.add(1, 5, 200);
    c.add(2, 5, 37);
    uint16_t ptr = start;
    EXPECT_EQ(c.pick(&ptr, 6), std::vector<uint16_t>{static_cast<uint16_t>(oldest)}) << start;
  }
}

TEST(AgeArbiter, WinnersComeOldestFirst) {
  Candidates c;
  const uint32_t a = c.add(0, 0, 5), b = c.add(1, 1, 9), d = c.add(2, 2, 7);
  uint16_t ptr = 0;
  EXPECT_EQ(c.pick(&ptr, 6), (std::vector<uint16_t>{uint16_t(b), uint16_t(d), uint16_t(a)}));
}

TEST(AgeArbiter, TiesRotate) {
  Candidates c;
  c.add(0, 3, 50);
  c.add(1, 3, 50);
  c.add(2, 3, 50);
  uint16_t ptr = 0;
  std::vector<uint16_t> order;
  for (int cycle = 0; cycle < 6; cycle++) {
    const auto w = c.pick(&ptr, 6);
    ASSERT_EQ(w.size(), 1u);
    order.push_back(w[0]);
  }
  EXPECT_EQ(order, (std::vector<uint16_t>{0, 1, 2, 0, 1, 2}));
}

TEST(AgeArbiter, AMatchOfAtMostTheBound) {
  // Spider: 6 ports, 4 VCs, each (input, VC) with a list for each of the
  // other 5 outputs: 120 candidates, ages spread.
  Candidates c;
  for (uint8_t in = 0; in < 6; in++)
    for (uint8_t vc = 0; vc < 4; vc++)
      for (uint8_t k = 1; k <= 5; k++)
        c.add(in, static_cast<uint8_t>((in + k) % 6), static_cast<uint8_t>((in * 31 + vc * 7 + k * 13) % 240));
  ASSERT_EQ(c.n, 120u);
  uint16_t ptr = 0;
  for (uint32_t bound : {1u, 3u, 6u}) {
    const auto w = c.pick(&ptr, bound);
    EXPECT_EQ(w.size(), bound);  // a full match exists: every port can win
    std::set<int> ins, outs;
    for (uint16_t i : w) {
      EXPECT_TRUE(ins.insert(c.input[i]).second) << "input " << int(c.input[i]) << " twice";
      EXPECT_TRUE(outs.insert(c.output[i]).second) << "output " << int(c.output[i]) << " twice";
    }
  }
  // Greedy, oldest first: a maximal match (nothing left that could join),
  // not always a maximum one. Here 0->1 goes first and blocks both others.
  Candidates two;
  two.add(0, 1, 3);
  two.add(0, 2, 3);
  two.add(1, 1, 3);
  ptr = 0;
  EXPECT_EQ(two.pick(&ptr, 6), std::vector<uint16_t>{0});
  Candidates none;
  EXPECT_TRUE(none.pick(&ptr, 6).empty());
}

TEST(AgeArbiter, NoCandidateStarvesAmongEqualAges) {
  Candidates c;
  for (uint8_t in = 0; in < 6; in++)
    for (uint8_t vc = 0; vc < 4; vc++)
      for (uint8_t k = 1; k <= 5; k++) c.add(in, static_cast<uint8_t>((in + k) % 6), 100);
  std::vector<int> last_win(c.n, -1), longest_wait(c.n, 0);
  uint16_t ptr = 0;
  const int cycles = 10000;
  for (int cycle = 0; cycle < cycles; cycle++)
    for (uint16_t i : c.pick(&ptr, 6)) {
      longest_wait[i] = std::max(longest_wait[i], cycle - last_win[i]);
      last_win[i] = cycle;
    }
  for (uint32_t i = 0; i < c.n; i++) {
    EXPECT_LE(longest_wait[i], static_cast<int>(c.n)) << "candidate " << i;
    EXPECT_GE(last_win[i], cycles - static_cast<int>(c.n)) << "candidate " << i;
  }
}

TEST(AgeArbiter, AgingLetsTheYoungThrough) {
  // A waiting message ages (Spider: at a programmable rate, here one level
  // a cycle up to 239): an old stream at one output cannot hold off a young
  // newcomer for longer than the age gap.
  Candidates c;
  const uint32_t old_stream = c.add(0, 4, 200), young = c.add(1, 4, 0);
  uint16_t ptr = 0;
  int waited = 0;
  for (;; waited++) {
    ASSERT_LT(waited, 300);
    const auto w = c.pick(&ptr, 6);
    ASSERT_EQ(w.size(), 1u);
    if (w[0] == young) break;
    c.age[young] = static_cast<uint8_t>(std::min(239, c.age[young] + 1));
    c.age[old_stream] = 200;  // a fresh message of the stream at the head each cycle
  }
  EXPECT_LE(waited, 201);
}

}  // namespace
}  // namespace fabemu
