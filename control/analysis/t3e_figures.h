// The Cray T3E paper's performance figures (Scott & Thorson, "The Cray T3E
// Network", Hot Interconnects IV, 1996, section 11), computed from the
// built fabric, its routes and the profile's link:
//   - Table 4: each packet type's payload bandwidth on one link, one-way
//     (the link carries only the packets that hold the words) and
//     symmetrical (requests and responses share it), from the link's peak
//     (one 64-bit word per flit time: 600 MB/s) and Table 3's lengths;
//   - Figure 7: maximum and average round-trip latency against system
//     size under uniformly random destinations: twice the delay from the
//     input of the source node's router to the input of the destination's
//     control chip, the sum of Table 2's fall-through of every router
//     crossed (end-point 133 ns at both ends, 40 ns straight, 80 ns turning
//     to another dimension), traced through the direction-order tables;
//   - Figure 8: per-processor global bandwidth against system size: twice
//     the bisection bandwidth divided by the nodes, and no more than the
//     processor port carries when (N-1)/N of the packets cross it.
// The figures' plotted values are not in our copy of the text; what the
// text states (Table 4, the 153.6 GB/s bisection from 512 nodes up, where
// the port or the links are the bottleneck) is kept here and compared.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fabemu {

struct T3eTable4Row {
  std::string type;        // kT3ePacketTypes name
  std::string paper_name;  // the paper's row
  uint32_t request_flits = 0, response_flits = 0, payload_words = 0;
  double one_way_mbps = 0, symmetrical_mbps = 0;
  double one_way_efficiency = 0, symmetrical_efficiency = 0;
  double paper_one_way_mbps = 0, paper_symmetrical_mbps = 0;
};

struct T3eSizeRow {
  int nodes = 0;
  std::array<int, 3> dims{0, 0, 0};
  // Figure 7.
  double avg_hops = 0;
  double avg_round_trip_ns = 0, max_round_trip_ns = 0;
  // Figure 8.
  int64_t bisection_links = 0;    // one direction
  double bisection_gbps = 0;      // GB/s, both directions (the paper's 153.6)
  double network_limit_mbps = 0;  // 2 x bisection / nodes
  double port_limit_mbps = 0;     // the port's peak / ((N-1)/N)
  double per_processor_mbps = 0;  // the smaller
  std::string bottleneck;         // "port", "links" or "both" (within 1%)
};

struct T3eFigures {
  double link_peak_mbps = 0;  // one word per flit time
  double flit_ns = 0;
  std::vector<T3eTable4Row> table4;
  std::vector<T3eSizeRow> sizes;
};

// The T3E sizes the analysis takes: powers of two from 8 to 2048 nodes,
// X and Z at most 8 and Y up to 32, as the machine was packaged (8: 2x2x2,
// 64: 4x4x4, 512: 8x8x8, 1024: 8x16x8, 2048: 8x32x8).
std::vector<std::array<int, 3>> t3e_sizes();

// Table 4 from the t3e profile's link and Table 3 (exact, instant).
std::vector<T3eTable4Row> t3e_table4(double link_peak_mbps);

// Everything above, for `dims` (empty: t3e_sizes()).
T3eFigures run_t3e_figures(const std::vector<std::array<int, 3>>& dims);

// What the text gives: the bisection bandwidth from 512 nodes up (GB/s,
// both directions) and Table 4.
inline constexpr double kT3ePaperMaxBisectionGbps = 153.6;
inline constexpr double kT3ePaperLinkPeakMbps = 600;

}  // namespace fabemu
