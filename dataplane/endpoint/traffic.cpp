#include "dataplane/endpoint/traffic.h"

#include <algorithm>
#include <map>

#include "dataplane/endpoint/knuth_ran_array.h"

namespace fabemu {

namespace {

bool is_pow2(uint32_t n) { return n && !(n & (n - 1)); }
uint32_t log2u(uint32_t n) { return 31 - __builtin_clz(n); }

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::bitcomp: return "bitcomp";
    case Pattern::transpose: return "transpose";
    case Pattern::bitrev: return "bitrev";
    default: return "shuffle";
  }
}

bool bit_pattern(Pattern p) {
  return p == Pattern::bitcomp || p == Pattern::transpose || p == Pattern::bitrev ||
         p == Pattern::shuffle;
}

// Bit reversal and the perfect shuffle (a left rotation) of the log2(n)
// bits of i.
uint32_t bit_reverse(uint32_t i, uint32_t n) {
  uint32_t r = 0;
  for (; n > 1; n >>= 1, i >>= 1) r = (r << 1) | (i & 1);
  return r;
}
uint32_t shuffle(uint32_t i, uint32_t n) {
  const uint32_t shifted = i << 1;
  return (shifted & (n - 1)) | ((shifted & n) ? 1 : 0);
}

// BookSim2's fixed patterns (its traffic.cpp, read, not copied) on its
// node numbers: node = x + kx (y + ky z), the digits of its k-ary n-cube.
// nodes is a power of two for the bit patterns (the caller checks).
uint32_t booksim_destination(Pattern p, uint32_t node, uint32_t nodes,
                             const std::array<int32_t, 3>& k) {
  switch (p) {
    case Pattern::bitcomp:
      return ~node & (nodes - 1);
    case Pattern::transpose: {  // the low half of the bits swapped with the high half
      const uint32_t half = log2u(nodes) / 2, lo = (1u << half) - 1;
      return ((node >> half) & lo) | ((node << half) & (lo << half));
    }
    case Pattern::bitrev:
      return bit_reverse(node, nodes);
    case Pattern::shuffle:
      return shuffle(node, nodes);
    case Pattern::tornado:
    case Pattern::neighbor: {  // each digit on by (k + 1) / 2 - 1, or by 1
      uint32_t result = 0, offset = 1;
      for (int d = 0; d < 3; d++) {
        const uint32_t kd = static_cast<uint32_t>(k[d]), digit = node / offset % kd;
        const uint32_t by = p == Pattern::tornado ? (kd + 1) / 2 - 1 : 1;
        result += offset * ((digit + by) % kd);
        offset *= kd;
      }
      return result;
    }
    default:
      return node;
  }
}

}  // namespace

