#include "control/analysis/link_load.h"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "control/analysis/analysis.h"
#include "dataplane/core/rng.h"

namespace fabemu {

namespace {

constexpr int kMaxDiversity = 32;
// Separate streams of one seed for the derangements and the block addresses.
constexpr uint64_t kDerangementStream = 0x646572616e6765ull;  // "derange"
constexpr uint64_t kAddressStream = 0x61646472ull;            // "addr"

// Dense ids of the router-to-router links, by (router, output port).
struct LinkIndex {
  size_t ports = 0;
  std::vector<int32_t> id;  // router * ports + port -> link id, or -1
  uint32_t links = 0;

  explicit LinkIndex(const Fabric& f) {
    for (const FabricRouter& r : f.routers) ports = std::max(ports, r.ports.size());
    id.assign(f.routers.size() * ports, -1);
    for (size_t r = 0; r < f.routers.size(); ++r)
      for (size_t p = 0; p < f.routers[r].ports.size(); ++p)
        if (f.routers[r].ports[p].peer_router >= 0)
          id[r * ports + p] = static_cast<int32_t>(links++);
  }
  int32_t operator()(const HopTrace& h) const {
    return id[static_cast<size_t>(h.router) * ports + h.out_port];
  }
};

// One thread's buffers: streams per (group, link), and the route.
struct Counts {
  std::vector<uint32_t> streams;  // group-major
  std::vector<HopTrace> path;
  uint64_t traced = 0, unroutable = 0;
};

// Per permutation and diversity: the worst link's streams and all links' streams.
struct PermutationResult {
  std::vector<uint32_t> worst;
  std::vector<uint64_t> total;
};

}  // namespace

std::vector<uint32_t> random_derangement(uint32_t endpoints, uint64_t seed, uint64_t index) {
  std::vector<uint32_t> p(endpoints);
  if (endpoints < 2) return p;
  Rng rng(seed ^ kDerangementStream, index);
  // Fisher-Yates until no endpoint sends to itself: about e tries.
  for (;;) {
    for (uint32_t i = 0; i < endpoints; ++i) p[i] = i;
    for (uint32_t i = endpoints; i > 1; --i) std::swap(p[i - 1], p[rng.below(i)]);
    bool fixed = false;
    for (uint32_t i = 0; i < endpoints && !fixed; ++i) fixed = p[i] == i;
    if (!fixed) return p;
  }
}

namespace {

// The diversities sorted and checked, and the group of each stream: stream
// i counts in group g, the first whose diversity exceeds i, so the traffic
// of diversity g is the sum of groups 0..g.
struct Streams {
  std::vector<int> diversities;
  std::vector<int> group_of;
  int groups() const { return static_cast<int>(diversities.size()); }
  int count() const { return diversities.back(); }

