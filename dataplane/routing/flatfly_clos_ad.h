// CLOS AD, adaptive Clos routing of a flattened butterfly (Kim, Dally &
// Abts, ISCA 2007, section 3.1) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h): the flattened butterfly routed as
// the folded Clos it flattens. At the source router a packet goes minimally
// or non-minimally by the estimated delay (queue length times hops, as in
// UGAL); a non-minimal packet climbs to an intermediate router b one
// dimension at a time, on the channel of that dimension with the shortest
// queue, where staying at the current coordinate (the paper's dummy queue)
// is one of the choices. b is therefore chosen adaptively and only among the
// closest common ancestors of source and destination: it may differ from
// the source only in dimensions up to the highest one in which source and
// destination differ, so no route is longer than the folded Clos's.
//
// Every choice is a weighted candidate (routing/selection.h), so the router's
// selection makes it on the queue state of its (sequential) allocator:
//   - the productive channels with the minimal hop count: going minimally
//     now, i.e. staying at the current coordinate in every dimension still
//     to climb (the dummy queues: what a packet that stays waits for next is
//     the productive channel it takes);
//   - each other channel of each dimension still to climb, with the hops of
//     that hop plus a minimal route on from its far end (the productive
//     channel of a dimension below the top is a climb hop too: the packet
//     may climb on above it).
// The next dimension to climb advances past the one taken, so climbing is in
// rising dimension order. Once a packet takes a minimal hop it routes MIN
// AD to its destination.
//
// VCs per traffic class, n' + 1 (the paper's Table 1: 2 on a one-dimensional
// flat): VC 0 for the climb (dimensions rise along it), VCs 1..n' for
// minimal hops by the hops remaining (1 + n' - r with r hops left). A packet
// only moves to higher VCs, and above VC 0 at every hop, so the channel
// dependency graph is acyclic. Responses take VCs n'+1..2n'+1 when the
// fabric has 2(n'+1).
//
// Route state in PacketMeta::route[]:
//   [0] mode: kClosUndecided at the source, kClosClimbing, kClosMinimal
//   [1] climbing: the lowest dimension it may still climb in
//   [2] climbing: the highest (the top dimension of the common ancestors)
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/flatfly_tables.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"

namespace fabemu {

enum : uint8_t { kClosUndecided = 0, kClosClimbing, kClosMinimal };

struct FlatflyClosAd : FlatflyPolicyBase {
  // The highest dimension in which routers a and b differ, -1 when none.
  static int top_dimension(const Tables& t, int32_t a, int32_t b) {
    const uint8_t* x = t.digits(a);
    const uint8_t* y = t.digits(b);
    for (int d = t.dims - 1; d >= 0; --d)
      if (x[d] != y[d]) return d;
    return -1;
  }

  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.route[0] = kClosUndecided;
    m.route[1] = m.route[2] = 0;
    m.vc = t.injection_vc(m);
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t router, uint8_t /*in_port*/,
                    const PacketMeta& m, RouteCandidates& out) {
    const uint8_t base = t.class_vc(m);
    const FlatflyDest& d = t.dest[m.dst];
    if (router == d.router) {
      out.add(d.port, m.vc);  // eject on the VC it arrived on
      return;
    }
    flatfly_add_productive(t, router, d.router, static_cast<uint8_t>(base + 1), out);
    int from = 0, top = -1;
    if (m.route[0] == kClosUndecided) {
      top = top_dimension(t, router, d.router);
    } else if (m.route[0] == kClosClimbing) {
      from = m.route[1];
      top = m.route[2];
    }
    const uint8_t* c = t.digits(router);
    const uint8_t* g = t.digits(d.router);
    const int hops = flatfly_hops(t, router, d.router);
    for (int dim = from; dim <= top; ++dim)
      for (int x = 0; x < t.k; ++x) {
        if (x == c[dim]) continue;  // staying: the dummy queue
        // The productive channel of the top dimension ends the climb: it is
        // the minimal hop listed above. Below the top, it is a climb hop too,
        // after which the packet may still climb higher.
        if (x == g[dim] && dim == top) continue;
        // From the far end the packet differs from the destination in every
        // dimension it did here but dim, and in dim unless x is its digit.
        const int after = hops - (c[dim] != g[dim] ? 1 : 0) + (x != g[dim] ? 1 : 0);
        out.add(t.port_to(dim, c[dim], static_cast<uint8_t>(x)), base,
                static_cast<uint8_t>(1 + after));
      }
    out.adaptive = out.count > 1;
    out.weighted = true;
  }

  static bool routes_on_state(const Tables& /*t*/) { return true; }

  static void on_forward(const Tables& t, int32_t router, uint8_t out_port, PacketMeta& m) {
    const uint8_t dim = t.port_dim[out_port];
    if (dim == kFlatflyNoDim) return;  // ejected
    if (m.out_vc != t.class_vc(m)) {
      m.route[0] = kClosMinimal;
      return;
    }
    if (m.route[0] == kClosUndecided)
      m.route[2] = static_cast<uint8_t>(top_dimension(t, router, t.dest[m.dst].router));
    m.route[0] = kClosClimbing;
    m.route[1] = static_cast<uint8_t>(dim + 1);
  }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(FlatflyClosAd, input_queued)
