// What a run asks of the data-link layer of its router-to-router links
// (link_retry.h): go-back-N with CRC, its window and time-out, bit errors,
// lane degrade, and packets lost or duplicated on purpose for tests. Plain
// values: the spec (control/) fills them, the link reads them.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

// A packet a link loses or sends twice on purpose: the n-th packet (from 1)
// the link from router `router`, port `port` sends (tests of recovery).
struct LinkPacketFault {
  enum class Kind : uint8_t { drop, duplicate };
  uint32_t router = 0;
  uint32_t port = 0;
  uint64_t packet = 1;
  Kind kind = Kind::drop;
};

// The data-link layer of router-to-router links: go-back-N with CRC.
struct LinkRetryConfig {
  bool enabled = false;
  uint32_t window = 0;  // packets a sender may have unacknowledged; 0: cover the time-out
  ps_t timeout_ps = 0;  // 0: 2 x wire + 2 x the longest packet, per link
  double ber = 0;       // bit error rate of every router-to-router link
  uint32_t limit = 0;   // time-outs in a row on one packet before it is given up; 0: none
  // Lane degrade (dataplane/link/lanes.h): a lane with more than
  // lane_threshold retries within lane_window_ps is dropped.
  bool lane_degrade = false;
  // Port width negotiation (link.width_negotiation lower_half): a link runs
  // at full width or on its lower half (lanes.h usable_lanes).
  bool lanes_lower_half = false;
  uint32_t lane_threshold = 16;
  ps_t lane_window_ps = 100'000'000;
  std::vector<LinkPacketFault> packet_faults;
};

}  // namespace fabemu
