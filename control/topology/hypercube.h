// Hypercube family "hypercube": the binary n-cube of the flattened butterfly
// paper's comparison (Kim, Dally & Abts, ISCA 2007, section 3.3: a
// 10-dimensional hypercube of 1024 nodes, e-cube routing), with c endpoints
// per router (topology.endpoints_per_router, 1 in the paper).
//
// A hypercube is the generalized hypercube with k = 2 (control/topology/
// flatfly.h), so it is built, wired and routed with the flatfly's port
// layout and tables (dataplane/routing/flatfly_tables.h): router i links in
// dimension d to router i ^ 2^d on port c + d (label d + 1); endpoint e
// sits on port e mod c of router e / c (label 0).
#pragma once
#include <cstdint>
#include <string>

#include "control/spec/spec.h"
#include "control/topology/flatfly.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

// Empty when a binary n-cube with c endpoints per router can be built
// (n >= 1, radix c + n within the engine's kMaxPorts, c 2^n endpoints
// within kFlatflyMaxEndpoints, the YARC head phit's reach); otherwise what
// is wrong and what to do.
std::string hypercube_size_problem(int64_t n, int64_t c);

// {k = 2, dims = topology.n, conc = topology.endpoints_per_router}.
GhcShape hypercube_shape(const Spec& spec);

// Throws std::invalid_argument with hypercube_size_problem()'s message.
Fabric build_hypercube(const Spec& spec);

}  // namespace fabemu
