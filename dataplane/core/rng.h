// Small deterministic generators for traffic: one stream per endpoint, so a
// run's traffic does not depend on how routers are placed on cores.
#pragma once
#include <cmath>
#include <cstdint>

namespace fabemu {

inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A geometric distribution's success probability with log(1 - p), which
// every draw divides by: computed once, not per draw.
struct Geometric {
  double p = 1.0;
  double log_q = 0.0;
  Geometric() = default;
  explicit Geometric(double prob) : p(prob), log_q(prob < 1.0 ? std::log1p(-prob) : 0.0) {}
};

// xoshiro256** (Blackman and Vigna), seeded through splitmix64.
class Rng {
 public:
  Rng() = default;
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t x = seed * 0x2545f4914f6cdd1dULL + stream * 0x9e3779b97f4a7c15ULL + 1;
    for (auto& w : s_) w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // Uniform in [0, n) without modulo bias worth caring about (Lemire).
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<unsigned __int128>(next() >> 32) * n) >> 32);
  }
  // Uniform in (0, 1].
  double unit() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
  // Geometric number of trials until the first success, >= 1, success prob p.
  uint64_t geometric(double p) { return geometric(Geometric(p)); }
  uint64_t geometric(const Geometric& g) {
    if (g.p >= 1.0) return 1;
    return 1 + static_cast<uint64_t>(std::floor(std::log(unit()) / g.log_q));
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4] = {1, 2, 3, 4};
};

}  // namespace fabemu
