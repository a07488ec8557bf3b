// The bisection of a fabric with dead links and routers (FabricPort::dead,
// FabricRouter::dead): the live router-to-router links across a cut into
// two halves of the endpoints.
//
// The exact minimum over every balanced cut is NP-hard in general; what is
// counted here is an upper bound that is exact for the faults it was built
// for: each of the topology's minimum cuts of the healthy fabric
// (TopologyInfo::bisection_cuts), the one with the fewest live links, then
// improved greedily by swapping a router at a fault (a dead router, or one
// end of a dead link) with a router on the other side that has as many
// endpoints, while that leaves fewer live links across. A dead link of a
// folded Clos is then brought across the cut (512 -> 511 at rank 2, 1024
// endpoints), as is one of a torus ring (4x4x4: 32 -> 31).
#pragma once
#include <cstdint>

#include "control/spec/spec.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

// True when some router or port of `fabric` is dead.
bool has_dead_parts(const Fabric& fabric);

// Live links across `side`, the fewer of the two directions.
int64_t live_links_across(const Fabric& fabric, const BisectionCut& side);

// The live links across the best cut found as above, one direction (the
// fewer); `healthy` (TopologyInfo::bisection_links of the healthy fabric)
// when the topology gives no cuts.
int64_t live_bisection_links(const Spec& spec, const Fabric& fabric, int64_t healthy);

}  // namespace fabemu
