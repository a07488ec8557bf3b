// Profile flatfly: Kim, Dally & Abts, "Flattened Butterfly", ISCA 2007,
// with YARC's links, pipeline and phits; the keys where it differs from
// fabemu_defaults() or that only it sets.
#include "control/spec/profiles.h"

namespace fabemu {

// clang-format off
const ProfileDefaults& flatfly_defaults() {
  static const ProfileDefaults table = with_yarc_links({
      {"profile", "flatfly"},
      {"topology.family", "flatfly"},
      {"topology.k", "32"},
      {"topology.n", "2"},
      {"router.allocator", "default"},
      {"router.model", "input_queued"},
      {"vcs.count", "2"},
      {"vcs.buffer_units", "304"},
      {"routing", "min"},
      {"packet.max_units", "19"},
      {"packet.header_units", "6"},
      {"traffic.sizes", "[32]"},
  });
  return table;
}
// clang-format on

}  // namespace fabemu
