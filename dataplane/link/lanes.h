// The lanes of one direction of a router-to-router link: a YARC port is 3
// SerDes lanes each way (BlackWidow ISCA 2006 §4.4); its link control block
// counts retries per lane and decommissions a lane whose count passes a
// threshold, running 2 and then 1 lane wide, and deasserts the link when
// no lane is left (§7.7). Spider's LLP likewise falls back from 20 to 10
// bits at half bandwidth (IEEE Micro 1997, "LLP").
//
// Which bits cross which lane: the bits under the CRC, in order, are striped
// one at a time over the lanes in use, lowest-numbered first: checked bit i
// crosses the (i mod width)-th live lane. (A T3E flit's 70 bits on its 14
// signal lanes thus put bit j of each 14-bit phit on lane j.)
//
// Timing: a link's unit time at width w of its L lanes is its full-width
// unit time x L / w, rounded to the picosecond, so that the full width keeps
// exactly the time link_timing.cpp gives it and one lane of three takes
// exactly three times as long.
//
// All of this is the cold side of a link: touched when a fault changes a
// lane, when a damaged transmission is drawn, and at a time-out; never on a
// healthy packet's way.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/link/go_back_n.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// Lane masks are 64 bits: lane faults and lane degrade are modelled on
// links of at most this many lanes (the spec checks).
inline constexpr uint32_t kMaxLanes = 64;

inline uint64_t all_lanes(uint32_t lanes) {
  return lanes >= kMaxLanes ? ~uint64_t{0} : (uint64_t{1} << lanes) - 1;
}
inline uint32_t lane_count(uint64_t mask) {
  return static_cast<uint32_t>(__builtin_popcountll(mask));
}
// The n-th (from 0) lane of mask (n < lane_count(mask)).
inline uint32_t nth_lane(uint64_t mask, uint32_t n) {
  for (; n; n--) mask &= mask - 1;
  return static_cast<uint32_t>(__builtin_ctzll(mask));
}
// The place of lane k among the lanes of mask (k in mask).
inline uint32_t lane_rank(uint64_t mask, uint32_t k) {
  return lane_count(mask & ((uint64_t{1} << k) - 1));
}
// The lanes a link runs on when `out` of its `lanes` are out of service.
// Any live lanes (BlackWidow: 3, 2, then 1), or with lower_half the full
// width, else the lower half, else none: Spider's LLP negotiates a port
// damaged in its upper 10 bits down to the lower 10 at half bandwidth, and
// cannot run on a damaged lower half (IEEE Micro 1997, "Data link layer").
inline uint64_t usable_lanes(uint32_t lanes, uint64_t out, bool lower_half) {
  const uint64_t all = all_lanes(lanes), live = all & ~out;
  if (!lower_half || live == all) return live;
  const uint64_t lower = all_lanes(lanes / 2);
  return (live & lower) == lower ? lower : 0;
}
// The unit time at `width` of `lanes` lanes whose full width takes full_ps.
inline ps_t unit_at_width(ps_t full_ps, uint32_t lanes, uint32_t width) {
  return width == 0 || width >= lanes ? full_ps : (full_ps * lanes + width / 2) / width;
}

// Why a lane went out of service or came back (the report's lane log).
enum class LaneCause : uint8_t {
  retries,     // dropped: its retries passed link.lane_retry_threshold
  fault_down,  // a fault took it down
  fault_up,    // a fault brought it back
  retrained,   // the link came back up (a fault): lanes dropped for retries are tried again
};
inline const char* lane_cause_name(LaneCause c) {
  switch (c) {
    case LaneCause::retries:
      return "retries";
    case LaneCause::fault_down:
      return "fault_down";
    case LaneCause::fault_up:
      return "fault_up";
    case LaneCause::retrained:
      return "retrained";
  }
  return "?";
}

// One direction of one router link.
struct LinkLanes {
  uint64_t fault_down = 0;  // lanes a fault took down
  uint64_t dropped = 0;     // lanes dropped for their retries
  uint64_t noisy = 0;       // lanes with a bit error rate of their own
  uint64_t blame = 0;       // lanes the transmission awaiting its time-out damaged
  ps_t full_unit_ps = 0;    // one unit on every lane
  uint16_t lanes = 0;       // 0: not a router-to-router link
  // Every lane died of its retries (not of faults): the link is down, both
  // directions, until a lane comes back (lane_control.h).
  bool lane_dead = false;
  bool lower_half = false;  // Spider's widths: full or the lower half (usable_lanes)

  uint64_t alive() const { return usable_lanes(lanes, fault_down | dropped, lower_half); }
  uint32_t width() const { return lane_count(alive()); }
  ps_t unit_ps() const { return unit_at_width(full_unit_ps, lanes, width()); }
  // Faults alone leave it no width (the fault plan then kills the link).
  bool all_faulted() const { return usable_lanes(lanes, fault_down, lower_half) == 0; }
  // The lanes that carried checked bits pos[0..n) at the present width.
  uint64_t lanes_of(const uint32_t* pos, uint32_t n) const {
    const uint64_t live = alive();
    const uint32_t w = lane_count(live);
    uint64_t m = 0;
    for (uint32_t i = 0; w && i < n; i++) m |= uint64_t{1} << nth_lane(live, pos[i] % w);
    return m;
  }
};

