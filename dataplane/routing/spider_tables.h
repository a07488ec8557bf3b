// Spider's two-level routing tables (Galles, "Spider: A High-Speed Network
// Interconnect", IEEE Micro 1997, "Routing tables") as a routing policy for
// Engine<R> (dataplane/routing/routing_policy.h).
//
// A 9-bit destination is split into a meta address (upper 5 bits) and a
// local address (lower 4). Each chip has a meta-ID register: a destination
// whose meta address equals it is looked up in the 16-entry local table,
// any other in the 32-entry meta table, 48 entries instead of 512. The
// lookup is pipelined one hop ahead: the header's direction is the exit
// port at the chip the message is entering, and a chip holds a full table
// (meta-ID, meta and local table) for each neighbouring chip, giving the
// exit port there; so a route may depend on the port a message came in by.
//
// Here: table (chip, port) is the table of the chip across `port`, for a
// router port, and the chip's own for an endpoint port (the source writes
// the first direction from it at injection). A chip sends a message out by
// SpiderHeader::direction and writes the next chip's direction from the
// table of the port it leaves by. A vector-routed message (administrative:
// SpiderHeader::set_vector) follows its directions instead of the tables;
// the source writes them (traffic.vector_fraction) by walking its tables.
//
// Congestion-control bit 0 (traffic.cc_adapt): the source marks a message
// that may adapt between the two VCs of its class's pair; every chip then
// offers both, and the router takes the one with more free buffer (the
// "less used one"). Both VCs follow the same cycle-free channel order, so
// the choice cannot close a dependency cycle; messages of one source to one
// destination may then arrive out of order (the endpoints count them).
//
// Directions are 1 + the fabemu port (0 is the chip's administration block,
// which the fabric does not model); kSpiderNoRoute: unroutable (a fault).
//
// Hot path: header-only, no allocation; two loads per hop.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/rng.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/routing/spider_header.h"
#include "dataplane/sim/time.h"

namespace fabemu {

inline constexpr uint8_t kSpiderNoRoute = 0xF;    // a direction no port has
inline constexpr uint8_t kSpiderNoMetaId = 0xFF;  // a meta chip: no destination is local
inline constexpr uint8_t kSpiderLocalBits = 4;

// One chip's routing table: what a neighbour holds for it.
struct SpiderTable {
  uint8_t meta_id = kSpiderNoMetaId;
  uint8_t local[16];  // by the destination's lower 4 bits
  uint8_t meta[32];   // by its upper 5 bits
  uint8_t direction(uint32_t dst) const {
    const uint32_t meta_address = dst >> kSpiderLocalBits;
    return meta_address == meta_id ? local[dst & 15u] : meta[meta_address & 31u];
  }
};

struct SpiderTables {
  uint8_t ports = 6;  // table rows per chip
  // table[chip * ports + port]: the table of the chip across `port` (its
  // own for an endpoint port); unconnected ports' rows are unused.
  std::vector<SpiderTable> table;
  std::vector<uint8_t> router_port;  // [chip * ports + port]: 1 when it leads to a chip
  uint8_t response_vc = 0;           // requests VC 0, responses this one (0: they share)
  ps_t latency_ps = 40000;           // router pipeline, every hop
  // Messages whose hash falls below these (of 2^32) get CC bit 0 / a
  // vector route at the source (traffic.cc_adapt, traffic.vector_fraction).
  uint64_t cc_adapt_below = 0;
  uint64_t vector_below = 0;

  const SpiderTable& at(int32_t chip, uint8_t port) const {
    return table[static_cast<size_t>(chip) * ports + port];
  }
  bool leads_to_chip(int32_t chip, uint8_t port) const {
    return router_port[static_cast<size_t>(chip) * ports + port];
  }
};

struct SpiderTableRouting {
  using Tables = SpiderTables;

