// Source routes on the low-latency 3D mesh under a turn model (the
// petaflops 3D-mesh proposal, "Routing": "XYZ dimension-ordered routing
// where this route is available ... some other static route compatible
// with a three-dimensional turn model ... XYZ dimension-ordered routing
// must be a legitimate subset of the turn model strategy"), and the check
// that a set of allowed turns cannot deadlock.
//
// The proposal names no turn model. fabemu's fault models extend west-first
// (Glass & Ni) to three dimensions: every turn is allowed but a turn into
// sX (s = + or -, from any other direction) and a turn from +Z or -Z into
// tY: four models, one for each (s, t). XYZ's turns (X to Y or Z, Y to Z)
// are in all four; the channel dependencies each allows are acyclic on any
// mesh (mesh_turns_deadlock_free proves it per size). choose_fault_turns
// takes the first of the four that connects every live pair; but one list
// for every router cannot route around every dead link (under -X first a
// router whose -X link is dead can never go -X; on a 4x3x3 mesh 48 of the
// 75 single dead links are covered). The proposal's per-router lists of
// allowed turns do (program_turn_lists): each router starts from XYZ's
// turns and a turn is admitted at one router where a route needs it and
// its one new channel dependency closes no cycle, so the lists stay
// deadlock free; on 4x3x3 every single dead link and every single dead
// router leaves every pair of survivors a legal route. U-turns are
// never allowed; going straight always is.
//
// Plain logic on a mesh of kx x ky x kz routers (router id x + kx (y + ky
// z)); dataplane/codec/mesh3d_route.h is the route's encoding;
// mesh_routes.h computes the routes a run needs. Not wired
// to a fabric yet (issue 35).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "dataplane/codec/mesh3d_route.h"

namespace fabemu {

// allowed[from][to]: a packet that arrived going `from` may leave going `to`.
struct MeshTurns {
  std::array<std::array<bool, 6>, 6> allowed{};
  bool operator==(const MeshTurns&) const = default;
};

MeshTurns xyz_turns();    // dimension order: X then Y then Z
// The 3-D west-first model above: turns into (x_plus ? +X : -X) and from Z
// into (y_plus ? +Y : -Y) forbidden (fault_turns(): -X and -Y).
MeshTurns fault_turns(bool x_plus = false, bool y_plus = false);
MeshTurns all_turns();    // every turn but U-turns (deadlocks: for tests)
bool turns_contain(const MeshTurns& big, const MeshTurns& small);

struct MeshShape {
  std::array<int, 3> k{1, 1, 1};
  int routers() const { return k[0] * k[1] * k[2]; }
  int id(int x, int y, int z) const { return x + k[0] * (y + k[1] * z); }
  std::array<int, 3> coord(int id) const {
    return {id % k[0], (id / k[0]) % k[1], id / (k[0] * k[1])};
  }
  // The router one hop from r going d, or -1 off the mesh's edge.
  int neighbour(int r, MeshDir d) const;
};

// Dead parts of the mesh: routers, and links by (router, direction) from
// either end.
struct MeshFaults {
  std::set<int> routers;
  std::set<std::pair<int, int>> links;  // (router, MeshDir as int), both ends recorded
  void kill_link(const MeshShape& m, int r, MeshDir d);
  bool link_dead(int r, MeshDir d) const { return links.count({r, static_cast<int>(d)}) > 0; }
};

// The XYZ route from src to dst if its links and routers are alive, else
// the shortest route of at most six segments of at most 16 hops (fewest
// hops, then fewest turns) whose turns are allowed at every router it
// turns in (mesh_segments.h). None: no such route.
std::optional<MeshRoute> mesh_source_route(const MeshShape& m, const MeshFaults& f,
                                           const MeshTurns& turns, int src, int dst);
// The same with each router's own list of allowed turns (at[router]).
std::optional<MeshRoute> mesh_source_route(const MeshShape& m, const MeshFaults& f,
                                           const std::vector<MeshTurns>& at, int src, int dst);

// The proposal's per-router lists of allowed turns, programmed around
// faults: every router starts from `base` (a deadlock-free model, else
// std::invalid_argument); for each pair left without a legal route
// (control/topology/mesh_reach.h finds them), the shortest route that
// needs turns some router lacks is found, and each such turn is admitted
// at that router if the one channel dependency it adds closes no cycle
// (else it is never offered again and the next route is tried). Then the
// turns routes of at most six segments need (mesh_admit_segment_turns,
// control/topology/mesh_segments.h): admitted first they would close
// cycles connectivity needs. Every admitted turn keeps the dependency
// graph acyclic, so the lists stay deadlock free. Seconds for 10 dead
// links on 27 x 16 x 24 (0.15 s for connectivity alone).
struct MeshTurnLists {
  std::vector<MeshTurns> at;  // per router
  uint32_t added = 0;         // turns admitted beyond the base model
  // Ordered pairs of live routers still without a legal route (one may
  // need more than six segments: mesh_routes.h says which).
  uint32_t unroutable = 0;
};
// fit_segments false: connectivity only (the reliability analysis without
// routes, which does not need the slow second phase).
MeshTurnLists program_turn_lists(const MeshShape& m, const MeshFaults& f, const MeshTurns& base,
                                 bool fit_segments = true);

// The first of the four fault models under which every pair of live
// routers has a legal route of at most six segments; none when no one
// does.
std::optional<MeshTurns> choose_fault_turns(const MeshShape& m, const MeshFaults& f);

// Appends one hop: the last segment grows, or a new one begins (after a
// turn or 16 hops); false when that would be a seventh.
bool mesh_route_append(MeshRoute* r, MeshDir d);

// The routers a route visits from src, in order (src first), or none when
// it leaves the mesh.
std::optional<std::vector<int>> mesh_walk(const MeshShape& m, int src, const MeshRoute& r);

// Whether the channel dependencies that `turns` allows on mesh m are
// acyclic (each channel a directed link; a packet on one may ask for the
// next wherever the turn between them is allowed, or it goes straight).
bool mesh_turns_deadlock_free(const MeshShape& m, const MeshTurns& turns);
// Per-router lists on a mesh with faults (dead links carry nothing).
bool mesh_turns_deadlock_free(const MeshShape& m, const MeshFaults& f,
                              const std::vector<MeshTurns>& at);

}  // namespace fabemu
