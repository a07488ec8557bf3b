#include <algorithm>

#include "dataplane/stats/stats.h"

namespace fabemu {

// Values below kSub land in exact buckets; a value with its highest set bit
// at msb >= kSubBits lands in row msb - kSubBits + 1, column the kSubBits bits
// below that bit.
int LatencyHistogram::index_of(uint64_t v) {
  if (v < kSub) return static_cast<int>(v);
  const int msb = 63 - __builtin_clzll(v);
  const int sub = static_cast<int>((v >> (msb - kSubBits)) & (kSub - 1));
  const int idx = (msb - kSubBits + 1) * kSub + sub;
  return std::min(idx, kBuckets - 1);
}

uint64_t LatencyHistogram::lower_bound_of(int idx) {
  if (idx < kSub) return static_cast<uint64_t>(idx);
  const int msb = idx / kSub + kSubBits - 1;
  const uint64_t sub = static_cast<uint64_t>(idx % kSub);
  return (uint64_t{1} << msb) | (sub << (msb - kSubBits));
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  count += o.count;
  sum += o.sum;
  min = std::min(min, o.min);
  max = std::max(max, o.max);
  for (int i = 0; i < kBuckets; i++) bucket[i] += o.bucket[i];
}

uint64_t LatencyHistogram::percentile(double p) const {
  if (count == 0) return 0;
  const uint64_t rank = static_cast<uint64_t>(p / 100.0 * double(count) + 0.5);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; i++) {
    seen += bucket[i];
    if (seen >= std::max<uint64_t>(rank, 1)) {
      const uint64_t upper = i + 1 < kBuckets ? lower_bound_of(i + 1) - 1 : max;
      return std::clamp(upper, min, max);
    }
  }
  return max;
}

void LinkStats::merge(const LinkStats& o) {
  packets += o.packets;
  units += o.units;
  busy_ps += o.busy_ps;
  credit_stalls += o.credit_stalls;
  down_route_violations += o.down_route_violations;
  retry.merge(o.retry);
  went_down += o.went_down;
  down_ps += o.down_ps;
  down_at_end = down_at_end || o.down_at_end;
  down_since = std::min(down_since, o.down_since);
  progress_timeouts += o.progress_timeouts;
  first_progress_timeout = std::min(first_progress_timeout, o.first_progress_timeout);
  progress_timeout_vcs |= o.progress_timeout_vcs;
  if (o.lanes) {  // (kept by the sending worker alone)
    lanes = o.lanes;
    width = o.width;
    lowest_width = o.lowest_width;
    unit_ps = o.unit_ps;
    lane_log.insert(lane_log.end(), o.lane_log.begin(), o.lane_log.end());
  }
  for (int v = 0; v < kMaxVcs; v++) {
    vc_packets[v] += o.vc_packets[v];
    vc_units[v] += o.vc_units[v];
    vc_peak_occupancy[v] = std::max(vc_peak_occupancy[v], o.vc_peak_occupancy[v]);
  }
}

void PortStats::merge(const PortStats& o) {
  rx_frames += o.rx_frames;
  rx_bytes += o.rx_bytes;
  tx_frames += o.tx_frames;
  tx_bytes += o.tx_bytes;
  flooded += o.flooded;
  fabric_frames += o.fabric_frames;
  macs_learned += o.macs_learned;
  mac_moves += o.mac_moves;
  mac_table_full += o.mac_table_full;
  replay_sent += o.replay_sent;
  replay_unsent += o.replay_unsent;
  for (int r = 0; r < static_cast<int>(FrameDrop::count); r++) drops[r] += o.drops[r];
  frame_latency_ps.merge(o.frame_latency_ps);
  frame_lateness_ps.merge(o.frame_lateness_ps);
  frames_over_bound += o.frames_over_bound;
  frame_hops.merge(o.frame_hops);
}

const char* frame_drop_name(FrameDrop r) {
  switch (r) {
#define FABEMU_X(name, help) \
  case FrameDrop::name:      \
    return #name;
    FABEMU_FRAME_DROPS(FABEMU_X)
#undef FABEMU_X
    default:
      return "?";
  }
}

const char* frame_drop_help(FrameDrop r) {
  switch (r) {
#define FABEMU_X(name, help) \
  case FrameDrop::name:      \
    return help;
    FABEMU_FRAME_DROPS(FABEMU_X)
#undef FABEMU_X
    default:
      return "?";
  }
}

}  // namespace fabemu