  static void on_inject(const Tables& t, const Fabric& f, PacketMeta& m) {
    m.vc = m.cls == static_cast<uint8_t>(TrafficClass::response) ? t.response_vc : 0;
    if (t.cc_adapt_below | t.vector_below) [[unlikely]] {
      // One draw per message (every segment agrees): the source's choice.
      uint64_t x = (uint64_t(m.src) << 32) | m.msg_seq;
      const uint64_t h = splitmix64(x);
      if ((h & 0xFFFFFFFFu) < t.cc_adapt_below)
        SpiderHeader::set_cc(m, static_cast<uint8_t>(SpiderHeader::cc(m) | kSpiderCcAdapt));
      if ((h >> 32) < t.vector_below) write_vector(t, f, m);
    }
    if (SpiderHeader::vector_routed(m)) {  // the source wrote the whole path
      SpiderHeader::set_direction(m, SpiderHeader::vector_direction(m, 0));
      SpiderHeader::set_vector_step(m, 1);
      return;
    }
    const FabricEndpoint& src = f.endpoints[m.src];
    SpiderHeader::set_direction(m,
                                t.at(src.router, static_cast<uint8_t>(src.port)).direction(m.dst));
  }

  static void route(const Tables& /*t*/, RoutingContext& /*ctx*/, int32_t /*router*/,
                    uint8_t /*in_port*/, const PacketMeta& m, RouteCandidates& out) {
    const uint8_t d = SpiderHeader::direction(m);
    if (d == 0 || d == kSpiderNoRoute) [[unlikely]]
      return;  // unroutable: the engine discards and counts it
    const uint8_t port = static_cast<uint8_t>(d - 1);
    out.adaptive = (SpiderHeader::cc(m) & kSpiderCcAdapt) != 0;
    if (out.adaptive) {  // either VC of the pair, the freer one
      const uint8_t base = m.vc & ~1u;
      out.add(port, base);
      out.add(port, static_cast<uint8_t>(base + 1));
      return;
    }
    out.add(port, m.vc);
  }

  static ps_t pipeline_ps(const Tables& t, int32_t /*router*/, uint8_t /*in_port*/,
                          uint8_t /*out_port*/) {
    return t.latency_ps;
  }

  // Deterministic unless messages may adapt between VCs.
  static bool routes_on_state(const Tables& t) { return t.cc_adapt_below != 0; }

  // The next chip's direction: its table, which this chip holds for the
  // port the message leaves by, or the vector route's next step.
  static void on_forward(const Tables& t, int32_t router, uint8_t out_port, PacketMeta& m) {
    if (!t.leads_to_chip(router, out_port)) return;  // ejection
    if (SpiderHeader::vector_routed(m)) {
      const uint8_t step = SpiderHeader::vector_step(m);
      SpiderHeader::set_direction(
          m, step < kSpiderMaxVectorSteps ? SpiderHeader::vector_direction(m, step) : 0);
      SpiderHeader::set_vector_step(m, static_cast<uint8_t>(step + 1));
      return;
    }
    SpiderHeader::set_direction(m, t.at(router, out_port).direction(m.dst));
  }

  // The source's vector route: the directions its tables would give, chip
  // by chip, ending with the destination chip's exit to the endpoint. Left
  // table-routed when the path is longer than a header holds or unroutable.
  static void write_vector(const Tables& t, const Fabric& f, PacketMeta& m) {
    uint8_t dirs[kSpiderMaxVectorSteps];
    const FabricEndpoint& src = f.endpoints[m.src];
    int32_t chip = src.router;
    uint8_t d = t.at(chip, static_cast<uint8_t>(src.port)).direction(m.dst);
    for (uint32_t n = 0; n < kSpiderMaxVectorSteps; n++) {
      if (d == 0 || d == kSpiderNoRoute) return;
      dirs[n] = d;
      const uint8_t port = static_cast<uint8_t>(d - 1);
      if (!t.leads_to_chip(chip, port)) {
        SpiderHeader::set_vector(m, dirs, n + 1);
        return;
      }
      d = t.at(chip, port).direction(m.dst);
      chip = f.routers[static_cast<size_t>(chip)].ports[port].peer_router;
    }
  }
};

}  // namespace fabemu

FABEMU_ENGINES(SpiderTableRouting, input_queued, spider)