  explicit Streams(std::vector<int> d) : diversities(std::move(d)) {
    std::sort(diversities.begin(), diversities.end());
    diversities.erase(std::unique(diversities.begin(), diversities.end()), diversities.end());
    if (diversities.empty() || diversities.front() < 1 || diversities.back() > kMaxDiversity)
      throw std::invalid_argument(
          fmt::format("path diversity must be 1 to {} streams per transfer", kMaxDiversity));
    group_of.resize(count());
    for (int i = 0, g = 0; i < count(); ++i) {
      while (i >= diversities[g]) ++g;
      group_of[i] = g;
    }
  }
};

// Traces every stream of the permutation dst and fills r with each
// diversity's worst link and total link traffic, in streams.
void load_permutation(const Fabric& fabric, const RoutePathFn& trace, const LinkIndex& index,
                      const Streams& streams, const std::vector<uint32_t>& dst, Rng& address,
                      Counts& c, PermutationResult& r) {
  const int groups = streams.groups();
  c.streams.assign(static_cast<size_t>(groups) * index.links, 0u);
  for (uint32_t src = 0; src < dst.size(); ++src) {
    const auto base = static_cast<uint16_t>(address.next() & 0x7FFF);
    for (int i = 0; i < streams.count(); ++i) {
      ++c.traced;
      const PacketMeta m =
          trace_meta(src, dst[src], 1, TrafficClass::request, stream_hash(base, i));
      if (!trace(m, c.path)) {
        ++c.unroutable;
        continue;
      }
      uint32_t* row = c.streams.data() + static_cast<size_t>(streams.group_of[i]) * index.links;
      for (const HopTrace& h : c.path)
        if (const int32_t l = index(h); l >= 0) ++row[l];
    }
  }
  r.worst.assign(groups, 0);
  r.total.assign(groups, 0);
  for (uint32_t l = 0; l < index.links; ++l) {
    uint32_t sum = 0;
    for (int g = 0; g < groups; ++g) {
      sum += c.streams[static_cast<size_t>(g) * index.links + l];
      r.worst[g] = std::max(r.worst[g], sum);
      r.total[g] += sum;
    }
  }
}

}  // namespace

std::vector<double> worst_link_load(const Fabric& fabric, const RoutePathFn& trace,
                                    const std::vector<uint32_t>& dst,
                                    const std::vector<int>& diversities, uint64_t seed) {
  const Streams streams(diversities);
  const LinkIndex index(fabric);
  Rng address(seed ^ kAddressStream, 0);
  Counts c;
  PermutationResult r;
  load_permutation(fabric, trace, index, streams, dst, address, c, r);
  std::vector<double> worst;
  for (int g = 0; g < streams.groups(); ++g)
    worst.push_back(r.worst[g] / double(streams.diversities[g]));
  return worst;
}

PermutationLoad permutation_link_load(const Fabric& fabric, const RoutePathFn& trace,
                                      const PermutationLoadOptions& opts) {
  PermutationLoad out;
  const Streams streams(opts.diversities);
  out.diversities = streams.diversities;
  const auto e = static_cast<uint32_t>(fabric.endpoints.size());
  if (e < 2) throw std::invalid_argument("a permutation needs at least 2 endpoints");
  out.permutations = opts.permutations;
  out.seed = opts.seed;
  const LinkIndex index(fabric);
  out.links = index.links;
  const int groups = streams.groups();

  std::vector<PermutationResult> results(opts.permutations);
  tbb::enumerable_thread_specific<Counts> counts;
  SweepMeter meter(uint64_t{opts.permutations} * e * streams.count(), opts.progress);
  const auto start = std::chrono::steady_clock::now();
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, opts.permutations),
                    [&](const tbb::blocked_range<uint32_t>& rg) {
                      Counts& c = counts.local();
                      for (uint32_t p = rg.begin(); p != rg.end(); ++p) {
                        Rng address(opts.seed ^ kAddressStream, p);
                        load_permutation(fabric, trace, index, streams,
                                         random_derangement(e, opts.seed, p), address, c,
                                         results[p]);
                        meter.add(uint64_t{e} * streams.count());
                      }
                    });
  meter.finish();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const Counts& c : counts) {
    out.streams_traced += c.traced;
    out.unroutable += c.unroutable;
  }

  // Means in permutation order: the same sums whatever the threads did.
  for (int g = 0; g < groups; ++g) {
    const double d = out.diversities[g];
    double sum = 0, sq = 0, most = 0, link = 0;
    for (const PermutationResult& r : results) {
      const double w = r.worst[g] / d;
      sum += w;
      sq += w * w;
      most = std::max(most, w);
      link += double(r.total[g]) / d / std::max<uint32_t>(1, index.links);
    }
    const double n = std::max<uint32_t>(1, opts.permutations);
    const double mean = sum / n;
    out.mean_worst.push_back(mean);
    out.worst_sd.push_back(n > 1 ? std::sqrt(std::max(0.0, (sq - n * mean * mean) / (n - 1))) : 0);
    out.max_worst.push_back(most);
    out.mean_link.push_back(link / n);
  }
  return out;
}

}  // namespace fabemu
