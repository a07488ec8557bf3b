// BookSim2's dimension-order routing of a torus (routing_function =
// dim_order on topology = torus: BookSim's dim_order_torus and
// dor_next_torus, read, not copied) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h). It differs from the T3E's and from
// torus_dimension_order.h in the three ways BookSim's figures depend on:
//  - Dimensions in order X, Y, Z. Entering a dimension the packet takes the
//    shorter way round; a tie (k/2 either way) is drawn at random, a coin
//    per packet and dimension, where the T3E's table fixes it.
//  - Dateline classes, not dateline VCs: entering a dimension at an
//    ordinate above the destination's a packet is in class 1 for the whole
//    dimension, else class 0 (going + class 1 is the packets that cross
//    the wrap link; going - BookSim applies the same test, see
//    dateline_class). With nv VCs a class may
//    use nv/2 of them: class 0 VCs 0 .. nv-1-nv/2, class 1 VCs nv/2 .. nv-1
//    (for odd nv the middle VC is in both, as BookSim has it). Each ring is
//    acyclic per class, so any nv >= 2 is deadlock-free.
//  - At the destination router the packet leaves on any VC (into the
//    endpoint), and a source may put it on any VC (vcs.injection rotate).
// On a mesh (topology.wrap false) it is BookSim's dim_order_mesh: each
// dimension the one way there is, any VC at every hop (no ring, no cycle).
// The router's VC allocator picks among the class's VCs
// (router.switch_allocator islip: any free one; the event-driven router:
// by credits).
//
// Port numbering is the torus family's (torus.h): 0..5 = +X +Y +Z -X -Y -Z,
// a packet travelling direction d arrives on the neighbour's port (d+3)%6,
// PE ports from 6.
//
// Route state in PacketMeta::route[]:
//   [0..2] destination router coordinates
//   [3]    dateline class of the dimension being travelled (0/1)
//   [4]    PE port of the destination endpoint on its router
//   [5]    direction of the last hop (0..5), 0xFF before the first
//
// Hot path: header-only, no allocation, no exceptions, no division.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/routing/t3e_direction_order.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct TorusBooksimTables {
  std::array<uint8_t, 3> k{1, 1, 1};
  uint8_t vcs = 2;
  std::vector<std::array<uint8_t, 3>> coord;  // per router
  std::vector<T3eDest> dest;                  // per endpoint
  // The torus family's fall-through less the output wire, per output port
  // (router.straight_ns, turn_ns, endpoint_ns; control/topology/torus.h).
  std::array<ps_t, kMaxPorts> straight_ps{}, turn_ps{}, endpoint_ps{};
  // True when some ring has even k: its ties are drawn at random.
  bool draws = false;
  bool mesh = false;  // no wrap links (topology.wrap false)
};

struct TorusBooksimDor {
  using Tables = TorusBooksimTables;

  static void on_inject(const Tables& t, const Fabric& /*f*/, PacketMeta& m) {
    const T3eDest& d = t.dest[m.dst];
    m.route[0] = d.coord[0];
    m.route[1] = d.coord[1];
    m.route[2] = d.coord[2];
    m.route[3] = 0;
    m.route[4] = d.port;
    m.route[5] = kT3eNoDirection;
    // Into the source router on the VCs in turn, as BookSim's sources take
    // the VC after the last one they used.
    m.vc = static_cast<uint8_t>(m.id % t.vcs);
  }

  // The lowest dimension in which router and destination differ, or 3.
  static int dimension_left(const Tables& t, int32_t router, const PacketMeta& m) {
    const std::array<uint8_t, 3>& c = t.coord[static_cast<size_t>(router)];
    for (int dim = 0; dim < 3; dim++)
      if (c[dim] != m.route[dim]) return dim;
    return 3;
  }

  // Entering dimension dim at ordinate s towards o: the direction (dim
  // going +, dim + 3 going -), a tie by the coin.
  static int entry_direction(int dim, int s, int o, int k, RoutingContext& ctx) {
    const int ahead = o >= s ? o - s : o - s + k;  // hops going +
    const int twice = 2 * ahead;
    const bool plus = twice < k || (twice == k && (ctx.rng->next() >> 63));
    return plus ? dim : dim + 3;
  }

  // The dateline class of a dimension entered at ordinate s towards o: 1
  // when s > o, whichever way the packet goes. Going + that is "crosses the
  // wrap link"; going - BookSim's test is the same one (dor_next_torus
  // compares dest < cur for both), so there class 1 is the packets that do
  // not wrap. Each class's channels of a ring still form no cycle on
  // minimal routes, and BookSim's figures come from this rule.
  static uint8_t dateline_class(int /*d*/, int s, int o) { return static_cast<uint8_t>(s > o); }

  static void route(const Tables& t, RoutingContext& ctx, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    out.adaptive = false;
    const int dim = dimension_left(t, router, m);
    if (dim == 3) {  // into the endpoint, on any VC
      for (uint8_t v = 0; v < t.vcs; v++) out.add(m.route[4], v);
      return;
    }
    int d;
    uint8_t cls;
    const uint8_t s = t.coord[static_cast<size_t>(router)][dim];
    if (t.mesh) {  // the one way, on any VC
      d = m.route[dim] > s ? dim : dim + 3;
      for (uint8_t v = 0; v < t.vcs; v++) out.add(static_cast<uint8_t>(d), v);
      return;
    }
    if (in_port < kT3eDirections && t3e_dim(in_port) == dim) {
      d = t3e_opposite(in_port);  // going on round the same ring
      cls = m.route[3];
    } else {
      d = entry_direction(dim, s, m.route[dim], t.k[dim], ctx);
      cls = dateline_class(d, s, m.route[dim]);
    }
    const uint8_t half = t.vcs / 2;
    const uint8_t first = cls ? half : 0, last = cls ? t.vcs - 1 : t.vcs - 1 - half;
    for (uint8_t v = first; v <= last; v++) out.add(static_cast<uint8_t>(d), v);
  }

  static bool routes_on_state(const Tables& t) { return t.draws; }

  // A packet from the endpoint crosses the router as any other (BookSim's
  // injection channel is a channel like the rest); into the endpoint it
  // takes the endpoint fall-through (BookSim's crossbar and ejection channel).
  static ps_t pipeline_ps(const Tables& t, int32_t /*router*/, uint8_t in_port, uint8_t out_port) {
    if (out_port >= kT3eDirections) return t.endpoint_ps[out_port];
    return in_port < kT3eDirections && t3e_opposite(in_port) != out_port ? t.turn_ps[out_port]
                                                                          : t.straight_ps[out_port];
  }

  // Entering a dimension the packet takes its class for the whole of it
  // (route[5]: the direction it last travelled).
  static void on_forward(const Tables& t, int32_t router, uint8_t out_port, PacketMeta& m) {
    if (out_port >= kT3eDirections) return;
    const uint8_t last = m.route[5];
    m.route[5] = out_port;
    if (last < kT3eDirections && t3e_dim(last) == t3e_dim(out_port)) return;
    const int dim = t3e_dim(out_port);
    m.route[3] = dateline_class(out_port, t.coord[static_cast<size_t>(router)][dim], m.route[dim]);
  }
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(TorusBooksimDor, input_queued, input_queued_islip)
