// The lanes of a worker's router-to-router links and what changes them
// (the data types: lanes.h). A link direction runs on its live lanes; its
// unit time follows its width. Lanes go out of service by a fault (`link=
// rR:pP lane=L down`) or, with link.lane_degrade, when the retries
// attributed to them pass link.lane_retry_threshold within
// link.lane_retry_window_ns (BlackWidow §7.7: 3 lanes, then 2, then 1);
// they come back by a fault (`lane=L up`), and lanes dropped for retries
// when the link comes back up (`link ... up`, `router=R up`).
//
// The sender of a link owns its lanes. What the far end must know travels
// as a link-control message in order with the packets the link carries
// (the host's send_control: on the same core at once; across cores in the
// ring, taken in order at the next window edge): the new unit time for the
// far input; "down" when the last lane died (the far end drops its input
// and its own output and answers "down", so the link dies both ways as
// BlackWidow's deasserted link-active signal makes it); "up" when a lane
// brings it back. The sender's timing is exact (the packet on the link
// keeps its time, the next takes the new one); the far end takes what
// arrives after the message at the new rate, so a packet still arriving
// then has its tail reckoned at it (for cut-through onto a faster link and
// the excise check of a damaged copy). The same messages carry the
// go-back-N receiver's "skip" when the sender gives up on a packet at
// link.retry_limit (link_retry.h); on_control hands it over.
//
// A link that dies of its lanes is dead as a fault would make it (what is
// granted to it is discarded, what was on it lost, each counted), but the
// routing tables are not reprogrammed around it: that is the control
// plane's part (BlackWidow: an interrupt to the maintenance controller),
// and only scheduled faults reach it.
//
// LaneControl owns the lanes of one worker's outputs and the behaviour; the
// rest of the run it reaches through a host H given to each call
// (LaneControlHost below; the engine's is Engine::LinkHop, which serves
// link_retry.h too): every call inlines, nothing virtual.
#pragma once
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <vector>

#include "dataplane/link/lanes.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_retry.h"
#include "dataplane/link/retry_config.h"
#include "dataplane/sim/event.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The services of the run the lanes use, for one worker (beyond those of
// link-level retry, whose receiver a "skip" reaches).
template <class H>
concept LaneControlHost =
    LinkRetryHost<H> && requires(H& h, uint32_t i, bool down, ps_t t, LinkControl op, uint8_t vc,
                                 uint16_t seq) {
      { h.in(i) } -> std::same_as<InLink&>;  // the link into input i (its unit time changes)
      h.set_output_dead(i, down);            // output i's link dies or comes back
      h.set_input_dead(i, down);             // input i's
      h.set_link_units(i, t, t);             // the router model: input i's, output i's unit time
      h.note_mixed_rates();                  // some input is now slower than an output
      { h.retry() } -> std::same_as<LinkRetry*>;  // link-level retry (nullptr: off)
      h.send_control(i, op, vc, seq, t);     // to output i's far end, in order with its packets
    };

// A lane fault on one output (the sender's direction of its link).
struct LaneFault {
  enum class Op : uint8_t { down, up, ber };
  Op op = Op::down;
  int32_t lane = -1;
  double ber = 0;        // Op::ber: the lane's bit error rate from now (0: quiet again)
  uint64_t streams = 0;  // Op::ber: the random stream of the link's lane 0 (lane k's: + k)
  bool link_alive = true;  // Op::up: the faults leave the link up (FabricFault::link_alive)
};

