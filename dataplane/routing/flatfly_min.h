// Minimal deterministic routing of a flattened butterfly (Kim, Dally & Abts,
// ISCA 2007, section 2.2) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h): one inter-router hop for each
// router digit in which source and destination differ, taken in dimension
// order (lowest dimension first), then the ejection port. The paper's MIN AD
// chooses among the productive dimensions adaptively and needs n' VCs; fixing
// the order makes the channel dependencies follow increasing dimension, so
// one VC is deadlock-free (Dally & Seitz). Requests use VC 0; responses VC 1
// when the fabric has two VCs (FlatflyTables::response_vc).
//
// Route state: none (the destination's router and port come from the
// tables' per-endpoint entry).
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/flatfly_tables.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct FlatflyMin : FlatflyPolicyBase {
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.vc = t.injection_vc(m);
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t router, uint8_t /*in_port*/,
                    const PacketMeta& m, RouteCandidates& out) {
    const FlatflyDest& d = t.dest[m.dst];
    const int p = flatfly_dimension_order(t, router, d.router);
    out.adaptive = false;
    out.add(p >= 0 ? static_cast<uint8_t>(p) : d.port, m.vc);
  }

  static bool routes_on_state(const Tables& /*t*/) { return false; }  // deterministic

  static void on_forward(const Tables& /*t*/, int32_t /*router*/, uint8_t /*out_port*/,
                         PacketMeta& /*m*/) {}
};

// BookSim2's ran_min on the flattened butterfly (booksim2 flatfly_onchip.cpp,
// min_flatfly): the same dimension-order path, but a packet may take any
// VC at every hop, requests and responses alike (BookSim's synthetic
// traffic has no classes). The router picks the VC: by credits, or with
// router.switch_allocator islip whichever the VC allocator finds free.
// Dimension order keeps the channel dependencies acyclic on any VC.
struct FlatflyRanMin : FlatflyMin {
  // Into the source router on the VCs in turn, packet by packet, as
  // BookSim's sources take the next VC after the last one they used.
  // Not Tables::injection_vc: that one is per traffic class (responses
  // from response_vc, rotation over inject_vcs only with vcs.injection
  // rotate), programmed alike for every flatfly policy; ran_min has no
  // classes and rotates over every VC whatever vcs.injection says.
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    m.vc = static_cast<uint8_t>(m.id % t.vcs);
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t router, uint8_t /*in_port*/,
                    const PacketMeta& m, RouteCandidates& out) {
    const FlatflyDest& d = t.dest[m.dst];
    const int p = flatfly_dimension_order(t, router, d.router);
    const uint8_t port = p >= 0 ? static_cast<uint8_t>(p) : d.port;
    for (uint8_t v = 0; v < t.vcs; v++) out.add(port, v);
    out.adaptive = out.count > 1;
  }

  static bool routes_on_state(const Tables& t) { return t.vcs > 1; }
};

}  // namespace fabemu

// Their engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(FlatflyMin, input_queued, input_queued_islip, output_queued_ideal, spider)
FABEMU_ENGINES(FlatflyRanMin, input_queued, input_queued_islip)
