// Minimal adaptive routing of a flattened butterfly, MIN AD (Kim, Dally &
// Abts, ISCA 2007, section 3.1) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h): at every router the candidates are
// the productive channels, one per router digit in which the packet's
// router and its destination's differ, and the router takes the one with the
// shortest queue (weighted selection with equal hop counts,
// routing/selection.h). The paper's n' VCs are chosen by the hops remaining:
// with r hops left a packet travels on VC n' - r, so its VC rises at every
// hop and the channel dependency graph is acyclic. Requests use VCs
// 0..n'-1, responses n'..2n'-1 when the fabric has 2n'
// (FlatflyTables::response_vc). The paper's MIN AD router allocates
// greedily (the tables' allocator).
//
// On a one-dimensional flat (the 32-ary 2-flat) there is one productive
// channel, so MIN AD is MIN.
//
// Route state: none (the hops remaining follow from the current router).
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/flatfly_tables.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"

namespace fabemu {

struct FlatflyMinAd : FlatflyPolicyBase {
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.vc = t.injection_vc(m);
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t router, uint8_t /*in_port*/,
                    const PacketMeta& m, RouteCandidates& out) {
    const FlatflyDest& d = t.dest[m.dst];
    if (router == d.router) {
      out.add(d.port, m.vc);  // eject on the VC it arrived on
      return;
    }
    flatfly_add_productive(t, router, d.router, t.class_vc(m), out);
    out.adaptive = out.count > 1;
    out.weighted = true;
  }

  static bool routes_on_state(const Tables& t) { return t.dims > 1; }

  static void on_forward(const Tables& /*t*/, int32_t /*router*/, uint8_t /*out_port*/,
                         PacketMeta& /*m*/) {}
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(FlatflyMinAd, input_queued)
