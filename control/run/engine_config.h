// From a validated spec to the engine's configuration: traffic, packet
// format, link-level retry, router settings, placement of routers on
// workers, and the barrier/eureka networks.
#pragma once
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/engine/engine_base.h"

namespace fabemu {

// Engine configuration from the spec: phases, traffic, packet format, placement.
EngineConfig make_engine_config(const Spec& spec, const Fabric& fabric);
// The barrier/eureka networks of a run with traffic.phases: every BSU's
// tree (control/barrier/barrier_tree.h) and the spec's times; refuses the
// spec (SpecError) when the fabric cannot have one.
BarrierConfig barrier_config(const Spec& spec, const Fabric& fabric);

// Which worker owns each router: contiguous blocks within each rank, so the
// cut between cores is small (torus X-slabs) and every core gets its share of
// each rank (Clos).
std::vector<int> place_routers(const Fabric& fabric, int workers);

}  // namespace fabemu
