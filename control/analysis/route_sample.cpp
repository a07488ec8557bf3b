#include "control/analysis/route_sample.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabemu {

namespace {

// Fewest sources a sample takes (more than the route budget asks for, if
// need be), so that the spread between them gives a usable interval.
constexpr uint64_t kMinSampleSources = 32;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, n) from 32 random bits (multiply-shift; n < 2^32).
uint32_t below(uint32_t bits, uint32_t n) {
  return static_cast<uint32_t>((uint64_t{bits} * n) >> 32);
}

// Separate streams of one seed for the sources and the random pairs.
constexpr uint64_t kSourceStream = 0x736f75726365ull;  // "source"
constexpr uint64_t kPairStream = 0x7061697273ull;      // "pairs"

}  // namespace

RouteSample plan_route_sample(uint32_t endpoints, const SampleOptions& opts) {
  RouteSample s;
  s.endpoints = endpoints;
  s.seed = opts.seed;
  const uint64_t row = uint64_t{endpoints ? endpoints - 1 : 0} * kTrafficClasses;
  s.routes_all = uint64_t{endpoints} * row;
  if (opts.max_routes == 0 || s.routes_all <= opts.max_routes) return s;

  // Half the budget to whole rows, the rest to random pairs.
  const uint64_t budget = std::min(opts.sample_routes, opts.max_routes);
  const uint64_t rows = std::max(budget / 2 / row, kMinSampleSources);
  if (rows >= endpoints) return s;  // a sample that large is every source: stay exact
  s.exact = false;
  // The first `rows` of a seeded Fisher-Yates shuffle, in increasing order.
  std::vector<uint32_t> ids(endpoints);
  for (uint32_t i = 0; i < endpoints; ++i) ids[i] = i;
  for (uint32_t i = 0; i < rows; ++i) {
    const uint64_t h = splitmix64(opts.seed ^ splitmix64(kSourceStream + i));
    std::swap(ids[i], ids[i + below(static_cast<uint32_t>(h >> 32), endpoints - i)]);
  }
  s.sources.assign(ids.begin(), ids.begin() + static_cast<ptrdiff_t>(rows));
  std::sort(s.sources.begin(), s.sources.end());
  const uint64_t used = rows * row;
  s.random_pairs = used < budget ? (budget - used) / kTrafficClasses : 0;
  return s;
}

std::pair<uint32_t, uint32_t> random_pair(const RouteSample& sample, uint64_t i) {
  const uint64_t h = splitmix64(sample.seed ^ splitmix64(kPairStream + i));
  const auto src = static_cast<uint32_t>(static_cast<unsigned __int128>(i) * sample.endpoints /
                                         sample.random_pairs);
  uint32_t dst = below(static_cast<uint32_t>(h), sample.endpoints - 1);
  dst += dst >= src;
  return {src, dst};
}

void random_pair_block(const RouteSample& sample, uint64_t b,
                       std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
  pairs.clear();
  const uint64_t end = std::min(sample.random_pairs, (b + 1) * kRandomPairBlock);
  for (uint64_t i = b * kRandomPairBlock; i < end; ++i) pairs.push_back(random_pair(sample, i));
  std::sort(pairs.begin(), pairs.end());
}

SweepMeter::SweepMeter(uint64_t total, const SweepProgressFn& fn)
    : total_(total), fn_(fn), start_(std::chrono::steady_clock::now()) {}

void SweepMeter::add(uint64_t routes) {
  const uint64_t done = done_.fetch_add(routes, std::memory_order_relaxed) + routes;
  if (!fn_) return;
  const double t = seconds();
  if (t < next_.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock || t < next_.load(std::memory_order_relaxed)) return;
  next_.store(t + 0.5, std::memory_order_relaxed);
  reported_ = true;
  fn_({done, total_, t, false});
}

void SweepMeter::finish() {
  if (fn_ && reported_) fn_({done_.load(), total_, seconds(), true});
}

double SweepMeter::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

Estimate ratio_estimate(const std::vector<double>& y, const std::vector<double>& x,
                        uint32_t population) {
  Estimate est;
  double sy = 0, sx = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    sy += y[i];
    sx += x[i];
  }
  if (sx <= 0) return est;
  est.value = sy / sx;
  const double n = static_cast<double>(y.size());
  if (n >= population) return est;  // every source: exact
  if (n < 2) {
    est.ci95 = std::numeric_limits<double>::quiet_NaN();
    return est;
  }
  double ss = 0;
  for (size_t i = 0; i < y.size(); ++i) ss += (y[i] - est.value * x[i]) * (y[i] - est.value * x[i]);
  const double xbar = sx / n;
  const double var = (1.0 - n / population) * ss / (n - 1) / (n * xbar * xbar);
  est.ci95 = 1.96 * std::sqrt(var);
  return est;
}

}  // namespace fabemu
