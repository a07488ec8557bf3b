// The petaflops 3D-mesh proposal's reliability standard ("Reliability
// Standard": the system keeps running with one dead link, and with up to
// 10 dead links or chips "for 99% of failure patterns"), as fabemu can
// judge it: for seeded random patterns of dead links or dead routers, the
// per-router turn lists are programmed around the faults
// (program_turn_lists, control/topology/mesh_turns.h) and the analysis
// counts the patterns where every ordered pair of surviving routers keeps
// a legal route (control/topology/mesh_reach.h), the pairs left without
// one, the turns admitted, and whether the lists stay deadlock free. With
// `routes`, the source routes are computed too (mesh_routes.h) and the
// pairs with a legal route but none of at most six segments are counted
// against the pattern.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "control/analysis/route_sample.h"
#include "control/topology/mesh_turns.h"

namespace fabemu {

struct MeshReliabilityOptions {
  std::array<int, 3> dims{27, 16, 24};  // the proposal's machine
  int dead_links = 10, dead_routers = 10;  // the largest counts (0: that kind not run)
  std::vector<int> counts;  // fault counts to run, each 1..max; empty: 1 and the max
  uint32_t patterns = 1000;  // per kind and count
  uint64_t seed = 1;
  bool routes = false;
  bool xyz_base = true;  // lists start from XYZ's turns; false: from fault_turns()
  SweepProgressFn progress;  // patterns done of all; from worker threads, one call at a time
};

struct MeshReliabilityRow {
  std::string kind;  // "links" or "routers"
  int faults = 0;
  uint32_t patterns = 0;
  uint32_t connected = 0;      // patterns leaving every pair of survivors a legal route
  uint32_t deadlock_free = 0;  // patterns whose lists pass mesh_turns_deadlock_free
  double disconnected_mean = 0;  // ordered pairs of survivors without a legal route
  uint64_t disconnected_max = 0;
  double added_mean = 0;  // turns admitted beyond the base model
  uint32_t added_max = 0;
  // With routes: pairs routed around faults, connected pairs without a
  // legal route of at most six segments, and patterns with neither failure.
  double rerouted_mean = 0;
  uint64_t too_long_max = 0;
  double too_long_mean = 0;
  uint32_t routable = 0;
  double seconds_mean = 0, seconds_max = 0;  // per pattern: programming (and routes)
  double share() const { return patterns ? double(routes_ok()) / patterns : 0; }
  uint32_t routes_ok() const { return routable_counted ? routable : connected; }
  bool routable_counted = false;
};

// Patterns are drawn from (seed, kind, count, index) alone, so the rows do
// not depend on the threads.
std::vector<MeshReliabilityRow> run_mesh_reliability(const MeshReliabilityOptions& o);

// The faults of one pattern: `count` distinct links (or routers) of m.
MeshFaults mesh_fault_pattern(const MeshShape& m, bool routers, int count, uint64_t seed,
                              uint32_t index);

inline constexpr double kMeshReliabilityStandard = 0.99;  // "99% of failure patterns"

}  // namespace fabemu
