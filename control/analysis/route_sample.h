// Which routes an analysis traces, and tracing them on every core.
//
// Up to SampleOptions::max_routes routes (endpoints x (endpoints - 1) x 2
// traffic classes), every (src, dst) pair of distinct endpoints: the figures
// are exact. Above it, about sample_routes routes drawn from the seed, half
// each way:
//  - all destinations of a sample of sources, drawn without replacement, so
//    that a mean over pairs is a mean over sampled sources of each source's
//    exact mean: unbiased, with a confidence interval from the spread between
//    sources, and exact where every source sees the same distances (a torus
//    under direction-order routing: the interval is then 0);
//  - random pairs, their sources spread evenly over every endpoint (each
//    source a run of consecutive pairs, which keeps the tables it reads in
//    cache) and their destinations uniformly random: they spread the
//    channel dependency graph's routes over every part of the fabric (the
//    sampled sources alone reach only the rings and columns they start in).
// The sample depends on the seed and the endpoint count only, not on the
// thread count or the order the threads run in.
#pragma once
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace fabemu {

inline constexpr int kTrafficClasses = 2;  // request, response: every pair is traced in both

// Progress of a long sweep, for a progress line.
struct SweepProgress {
  uint64_t routes_done = 0;
  uint64_t routes_total = 0;
  double seconds = 0;  // since the sweep began
  bool last = false;   // the sweep has finished (sent only if an earlier report was)
};
using SweepProgressFn = std::function<void(const SweepProgress&)>;

struct SampleOptions {
  // 2^24: exact up to 2896 endpoints (t3e 8x32x8, yarc R2 1024 and every
  // shipped topology, each in a second or two).
  static constexpr uint64_t kDefaultMaxRoutes = uint64_t{1} << 24;
  // 2^22: a sample t3e 32x32x32 traces in a few seconds on two cores.
  static constexpr uint64_t kDefaultSampleRoutes = uint64_t{1} << 22;
  uint64_t max_routes = kDefaultMaxRoutes;  // every route up to this many; 0: no limit
  // Above max_routes, about min(sample_routes, max_routes) routes.
  uint64_t sample_routes = kDefaultSampleRoutes;
  uint64_t seed = 1;
  // Called from the tracing threads, one call at a time, at most every half
  // second and only once the sweep has run for a second (short analyses say
  // nothing).
  SweepProgressFn progress;
};

struct RouteSample {
  uint32_t endpoints = 0;
  bool exact = true;
  uint64_t routes_all = 0;        // routes an exact analysis traces
  std::vector<uint32_t> sources;  // sampled sources, increasing (exact: empty, meaning all)
  uint64_t random_pairs = 0;      // random pairs besides the sources' rows
  uint64_t seed = 0;

  uint32_t num_sources() const { return exact ? endpoints : static_cast<uint32_t>(sources.size()); }
  uint32_t source(uint32_t row) const { return exact ? row : sources[row]; }
  uint64_t pairs() const {
    return uint64_t{num_sources()} * (endpoints ? endpoints - 1 : 0) + random_pairs;
  }
  uint64_t routes() const { return pairs() * kTrafficClasses; }
};

// The routes to trace for a fabric of `endpoints` endpoints.
RouteSample plan_route_sample(uint32_t endpoints, const SampleOptions& opts);

// Random pair i (0 <= i < random_pairs) of the sample: source
// i * endpoints / random_pairs, a uniformly random other destination.
std::pair<uint32_t, uint32_t> random_pair(const RouteSample& sample, uint64_t i);

// Random pairs are visited by blocks of this many, each block in (src, dst)
// order: routes to nearby destinations share their tables and most of their
// path in cache.
inline constexpr uint64_t kRandomPairBlock = 4096;
// Block b of the random pairs, sorted, into `pairs`.
void random_pair_block(const RouteSample& sample, uint64_t b,
                       std::vector<std::pair<uint32_t, uint32_t>>& pairs);

// Counts traced routes and reports them (SweepProgressFn), from any thread,
// at most every half second once a second has passed.
class SweepMeter {
 public:
  SweepMeter(uint64_t total, const SweepProgressFn& fn);
  void add(uint64_t routes);
  void finish();  // the last report, if there was an earlier one

 private:
  double seconds() const;

  const uint64_t total_;
  const SweepProgressFn& fn_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<uint64_t> done_{0};
  std::atomic<double> next_{1.0};
  std::mutex mu_;
  bool reported_ = false;  // written and read under mu_ (finish: after the sweep)
};

// Row of a random pair in for_each_pair's calls.
inline constexpr uint32_t kRandomPairRow = ~uint32_t{0};

// Calls visit(state, row, src, dst) for every pair of the sample, in
// parallel with TBB, state being states.local() of the thread that runs it:
// first each source's row (row = its index in the sample, dst in increasing
// order, all on one thread), then the random pairs (row = kRandomPairRow)
// by blocks. visit must be safe to call from several threads at once for
// different states.
template <class State, class Visit>
void for_each_pair(const RouteSample& sample, tbb::enumerable_thread_specific<State>& states,
                   const Visit& visit, const SweepProgressFn& progress = {}) {
  const uint32_t e = sample.endpoints;
  if (e < 2) return;
  SweepMeter meter(sample.routes(), progress);
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, sample.num_sources()),
                    [&](const tbb::blocked_range<uint32_t>& rg) {
                      State& state = states.local();
                      for (uint32_t row = rg.begin(); row != rg.end(); ++row) {
                        const uint32_t src = sample.source(row);
                        for (uint32_t dst = 0; dst < e; ++dst)
                          if (dst != src) visit(state, row, src, dst);
                        meter.add(uint64_t{e - 1} * kTrafficClasses);
                      }
                    });
  const uint64_t blocks = (sample.random_pairs + kRandomPairBlock - 1) / kRandomPairBlock;
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, blocks),
                    [&](const tbb::blocked_range<uint64_t>& rg) {
                      State& state = states.local();
                      std::vector<std::pair<uint32_t, uint32_t>> pairs;
                      for (uint64_t b = rg.begin(); b != rg.end(); ++b) {
                        random_pair_block(sample, b, pairs);
                        for (const auto& [src, dst] : pairs) visit(state, kRandomPairRow, src, dst);
                        meter.add(pairs.size() * kTrafficClasses);
                      }
                    });
  meter.finish();
}

// A ratio of sums over sampled sources (sum y / sum x: mean hops per pair, a
// per-source y and x) and the half width of its 95% confidence interval:
// normal approximation, linearised ratio variance, finite population
// correction for sources drawn without replacement (0 when every source was
// traced).
struct Estimate {
  double value = 0;
  double ci95 = 0;  // half width
};
Estimate ratio_estimate(const std::vector<double>& y, const std::vector<double>& x,
                        uint32_t population);

}  // namespace fabemu
