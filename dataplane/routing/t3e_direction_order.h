// Cray T3E direction-order routing (Scott & Thorson, Hot Interconnects 1996,
// sections 2-4) as a routing policy for Engine<R> (dataplane/routing/routing_policy.h).
//
//  - Source table lookup: at the source the PE interface looks up the
//    destination in the routing table (one entry per destination: the
//    deterministic path = which direction to take in each dimension, and
//    whether adaptivity is allowed) and writes the routing tag into the packet.
//  - Direction order: at every router the packet takes the first direction in
//    the order +X +Y +Z -X -Y -Z in which it still has to move; when none is
//    left it leaves on the destination's PE port.
//  - Datelines: one per unidirectional ring, at the node its wrap-around
//    link arrives at (0 for a + ring, k-1 for a - ring). A packet that
//    passes through the dateline node (arrives over the wrap link and goes on
//    in the same direction) on VC0 of its pair is switched to VC1 leaving it;
//    a packet may not pass it on VC1 (control/ only programs VC tables that
//    guarantee it). Packets that start or end a direction at the dateline
//    node keep their VC: the paper's Table 1 (control/analysis/
//    t3e_vc_balance.h) counts them free.
//  - VC lookup table: when a packet enters a new direction, the VC of its pair
//    is the table bit of this router for (direction, destination ordinate & 7)
//    — 2(kx+ky+kz) bits per router, at most 8 per direction as in the T3E.
//    All zeros is the "time of crossing" assignment.
//  - Request/response: requests use VC0/VC1, responses VC2/VC3. VC4 (the
//    adaptive VC) exists in the fabric but deterministic routing never uses it.
//
// Port numbering of a torus router: ports 0..5 are the directions in T3E order
// (+X, +Y, +Z, -X, -Y, -Z); port d sends in direction d, so a packet that
// travels in direction d arrives on the neighbour's port (d + 3) % 6. Ports
// 6.. are the PE (endpoint) ports.
//
// Route state in PacketMeta::route[]:
//   [0..2] destination router coordinates (x, y, z)
//   [3]    bits 0..5: directions of the deterministic path (bit d = travel d);
//          bit 6: adaptivity allowed (table entry; not used by this policy)
//          bit 7: unroutable (a fault left no path; the router gives no output)
//   [4]    PE port of the destination endpoint on its router
//   [5]    direction of the last hop taken (0..5), 6 = ejected, 0xFF = none
//
// Hot path: header-only, no allocation, no exceptions, no division.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/table_allocator.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/sim/time.h"

namespace fabemu {

inline constexpr int kT3eDirections = 6;
inline constexpr uint8_t kT3eFirstPePort = 6;
inline constexpr uint8_t kT3eAdaptiveVc = 4;
inline constexpr uint8_t kT3ePathAdaptive = 1u << 6;  // path entry: adaptivity allowed
inline constexpr uint8_t kT3eUnroutable = 1u << 7;    // path entry: no route (after a fault)
inline constexpr uint8_t kT3eNoDirection = 0xFF;
inline constexpr uint8_t kT3eEjected = 6;

// Direction helpers: d in 0..5, T3E order +X +Y +Z -X -Y -Z.
constexpr int t3e_dim(int d) { return d < 3 ? d : d - 3; }
constexpr bool t3e_plus(int d) { return d < 3; }
constexpr int t3e_opposite(int d) { return d < 3 ? d + 3 : d - 3; }

// Where a destination endpoint lives (the "physical address" part of the
// T3E routing table entry).
struct T3eDest {
  int32_t router = 0;
  std::array<uint8_t, 3> coord{0, 0, 0};
  uint8_t port = kT3eFirstPePort;
};

struct T3eTables {
  std::array<uint8_t, 3> k{1, 1, 1};  // ring sizes kx, ky, kz
  int32_t num_routers = 0;
  // Per router: its coordinates (the "who am I" register).
  std::vector<std::array<uint8_t, 3>> coord;
  // Per endpoint: destination router, coordinates and PE port.
  std::vector<T3eDest> dest;
  // Source routing table: path[src_router * num_routers + dst_router] =
  // direction bits (bit d: travel in direction d) | kT3ePathAdaptive.
  std::vector<uint8_t, TableAllocator<uint8_t>> path;
  // VC lookup table: vc_table[router][d] bit i = VC (0/1 of the pair) for a
  // packet entering direction d at this router whose destination ordinate in
  // that dimension is i (mod 8).
  std::vector<std::array<uint8_t, kT3eDirections>> vc_table;
  // Router fall-through less the wire of the output link, per output port
  // (the wire is counted on the link, so pipeline + wire = Table 2 value).
  std::array<ps_t, kMaxPorts> straight_ps{};
  std::array<ps_t, kMaxPorts> turn_ps{};
  std::array<ps_t, kMaxPorts> endpoint_ps{};
};

struct T3eDirectionOrder {
  using Tables = T3eTables;

