// The latency histogram's percentiles against the exact quantiles of the
// samples it recorded: within 1% (the report's p50, p99 and p999, and the
// sweep's curves, come from it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "dataplane/stats/stats.h"

namespace fabemu {
namespace {

// The rank percentile() reports: round(p% of n), at least 1 (1-based).
uint64_t exact_quantile(std::vector<uint64_t> v, double p) {
  const auto rank =
      std::max<uint64_t>(static_cast<uint64_t>(p / 100.0 * double(v.size()) + 0.5), 1);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(rank - 1), v.end());
  return v[rank - 1];
}

void expect_within_one_percent(const std::vector<uint64_t>& samples, const char* what) {
  LatencyHistogram h;
  for (uint64_t s : samples) h.add(s);
  for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const uint64_t exact = exact_quantile(samples, p);
    const uint64_t got = h.percentile(p);
    // Never below the exact value: the upper edge of its bucket.
    EXPECT_GE(got, exact) << what << " p" << p;
    EXPECT_LE(double(got), double(exact) * 1.01) << what << " p" << p << ": exact " << exact;
  }
}

TEST(LatencyHistogram, PercentilesWithinOnePercentOfExactQuantiles) {
  std::mt19937_64 rng(7);
  // Latencies in ps as runs see them: a few hundred ns with a long tail.
  std::lognormal_distribution<double> lat(std::log(400e3), 0.6);
  std::vector<uint64_t> a;
  for (int i = 0; i < 200000; i++) a.push_back(static_cast<uint64_t>(lat(rng)));
  expect_within_one_percent(a, "lognormal ps");
  // Values spanning nine decades, including the exact region below 128.
  std::uniform_real_distribution<double> expo(0.0, 9.0);
  std::vector<uint64_t> b;
  for (int i = 0; i < 100000; i++) b.push_back(static_cast<uint64_t>(std::pow(10.0, expo(rng))));
  expect_within_one_percent(b, "nine decades");
  // Few samples: p99 and p999 are the top ones.
  expect_within_one_percent({1000, 2000, 3000, 40000, 55555}, "five samples");
}

TEST(LatencyHistogram, SmallValuesAndTheMaxAreExact) {
  LatencyHistogram h;
  for (uint64_t v = 0; v < LatencyHistogram::kSub; v++) h.add(v);
  EXPECT_EQ(h.percentile(50), 63u);
  EXPECT_EQ(h.percentile(100), uint64_t(LatencyHistogram::kSub - 1));
  // Past the last bucket's start the max is still what was recorded.
  const uint64_t huge = uint64_t{1} << 60;
  h.add(huge);
  EXPECT_EQ(h.percentile(100), huge);
  EXPECT_EQ(h.max, huge);
}

TEST(LatencyHistogram, BucketsTileTheRange) {
  // Every bucket starts where the one before ends, and a value's bucket
  // contains it.
  for (int i = 1; i < LatencyHistogram::kBuckets; i++)
    ASSERT_GT(LatencyHistogram::lower_bound_of(i), LatencyHistogram::lower_bound_of(i - 1)) << i;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; i++) {
    const uint64_t v = rng() >> (rng() % 20 + 17);  // up to 2^47
    const int idx = LatencyHistogram::index_of(v);
    ASSERT_LE(LatencyHistogram::lower_bound_of(idx), v);
    if (idx + 1 < LatencyHistogram::kBuckets) {
      ASSERT_LT(v, LatencyHistogram::lower_bound_of(idx + 1));
    }
  }
}

TEST(LatencyHistogram, MergeIsTheHistogramOfBoth) {
  LatencyHistogram a, b, both;
  for (uint64_t v = 1; v < 50000; v += 7) {
    (v % 3 ? a : b).add(v * 11);
    both.add(v * 11);
  }
  a.merge(b);
  for (double p : {50.0, 99.0, 99.9}) EXPECT_EQ(a.percentile(p), both.percentile(p));
  EXPECT_EQ(a.count, both.count);
  EXPECT_EQ(a.min, both.min);
  EXPECT_EQ(a.max, both.max);
}

}  // namespace
}  // namespace fabemu
