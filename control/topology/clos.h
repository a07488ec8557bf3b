// Clos family "clos" (profile yarc): the BlackWidow folded Clos of YARC
// routers, and the programming of the YARC routing tables
// (dataplane/routing/yarc_updown.h).
//
// Rank 1 (E <= 32 endpoints): one radix-64 router (id 0), endpoint e on
//   port e; ports E..63 unconnected.
// Rank 2 (E <= 1024): R1 = ceil(E / 32) rank-1 routers (ids 0..R1-1), router
//   i with endpoints 32i..32i+31 on ports 0..31 and U uplinks on ports
//   32..32+U-1 (U = topology.uplinks, 32 by default: full bisection; 16
//   halves it, as the flattened butterfly paper's Figure 6 holds the
//   bisection of its 3-stage folded Clos to the other topologies'); then U
//   rank-2 routers (ids R1..R1+U-1), each one half of a YARC split into
//   two radix-32 virtual routers as on the R2/R3 module: port i of rank-2
//   router j goes down to rank-1 router i, whose uplink 32 + j comes back up.
// Router coord = (rank, index within rank, 0); FabricRouter::rank = rank.
// Port label 0 = down (towards endpoints), 1 = up.
#pragma once
#include <cstdint>
#include <vector>

#include "control/spec/spec.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/yarc_updown.h"

namespace fabemu {

inline constexpr uint8_t kClosDown = 0;
inline constexpr uint8_t kClosUp = 1;
inline constexpr int kClosSubtree = 32;  // endpoints under one rank-1 router

// Throws std::invalid_argument on a bad size (rank 1: 1..32, rank 2: 1..1024
// endpoints; rank 2: 1..32 uplinks).
Fabric build_clos(const Spec& spec);

// Rank 1: E / 2; rank 2: R1 * U / 2 uplinks (with U = 32 a full-bisection
// fat tree).
int64_t clos_bisection_links(const Spec& spec, const Fabric& fabric);
// A cut that achieves it (TopologyInfo::bisection_cuts), rank 2: half of the
// rank-1 and half of the rank-2 routers on each side. Rank 1: none.
std::vector<BisectionCut> clos_bisection_cuts(const Spec& spec, const Fabric& fabric);

// Healthy-network tables: root detect (location = first destination of the
// subtree, mask = its size - 1), up-table entry 0 matching everything with
// every uplink, hash bits 0..7 at rank 1 and 5..12 at rank 2, down route
// s = 5 (rank - 1), m = 5 bits, port map from the wiring. Pipeline
// spec.router.latency_ns at every hop; adaptive responses as in the paper.
YarcTables program_yarc_tables(const Spec& spec, const Fabric& fabric);

// A fabric with faults (FabricPort::dead, FabricRouter::dead): up-routing
// fault entries around each fault's shadow (clos_faults.cpp); program_yarc_tables
// calls it. Healthy fabrics: no change.
void add_yarc_fault_entries(YarcTables& t, const Fabric& fabric);

// Bytes the YARC tables of `fabric` take (RoutingInfo::table_bytes).
uint64_t yarc_table_bytes(const Fabric& fabric);

}  // namespace fabemu
