// BookSim2's Valiant and UGAL on the flattened butterfly (booksim2
// flatfly_onchip.cpp: valiant_flatfly and ugal_flatfly_onchip, read, not
// copied), as routing policies for Engine<R> beside the paper's val and
// ugal (flatfly_val.h, flatfly_ugal.h). Where they differ from the paper's:
//  - Valiant: the intermediate is a uniformly random router, the source's
//    own included, drawn once at the source router; at any router that is
//    the intermediate's or the destination's, the packet goes on towards
//    its destination. So a packet to its own router, or whose draw is its
//    own router, goes minimally (the paper's val detours both).
//  - UGAL: decided once, at the source router, on the credits the router
//    holds: minimal (dimension order) unless
//      min_hops x used(min port) > nonmin_hops x used(nonmin port) + 2,
//    where used() is the downstream buffer's occupancy over every VC, as
//    its credits show when the packet enters the source router (before it
//    waits in the buffer: BookSim's lookahead routing), and the intermediate keeps the source's digit where
//    source and destination agree and is random (any digit) elsewhere. An
//    intermediate at the source router counts as an infinite queue.
//    BookSim's threshold of 2 flits is 2 packets of this one's length here
//    (BookSim's imports have one-flit packets). The paper's ugal offers
//    every productive port and decides at the head of each input buffer.
//  - VCs, any even number: the first leg (towards the intermediate) on the
//    lower half, the rest on the upper half, any VC of the half (the
//    router's VC allocator picks); into the endpoint any VC; a source
//    starts a packet on any VC. BookSim's synthetic traffic has no classes,
//    so requests and responses share them, as with ran_min. (With an odd
//    count BookSim's halves share the middle VC, which can close a cycle:
//    refused.)
//
// Route state in PacketMeta::route[]:
//   [0] phase: 0 towards the intermediate (or, for UGAL, undecided at the
//       source), 1 towards the destination
//   [1], [2] the intermediate router (low byte first)
//   [3] UGAL: the source router's decision, taken as the packet enters it
// A candidate's note carries both (kFlatflyBooksimPhaseBit | router) to
// on_forward.
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/flatfly_tables.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"

namespace fabemu {

inline constexpr uint16_t kFlatflyBooksimPhaseBit = 0x8000;

struct FlatflyBooksimBase : FlatflyPolicyBase {
  static int32_t intermediate(const PacketMeta& m) {
    return static_cast<int32_t>(m.route[1] | (m.route[2] << 8));
  }
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.route[0] = m.route[3] = 0;
    m.route[1] = m.route[2] = 0;
    m.vc = static_cast<uint8_t>(m.id % t.vcs);  // any VC; vcs.injection free chooses
  }
  // The packet's next hop towards router `target` (not `router`) on its
  // phase's half of the VCs, or into its endpoint on any VC.
  static void add_hop(const Tables& t, int32_t router, int32_t target, bool to_destination,
                      int32_t b, const PacketMeta& m, RouteCandidates& out) {
    const FlatflyDest& d = t.dest[m.dst];
    const uint16_t note =
        static_cast<uint16_t>((to_destination ? kFlatflyBooksimPhaseBit : 0) | uint16_t(b));
    if (to_destination && router == d.router) {
      for (uint8_t v = 0; v < t.vcs; v++) out.add(d.port, v, 0, note);
    } else {
      const uint8_t port = static_cast<uint8_t>(flatfly_dimension_order(t, router, target));
      const uint8_t half = static_cast<uint8_t>(t.vcs / 2);
      const uint8_t first = to_destination ? half : 0;
      for (uint8_t v = first; v < first + half; v++) out.add(port, v, 0, note);
    }
    out.adaptive = out.count > 1;
  }
  static bool routes_on_state(const Tables& /*t*/) { return true; }
  static void on_forward(const Tables& t, int32_t /*router*/, uint8_t out_port, PacketMeta& m) {
    if (t.port_dim[out_port] == kFlatflyNoDim) return;  // ejected
    m.route[0] = (m.out_note & kFlatflyBooksimPhaseBit) ? 1 : 0;
    m.route[1] = static_cast<uint8_t>(m.out_note & 0xFF);
    m.route[2] = static_cast<uint8_t>((m.out_note & 0x7FFF) >> 8);
  }
};