class LaneControl {
 public:
  // Sets up the lanes (`lanes` each) of every router-to-router output of
  // out; cfg: lane degrade and the retry time-out; max_units: the longest
  // packet (a per-link time-out follows the link's width).
  template <class H>
  void init(H& h, size_t outputs, uint32_t lanes, const LinkRetryConfig& cfg, uint32_t max_units) {
    cfg_ = &cfg;
    max_units_ = max_units;
    table_.init(outputs, lanes);
    for (uint32_t o = 0; o < outputs; o++) {
      const OutLink& ol = h.out(o);
      if (ol.peer_router < 0 || ol.unit_ps == 0) continue;
      LinkLanes& ll = table_.link(o);
      ll.lanes = static_cast<uint16_t>(lanes);
      ll.lower_half = cfg.lanes_lower_half;
      ll.full_unit_ps = ol.unit_ps;
      LinkStats& ls = h.link_stats(ol.stats);
      ls.lanes = ls.width = ls.lowest_width = ll.lanes;
      ls.unit_ps = ol.unit_ps;
    }
  }
  bool enabled() const { return table_.enabled(); }
  // Lanes dropped for their retries so far (the progress line).
  uint64_t dropped() const { return dropped_; }

  // A transmission of `bits` checked bits on output o had the n bit errors
  // at pos of its link's rate: each noisy live lane adds its own over the
  // bits that cross it, and the lanes hit are kept for the time-out they
  // cause. Returns the count. (Out of line: LinkRetry::draw_errors pays a
  // branch.)
  [[gnu::noinline]] uint32_t errors(uint32_t o, uint32_t bits, uint32_t* pos, uint32_t n) {
    if (noise_) n = table_.add_noise(o, bits, pos, n, LinkRetry::kMaxBitErrorsKept);
    if (n) table_.link(o).blame = table_.link(o).lanes_of(pos, n);
    return n;
  }

  template <class H>
  void apply_fault(H& h, uint32_t o, const LaneFault& f);
  template <class H>
  void retrain(H& h, uint32_t o);
  template <class H>
  bool after_timeout(H& h, uint32_t o);
  template <class H>
  void on_control(H& h, const Event& ev);

 private:
  template <class H>
  void changed(H& h, uint32_t o, uint32_t k, LaneCause why);

  LaneTable table_;
  bool noise_ = false;  // some lane errs on its own
  uint64_t dropped_ = 0;
  const LinkRetryConfig* cfg_ = nullptr;
  uint32_t max_units_ = 0;
};

// A lane fault on output o's link (applied by the worker that owns its
// router; FaultState gives one per direction).
template <class H>
void LaneControl::apply_fault(H& h, uint32_t o, const LaneFault& f) {
  LinkLanes& ll = table_.link(o);
  if (!ll.lanes || f.lane < 0 || uint32_t(f.lane) >= ll.lanes) return;
  const uint32_t k = uint32_t(f.lane);
  const uint64_t bit = uint64_t{1} << k;
  if (f.op == LaneFault::Op::ber) {
    LinkRetry* retry = h.retry();
    if (retry && retry->sender(o).enabled())
      noise_ = table_.set_noise(o, k, f.ber, retry->fresh_seed(), f.streams + k);
    return;
  }
  const bool down = f.op == LaneFault::Op::down;
  const uint64_t was = ll.alive();
  if (down) {
    ll.fault_down |= bit;
  } else {
    ll.fault_down &= ~bit;
    ll.dropped &= ~bit;  // serviced: back, its retries forgotten
    table_.forget_retries(o, bit);
  }
  if (ll.alive() != was) changed(h, o, k, down ? LaneCause::fault_down : LaneCause::fault_up);
  // Back from dying of its lanes, unless a fault keeps the link down (it
  // comes back with that fault's end).
  if (!down && ll.lane_dead && ll.width() > 0 && f.link_alive) {
    ll.lane_dead = false;
    if (h.out(o).dead) {
      h.set_output_dead(o, false);
      h.send_control(o, LinkControl::up, 0, 0, 0);
    }
  }
}

// Output o's link came back up (a fault's end): lanes dropped for retries
// are tried again.
template <class H>
void LaneControl::retrain(H& h, uint32_t o) {
  LinkLanes& ll = table_.link(o);
  if (!ll.lanes) return;
  ll.lane_dead = false;
  for (uint64_t m = ll.dropped & ~ll.fault_down; m; m &= m - 1) {
    const uint32_t k = static_cast<uint32_t>(__builtin_ctzll(m));
    ll.dropped &= ~(uint64_t{1} << k);
    changed(h, o, k, LaneCause::retrained);
  }
  table_.forget_retries(o, all_lanes(ll.lanes));
}