  // The PE's source table lookup: writes the routing tag and the starting VC
  // (VC0 of the class's pair).
  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    const T3eDest& d = t.dest[m.dst];
    const int32_t src_router = t.dest[m.src].router;
    m.route[0] = d.coord[0];
    m.route[1] = d.coord[1];
    m.route[2] = d.coord[2];
    m.route[3] = t.path[static_cast<size_t>(src_router) * static_cast<size_t>(t.num_routers) +
                        static_cast<size_t>(d.router)];
    m.route[4] = d.port;
    m.route[5] = kT3eNoDirection;
    m.vc = pair_base(m);
  }

  // The directions the packet still has to travel: bit d is set when its
  // path takes direction d and dimension t3e_dim(d) still differs.
  static unsigned pending_directions(const Tables& t, int32_t router, const PacketMeta& m) {
    const std::array<uint8_t, 3>& c = t.coord[static_cast<size_t>(router)];
    const unsigned differ = (c[0] != m.route[0] ? 0x09u : 0u) | (c[1] != m.route[1] ? 0x12u : 0u) |
                            (c[2] != m.route[2] ? 0x24u : 0u);
    return differ & m.route[3] & 0x3Fu;
  }

  // First remaining direction in T3E order, or 6 when the packet has arrived.
  static int next_direction(const Tables& t, int32_t router, const PacketMeta& m) {
    const unsigned pending = pending_directions(t, router, m);
    return pending ? __builtin_ctz(pending) : kT3eDirections;
  }

  // True when leaving 'router' in direction d crosses that ring's wrap link.
  static bool crosses_dateline(const Tables& t, int32_t router, int d) {
    const int dim = t3e_dim(d);
    const uint8_t c = t.coord[static_cast<size_t>(router)][dim];
    const uint8_t k = t.k[dim];
    return k > 1 && (t3e_plus(d) ? c == k - 1 : c == 0);
  }

  // True when 'router' is the dateline node of direction d's ring: the node
  // its wrap link arrives at.
  static bool dateline_node(const Tables& t, int32_t router, int d) {
    const int dim = t3e_dim(d);
    const uint8_t c = t.coord[static_cast<size_t>(router)][dim];
    const uint8_t k = t.k[dim];
    return k > 1 && (t3e_plus(d) ? c == 0 : c == k - 1);
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    route_direction(t, router, in_port, m, next_direction(t, router, m), out);
  }

  // The candidate for leaving in direction d (kT3eDirections: ejection),
  // with its VC: the pair's VC table bit on entering a direction, kept going
  // straight, VC1 leaving the dateline node going straight. (Shared with the
  // dimension order of torus_dimension_order.h, which picks d another way.)
  static void route_direction(const Tables& t, int32_t router, uint8_t in_port, const PacketMeta& m,
                              int d, RouteCandidates& out) {
    out.adaptive = false;
    if (m.route[3] & kT3eUnroutable) [[unlikely]]
      return;
    if (d == kT3eDirections) {
      out.add(m.route[4], m.vc);
      return;
    }
    const uint8_t base = pair_base(m);
    uint8_t bit;
    if (in_port < kT3eDirections && t3e_opposite(in_port) == d) {
      // Continuing in the same direction: keep the VC, but passing the
      // dateline node on VC0 switches to VC1. (Passing it on VC1 is
      // forbidden; the VC tables control/ programs never ask for it, and the
      // tests check every route.)
      bit = dateline_node(t, router, d) ? 1u : (m.vc & 1u);
    } else {
      const uint8_t ord = m.route[t3e_dim(d)] & 7u;
      bit = (t.vc_table[static_cast<size_t>(router)][d] >> ord) & 1u;
    }
    out.add(static_cast<uint8_t>(d), static_cast<uint8_t>(base + bit));
  }

  static bool routes_on_state(const Tables& /*t*/) { return false; }  // deterministic

  static ps_t pipeline_ps(const Tables& t, int32_t /*router*/, uint8_t in_port, uint8_t out_port) {
    if (in_port >= kT3eDirections || out_port >= kT3eDirections) return t.endpoint_ps[out_port];
    if (t3e_opposite(in_port) == out_port) return t.straight_ps[out_port];
    return t.turn_ps[out_port];
  }

  static void on_forward(const Tables& /*t*/, int32_t /*router*/, uint8_t out_port, PacketMeta& m) {
    m.route[5] = out_port < kT3eDirections ? out_port : kT3eEjected;
  }

 private:
  static uint8_t pair_base(const PacketMeta& m) {
    return m.cls == static_cast<uint8_t>(TrafficClass::response) ? 2 : 0;
  }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(T3eDirectionOrder, input_queued)