bool TrafficPattern::init(const Fabric& f, const TrafficConfig& cfg, uint64_t seed,
                          std::string* err) {
  pattern_ = cfg.pattern;
  n_ = f.processors();  // with network slices: between processors (slice 0's endpoints)
  hotspot_ = cfg.hotspot;
  hotspot_fraction_ = cfg.hotspot_fraction;
  to_self_ = cfg.to_self;
  if ((pattern_ == Pattern::hotspot) && hotspot_ >= n_) {
    *err = "traffic.hotspot " + std::to_string(hotspot_) + " is not an endpoint (fabric has " +
           std::to_string(n_) + ")";
    return false;
  }
  fixed_.assign(n_, 0);
  // Coordinates of each endpoint's router, and its slot among that router's endpoints.
  std::array<int32_t, 3> k{1, 1, 1};
  for (const auto& r : f.routers)
    for (int d = 0; d < 3; d++) k[d] = std::max(k[d], r.coord[d] + 1);
  const bool torus = f.topology == "torus";
  std::vector<int32_t> slot(n_, 0);
  std::map<std::array<int32_t, 4>, uint32_t> by_coord;  // (x, y, z, slot) -> endpoint
  {
    std::vector<int32_t> next(f.routers.size(), 0);
    for (uint32_t e = 0; e < n_; e++) {
      slot[e] = next[f.endpoints[e].router]++;
      const auto& c = f.routers[f.endpoints[e].router].coord;
      by_coord[{c[0], c[1], c[2], slot[e]}] = e;
    }
  }
  auto at = [&](std::array<int32_t, 3> c, int32_t s) -> uint32_t {
    auto it = by_coord.find({c[0], c[1], c[2], s});
    if (it == by_coord.end()) it = by_coord.find({c[0], c[1], c[2], 0});
    return it == by_coord.end() ? 0 : it->second;
  };
  // BookSim2's k-ary n-cube numbers its nodes x fastest.
  auto kncube_node = [&](uint32_t e) {
    const auto& c = f.routers[f.endpoints[e].router].coord;
    return static_cast<uint32_t>(c[0] + k[0] * (c[1] + k[1] * c[2]));
  };
  const bool node_pattern = bit_pattern(pattern_) || pattern_ == Pattern::tornado ||
                            pattern_ == Pattern::neighbor;
  // Bit patterns work on the bits of a node number (fabemu's own bitcomp
  // and torus transpose need none).
  const bool needs_bits = pattern_ == Pattern::bitrev || pattern_ == Pattern::shuffle ||
                          (cfg.booksim_numbering && bit_pattern(pattern_)) ||
                          (pattern_ == Pattern::transpose && !torus);
  if (needs_bits && !is_pow2(n_)) {
    *err = "traffic.pattern " + std::string(pattern_name(pattern_)) +
           " needs a power-of-two endpoint count, got " + std::to_string(n_);
    return false;
  }
  if (cfg.booksim_numbering && node_pattern) {
    if (!torus || f.routers.size() != n_) {
      *err = "traffic.numbering booksim numbers the nodes as BookSim2's k-ary n-cube does, one "
             "per router of the torus family, but this fabric has " +
             std::to_string(n_) + " endpoints on " + std::to_string(f.routers.size()) +
             " routers of family " + f.topology;
      return false;
    }
    if (pattern_ == Pattern::transpose && log2u(n_) % 2) {
      *err = "traffic.pattern transpose on BookSim's numbering needs an even power of two of "
             "nodes (its bits split in halves), got " + std::to_string(n_);
      return false;
    }
    std::vector<uint32_t> node_of(n_), endpoint_of(n_);
    for (uint32_t e = 0; e < n_; e++) {
      node_of[e] = kncube_node(e);
      endpoint_of[node_of[e]] = e;
    }
    for (uint32_t e = 0; e < n_; e++)
      fixed_[e] = endpoint_of[booksim_destination(pattern_, node_of[e], n_, k)];
    return true;
  }
  switch (pattern_) {
    case Pattern::uniform:
    case Pattern::hotspot:
      break;
    case Pattern::bitrev:
      for (uint32_t e = 0; e < n_; e++) fixed_[e] = bit_reverse(e, n_);
      break;
    case Pattern::shuffle:
      for (uint32_t e = 0; e < n_; e++) fixed_[e] = shuffle(e, n_);
      break;
    case Pattern::transpose:
      if (torus) {
        if (k[0] != k[1]) {
          *err = "traffic.pattern transpose needs a square torus (kx == ky), got " +
                 std::to_string(k[0]) + "x" + std::to_string(k[1]);
          return false;
        }
        for (uint32_t e = 0; e < n_; e++) {
          const auto& c = f.routers[f.endpoints[e].router].coord;
          fixed_[e] = at({c[1], c[0], c[2]}, slot[e]);
        }
      } else {
        const uint32_t b = log2u(n_), h = b / 2;
        for (uint32_t e = 0; e < n_; e++)
          fixed_[e] = b ? (((e << h) | (e >> (b - h))) & (n_ - 1)) : 0;
      }
      break;
    case Pattern::bitcomp:
      for (uint32_t e = 0; e < n_; e++) fixed_[e] = n_ - 1 - e;  // ~e when n is a power of two
      break;
    case Pattern::tornado:
      if (torus) {
        for (uint32_t e = 0; e < n_; e++) {
          auto c = f.routers[f.endpoints[e].router].coord;
          for (int d = 0; d < 3; d++) c[d] = (c[d] + (k[d] + 1) / 2 - 1) % k[d];
          fixed_[e] = at(c, slot[e]);
        }
      } else {
        for (uint32_t e = 0; e < n_; e++) fixed_[e] = (e + (n_ + 1) / 2 - 1) % n_;
      }
      break;
    case Pattern::flatfly_worst: {
      // Kim, Dally & Abts 2007, section 3.2: every endpoint of router R_i
      // sends to a randomly selected endpoint of router R_{i+1} (routers
      // with endpoints, in id order, the last to the first), so that all of
      // a router's traffic wants the same channel under minimal routing.
      std::vector<std::vector<uint32_t>> groups(f.routers.size());
      for (uint32_t e = 0; e < n_; e++) groups[f.endpoints[e].router].push_back(e);
      std::vector<NextGroup> group_of(f.routers.size());
      std::vector<size_t> with_eps;
      by_router_.clear();
      for (size_t r = 0; r < groups.size(); r++) {
        if (groups[r].empty()) continue;
        group_of[r] = {static_cast<uint32_t>(by_router_.size()),
                       static_cast<uint32_t>(groups[r].size())};
        by_router_.insert(by_router_.end(), groups[r].begin(), groups[r].end());
        with_eps.push_back(r);
      }
      next_group_.assign(n_, NextGroup{});
      for (size_t i = 0; i < with_eps.size(); i++)
        for (uint32_t e : groups[with_eps[i]])
          next_group_[e] = group_of[with_eps[(i + 1) % with_eps.size()]];
      break;
    }
    case Pattern::permutation: {
      if (cfg.permutation_seed >= 0) {  // BookSim2's randperm, on its node numbers
        const std::vector<uint32_t> dest = booksim_random_permutation(n_, cfg.permutation_seed);
        // (Elsewhere BookSim's node numbers are the endpoints'.)
        const bool kncube = cfg.booksim_numbering && torus && f.routers.size() == n_;
        std::vector<uint32_t> node_of(n_), endpoint_of(n_);
        for (uint32_t e = 0; e < n_; e++) {
          node_of[e] = kncube ? kncube_node(e) : e;
          endpoint_of[node_of[e]] = e;
        }
        for (uint32_t e = 0; e < n_; e++) fixed_[e] = endpoint_of[dest[node_of[e]]];
        break;
      }
      // A random derangement-free-ish permutation fixed by the seed (Fisher-Yates).
      std::vector<uint32_t> p(n_);
      for (uint32_t i = 0; i < n_; i++) p[i] = i;
      Rng rng(seed, 0xfeedULL);
      for (uint32_t i = n_; i > 1; i--) std::swap(p[i - 1], p[rng.below(i)]);
      fixed_ = p;
      break;
    }
    case Pattern::neighbor: {
      // Every endpoint of router i sends to the same-slot endpoint of router i+1
      // (routers that have endpoints, in id order).
      std::vector<int32_t> with_eps;
      for (const auto& r : f.routers)
        for (uint32_t e = 0; e < n_; e++)
          if (f.endpoints[e].router == r.id) {
            with_eps.push_back(r.id);
            break;
          }
      std::map<int32_t, size_t> pos;
      for (size_t i = 0; i < with_eps.size(); i++) pos[with_eps[i]] = i;
      std::map<std::pair<int32_t, int32_t>, uint32_t> by_router_slot;
      for (uint32_t e = 0; e < n_; e++) by_router_slot[{f.endpoints[e].router, slot[e]}] = e;
      for (uint32_t e = 0; e < n_; e++) {
        const int32_t next = with_eps[(pos[f.endpoints[e].router] + 1) % with_eps.size()];
        auto it = by_router_slot.find({next, slot[e]});
        if (it == by_router_slot.end()) it = by_router_slot.find({next, 0});
        fixed_[e] = it->second;
      }
      break;
    }
  }
  return true;
}

}  // namespace fabemu
