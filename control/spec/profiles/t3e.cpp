// Profile t3e (and custom): the Cray T3E's numbers, Scott & Thorson, "The
// Cray T3E Network", Hot Interconnects IV, 1996; the keys where it differs
// from fabemu_defaults() or that only it sets.
#include "control/spec/profiles.h"

namespace fabemu {

// clang-format off
const ProfileDefaults& t3e_defaults() {
  static const ProfileDefaults table{
      {"profile", "t3e"},
      {"topology.family", "torus"},
      {"topology.dims", "[4, 4, 4]"},
      {"topology.endpoints_per_router", "1"},
      {"link.lanes", "14"},
      {"link.lane_gbps", "0.375"},
      {"link.coding", "1.0"},
      {"link.phit_bits", "14"},
      {"link.phits_per_unit", "5"},
      {"link.wire_ns", "5"},
      {"router.straight_ns", "40"},
      {"router.turn_ns", "80"},
      {"router.endpoint_ns", "133"},
      {"router.model", "input_queued"},
      {"vcs.count", "5"},
      {"vcs.buffer_units", "12"},
      {"vcs.adaptive_buffer_units", "22"},
      {"vcs.dateline_assignment", "optimised"},
      {"routing", "direction_order"},
      {"packet.max_units", "10"},
      {"packet.header_units", "2"},
      {"traffic.sizes", "[64]"},
      {"traffic.adaptive_fraction", "1.0"},
      {"traffic.response_priority", "alternate"},
  };
  return table;
}
// clang-format on

}  // namespace fabemu