// Output o timed out on a transmission its lanes `blame` damaged: their
// retry counts grow, and with link.lane_degrade a lane over the threshold
// is dropped. False when the link died of it (nothing to send again).
template <class H>
bool LaneControl::after_timeout(H& h, uint32_t o) {
  LinkLanes& ll = table_.link(o);
  const uint64_t blame = ll.blame;
  ll.blame = 0;
  if (!blame || !cfg_->lane_degrade) return true;
  const uint64_t over =
      table_.note_retry(o, blame, h.now(), cfg_->lane_threshold, cfg_->lane_window_ps);
  for (uint64_t m = over; m; m &= m - 1) {
    const uint32_t k = static_cast<uint32_t>(__builtin_ctzll(m));
    ll.dropped |= uint64_t{1} << k;
    dropped_++;
    changed(h, o, k, LaneCause::retries);
  }
  return !h.out(o).dead;
}

// Lane k of output o went out of service or came back (its LinkLanes
// already says which): the link's unit time follows its width from the
// next packet on (the one on the link keeps its time); the far input is
// told. No lane left: the link dies, unless every lane is down by faults
// (the fault plan kills the link then, and reprograms the tables).
template <class H>
void LaneControl::changed(H& h, uint32_t o, uint32_t k, LaneCause why) {
  LinkLanes& ll = table_.link(o);
  OutLink& ol = h.out(o);
  const uint32_t width = ll.width();
  LinkStats& ls = h.link_stats(ol.stats);
  ls.width = static_cast<uint16_t>(width);
  ls.lowest_width = std::min<uint16_t>(ls.lowest_width, static_cast<uint16_t>(width));
  ls.lane_log.push_back({h.now(), static_cast<uint16_t>(k), static_cast<uint16_t>(width), why});
  if (width == 0) {
    if (ll.all_faulted() || ll.lane_dead) return;
    ll.lane_dead = true;  // dies of its lanes: BlackWidow deasserts link active
    if (!ol.dead) {
      h.set_output_dead(o, true);
      h.send_control(o, LinkControl::down, 0, 0, 0);
    }
    return;
  }
  const ps_t unit = ll.unit_ps();
  if (unit == ol.unit_ps) return;
  ol.unit_ps = unit;
  ls.unit_ps = unit;
  LinkRetry* retry = h.retry();
  if (retry && !cfg_->timeout_ps && retry->sender(o).enabled())  // the time-out chosen per link
    retry->sender(o).set_timeout(2 * ol.wire_ps + 2 * ol.serialize(max_units_));
  h.set_link_units(o, h.in(o).unit_ps, unit);
  h.send_control(o, LinkControl::width, 0, 0, unit);
}

// The far end's side: input ev.a (numbered like outputs) hears from its
// sender (send_control, link_channel.h).
template <class H>
void LaneControl::on_control(H& h, const Event& ev) {
  const uint32_t i = ev.a;
  switch (static_cast<LinkControl>(ev.port)) {
    case LinkControl::width: {
      h.in(i).unit_ps = ev.unit_ps;
      h.note_mixed_rates();  // an input slower than its router's outputs: the route minds it
      h.set_link_units(i, ev.unit_ps, h.out(i).unit_ps);
      break;
    }
    case LinkControl::down:
      // The link died of its lanes at the far end: this end drops its input
      // and its own sending side, and says so in turn.
      if (!h.in(i).dead) h.set_input_dead(i, true);
      if (enabled()) table_.link(i).lane_dead = true;
      if (!h.out(i).dead) {
        h.set_output_dead(i, true);
        h.send_control(i, LinkControl::down, 0, 0, 0);
      }
      break;
    case LinkControl::up:
      if (h.in(i).dead) h.set_input_dead(i, false);
      break;
    case LinkControl::skip:
      h.retry()->skip(h, i, ev.vc, static_cast<LinkSeq>(ev.amount));
      break;
  }
}

}  // namespace fabemu
