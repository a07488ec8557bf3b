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
//   // Optional: why route() gave no candidate, when the policy refuses a
//   // packet itself (the 3D mesh: a route state that fails its complement,
//   // a turn the router's list forbids): the engine discards it counted
//   // with that reason. DropReason::count: not refused (unroutable).
//   static DropReason refusal(const Tables&, int32_t router, uint8_t in_port,
//                             const PacketMeta& m);
//   // Optional: the packet enters input in_port of `router` (its upstream
//   // link granted it; it has not yet waited in the buffer): a decision
//   // taken as the packet arrives rather than at the head of the buffer
//   // (BookSim2's lookahead routing at the source router, which UGAL's
//   // choice depends on). May write m.route[]; may read ctx as route() does.
//   static void on_enter(const Tables&, RoutingContext& ctx, int32_t router,
//                        uint8_t in_port, PacketMeta& m);
//   // Optional: how the router's inputs see each other's adaptive decisions
//   // (Allocator below). Without it: sequential.
//   static Allocator allocator(const Tables&);
//
// A granted candidate's RouteCandidate::note reaches on_forward in
// m.out_note (what a decision needs remembered, e.g. UGAL's intermediate
// router).
//
// trace_route() below walks a packet through the tables without timing, for
// analysis (hop counts, zero-load latency, channel dependency graph), with
// an idle fabric's queue view and a fixed random stream.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/routing/selection.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

template <class R>
bool policy_routes_on_state(const typename R::Tables& t) {
  if constexpr (requires { R::routes_on_state(t); })
    return R::routes_on_state(t);
  else
    return true;
}

// The paper's two allocators (Kim, Dally & Abts 2007, section 3.1):
// sequential: each input decides in turn and sees the queue state updated by
// the decisions before it (the event engine's own order: a routed packet
// counts in its output's queue at once, QueueView::queue); greedy: all inputs
// of a router decide on the same queue state, updated en masse once per
// router cycle (a per-router snapshot the engine refreshes when a decision
// falls in a new cycle).
enum class Allocator : uint8_t { sequential, greedy };

// Why R refused a packet it gave no candidate (R::refusal), or
// DropReason::count: not refused (unroutable), also for a policy without it.
template <class R>
DropReason policy_refusal(const typename R::Tables& t, int32_t router, uint8_t in_port,
                          const PacketMeta& m) {
  if constexpr (requires { R::refusal(t, router, in_port, m); })
    return R::refusal(t, router, in_port, m);
  else
    return DropReason::count;
}

// Two-hop recovery sends a packet again from `router`, which is not its
// source: R writes a route from there (R::reroute_from); false when there is
// none, or R cannot route from anywhere but the source.
template <class R>
inline constexpr bool policy_reroutes =
    requires(const typename R::Tables& t, int32_t router, PacketMeta& m) {
      R::reroute_from(t, router, m);
    };

template <class R>
bool policy_reroute(const typename R::Tables& t, int32_t router, PacketMeta& m) {
  if constexpr (requires { R::reroute_from(t, router, m); })
    return R::reroute_from(t, router, m);
  else
    return false;
}

template <class R>
Allocator policy_allocator(const typename R::Tables& t) {
  if constexpr (requires { R::allocator(t); })
    return R::allocator(t);
  else
    return Allocator::sequential;
}

struct HopTrace {
  int32_t router;
  uint8_t in_port;
  uint8_t in_vc;
  uint8_t out_port;
  uint8_t out_vc;
  ps_t pipeline_ps;
};

// Where each router port leads (what trace_route reads of a FabricPort),
// for every port of a fabric in one router-major array of 12-byte entries:
// tracing millions of routes through a large fabric then reads one compact
// array instead of each router's own port vector (a cache miss per hop).
struct PortPeer {
  int32_t peer_router = -1;
  int32_t endpoint = -1;
  int16_t peer_port = -1;
};

class PortPeers {
 public:
  explicit PortPeers(const Fabric& f) {
    for (const FabricRouter& r : f.routers) ports_ = std::max(ports_, r.ports.size());
    peers_.resize(f.routers.size() * ports_);  // absent ports: unconnected
    for (size_t r = 0; r < f.routers.size(); ++r)
      for (size_t p = 0; p < f.routers[r].ports.size(); ++p) {
        const FabricPort& x = f.routers[r].ports[p];
        peers_[r * ports_ + p] = {x.peer_router, x.endpoint, x.peer_port};
      }
  }
  const PortPeer& operator()(int32_t router, uint8_t port) const {
    return peers_[static_cast<size_t>(router) * ports_ + port];
  }

 private:
  size_t ports_ = 0;
  std::vector<PortPeer> peers_;
};

// A traced packet takes candidate c at `router`: the hop is recorded and
// the policy updates its route state as on a grant.
template <class R>
void take_hop(const typename R::Tables& t, int32_t router, uint8_t in_port, const RouteCandidate& c,
              PacketMeta& m, std::vector<HopTrace>& path) {
  path.push_back(
      HopTrace{router, in_port, m.vc, c.port, c.vc, R::pipeline_ps(t, router, in_port, c.port)});
  m.out_port = c.port;
  m.out_vc = c.vc;
  m.out_note = c.note;
  R::on_forward(t, router, c.port, m);
}

