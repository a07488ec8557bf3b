// Source routing on the low-latency 3D mesh (the petaflops 3D-mesh
// proposal, "Routing" and "Deadlock Avoidance in Event of Faults") as a
// routing policy for Engine<R> (dataplane/routing/routing_policy.h).
//
// The source writes the whole route into the packet's first word: XYZ
// dimension order where its links and routers are alive, else the static
// route control/ computed under the turn model (Mesh3dTables::exceptions,
// control/topology/mesh3d_routing.cpp). A router reads the state (Route,
// HowFar) and its complement, leaves in the segment's direction and writes
// the next state. It checks on the fly what the proposal's hardware checks:
// a state that does not match its complement (route_state), a turn its
// list does not allow (illegal_turn: "a message requesting an unallowed
// turn will be discarded. This prevents deadlock"), a route that ends at
// another router than its destination's or leaves the mesh (misrouted);
// each is discarded and counted (refusal()).
//
// Ports: 0..5 the directions +X -X +Y -Y +Z -Z (MeshDir), 6.. the local
// processors. A packet that arrived by port p travels in direction p ^ 1.
// Latency: straight through (the cut-through block of Figure 13), a turn
// (the turn and queuing logic, Figure 15), or to and from a processor.
//
// VCs: requests VC 0, responses VC 1 (the proposal's two sets of virtual
// channels for requests and responses).
//
// Hot path: header-only, no allocation; the route word is one 8-byte load.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/rng.h"
#include "dataplane/routing/mesh3d_header.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

inline constexpr uint8_t kMesh3dProcessorPort = 6;  // first processor port
// A route word no source may send: the pair has no legal route (a fault).
inline constexpr uint64_t kMesh3dNoRoute = ~uint64_t{0};

struct Mesh3dTables {
  std::array<int32_t, 3> k{1, 1, 1};
  int32_t conc = 1;  // processors per router
  uint8_t response_vc = 1;
  ps_t straight_ps = 0, turn_ps = 0, endpoint_ps = 0;
  // turns[router]: bit from * 6 + to set when a packet travelling `from`
  // may leave going `to` (going straight is always allowed); bit
  // kLinkBit + d when the router has a neighbour in direction d (the
  // mesh's edge without a division per hop).
  static constexpr uint32_t kLinkBit = 36;
  std::vector<uint64_t> turns;
  // After faults ([router] bit d: its link in direction d and the router
  // beyond alive; empty when healthy): where two-hop recovery may send a
  // packet again from.
  std::vector<uint8_t> alive;
  // Routes other than XYZ, by source router: the pairs whose XYZ route
  // meets a fault, sorted by destination router within each source.
  std::vector<uint32_t> first;  // [router + 1]: end of its entries
  std::vector<uint32_t> dst_router;
  std::vector<uint64_t> route;  // a route word, or kMesh3dNoRoute
  // Messages whose hash falls below this (of 2^32) leave their source with
  // one bit of the route word flipped (traffic.route_errors).
  uint64_t corrupt_below = 0;

  int32_t router_of(uint32_t endpoint) const { return static_cast<int32_t>(endpoint) / conc; }
  std::array<int32_t, 3> coord(int32_t r) const { return {r % k[0], (r / k[0]) % k[1], r / (k[0] * k[1])}; }
  bool allows(int32_t router, uint32_t from, uint32_t to) const {
    return (turns[static_cast<size_t>(router)] >> (from * 6 + to)) & 1;
  }
  bool has_link(int32_t router, uint32_t dir) const {
    return (turns[static_cast<size_t>(router)] >> (kLinkBit + dir)) & 1;
  }
  bool link_alive(int32_t router, uint32_t dir) const {
    return alive.empty() ? has_link(router, dir) : (alive[size_t(router)] >> dir) & 1;
  }
  bool router_alive(int32_t router) const { return alive.empty() || alive[size_t(router)] != 0; }
  // The exception's route word for (src, dst) routers, or nullptr: XYZ.
  const uint64_t* exception(int32_t src, int32_t dst) const {
    if (first.empty()) return nullptr;
    const auto b = dst_router.begin() + first[size_t(src)], e = dst_router.begin() + first[size_t(src) + 1];
    const auto it = std::lower_bound(b, e, uint32_t(dst));
    return it != e && *it == uint32_t(dst) ? &route[size_t(it - dst_router.begin())] : nullptr;
  }
};

// The XYZ route between two routers as a route word (each dimension in
// segments of up to 16 hops); false when it needs more than six segments.
inline bool mesh3d_xyz_word(const Mesh3dTables& t, int32_t src, int32_t dst, uint64_t* out) {
  const std::array<int32_t, 3> a = t.coord(src), b = t.coord(dst);
  MeshRoute r;
  for (uint32_t d = 0; d < 3; d++) {
    int32_t n = b[d] - a[d];
    const MeshDir dir = static_cast<MeshDir>(2 * d + (n < 0 ? 1 : 0));
    n = n < 0 ? -n : n;
    while (n > 0) {
      const int32_t h = std::min<int32_t>(n, kMeshMaxSegmentHops);
      if (!r.add(dir, uint32_t(h))) return false;
      n -= h;
    }
  }
  *out = Mesh3dHeader::of_route(r);
  return true;
}