// Per-lane retry counts: a lane's retries within a window of time that
// opens at the first retry after the previous window closed.
struct LaneRetries {
  ps_t since = 0;
  uint32_t count = 0;
};

// The lanes of every output of one worker (its own, as the rest of its
// state), with per-lane retry counts and, for the lanes a fault made noisy,
// their bit errors.
class LaneTable {
 public:
  void init(size_t outputs, uint32_t lanes) {
    lanes_ = lanes;
    links_.assign(outputs, LinkLanes{});
    retries_.assign(outputs * lanes, LaneRetries{});
    noise_.clear();
  }
  bool enabled() const { return !links_.empty(); }
  LinkLanes& link(uint32_t o) { return links_[o]; }
  const LinkLanes& link(uint32_t o) const { return links_[o]; }

  // Retries attributed to `mask` (live lanes of output o) at `now`: the
  // lanes whose count within `window` passes `threshold` (their counts start
  // again).
  uint64_t note_retry(uint32_t o, uint64_t mask, ps_t now, uint32_t threshold, ps_t window) {
    uint64_t over = 0;
    for (uint64_t m = mask & links_[o].alive(); m; m &= m - 1) {
      const uint32_t k = static_cast<uint32_t>(__builtin_ctzll(m));
      LaneRetries& r = retries_[size_t(o) * lanes_ + k];
      if (r.count == 0 || now - r.since >= window) r = LaneRetries{now, 0};
      if (++r.count > threshold) {
        over |= uint64_t{1} << k;
        r = LaneRetries{};
      }
    }
    return over;
  }
  void forget_retries(uint32_t o, uint64_t mask) {
    for (uint64_t m = mask; m; m &= m - 1)
      retries_[size_t(o) * lanes_ + static_cast<uint32_t>(__builtin_ctzll(m))] = LaneRetries{};
  }

  // Lane k of output o errs at `ber` from now (0: it is quiet again).
  // Returns whether any lane of the worker is still noisy.
  bool set_noise(uint32_t o, uint32_t k, double ber, uint64_t seed, uint64_t stream) {
    if (noise_.empty()) noise_.assign(links_.size() * lanes_, BitErrors{});  // the first noisy lane
    noise_[size_t(o) * lanes_ + k].init(ber, seed, stream);
    LinkLanes& l = links_[o];
    const uint64_t bit = uint64_t{1} << k;
    noisy_lanes_ -= (l.noisy & bit) ? 1 : 0;
    l.noisy = ber > 0 ? l.noisy | bit : l.noisy & ~bit;
    noisy_lanes_ += ber > 0 ? 1 : 0;
    return noisy_lanes_ > 0;
  }

  // A transmission of `bits` checked bits on output o: adds the errors of
  // its noisy live lanes to the n positions in pos (kept in increasing
  // order, at most max); returns the new count.
  uint32_t add_noise(uint32_t o, uint32_t bits, uint32_t* pos, uint32_t n, uint32_t max) {
    const LinkLanes& l = links_[o];
    const uint64_t live = l.alive();
    const uint32_t w = lane_count(live);
    for (uint64_t m = l.noisy & live; m; m &= m - 1) {
      const uint32_t k = static_cast<uint32_t>(__builtin_ctzll(m)), r = lane_rank(live, k);
      if (r >= bits) continue;
      uint32_t lane_pos[kKept];
      const uint32_t got = noise_[size_t(o) * lanes_ + k].next((bits - r + w - 1) / w, lane_pos,
                                                               max < kKept ? max : kKept);
      for (uint32_t j = 0; j < got; j++) n = insert_sorted(pos, n, max, lane_pos[j] * w + r);
    }
    return n;
  }

 private:
  static constexpr uint32_t kKept = 32;  // bad bits kept per lane and transmission
  static uint32_t insert_sorted(uint32_t* pos, uint32_t n, uint32_t max, uint32_t bit) {
    uint32_t i = n;
    while (i > 0 && pos[i - 1] > bit) i--;
    if (i > 0 && pos[i - 1] == bit) return n;  // (the same bit twice: once is enough)
    if (i >= max) return n;
    for (uint32_t j = n < max ? n : max - 1; j > i; j--) pos[j] = pos[j - 1];
    pos[i] = bit;
    return n < max ? n + 1 : n;
  }
  uint32_t lanes_ = 0;
  std::vector<LinkLanes> links_;
  std::vector<LaneRetries> retries_;
  std::vector<BitErrors> noise_;  // [output * lanes + lane], once a lane is noisy
  uint32_t noisy_lanes_ = 0;
};

}  // namespace fabemu