// Follows at each hop the candidate the router would select on an idle
// fabric (the first, or the fewest hops when weighted), writing the hops into `path`
// (cleared first; its capacity is kept, so a caller that traces many routes
// allocates once). Returns false, with `path` empty, when the route loops or
// leaves the fabric (a broken table). port(router, port) is where f's port
// leads: a PortPeers of f, or f's FabricPort by default. The random stream
// is the (source, destination) pair's own, so that a randomised policy (VAL's
// intermediate router) draws independently for every pair analysis traces.
template <class R, class Ports>
bool trace_route_into(const typename R::Tables& t, const Fabric& f, PacketMeta m,
                      std::vector<HopTrace>& path, const Ports& port) {
  path.clear();
  OfflineRouting offline((uint64_t{m.src} << 32) | m.dst);
  RoutingContext ctx = offline.ctx();
  R::on_inject(t, f, m);
  const FabricEndpoint& src = f.endpoints[m.src];
  int32_t router = src.router;
  uint8_t in_port = static_cast<uint8_t>(src.port);
  const size_t limit = 4 * f.routers.size() + 8;
  RouteCandidates rc;
  while (path.size() < limit) {
    if constexpr (requires { R::on_enter(t, ctx, router, in_port, m); })
      R::on_enter(t, ctx, router, in_port, m);
    rc.count = 0;
    R::route(t, ctx, router, in_port, m, rc);
    if (rc.count == 0) break;
    const RouteCandidate c = select_candidate(rc, ctx.view, m.units ? m.units : 1);
    take_hop<R>(t, router, in_port, c, m, path);
    const auto& p = port(router, c.port);
    if (p.endpoint >= 0) {
      if (static_cast<uint32_t>(p.endpoint) != m.dst) break;
      return true;
    }
    if (p.peer_router < 0) break;
    m.vc = c.vc;
    m.hops++;
    router = p.peer_router;
    in_port = static_cast<uint8_t>(p.peer_port);
  }
  path.clear();
  return false;
}

template <class R>
bool trace_route_into(const typename R::Tables& t, const Fabric& f, const PacketMeta& m,
                      std::vector<HopTrace>& path) {
  return trace_route_into<R>(t, f, m, path,
                             [&f](int32_t router, uint8_t port) -> const FabricPort& {
                               return f.routers[router].ports[port];
                             });
}

// The same, returning the path (empty when unroutable).
template <class R>
std::vector<HopTrace> trace_route(const typename R::Tables& t, const Fabric& f,
                                  const PacketMeta& m) {
  std::vector<HopTrace> path;
  trace_route_into<R>(t, f, m, path);
  return path;
}

// Every route an adaptive policy may give a packet, for the channel
// dependency graph (a deadlock check that followed only the zero-load choice
// would miss the dependencies of every other): at each hop whose candidates
// are adaptive, each candidate in turn; otherwise candidate 0. visit(path)
// is called with each complete route (path holds it; reused). Returns false
// when some route loops or leaves the fabric. The random stream is the
// (source, destination) pair's own, as in trace_route_into.
template <class R, class Ports, class Visit>
bool for_each_route_choice(const typename R::Tables& t, const Fabric& f, PacketMeta m,
                           std::vector<HopTrace>& path, const Ports& port, Visit&& visit) {
  path.clear();
  OfflineRouting offline((uint64_t{m.src} << 32) | m.dst);
  RoutingContext ctx = offline.ctx();
  R::on_inject(t, f, m);
  const FabricEndpoint& src = f.endpoints[m.src];
  const size_t limit = 4 * f.routers.size() + 8;
  bool ok = true;
  auto walk = [&](auto& self, int32_t router, uint8_t in_port, const PacketMeta& at) -> void {
    if (path.size() >= limit) {
      ok = false;
      return;
    }
    RouteCandidates rc;
    R::route(t, ctx, router, in_port, at, rc);
    if (rc.count == 0) {
      ok = false;
      return;
    }
    const uint32_t choices = rc.adaptive ? rc.count : 1;
    for (uint32_t i = 0; i < choices; ++i) {
      const RouteCandidate c = rc.c[i];
      PacketMeta m2 = at;
      take_hop<R>(t, router, in_port, c, m2, path);
      const auto& p = port(router, c.port);
      if (p.endpoint >= 0) {
        if (static_cast<uint32_t>(p.endpoint) == m2.dst)
          visit(static_cast<const std::vector<HopTrace>&>(path));
        else
          ok = false;
      } else if (p.peer_router < 0) {
        ok = false;
      } else {
        m2.vc = c.vc;
        m2.hops++;
        self(self, p.peer_router, static_cast<uint8_t>(p.peer_port), m2);
      }
      path.pop_back();
    }
  };
  walk(walk, src.router, static_cast<uint8_t>(src.port), m);
  return ok;
}

}  // namespace fabemu
