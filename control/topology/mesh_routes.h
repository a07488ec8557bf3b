// The source routes a run of the low-latency 3D mesh needs beyond XYZ
// (the petaflops 3D-mesh proposal, "Routing": XYZ "where this route is
// available", some other static route of the turn model near a fault):
// every ordered pair of live routers whose XYZ route meets a dead link or
// router, with the shortest legal route under the per-router turn lists
// that fits the header's six segments of at most 16 hops (fewest hops,
// then fewest turns; control/topology/mesh_segments.h).
//
// The pairs an XYZ route meets a dead hop (r, d) form a box: sources on
// r's side of it sharing r's coordinates of the later dimensions, any in
// the earlier; destinations past it sharing r's earlier coordinates. Each
// box is covered by the smaller of its two sides: one search forward from
// each source of it, or back from each destination, over (router,
// direction) states in layers of segments. A dead X
// link is covered by its row's sources, a dead Z link by its column's
// destinations: some hundreds of searches on 27 x 16 x 24 instead of one
// per router. Searches run in parallel (TBB); the result does not depend
// on it.
#pragma once
#include <cstdint>
#include <vector>

#include "control/topology/mesh_reach.h"

namespace fabemu {

struct MeshException {
  uint32_t src_router = 0, dst_router = 0;
  MeshRoute route{};      // empty when not routable
  bool routable = false;  // false: no legal route of at most six segments
};

struct MeshRouteWork {
  uint32_t forward_searches = 0, reverse_searches = 0;
};

// Sorted by (src, dst); the pairs not listed keep their XYZ route. Among
// routes of equal hops and turns the choice is fabemu's (mesh_source_route
// may pick another of the same cost).
std::vector<MeshException> mesh_exceptions(const MeshShape& m, const MeshFaults& f,
                                           const std::vector<MeshTurns>& at,
                                           MeshRouteWork* work = nullptr);

// The searches that cover every pair whose XYZ route meets a fault: roots
// [0, reverse) are destinations searched back from, the rest sources.
struct MeshRerouteRoots {
  std::vector<int> roots;
  size_t reverse = 0;
  std::vector<uint8_t> by_dst;  // per router: a destination root
  bool reversed(size_t i) const { return i < reverse; }
};
MeshRerouteRoots mesh_reroute_roots(const MeshLinks& links);
// The routers paired with root i whose XYZ route between them meets a
// fault, each pair covered by exactly one root.
std::vector<int> mesh_rerouted_pairs(const MeshLinks& links, const MeshRerouteRoots& roots,
                                     size_t i);

}  // namespace fabemu