struct Mesh3dSourceRoute {
  using Tables = Mesh3dTables;

  // The route word from router s to router d: XYZ, or the exception the
  // faults made.
  static uint64_t route_word(const Tables& t, int32_t s, int32_t d) {
    uint64_t w;
    if (const uint64_t* x = t.exception(s, d)) [[unlikely]]
      return *x;
    if (!mesh3d_xyz_word(t, s, d, &w)) [[unlikely]]
      return kMesh3dNoRoute;
    return w;
  }

  static void on_inject(const Tables& t, const Fabric&, PacketMeta& m) {
    m.vc = m.cls == static_cast<uint8_t>(TrafficClass::response) ? t.response_vc : 0;
    uint64_t w = route_word(t, t.router_of(m.src), t.router_of(m.dst));
    if (t.corrupt_below) [[unlikely]] {
      // One draw per message (every segment agrees), like a soft error in
      // the source's route register: one of the 56 bits flipped.
      uint64_t x = (uint64_t(m.src) << 32) | m.msg_seq;
      const uint64_t h = splitmix64(x);
      if ((h & 0xFFFFFFFFu) < t.corrupt_below && w != kMesh3dNoRoute) w ^= uint64_t{1} << ((h >> 32) % 56);
    }
    Mesh3dHeader::set_word(m, w);
  }

  // Two-hop recovery: a packet sent again from `router` gets the route
  // from there (the tables are those after the fault).
  static bool reroute_from(const Tables& t, int32_t router, PacketMeta& m) {
    const int32_t d = t.router_of(m.dst);
    // (The exceptions leave out dead routers: XYZ towards one would end at
    // its dead link.)
    if (d != router && !t.router_alive(d)) return false;
    const uint64_t w = route_word(t, router, d);
    if (w == kMesh3dNoRoute) return false;
    const Mesh3dStep st = mesh3d_step(w);
    if (st.kind == Mesh3dStep::hop && !t.link_alive(router, st.dir)) return false;
    m.vc = m.cls == static_cast<uint8_t>(TrafficClass::response) ? t.response_vc : 0;
    Mesh3dHeader::set_word(m, w);
    return true;
  }

  // Why a packet has no candidate (the engine asks only then).
  static DropReason refusal(const Tables& t, int32_t router, uint8_t in_port, const PacketMeta& m) {
    const uint64_t w = Mesh3dHeader::word(m);
    if (w == kMesh3dNoRoute) return DropReason::no_route;
    if (!Mesh3dHeader::state_ok(w)) return DropReason::route_state;
    const Mesh3dStep st = mesh3d_step(w);
    if (st.kind == Mesh3dStep::invalid) return DropReason::route_state;
    if (st.kind == Mesh3dStep::deliver) return DropReason::misrouted;  // not its destination's router
    if (in_port < kMesh3dProcessorPort && !turn_ok(t, router, in_port, st.dir)) return DropReason::illegal_turn;
    return DropReason::misrouted;  // off the mesh's edge
  }

  static void route(const Tables& t, RoutingContext&, int32_t router, uint8_t in_port, const PacketMeta& m,
                    RouteCandidates& out) {
    const uint64_t w = Mesh3dHeader::word(m);
    if (w == kMesh3dNoRoute || !Mesh3dHeader::state_ok(w)) [[unlikely]]
      return;
    const Mesh3dStep st = mesh3d_step(w);
    if (st.kind == Mesh3dStep::deliver) {
      if (t.router_of(m.dst) != router) [[unlikely]]
        return;
      out.add(static_cast<uint8_t>(kMesh3dProcessorPort + m.dst % uint32_t(t.conc)), m.vc);
      return;
    }
    if (st.kind != Mesh3dStep::hop) [[unlikely]]
      return;
    if (in_port < kMesh3dProcessorPort && !turn_ok(t, router, in_port, st.dir)) [[unlikely]]
      return;
    if (!t.has_link(router, st.dir)) [[unlikely]]
      return;
    out.add(st.dir, m.vc);
  }

  static ps_t pipeline_ps(const Tables& t, int32_t, uint8_t in_port, uint8_t out_port) {
    if (in_port >= kMesh3dProcessorPort || out_port >= kMesh3dProcessorPort) return t.endpoint_ps;
    return (in_port ^ 1u) == out_port ? t.straight_ps : t.turn_ps;
  }

  static bool routes_on_state(const Tables&) { return false; }

  // The next router's state, and its complement.
  static void on_forward(const Tables&, int32_t, uint8_t out_port, PacketMeta& m) {
    if (out_port >= kMesh3dProcessorPort) return;
    const uint64_t w = Mesh3dHeader::word(m);
    Mesh3dHeader::set_word(m, Mesh3dHeader::with_state(w, mesh3d_step(w).next));
  }

 private:
  // Straight on, or a turn the router's list allows (never back).
  static bool turn_ok(const Tables& t, int32_t router, uint8_t in_port, uint32_t to) {
    const uint32_t from = in_port ^ 1u;
    return from == to || t.allows(router, from, to);
  }
};

}  // namespace fabemu

FABEMU_ENGINES(Mesh3dSourceRoute, input_queued, mesh3d)
