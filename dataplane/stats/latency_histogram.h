// A run's latency histogram (its buckets and percentiles: stats.cpp).
#pragma once
#include <cstdint>

namespace fabemu {

// Log-linear latency histogram with HdrHistogram's precision at two
// significant digits: values below kSub are exact; each power of two above
// is split into kSub linear sub-buckets, so a bucket is at most 1/128
// (0.78%) of its values wide and a percentile (the bucket's upper edge,
// clamped to the max) is within 0.78% of the exact one. Values from 2^48 ps
// (281 s) up share the last bucket; the max stays exact.
struct LatencyHistogram {
  static constexpr int kSubBits = 7;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kTopBit = 47;  // highest power of two with its own buckets
  static constexpr int kBuckets = (kTopBit - kSubBits + 2) * kSub;
  uint64_t count = 0;
  uint64_t sum = 0;
  uint64_t min = ~uint64_t{0};
  uint64_t max = 0;
  uint64_t bucket[kBuckets] = {};
  static int index_of(uint64_t v);
  static uint64_t lower_bound_of(int idx);
  void add(uint64_t v) {
    count++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
    bucket[index_of(v)]++;
  }
  void merge(const LatencyHistogram& o);
  // The value at rank round(p% of count) (at least 1), as the upper edge of
  // its bucket clamped to [min, max]: at most 0.78% above the exact one.
  uint64_t percentile(double p) const;
  double mean() const { return count ? double(sum) / double(count) : 0.0; }
};

}  // namespace fabemu
