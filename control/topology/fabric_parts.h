// The parts of a Fabric every topology builder fills the same way, so that
// a builder states only its own wiring.
#pragma once
#include <cstdint>
#include <string>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// An empty fabric named `name` of family `topology`: the spec's routing, its
// vcs.count VCs of vcs.buffer_units each, and its flow unit (a phit when
// link.phits_per_unit is 1, else a flit).
Fabric fabric_frame(const Spec& spec, std::string name, std::string topology);

// Endpoint `ep` on port `port` of router `router`: the router's port and the
// endpoint's injection/ejection link, both with the given timing and the
// port's label. The router's ports and the endpoint list must be sized.
void attach_endpoint(Fabric& f, int32_t ep, int32_t router, int port, ps_t unit, ps_t wire,
                     uint8_t label);

// A router port whose channel goes to port `peer_port` of router
// `peer_router` (which wires the way back), with the given timing and label.
FabricPort router_link(int32_t peer_router, int peer_port, ps_t unit, ps_t wire, uint8_t label);

}  // namespace fabemu
