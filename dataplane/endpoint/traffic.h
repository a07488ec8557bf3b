// Synthetic traffic patterns: where an endpoint's next message goes.
// Deterministic patterns are precomputed per endpoint; random ones draw from
// the endpoint's own generator.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/engine/engine_base.h"
#include "dataplane/core/fabric.h"
#include "dataplane/core/rng.h"

namespace fabemu {

class TrafficPattern {
 public:
  // Builds the destination tables. Returns false and sets *err when the
  // pattern does not fit the fabric (e.g. transpose on a non-square torus).
  bool init(const Fabric& f, const EngineConfig& cfg, std::string* err);

  uint32_t destination(uint32_t src, Rng& rng) const {
    switch (pattern_) {
      case Pattern::uniform:
        return uniform(src, rng);
      case Pattern::hotspot:
        if (rng.unit() <= hotspot_fraction_ && hotspot_ != src) return hotspot_;
        return uniform(src, rng);
      case Pattern::flatfly_worst: {
        const NextGroup& g = next_group_[src];
        return by_router_[g.first + rng.below(g.count)];
      }
      default:
        return fixed_[src];
    }
  }
  // Per-endpoint destination for fixed patterns (tests and describe).
  const std::vector<uint32_t>& fixed() const { return fixed_; }

 private:
  uint32_t uniform(uint32_t src, Rng& rng) const {
    if (n_ < 2) return src;
    uint32_t d = rng.below(n_ - 1);  // any endpoint but the source
    return d >= src ? d + 1 : d;
  }
  Pattern pattern_ = Pattern::uniform;
  uint32_t n_ = 0;
  uint32_t hotspot_ = 0;
  double hotspot_fraction_ = 0;
  std::vector<uint32_t> fixed_;
  // flatfly_worst: the endpoints grouped by router (routers in id order), and
  // per endpoint where in by_router_ the next router's group is.
  struct NextGroup {
    uint32_t first = 0;
    uint32_t count = 1;
  };
  std::vector<uint32_t> by_router_;
  std::vector<NextGroup> next_group_;
};

}  // namespace fabemu
