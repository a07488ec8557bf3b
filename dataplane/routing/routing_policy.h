// The contract between a routing algorithm and the engine.
//
// A routing policy R is a type with only static inline members, chosen once
// at start-up by instantiating Engine<R> (no per-packet virtual call):
//
//   using Tables = ...;   // plain data, programmed by control/ from the Fabric;
//                         // the engine reaches them through a TableSlot
//                         // (routing/table_slot.h), swapped between windows
//   // At the source endpoint, before injection (the T3E source table lookup,
//   // YARC head-phit fields): fill meta.route[] and the starting VC.
//   static void on_inject(const Tables&, const Fabric&, PacketMeta& m);
//   // At a router: the candidate (output port, VC) pairs for the packet at
//   // the head of input (in_port, m.vc). Must not modify the packet; may
//   // draw from ctx.rng and read ctx.view (credits and occupancy per
//   // output and VC). Whether the choice among several is adaptive
//   // (routing/selection.h) or the function's own is out.adaptive.
//   static void route(const Tables&, RoutingContext& ctx, int32_t router,
//                     uint8_t in_port, const PacketMeta& m, RouteCandidates& out);
//   // Router pipeline latency from in_port to out_port (T3E: straight, turn
//   // or end-point fall-through less the wire; YARC: 31.25 ns).
//   static ps_t pipeline_ps(const Tables&, int32_t router, uint8_t in_port, uint8_t out_port);
//   // After the packet has been granted out_port/out_vc: update route state
//   // (direction-order progress, dateline crossing). m.out_port and
//   // m.out_vc hold the grant; m.vc is still the input's VC.
//   static void on_forward(const Tables&, int32_t router, uint8_t out_port, PacketMeta& m);
//   // Optional: false when route() and selection depend only on the tables
//   // and the packet (not on the queue view or the random stream), so that
//   // a packet's arrival may be handled up to the router pipeline late
//   // (lets workers run longer windows). Without it: true.
//   static bool routes_on_state(const Tables&);
//
template <class R>
bool policy_routes_on_state(const typename R::Tables& t) {
  if constexpr (requires { R::routes_on_state(t); })
    return R::routes_on_state(t);
  else
    return true;
}

// trace_route() below walks a packet through the tables without timing, for
// analysis (hop counts, zero-load latency, channel dependency graph), with
// an idle fabric's queue view and a fixed random stream.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"

namespace fabemu {

struct HopTrace {
  int32_t router;
  uint8_t in_port;
  uint8_t in_vc;
  uint8_t out_port;
  uint8_t out_vc;
  ps_t pipeline_ps;
};

// Follows the first candidate at each hop. Returns an empty vector when the
// route loops or leaves the fabric (a broken table). The random stream is
// the (source, destination) pair's own, so that a randomised policy (VAL's
// intermediate router) draws independently for every pair analysis traces.
template <class R>
std::vector<HopTrace> trace_route(const typename R::Tables& t, const Fabric& f, PacketMeta m) {
  std::vector<HopTrace> path;
  OfflineRouting offline((uint64_t{m.src} << 32) | m.dst);
  RoutingContext ctx = offline.ctx();
  R::on_inject(t, f, m);
  const FabricEndpoint& src = f.endpoints[m.src];
  int32_t router = src.router;
  uint8_t in_port = static_cast<uint8_t>(src.port);
  const size_t limit = 4 * f.routers.size() + 8;
  RouteCandidates rc;
  while (path.size() < limit) {
    rc.count = 0;
    R::route(t, ctx, router, in_port, m, rc);
    if (rc.count == 0) return {};
    const RouteCandidate c = rc.c[0];
    HopTrace h{router, in_port, m.vc, c.port, c.vc, R::pipeline_ps(t, router, in_port, c.port)};
    path.push_back(h);
    m.out_port = c.port;
    m.out_vc = c.vc;
    R::on_forward(t, router, c.port, m);
    const FabricPort& p = f.routers[router].ports[c.port];
    if (p.endpoint >= 0) {
      if (static_cast<uint32_t>(p.endpoint) != m.dst) return {};
      return path;
    }
    if (p.peer_router < 0) return {};
    m.vc = c.vc;
    m.hops++;
    router = p.peer_router;
    in_port = static_cast<uint8_t>(p.peer_port);
  }
  return {};
}

}  // namespace fabemu
