// Worst-case link utilisation under random permutations (the BlackWidow
// paper, section 7.8.1 and Table 4), from routes traced through a fabric's
// programmed routing tables.
//
// A permutation: every endpoint sends one block transfer to another random
// endpoint and receives one (a random derangement: "each processor is
// sending a block of data to one other random processor"). Link traffic is
// relative to the injection bandwidth: a transfer puts 1 on every router-to-
// router link of its route. With path diversity d the transfer is split
// evenly over d streams that carry different hash bits (YARC's optional
// hash phit, section 7.8.2), each carrying 1/d: stream i of a transfer
// whose block address gives hash bits b carries b ^ (0x21 * i), so that for
// i < 32 the bits rank 1 hashes on (0..4 of its 0..7) and those rank 2
// hashes on (5..9 of its 5..12) both step through i, and the d streams leave
// every rank-1 and rank-2 router on d different uplinks: d unique paths. A
// routing that ignores the hash (a torus) gives every stream the same path.
//
// Per permutation the worst-case link utilisation is the largest traffic on
// any router-to-router link; the result is its mean over the permutations.
// Endpoint links are left out: under a permutation each carries exactly 1.
//
// Permutations run in parallel with TBB; permutation p draws from its own
// stream of the seed (derangement and block addresses), so the figures depend
// on the seed and the permutation count only, not on the thread count.
#pragma once
#include <cstdint>
#include <vector>

#include "control/analysis/route_sample.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

struct PermutationLoadOptions {
  uint32_t permutations = 10000;
  uint64_t seed = 1;
  // Path diversities to measure, each 1..32 (streams per transfer); every
  // one costs no more than the largest, whose streams include the others'.
  std::vector<int> diversities{1};
  // Progress of the tracing (SweepProgress counts traced streams).
  SweepProgressFn progress;
};

struct PermutationLoad {
  std::vector<int> diversities;    // as asked, ascending, duplicates removed
  std::vector<double> mean_worst;  // per diversity: mean over permutations of the worst link
  std::vector<double> worst_sd;    // per diversity: standard deviation of the worst link
  std::vector<double> max_worst;   // per diversity: the worst link of the worst permutation
  std::vector<double> mean_link;   // per diversity: mean traffic over links and permutations
  uint32_t permutations = 0;
  uint64_t seed = 0;
  uint32_t links = 0;  // router-to-router links (one direction each)
  uint64_t streams_traced = 0;
  uint64_t unroutable = 0;  // streams the tables could not deliver (0 in a healthy fabric)
  double seconds = 0;       // wall time (not a figure)
};

// The hash bits stream i of a transfer with block hash bits `base` carries.
inline uint16_t stream_hash(uint16_t base, int i) {
  return static_cast<uint16_t>((base ^ (0x21u * static_cast<unsigned>(i))) & 0x7FFFu);
}

// The random derangement of endpoints permutation `index` of `seed` uses
// (dst = result[src]); exposed for tests.
std::vector<uint32_t> random_derangement(uint32_t endpoints, uint64_t seed, uint64_t index);

// The worst link's traffic, per diversity (ascending), under one
// permutation dst (dst[src]; src == dst sends nothing over the fabric), the
// block addresses drawn from seed.
std::vector<double> worst_link_load(const Fabric& fabric, const RoutePathFn& trace,
                                    const std::vector<uint32_t>& dst,
                                    const std::vector<int>& diversities, uint64_t seed);

// Worst-case link utilisation of `fabric` (at least 2 endpoints) under
// opts.permutations random permutations, every route from `trace`. Throws
// std::invalid_argument on a diversity outside 1..32.
PermutationLoad permutation_link_load(const Fabric& fabric, const RoutePathFn& trace,
                                      const PermutationLoadOptions& opts);

}  // namespace fabemu
