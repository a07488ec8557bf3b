// Destination routing of a conventional k-ary n-fly (the flattened butterfly
// paper's Figure 6 baseline, Kim, Dally & Abts, ISCA 2007, section 3.3): a
// packet crosses all n stages, and stage s's router picks its output by
// digit s of the destination's row, so there is exactly one path from a
// source to a destination.
//
// The engine's endpoint injects and ejects at one router port, so the n
// routers of a butterfly row (stage 0 .. n-1, same row) are modelled as one
// router (control/topology/butterfly.cpp): their ports are disjoint (stage
// s's inputs come only from stage s-1's outputs), so the merged router
// switches exactly as the separate ones, and the channel between stage s and
// stage s+1 of the same row is a loop from the merged router's port back to
// itself, timed as every other channel. A packet's stage is read off the
// port it arrived on: an endpoint port is stage 0, a channel of dimension d
// delivers into stage d + 1.
//
// Channel dependencies only run from dimension d to d + 1: one VC is
// deadlock-free. Requests use VC 0, responses VC 1 when there are two.
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/flatfly_tables.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"

namespace fabemu {

// Port layout of a merged butterfly row (radix c + dims * k):
//   0 .. c-1          the row's c endpoints
//   c + d k + m       the stage-d output to row digit d = m of stage d + 1
//                     (m = the row's own digit: the loop to itself), which
//                     is also the stage-(d+1) input from the row whose digit
//                     d is m
constexpr int butterfly_port(int c, int k, int d, int m) { return c + d * k + m; }

struct ButterflyDest : FlatflyPolicyBase {
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.vc = t.class_vc(m);
  }

  // The output port of the stage the packet arrived in by in_port.
  static uint8_t out_port(const Tables& t, uint8_t in_port, const PacketMeta& m) {
    const FlatflyDest& d = t.dest[m.dst];
    const int stage = in_port < t.conc ? 0 : t.port_dim[in_port] + 1;
    return stage < t.dims
               ? static_cast<uint8_t>(butterfly_port(t.conc, t.k, stage, t.digits(d.router)[stage]))
               : d.port;
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t /*router*/, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    out.adaptive = false;
    out.add(out_port(t, in_port, m), m.vc);
  }

  static bool routes_on_state(const Tables& /*t*/) { return false; }

  static void on_forward(const Tables& /*t*/, int32_t /*router*/, uint8_t /*out_port*/,
                         PacketMeta& /*m*/) {}
};

// BookSim2's dest_tag_fly (booksim2 routefunc.cpp) on its KNFly
// (networks/fly.cpp): the same one path, but a packet may take any VC at
// every stage and into its endpoint, as BookSim's routing functions give
// VCs (no request and response classes). BookSim's stage s sets the
// row's most significant digit first, fabemu's digit s: the two are the
// same butterfly with the row digits read in reverse order, which the
// BookSim import's node numbering accounts for (control/booksim).
struct ButterflyDestTag : ButterflyDest {
  // Into the first stage on the VCs in turn (vcs.injection free picks the
  // next one with room instead, as BookSim's sources do).
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.vc = static_cast<uint8_t>(m.id % t.vcs);
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t /*router*/, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    const uint8_t port = out_port(t, in_port, m);
    for (uint8_t v = 0; v < t.vcs; v++) out.add(port, v);
    out.adaptive = out.count > 1;
  }

  static bool routes_on_state(const Tables& t) { return t.vcs > 1; }
};

}  // namespace fabemu

// Their engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(ButterflyDest, input_queued)
FABEMU_ENGINES(ButterflyDestTag, input_queued, input_queued_islip)
