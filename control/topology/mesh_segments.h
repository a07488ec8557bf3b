// Routes of at most six segments on the low-latency 3D mesh (the
// petaflops 3D-mesh proposal, "Bit Encoding": the first word carries six
// (direction, distance) segments of 1 to 16 hops), and the turns the
// per-router lists need for them (control/topology/mesh_turns.h).
//
// A route of s segments is s moves 'go straight k hops (1..16) in one
// direction', so a search in layers of segments is exact about the header:
// layer s holds, per (router, direction of its last segment), the best
// cost of a route of exactly s segments; layer s + 1 takes a legal turn
// (or none: a straight run longer than 16 hops is two segments) at each
// router and a straight run from it, a sliding minimum over the 16
// routers behind along each line. Cost: hops, then turns (a route of six
// segments turns at most five times); optionally each turn no list
// allows at a price (unless forbidden), so that the turns a route of at
// most six segments needs can be admitted. About 3 ms a search on
// 27 x 16 x 24.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "control/topology/mesh_reach.h"

namespace fabemu {

struct MeshTurn {
  int router, from, to;  // directions as ints
};
// Per router, bit from * 6 + to: turns never to be offered again.
using MeshTurnBits = std::vector<uint64_t>;

class MeshSegmentSearch {
 public:
  // Routes from root to every router, or (reverse) from every router to
  // root. missing_cost > 0: a turn the lists lack (and *forbidden, if
  // given, lacks too) may be taken at that cost (kMeshTurnPenalty: before
  // any count of hops); 0: legal routes only.
  // With `reach` (whose lists `at` must be), a missing turn that may close
  // a cycle costs kMeshRiskyTurns times as much.
  MeshSegmentSearch(const MeshLinks& links, const std::vector<MeshTurns>& at, int root,
                    bool reverse, int32_t missing_cost = 0, const MeshTurnBits* forbidden = nullptr,
                    const MeshReach* reach = nullptr);
  // A route of at most six segments joins v and root (v == root: true).
  bool reached(int v) const { return best_[size_t(v)] != kUnreached; }
  // The best route's cost: hops * kHop + turns + missing_cost a missing turn.
  int32_t cost(int v) const { return best_[size_t(v)]; }
  // The best such route, walked from its source; in *turns (if given) the
  // turns it takes (router, from, to), in order.
  std::optional<MeshRoute> route(int v, std::vector<MeshTurn>* turns = nullptr) const;

  static constexpr int32_t kHop = 8, kTurn = 1;  // turns <= 5 < kHop
  static constexpr int32_t kUnreached = INT32_MAX;

 private:
  const MeshLinks* links_;
  int root_;
  bool reverse_;
  // Per layer s (0 for one segment) and state r * 6 + dir: the segment's
  // hops, and the previous (forward) or next (reverse) segment's
  // direction at the router the segment starts from.
  std::vector<uint8_t> run_;
  std::vector<int8_t> arg_;
  std::vector<int32_t> best_;     // per router
  std::vector<uint8_t> best_at_;  // per router: layer * 6 + dir of best_
};

// The lexicographic price of a missing turn: fewest missing turns first.
inline constexpr uint32_t kMeshStaleRounds = 8;
inline constexpr int32_t kMeshTurnPenalty = int32_t{1} << 25, kMeshRiskyTurns = 4;

// Admits turns so that pairs whose XYZ route meets a fault (the roots of
// mesh_routes.h) get a legal route of at most six segments: per root, the
// pairs without one take the best route with missing turns at a price and
// its turns are admitted where they close no cycle (else forbidden, and
// the pair tries again). Returns the turns admitted.
uint32_t mesh_admit_segment_turns(const MeshLinks& links, MeshReach* reach,
                                  MeshTurnBits* forbidden);

}  // namespace fabemu
