// The Spider age arbiter (dataplane/router/arbiter/age.h): the oldest
// candidate wins, equal ages take turns, a cycle's winners form a match (one
// per input and per output, at most the bound), and no candidate of the
// oldest age waits forever.
#include "dataplane/router/arbiter/age.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
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
  std::vector<uint16_t> pick(uint32_t max_winners) {
    uint16_t w[AgeArbiter::kMaxCandidates];
    const uint32_t k =
        AgeArbiter::pick(req, n, input, output, age, out_ptr, &first, max_winners, w);
    return std::vector<uint16_t>(w, w + k);
  }
  // The arbiter's state: a pointer per output, the output asked first.
  uint16_t out_ptr[AgeArbiter::kMaxPorts] = {};
  uint8_t first = 0;
};

TEST(AgeArbiter, OldestWinsWhateverThePointer) {
  for (uint16_t start = 0; start < 3; start++) {
    Candidates c;
    c.add(0, 5, 10);
    const uint32_t oldest = c.add(1, 5, 200);
    c.add(2, 5, 37);
    c.out_ptr[5] = start;
    EXPECT_EQ(c.pick(6), std::vector<uint16_t>{static_cast<uint16_t>(oldest)}) << start;
  }
}

TEST(AgeArbiter, WinnersComeOldestFirst) {
  Candidates c;
  const uint32_t a = c.add(0, 0, 5), b = c.add(1, 1, 9), d = c.add(2, 2, 7);
  EXPECT_EQ(c.pick(6), (std::vector<uint16_t>{uint16_t(b), uint16_t(d), uint16_t(a)}));
}

TEST(AgeArbiter, TiesRotate) {
  Candidates c;
  c.add(0, 3, 50);
  c.add(1, 3, 50);
  c.add(2, 3, 50);
  std::vector<uint16_t> order;
  for (int cycle = 0; cycle < 6; cycle++) {
    const auto w = c.pick(6);
    ASSERT_EQ(w.size(), 1u);
    order.push_back(w[0]);
  }
  EXPECT_EQ(order, (std::vector<uint16_t>{0, 1, 2, 0, 1, 2}));
}