struct FlatflyValiantBooksim : FlatflyBooksimBase {
  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    const bool at_source = in_port < t.conc;
    const int32_t b = at_source
                          ? static_cast<int32_t>(ctx.rng->below(static_cast<uint32_t>(t.routers())))
                          : intermediate(m);
    const int32_t dst = t.dest[m.dst].router;
    const bool to_destination = (!at_source && m.route[0]) || b == router || dst == router;
    add_hop(t, router, to_destination ? dst : b, to_destination, b, m, out);
  }
};

struct FlatflyUgalBooksim : FlatflyBooksimBase {
  // route[3]: the source router's decision once taken (on_enter).
  static constexpr uint8_t kUndecided = 0, kMinimal = 1, kNonminimal = 2;

  // The occupancy of output `port`'s downstream buffer over every VC.
  static uint32_t used(const QueueView& view, uint8_t port) {
    uint32_t q = 0;
    for (uint32_t v = 0; v < view.vcs(); v++) q += view.occupancy(port, v);
    return q;
  }
  // At the source router, towards a destination on another router: the
  // intermediate b (the source's digit where source and destination agree,
  // any digit where they differ) and whether to go minimally.
  static bool decide(const Tables& t, RoutingContext& ctx, int32_t router, int32_t dst,
                     const PacketMeta& m, int32_t* b_out) {
    const uint8_t* s = t.digits(router);
    const uint8_t* g = t.digits(dst);
    int32_t b = 0, stride = 1;
    for (int d = 0; d < t.dims; ++d, stride *= t.k) {
      const uint32_t digit = s[d] == g[d] ? s[d] : ctx.rng->below(t.k);
      b += static_cast<int32_t>(digit) * stride;
    }
    *b_out = b;
    if (b == router) return true;  // its queue counts as infinite
    const uint64_t min_cost =
        uint64_t(flatfly_hops(t, router, dst)) *
        used(ctx.view, static_cast<uint8_t>(flatfly_dimension_order(t, router, dst)));
    const uint64_t nonmin_cost =
        uint64_t(flatfly_hops(t, router, b) + flatfly_hops(t, b, dst)) *
            used(ctx.view, static_cast<uint8_t>(flatfly_dimension_order(t, router, b))) +
        2u * (m.units ? m.units : 1u);
    return min_cost <= nonmin_cost;
  }
  // BookSim decides as the packet enters its source router (lookahead
  // routing at injection), on the credits of that moment, not after it has
  // waited in the input buffer.
  static void on_enter(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                       PacketMeta& m) {
    const int32_t dst = t.dest[m.dst].router;
    if (in_port >= t.conc || dst == router) return;
    int32_t b = router;
    m.route[3] = decide(t, ctx, router, dst, m, &b) ? kMinimal : kNonminimal;
    m.route[1] = static_cast<uint8_t>(b & 0xFF);
    m.route[2] = static_cast<uint8_t>(b >> 8);
  }
  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    const int32_t dst = t.dest[m.dst].router;
    if (in_port >= t.conc) {  // decided at the source
      const int32_t b = intermediate(m);
      const bool to_destination = m.route[0] || b == router;
      add_hop(t, router, to_destination ? dst : b, to_destination, b, m, out);
      return;
    }
    if (dst == router) return add_hop(t, router, dst, true, router, m, out);
    int32_t b = intermediate(m);
    bool minimal = m.route[3] == kMinimal;
    if (m.route[3] == kUndecided) minimal = decide(t, ctx, router, dst, m, &b);
    add_hop(t, router, minimal ? dst : b, minimal, b, m, out);
  }
};

}  // namespace fabemu

// Their engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(FlatflyValiantBooksim, input_queued, input_queued_islip)
FABEMU_ENGINES(FlatflyUgalBooksim, input_queued, input_queued_islip)
