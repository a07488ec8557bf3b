// Valiant's routing of a flattened butterfly (Kim, Dally & Abts, ISCA 2007,
// section 3.1, VAL) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h): route minimally, in dimension order,
// to a random intermediate router b, then minimally, in dimension order, to
// the destination. Phase 1 travels on VC 0 and phase 2 on VC 1 (responses on
// VCs 2 and 3 when the fabric has four, FlatflyTables::response_vc): within
// a phase the channel dependencies follow increasing dimension and a packet
// only ever moves from VC 0 to VC 1, so the dependency graph is acyclic with
// the paper's two VCs.
//
// The intermediate router is drawn one digit at a time, at the router where
// phase 1 reaches that dimension, from the router's own random stream
// (RoutingContext::rng): at a router with next undecided dimension j, draw
// b_j, b_{j+1}, ... uniformly in 0..k-1 until one differs from the router's
// own digit and take that hop on VC 0; when none differs, this router is b
// and phase 2 begins. The digits are independent and uniform, so b is a
// uniformly random router, and the path is exactly the dimension-order
// path to it, as if b had been drawn whole at the source; drawing per hop
// keeps the choice in the router (a packet carries two bytes of state, not
// b's address).
//
// Route state in PacketMeta::route[]:
//   [0] phase: 0 towards b, 1 towards the destination
//   [1] phase 1: the lowest dimension whose digit of b is not yet drawn
// on_forward reads which phase the granted hop belonged to from its VC
// (m.out_vc: odd = phase 2).
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/flatfly_tables.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/sim/time.h"

namespace fabemu {

inline constexpr uint8_t kFlatflyValPhase = 0;    // route[] index
inline constexpr uint8_t kFlatflyValNextDim = 1;  // route[] index
inline constexpr uint8_t kFlatflyValToDestination = 1;

struct FlatflyVal : FlatflyPolicyBase {
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.route[kFlatflyValPhase] = 0;
    m.route[kFlatflyValNextDim] = 0;
    m.vc = t.injection_vc(m);
  }

  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t /*in_port*/,
                    const PacketMeta& m, RouteCandidates& out) {
    const uint8_t base = t.class_vc(m);
    out.adaptive = false;
    if (m.route[kFlatflyValPhase] != kFlatflyValToDestination) {
      const uint8_t* c = t.digits(router);
      for (int d = m.route[kFlatflyValNextDim]; d < t.dims; ++d) {
        const uint8_t b = static_cast<uint8_t>(ctx.rng->below(t.k));
        if (b != c[d]) {
          out.add(t.port_to(d, c[d], b), base);
          return;
        }
      }
    }
    const FlatflyDest& dst = t.dest[m.dst];
    const int p = flatfly_dimension_order(t, router, dst.router);
    if (p >= 0)
      out.add(static_cast<uint8_t>(p), static_cast<uint8_t>(base + 1));
    else
      out.add(dst.port, m.vc);  // eject on the VC it arrived on
  }

  // The intermediate router comes from the router's random stream.
  static bool routes_on_state(const Tables& /*t*/) { return true; }

  static void on_forward(const Tables& t, int32_t /*router*/, uint8_t out_port, PacketMeta& m) {
    const uint8_t d = t.port_dim[out_port];
    if (d == kFlatflyNoDim) return;  // ejected
    if (m.out_vc & 1u)
      m.route[kFlatflyValPhase] = kFlatflyValToDestination;
    else
      m.route[kFlatflyValNextDim] = static_cast<uint8_t>(d + 1);
  }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(FlatflyVal, input_queued, input_queued_islip)