// The known problem of one pointer per chip, moved past the cycle's first
// winner: with a winner at another output every cycle (as old, or older),
// the ties at a busy output went to its lowest input. Each output's own
// pointer serves inputs 0, 1 and 2 in turn whatever output 4 does.
TEST(AgeArbiter, EqualAgesTakeTurnsWhileAnotherOutputWins) {
  for (uint8_t other_age : {50, 200}) {
    SCOPED_TRACE(int(other_age));
    Candidates c;
    c.add(0, 3, 50);
    c.add(1, 3, 50);
    c.add(2, 3, 50);
    const uint32_t other = c.add(5, 4, other_age);
    std::vector<uint16_t> at3;
    for (int cycle = 0; cycle < 9; cycle++) {
      const auto w = c.pick(6);
      ASSERT_EQ(w.size(), 2u);
      for (uint16_t i : w)
        if (i != other) at3.push_back(i);
    }
    EXPECT_EQ(at3, (std::vector<uint16_t>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
  }
}

// An input with equal-age heads for two outputs, and no one else asking
// for them, sends to each in turn, also while an older message wins at a
// third output every cycle: the output asked first rotates over the
// outputs asked, each look (rotated past the first winner's output, it
// would stay where the older message puts it, and output 2 would wait for
// ever). With three outputs asked, output 1 comes before output 2 in two
// looks of three: neither waits more than two.
TEST(AgeArbiter, AnInputsHeadsForTwoOutputsTakeTurns) {
  for (bool older_elsewhere : {false, true}) {
    SCOPED_TRACE(older_elsewhere);
    Candidates c;
    const uint32_t to1 = c.add(0, 1, 9), to2 = c.add(0, 2, 9);
    if (older_elsewhere) c.add(3, 4, 200);
    std::vector<uint16_t> order;
    for (int cycle = 0; cycle < 30; cycle++)
      for (uint16_t i : c.pick(6))
        if (i == to1 || i == to2) order.push_back(i);
    ASSERT_EQ(order.size(), 30u) << "input 0 sends every cycle";
    size_t longest = 0, run = 0;  // (from the third look: the first starts at output 0)
    for (size_t k = 2; k < order.size(); k++) {
      run = order[k] == order[k - 1] && k > 2 ? run + 1 : 1;
      longest = std::max(longest, run);
    }
    EXPECT_LE(longest, older_elsewhere ? 2u : 1u) << "looks in a row to one output";
  }
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
  for (uint32_t bound : {1u, 3u, 6u}) {
    const auto w = c.pick(bound);
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
  EXPECT_EQ(two.pick(6), std::vector<uint16_t>{0});
  Candidates none;
  EXPECT_TRUE(none.pick(6).empty());
}

TEST(AgeArbiter, NoCandidateStarvesAmongEqualAges) {
  Candidates c;
  for (uint8_t in = 0; in < 6; in++)
    for (uint8_t vc = 0; vc < 4; vc++)
      for (uint8_t k = 1; k <= 5; k++) c.add(in, static_cast<uint8_t>((in + k) % 6), 100);
  std::vector<int> last_win(c.n, -1), longest_wait(c.n, 0);
  const int cycles = 10000;
  for (int cycle = 0; cycle < cycles; cycle++)
    for (uint16_t i : c.pick(6)) {
      longest_wait[i] = std::max(longest_wait[i], cycle - last_win[i]);
      last_win[i] = cycle;
    }
  for (uint32_t i = 0; i < c.n; i++) {
    EXPECT_LE(longest_wait[i], static_cast<int>(c.n)) << "candidate " << i;
    EXPECT_GE(last_win[i], cycles - static_cast<int>(c.n)) << "candidate " << i;
  }
}

// Random sets of candidates on a 6-port, 2-VC chip, all asking every
// cycle, most of age 100, in half the sets some of age 150: every candidate
// that shares no port with an older one wins again within a few turns of
// the whole set (a turn lost to an input conflict with an equal age is
// kept; one lost to an older message is not owed).
TEST(AgeArbiter, NoCandidateStarvesInRandomSets) {
  std::mt19937 rng(1);
  int worst = 0, starved = 0;
  std::string first_starved;
  for (int set = 0; set < 400; set++) {
    Candidates c;
    const bool olds = set % 2;
    for (uint8_t in = 0; in < 6; in++)
      for (int vc = 0; vc < 2; vc++)
        for (uint8_t out = 0; out < 6; out++)
          if (out != in && rng() % 4 == 0) c.add(in, out, olds && rng() % 6 == 0 ? 150 : 100);
    const int cycles = 1000;
    std::vector<int> last_win(c.n, -1), longest_wait(c.n, 0);
    for (int cycle = 0; cycle < cycles; cycle++)
      for (uint16_t i : c.pick(6)) {
        longest_wait[i] = std::max(longest_wait[i], cycle - last_win[i]);
        last_win[i] = cycle;
      }
    for (uint32_t i = 0; i < c.n; i++) {
      bool behind_older = false;
      for (uint32_t j = 0; j < c.n; j++)
        behind_older |=
            c.age[j] > c.age[i] && (c.input[j] == c.input[i] || c.output[j] == c.output[i]);
      if (behind_older) continue;
      const int wait = std::max(longest_wait[i], cycles - 1 - last_win[i]);
      if (wait > 2 * static_cast<int>(c.n) && starved++ == 0)
        first_starved = "set " + std::to_string(set) + " candidate " + std::to_string(i);
      worst = std::max(worst, wait);
    }
  }
  std::printf("longest wait of a candidate not behind an older one: %d cycles\n", worst);
  EXPECT_EQ(starved, 0) << "the first: " << first_starved;
}

TEST(AgeArbiter, AgingLetsTheYoungThrough) {
  // A waiting message ages (Spider: at a programmable rate, here one level
  // a cycle up to 239): an old stream at one output cannot hold off a young
  // newcomer for longer than the age gap.
  Candidates c;
  const uint32_t old_stream = c.add(0, 4, 200), young = c.add(1, 4, 0);
  int waited = 0;
  for (;; waited++) {
    ASSERT_LT(waited, 300);
    const auto w = c.pick(6);
    ASSERT_EQ(w.size(), 1u);
    if (w[0] == young) break;
    c.age[young] = static_cast<uint8_t>(std::min(239, c.age[young] + 1));
    c.age[old_stream] = 200;  // a fresh message of the stream at the head each cycle
  }
  EXPECT_LE(waited, 201);
}

}  // namespace
}  // namespace fabemu
