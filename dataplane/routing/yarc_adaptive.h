// Adaptive routing of a folded Clos as the flattened butterfly paper's
// comparison runs it (Kim, Dally & Abts, ISCA 2007, Table 1: "adaptive
// sequential", after Kim, Dally & Abts, "Adaptive Routing in High-Radix
// Clos Network", SC 2006), on the YARC tables of the BlackWidow folded Clos
// (yarc_updown.h): every packet, requests too, goes up adaptively (the head
// phit's a bit, which YARC offers per packet) and down deterministically.
//
// Up: every uplink the winning up-table entry allows is a candidate, listed
// from the hashed choice on (so ties, and trace_route() on an idle fabric,
// keep the deterministic path), and the router takes the one with the
// shortest queue: the credits it is owed plus what it has routed there and
// not yet sent (weighted selection with equal hops, routing/selection.h).
// With the sequential allocator (the paper's, Tables::allocator) each
// decision counts for the next at once; greedy decisions of one cycle see
// the same queues.
//
// Up*/down* routes cannot close a cycle in the channel dependency graph, so
// one VC is deadlock-free; with two, responses use VC 1 (the v bit).
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/routing/yarc_updown.h"

namespace fabemu {

struct YarcAdaptive : YarcUpDown {
  static void on_inject(const Tables& t, const Fabric& f, PacketMeta& m) {
    YarcUpDown::on_inject(t, f, m);
    m.route[0] |= kYarcA;
  }

  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    YarcUpDown::route(t, ctx, router, in_port, m, out);
    out.weighted = out.adaptive;  // the shortest queue, not only the most credits
  }

  static bool routes_on_state(const Tables& /*t*/) { return true; }
  static Allocator allocator(const Tables& t) { return t.allocator; }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(YarcAdaptive, input_queued, input_queued_islip, yarc_tiled)
