// Profile yarc: the Cray BlackWidow's numbers, Scott et al., "The BlackWidow
// High-Radix Clos Network", ISCA 2006; the keys where it differs from
// fabemu_defaults() or that only it sets.
#include "control/spec/profiles.h"

namespace fabemu {

// clang-format off
ProfileDefaults with_yarc_links(ProfileDefaults own) {
  // YARC's links (3 lanes of 6.25 Gb/s, 8b/10b, 24-bit phits), wire and
  // pipeline: the yarc and flatfly profiles' alike.
  own.insert(own.end(), {
      {"link.lanes", "3"},
      {"link.lane_gbps", "6.25"},
      {"link.coding", "0.8"},
      {"link.phit_bits", "24"},
      {"link.phits_per_unit", "1"},
      {"link.wire_ns", "10"},
      {"router.latency_ns", "31.25"},
  });
  return own;
}

const ProfileDefaults& yarc_defaults() {
  static const ProfileDefaults table = with_yarc_links({
      {"profile", "yarc"},
      {"topology.family", "clos"},
      {"topology.rank", "1"},
      {"topology.endpoints", "32"},
      {"topology.uplinks", "32"},
      {"router.radix", "64"},
      {"router.model", "yarc_tiled"},
      {"router.subswitch_degree", "8"},
      {"router.row_buffer_units", "16"},
      {"router.column_buffer_units", "10"},
      {"router.virtual_routers", "none"},
      {"vcs.count", "2"},
      {"vcs.buffer_units", "256"},
      {"routing", "updown"},
      {"packet.max_units", "19"},
      {"packet.header_units", "6"},
      {"traffic.sizes", "[32]"},
  });
  return table;
}
// clang-format on

}  // namespace fabemu
