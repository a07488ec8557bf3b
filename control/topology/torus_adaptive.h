// Routing "adaptive" of the torus family (torus_adaptive.cpp): the T3E's
// adaptive VC on the direction-order tables (dataplane/routing/t3e_adaptive.h).
#pragma once
#include <vector>

#include "control/spec/spec.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/routing/t3e_adaptive.h"

namespace fabemu {

// The direction-order tables (program_t3e_tables), with adaptivity off for
// every pair a fault touches one of the minimal paths of, and the share of
// packets marked adaptive (traffic.adaptive_fraction).
T3eAdaptiveTables program_t3e_adaptive_tables(const Spec& spec, const Fabric& fabric);

// What the deadlock check sees of one packet (RoutingInfo::make_choice_tracer):
// each dependency between two deterministic VCs that some sequence of its
// adaptive choices creates, handed to visit as a two-hop path (the hop that
// holds the first, the hop that asks for the second). False when a router it
// can reach offers it no deterministic candidate (no escape) or a route
// leaves the fabric.
bool t3e_escape_dependencies(const T3eAdaptiveTables& t, const Fabric& f, const PortPeers& ports,
                             const PacketMeta& m, std::vector<HopTrace>& scratch,
                             const RouteVisit& visit);

}  // namespace fabemu
