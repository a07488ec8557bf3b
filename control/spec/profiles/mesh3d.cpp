// Profile mesh3d: the low-latency 3D mesh of the petaflops 3D-mesh proposal
// (shared seed 004); the keys where it differs from fabemu_defaults() or
// that only it sets. The proposal gives the machine (27 x 16 x 24), the
// link (80-bit parallel buses on a 10 GHz global clock: a word per 100 ps)
// and the 100 ns cross-machine target; it is silent on router times and
// buffers, so these are fabemu's, with their reasons (docs/fabrics/
// mesh3d.md):
// - link.wire_ns 0.55: Figure 7a's 35 ns to cross the machine at 70% of
//   the speed of light, over the 64 links of a corner-to-corner route;
// - router.straight_ns 0.8: the cut-through block's "one-cycle decision"
//   plus its 2x2 switch, two cycles of the on-chip 2.5 GHz clock (the 80
//   lines run at 4x the on-chip clock, Figure 17);
// - router.turn_ns 2.0 and endpoint_ns 2.0: the turn and queuing logic
//   (input queue, a routing lane, output queue), five on-chip cycles;
// - vcs.buffer_units 64: two of the longest packets (32 words) per VC.
#include "control/spec/profiles.h"

namespace fabemu {

// clang-format off
const ProfileDefaults& mesh3d_defaults() {
  static const ProfileDefaults table{
      {"profile", "mesh3d"},
      {"topology.family", "mesh3d"},
      {"topology.dims", "[27, 16, 24]"},
      {"topology.endpoints_per_router", "1"},
      {"link.lanes", "80"},
      {"link.lane_gbps", "10"},
      {"link.coding", "1.0"},
      {"link.phit_bits", "80"},
      {"link.phits_per_unit", "1"},
      {"link.wire_ns", "0.55"},
      {"router.straight_ns", "0.8"},
      {"router.turn_ns", "2.0"},
      {"router.endpoint_ns", "2.0"},
      {"router.model", "mesh3d"},
      {"router.routing_lanes", "3"},
      {"vcs.count", "2"},
      {"vcs.buffer_units", "64"},
      {"routing", "source_route"},
      {"packet.max_units", "32"},
      {"packet.header_units", "2"},
      {"traffic.sizes", "[64]"},
      {"traffic.route_errors", "0"},
  };
  return table;
}
// clang-format on

}  // namespace fabemu
