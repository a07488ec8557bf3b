// UGAL on a flattened butterfly (Kim, Dally & Abts, ISCA 2007, section 3.1,
// after Singh's UGAL) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h): at the source router each packet
// goes minimally (MIN AD) or non-minimally (VAL), whichever promises the
// lower delay, estimated as queue length times hop count. The source router
// offers both as weighted candidates (routing/selection.h): every productive
// channel with the minimal hop count, and the first dimension-order hop
// towards a uniformly random intermediate router b with the hops of
// source -> b -> destination. The selection compares them on the queue state
// the router's allocator gives: greedy for `ugal` (all inputs decide on the
// state of the cycle's start), sequential for `ugal_s` (each decision counts
// for the next at once); the tables say which.
//
// VCs per traffic class, n' + 1: VC 0 for VAL's first phase (dimension order
// towards b: dimensions rise along it), VCs 1..n' for minimal hops and VAL's
// second phase, chosen by the hops remaining as MIN AD does (1 + n' - r with
// r hops left). A packet only moves from VC 0 to higher VCs and, above VC
// 0, to higher ones at every hop, so the channel dependency graph is acyclic.
// Responses take VCs n'+1..2n'+1 when the fabric has 2(n'+1).
//
// Route state in PacketMeta::route[]:
//   [0] mode: kUgalUndecided at the source, then kUgalMinimal,
//       kUgalToIntermediate (phase 1) or kUgalToDestination (phase 2)
//   [1], [2] phase 1: the intermediate router b (low byte first), from the
//       granted candidate's note
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/flatfly_tables.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"

namespace fabemu {

enum : uint8_t { kUgalUndecided = 0, kUgalMinimal, kUgalToIntermediate, kUgalToDestination };

struct FlatflyUgal : FlatflyPolicyBase {
  static int32_t intermediate(const PacketMeta& m) {
    return static_cast<int32_t>(m.route[1] | (m.route[2] << 8));
  }

  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.route[0] = kUgalUndecided;
    m.route[1] = m.route[2] = 0;
    m.vc = t.injection_vc(m);
  }

  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t /*in_port*/,
                    const PacketMeta& m, RouteCandidates& out) {
    const uint8_t base = t.class_vc(m);
    const FlatflyDest& d = t.dest[m.dst];
    const uint8_t mode = m.route[0];
    if (mode == kUgalToIntermediate && router != intermediate(m)) {
      out.add(static_cast<uint8_t>(flatfly_dimension_order(t, router, intermediate(m))), base);
      return;
    }
    if (router == d.router) {
      out.add(d.port, m.vc);  // eject on the VC it arrived on
      return;
    }
    if (mode == kUgalToIntermediate || mode == kUgalToDestination) {  // phase 2: dimension order
      const int hops = flatfly_hops(t, router, d.router);
      out.add(static_cast<uint8_t>(flatfly_dimension_order(t, router, d.router)),
              static_cast<uint8_t>(base + 1 + t.dims - hops));
      return;
    }
    flatfly_add_productive(t, router, d.router, static_cast<uint8_t>(base + 1), out);
    if (mode == kUgalUndecided) {
      // b equal to the source or the destination router is the minimal route.
      const int32_t b = static_cast<int32_t>(ctx.rng->below(static_cast<uint32_t>(t.routers())));
      if (b != router && b != d.router) {
        const int hops = flatfly_hops(t, router, b) + flatfly_hops(t, b, d.router);
        out.add(static_cast<uint8_t>(flatfly_dimension_order(t, router, b)), base,
                static_cast<uint8_t>(hops), static_cast<uint16_t>(b));
      }
    }
    out.adaptive = out.count > 1;
    out.weighted = true;
  }

  static bool routes_on_state(const Tables& /*t*/) { return true; }

  static void on_forward(const Tables& t, int32_t /*router*/, uint8_t out_port, PacketMeta& m) {
    if (t.port_dim[out_port] == kFlatflyNoDim) return;  // ejected
    const bool phase1_vc = m.out_vc == t.class_vc(m);
    switch (m.route[0]) {
      case kUgalUndecided:
        if (phase1_vc) {
          m.route[0] = kUgalToIntermediate;
          m.route[1] = static_cast<uint8_t>(m.out_note & 0xFF);
          m.route[2] = static_cast<uint8_t>(m.out_note >> 8);
        } else {
          m.route[0] = kUgalMinimal;
        }
        break;
      case kUgalToIntermediate:
        if (!phase1_vc) m.route[0] = kUgalToDestination;  // left b
        break;
      default:
        break;
    }
  }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(FlatflyUgal, input_queued, input_queued_islip)
