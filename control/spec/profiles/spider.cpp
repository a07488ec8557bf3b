// Profile spider: the SGI Spider chip's numbers, Galles, "Spider: A
// High-Speed Network Interconnect", IEEE Micro 17(1), 1997; the keys where it
// differs from fabemu_defaults() or that only it sets.
//
// A link is 20 data pins at 400 Mb/s each way (1 GB/s raw); one flow unit is
// a micropacket, 160 bits on the wire (128 data, 8 sideband, 8 sequence and
// acknowledge, 16 CRC bits) sent as 8 transfers of 20 bits: 20 ns, 800 MB/s
// of data. A message is one fabemu packet of micropackets (header first);
// 16 micropackets fill the 256-byte buffer of a port and virtual channel.
// 40 ns pin to pin, about 50 ns per chip with board traces and cables.
// The default fabric is Table 1's 16 endpoints: a plain 4-cube of chips, one
// endpoint each, routed by the two-level tables; 4 VCs, requests on VC 0
// and responses on VC 2 (control/topology/spider_routing.cpp).
#include "control/spec/profiles.h"

namespace fabemu {

// clang-format off
const ProfileDefaults& spider_defaults() {
  static const ProfileDefaults table{
      {"profile", "spider"},
      {"topology.family", "fat_hypercube"},
      {"topology.n", "4"},
      {"topology.endpoints_per_router", "1"},
      {"link.lanes", "20"},
      {"link.lane_gbps", "0.4"},
      {"link.coding", "1.0"},
      {"link.phit_bits", "20"},
      {"link.phits_per_unit", "8"},
      {"link.wire_ns", "10"},
      {"link.retry", "true"},
      {"link.width_negotiation", "lower_half"},
      {"router.latency_ns", "40"},
      {"router.model", "spider"},
      {"vcs.count", "4"},
      {"vcs.buffer_units", "16"},
      {"routing", "spider_tables"},
      {"packet.max_units", "16"},
      {"packet.header_units", "1"},
      {"traffic.sizes", "[64]"},
      {"traffic.cc_adapt", "0"},
      {"traffic.vector_fraction", "0"},
  };
  return table;
}
// clang-format on

}  // namespace fabemu
