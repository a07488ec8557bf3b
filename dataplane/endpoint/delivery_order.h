// Packets that reach their destination out of the order their source sent
// them. Where a routing lets packets of one source and destination take
// different VCs (Spider's congestion-control bit 0: a message may adapt
// between the two VCs of its pair, "and so arrive out of order"), a later
// packet can overtake an earlier one; the destination counts each packet
// that arrives after a later one of its (source, class).
//
// Per destination a worker owns, the furthest (message, segment) delivered
// from each source and class so far: 16 bytes per source, allocated only
// when a run counts (TrafficConfig::count_out_of_order). One worker owns a
// destination, so nothing is shared.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/core/packet_meta.h"

namespace fabemu {

class DeliveryOrder {
 public:
  // Counting at the destinations `owned` of a fabric of `endpoints`.
  void init(uint32_t endpoints, const std::vector<uint32_t>& owned) {
    n_ = endpoints;
    row_.assign(endpoints, -1);
    int32_t rows = 0;
    for (uint32_t d : owned)
      if (d < endpoints && row_[d] < 0) row_[d] = rows++;
    furthest_.assign(size_t(rows) * n_ * 2, 0);
  }
  bool counting() const { return n_ != 0; }

  // Packet pm arrives at its destination: true when a later packet of its
  // source and class arrived before it.
  bool late(const PacketMeta& pm) {
    const int32_t row = pm.dst < n_ ? row_[pm.dst] : -1;
    if (row < 0 || pm.src >= n_) return false;  // not a destination counted here
    uint64_t& furthest = furthest_[(size_t(row) * n_ + pm.src) * 2 + (pm.cls & 1u)];
    const uint64_t at = ((uint64_t(pm.msg_seq) << 16) | pm.seg) + 1;
    if (at < furthest) return true;
    furthest = at;
    return false;
  }

 private:
  uint32_t n_ = 0;
  std::vector<int32_t> row_;        // destination -> its row, -1 when not owned
  std::vector<uint64_t> furthest_;  // [row][source][class]: (msg_seq << 16 | seg) + 1
};

}  // namespace fabemu
