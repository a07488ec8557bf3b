// Profile flatfly: Kim, Dally & Abts, "Flattened Butterfly", ISCA 2007,
// with YARC's links, pipeline and phits; the keys where it differs from
// fabemu_defaults() or that only it sets.
#include "control/spec/profiles.h"

namespace fabemu {

// clang-format off
const ProfileDefaults& flatfly_defaults() {
  static const ProfileDefaults table{
      {"profile", "flatfly"},
      {"topology.family", "flatfly"},
      {"topology.k", "32"},
      {"topology.n", "2"},
      {"link.lanes", "3"},
      {"link.lane_gbps", "6.25"},
      {"link.coding", "0.8"},
      {"link.phit_bits", "24"},
      {"link.phits_per_unit", "1"},
      {"link.wire_ns", "10"},
      {"router.latency_ns", "31.25"},
      {"router.allocator", "default"},
      {"router.model", "input_queued"},
      {"vcs.count", "2"},
      {"vcs.buffer_units", "304"},
      {"routing", "min"},
      {"packet.max_units", "19"},
      {"packet.header_units", "6"},
      {"traffic.sizes", "[32]"},
  };
  return table;
}
// clang-format on

}  // namespace fabemu
