// Knuth's lagged Fibonacci generator (The Art of Computer Programming,
// vol. 2, 3rd ed., section 3.6: ran_array and ran_start, with the
// seeding of its 9th printing, 2002): X_j = (X_{j-100} - X_{j-37}) mod
// 2^30. BookSim2 draws its random numbers from it (RandomInt(m) is the
// next number mod m + 1, taken from the first 100 of each batch of 1,009),
// so that BookSim's randperm permutation of a perm_seed can be made again
// here (traffic.permutation_seed; dataplane/endpoint/traffic.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace fabemu {

class KnuthRanArray {
 public:
  static constexpr int kLong = 100, kShort = 37;  // the lags
  static constexpr int64_t kModulus = int64_t{1} << 30;
  static constexpr int kBatch = 1009;  // numbers made at a time, the first kLong used
  explicit KnuthRanArray(int64_t seed) { start(seed); }

  // The next number of the stream, in [0, 2^30).
  int64_t next() {
    if (used_ == kLong) {
      fill(batch_.data(), kBatch);
      used_ = 0;
    }
    return batch_[used_++];
  }

  // n >= kLong new numbers into a, the state moved on past them.
  void fill(int64_t* a, int n) {
    int j = 0;
    for (; j < kLong; j++) a[j] = x_[j];
    for (; j < n; j++) a[j] = sub(a[j - kLong], a[j - kShort]);
    int i = 0;
    for (; i < kShort; i++, j++) x_[i] = sub(a[j - kLong], a[j - kShort]);
    for (; i < kLong; i++, j++) x_[i] = sub(a[j - kLong], x_[i - kShort]);
  }

 private:
  static int64_t sub(int64_t a, int64_t b) { return (a - b) & (kModulus - 1); }

  // Exercise 3.6-15's seeding: the buffer bootstrapped from the seed's
  // cyclic shifts, then "squared" and "multiplied by z" bit by bit of the
  // seed, 70 times over at the end (the separation between streams).
  void start(int64_t seed) {
    constexpr int kSeparation = 70;
    std::array<int64_t, 2 * kLong - 1> b{};
    int64_t ss = (seed + 2) & (kModulus - 2);
    for (int j = 0; j < kLong; j++) {
      b[j] = ss;
      ss <<= 1;
      if (ss >= kModulus) ss -= kModulus - 2;
    }
    b[1]++;  // only b[1] odd
    ss = seed & (kModulus - 1);
    for (int t = kSeparation - 1; t;) {
      for (int j = kLong - 1; j > 0; j--) {
        b[2 * j] = b[j];
        b[2 * j - 1] = 0;
      }
      for (int j = 2 * kLong - 2; j >= kLong; j--) {
        b[j - (kLong - kShort)] = sub(b[j - (kLong - kShort)], b[j]);
        b[j - kLong] = sub(b[j - kLong], b[j]);
      }
      if (ss & 1) {
        for (int j = kLong; j > 0; j--) b[j] = b[j - 1];
        b[0] = b[kLong];
        b[kShort] = sub(b[kShort], b[kLong]);
      }
      if (ss)
        ss >>= 1;
      else
        t--;
    }
    for (int j = 0; j < kShort; j++) x_[j + kLong - kShort] = b[j];
    for (int j = kShort; j < kLong; j++) x_[j - kShort] = b[j];
    for (int w = 0; w < 10; w++) fill(b.data(), 2 * kLong - 1);  // warm up
    used_ = kLong;  // the first next() makes a batch
  }

  std::array<int64_t, kLong> x_{};  // the state
  std::vector<int64_t> batch_ = std::vector<int64_t>(kBatch);
  int used_ = kLong;
};

// BookSim2's randperm (traffic.cpp, RandomPermutationTrafficPattern): node
// j sends to dest[j]; for i = 0 .. n-1 in turn, i is given to the free node
// that RandomInt(n - 1 - i) counts to, free nodes in order.
inline std::vector<uint32_t> booksim_random_permutation(uint32_t n, int64_t seed) {
  KnuthRanArray rng(seed);
  constexpr uint32_t kFree = ~0u;
  std::vector<uint32_t> dest(n, kFree);
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t ind = static_cast<uint32_t>(rng.next() % int64_t(n - i));
    uint32_t j = 0;
    for (uint32_t free = 0;; j++) {
      if (dest[j] != kFree) continue;
      if (free++ == ind) break;
    }
    dest[j] = i;
  }
  return dest;
}

}  // namespace fabemu
