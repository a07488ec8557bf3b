// Minimal dimension-order routing of a torus: all of X, then Y, then Z, each
// the shorter way round its ring (a tie, k/2 either way, goes +), as the
// BlackWidow paper assumes for the torus of its Table 4 ("minimal, dimension
// order routing"). The T3E's direction order (t3e_direction_order.h) takes
// every + direction before any -, so a route -X +Y goes +Y first; here it
// goes -X first.
//
// Everything else is the T3E policy's: the source table picks each
// dimension's direction, the dateline VC pairs (request VC0/VC1, response
// VC2/VC3) keep every ring acyclic, and the fall-through latencies are the
// T3E's (straight, turn, end point).
//
// Hot path: header-only, no allocation, no exceptions, no division.
#pragma once
#include "dataplane/routing/t3e_direction_order.h"

namespace fabemu {

struct TorusDimensionOrder : T3eDirectionOrder {
  // The pending direction of the lowest dimension still to travel, or 6
  // when the packet has arrived.
  static int next_direction(const Tables& t, int32_t router, const PacketMeta& m) {
    const unsigned pending = pending_directions(t, router, m);
    if (!pending) return kT3eDirections;
    const int dim = __builtin_ctz((pending | (pending >> 3)) & 0x7u);
    return (pending >> dim) & 1u ? dim : dim + 3;
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    route_direction(t, router, in_port, m, next_direction(t, router, m), out);
  }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(TorusDimensionOrder, input_queued, output_queued_ideal)
