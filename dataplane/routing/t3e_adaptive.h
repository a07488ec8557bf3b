// Cray T3E adaptive routing (Scott & Thorson, Hot Interconnects 1996,
// sections 2.4, 3.4 and 5) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h), on the tables and the deterministic
// step of direction-order routing (t3e_direction_order.h).
//
//  - Candidates: at every router a packet may take the deterministic
//    direction-order (port, VC) of T3eDirectionOrder, or the adaptive VC 4
//    in any profitable direction: a direction of its source-table path
//    whose dimension is not yet resolved. The torus path fixes one
//    direction per dimension, so these are exactly the moves that bring the
//    packet closer along a minimal path; a non-minimal hop is never offered.
//  - Whole packets on the adaptive VC (section 5): the adaptive VC of a
//    direction is offered only when its downstream buffer has room for the
//    whole packet, counting what this router has already routed there and
//    not yet sent. Several packets may share the 22-flit buffer. A packet
//    never waits for adaptive credits, so no buffer depends on an adaptive
//    one: deadlock freedom rests on the deterministic VCs 0-3 alone.
//  - Selection: the candidate whose output channel has the shortest queue
//    (every VC's units downstream plus those routed and not yet sent:
//    weighted selection with equal hops, routing/selection.h); ties go to
//    the deterministic candidate, then to the adaptive ones in direction
//    order (+X +Y +Z -X -Y -Z). When the deterministic VC itself has no room
//    for the packet it is listed last, so a tie goes to a candidate that
//    can move. Nothing else is offered: with no adaptive room the packet
//    takes (and waits for) its deterministic VC.
//  - Escape: a packet on the adaptive VC gets its deterministic candidate at
//    every router, so it can always drop back. It enters the deterministic
//    subnetwork there as on entering a new direction: the VC table bit of
//    its direction and destination ordinate (VC1 only where the tables say
//    the rest of the ring crosses no dateline), VC1 when the hop itself
//    crosses the dateline. A packet that crossed a dateline while adaptive
//    thus re-enters on VC0 ("start on VC0, cross the dateline on an adaptive
//    VC, and then reenter the non-adaptive subnetwork on VC0", section 5);
//    a minimal path crosses a ring's dateline at most once, so VC0 never
//    crosses it and VC1 never crosses it twice.
//  - Per packet: the source table entry's adaptivity bit (cleared for pairs
//    a fault touches) and the packet's own bit. The T3E's processor marks
//    ordered requests non-adaptive; here the source marks a fraction of its
//    packets adaptive (T3eAdaptiveTables::adaptive_share, from
//    traffic.adaptive_fraction), by a hash of the packet id so that a run
//    does not depend on how endpoints are placed on cores. Requests and
//    responses share the one adaptive VC, as in the T3E (5 VCs: 2 request,
//    2 response, 1 adaptive).
//
// Route state: T3eDirectionOrder's; route[3] bit 6 (kT3ePathAdaptive) is
// this packet's "may adapt".
//
// Hot path: header-only, no allocation, no exceptions, no division.
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/routing/t3e_direction_order.h"

namespace fabemu {

// The share of packets marked adaptive is out of this (1.0: every packet).
inline constexpr uint32_t kT3eAdaptiveShareOne = 1u << 16;

struct T3eAdaptiveTables : T3eTables {
  // Packets whose id hashes below this (out of kT3eAdaptiveShareOne) are
  // marked adaptive at their source.
  uint32_t adaptive_share = kT3eAdaptiveShareOne;
};

struct T3eAdaptive : T3eDirectionOrder {
  using Tables = T3eAdaptiveTables;

  // The source table lookup, and the packet's own adaptive bit.
  static void on_inject(const Tables& t, const Fabric& f, PacketMeta& m) {
    T3eDirectionOrder::on_inject(t, f, m);
    if (!marked_adaptive(t, m.id)) m.route[3] &= static_cast<uint8_t>(~kT3ePathAdaptive);
  }

  static bool marked_adaptive(const Tables& t, uint64_t id) {
    if (t.adaptive_share >= kT3eAdaptiveShareOne) return true;
    // Fibonacci hashing: consecutive ids spread over the whole range.
    const uint32_t h = static_cast<uint32_t>((id * 0x9E3779B97F4A7C15ull) >> 48);
    return h < t.adaptive_share;
  }

  // True when (port, vc)'s downstream buffer has room for `units` more,
  // counting what this router has routed there and not yet sent.
  static bool has_room(const QueueView& v, uint32_t port, uint32_t vc, uint32_t units) {
    const uint32_t capacity = v.credits(port, vc) + v.occupancy(port, vc);
    return v.queue(port, vc) + units <= capacity;
  }

  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    const unsigned pending = pending_directions(t, router, m);
    const int det = pending ? __builtin_ctz(pending) : kT3eDirections;
    // From the adaptive VC the packet enters the deterministic subnetwork
    // here, as on a new direction (the VC table's bit), whichever way it came.
    const uint8_t det_in = m.vc == kT3eAdaptiveVc ? kT3eFirstPePort : in_port;
    route_direction(t, router, det_in, m, det, out);
    out.weighted = false;
    if (out.count == 0 || det == kT3eDirections || !(m.route[3] & kT3ePathAdaptive) ||
        ctx.view.vcs() <= kT3eAdaptiveVc)
      return;
    const uint32_t units = m.units ? m.units : 1u;
    const RouteCandidate escape = out.c[0];
    const bool escape_room = has_room(ctx.view, escape.port, escape.vc, units);
    if (!escape_room) out.count = 0;
    for (unsigned p = pending; p; p &= p - 1) {
      const uint8_t d = static_cast<uint8_t>(__builtin_ctz(p));
      if (has_room(ctx.view, d, kT3eAdaptiveVc, units)) out.add(d, kT3eAdaptiveVc);
    }
    if (!escape_room) out.add(escape.port, escape.vc);
    out.adaptive = out.count > 1;
    out.weighted = true;
  }

  static bool routes_on_state(const Tables& t) { return t.adaptive_share > 0; }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(T3eAdaptive, input_queued)
