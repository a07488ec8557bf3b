// Engine<R, Link>, continued: the lanes of router-to-router links
// (dataplane/link/lanes.h). A link direction runs on its live lanes; its
// unit time follows its width. Lanes go out of service by a fault (`link=
// rR:pP lane=L down`) or, with link.lane_degrade, when the retries
// attributed to them pass link.lane_retry_threshold within
// link.lane_retry_window_ns (BlackWidow §7.7: 3 lanes, then 2, then 1);
// they come back by a fault (`lane=L up`), and lanes dropped for retries
// when the link comes back up (`link ... up`, `router=R up`).
//
// The sender of a link owns its lanes. What the far end must know travels
// as a link-control message in order with the packets the link carries
// (on the same core: at once; across cores: in the ring, taken in order at
// the next window edge): the new unit time for the far input; "down" when
// the last lane died (the far end drops its input and its own output and
// answers "down", so the link dies both ways as BlackWidow's deasserted
// link-active signal makes it); "up" when a lane brings it back. The
// sender's timing is exact (the packet on the link keeps its time, the
// next takes the new one); the far end takes what arrives after the
// message at the new rate, so a packet still arriving then has its tail
// reckoned at it (for cut-through onto a faster link and the excise check
// of a damaged copy). The same channel carries the go-back-N receiver's
// "skip" when the sender gives up on a packet at link.retry_limit
// (dataplane/link/link_retry.h).
//
// A link that dies of its lanes is dead as a fault would make it (what is
// granted to it is discarded, what was on it lost, each counted), but the
// routing tables are not reprogrammed around it: that is the control
// plane's part (BlackWidow: an interrupt to the maintenance controller),
// and only scheduled faults reach it. Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
void Engine<R, L>::setup_lanes(Worker& w) {
  if (!lanes_) return;
  w.lanes.init(w.out.size(), f_.lanes);
  for (uint32_t o = 0; o < w.out.size(); o++) {
    const OutLink& ol = w.out[o];
    if (ol.peer_router < 0 || ol.unit_ps == 0) continue;
    LinkLanes& ll = w.lanes.link(o);
    ll.lanes = static_cast<uint16_t>(f_.lanes);
    ll.full_unit_ps = ol.unit_ps;
    LinkStats& ls = w.st.links[ol.stats];
    ls.lanes = ls.width = ls.lowest_width = ll.lanes;
    ls.unit_ps = ol.unit_ps;
  }
}

// A transmission of `bits` checked bits on output o had the n bit errors
// at pos of its link's rate: each noisy live lane adds its own over the
// bits that cross it, and the lanes hit are kept for the time-out they
// cause. Returns the count. (Out of line: LinkRetry::draw_errors pays a branch.)
template <class R, class L>
[[gnu::noinline]] uint32_t Engine<R, L>::lane_errors(Worker& w, uint32_t o, uint32_t bits,
                                                     uint32_t* pos, uint32_t n) {
  if (w.lane_noise) n = w.lanes.add_noise(o, bits, pos, n, kMaxBitErrorsKept);
  if (n) w.lanes.link(o).blame = w.lanes.link(o).lanes_of(pos, n);
  return n;
}

// A lane fault on the link leaving router f.router's port f.port (applied
// by the worker that owns the router; FaultState gives one per direction).
template <class R, class L>
void Engine<R, L>::apply_lane_fault(Worker& w, const EngineFault& f) {
  const uint32_t o = router_local_[f.router] * max_ports_ + uint32_t(f.port);
  LinkLanes& ll = w.lanes.link(o);
  if (!ll.lanes || f.lane < 0 || uint32_t(f.lane) >= ll.lanes) return;
  const uint32_t k = uint32_t(f.lane);
  const uint64_t bit = uint64_t{1} << k;
  if (f.op == EngineFault::Op::lane_ber) {
    if (lcb_ && w.retry.sender(o).enabled())
      w.lane_noise = w.lanes.set_noise(
          o, k, f.ber, w.retry.fresh_seed(),
          0x4C414E0000000000ull + (uint64_t(f.router) * max_ports_ + uint32_t(f.port)) * kMaxLanes +
              k);
    return;
  }
  const bool down = f.op == EngineFault::Op::lane_down;
  const uint64_t was = ll.alive();
  if (down) {
    ll.fault_down |= bit;
  } else {
    ll.fault_down &= ~bit;
    ll.dropped &= ~bit;  // serviced: back, its retries forgotten
    w.lanes.forget_retries(o, bit);
  }
  if (ll.alive() != was) lane_changed(w, o, k, down ? LaneCause::fault_down : LaneCause::fault_up);
  // Back from dying of its lanes, unless a fault keeps the link down (it
  // comes back with that fault's end).
  if (!down && ll.lane_dead && ll.width() > 0 && f.link_alive) {
    ll.lane_dead = false;
    if (w.out[o].dead) {
      set_output_dead(w, o, false);
      link_control(w, o, LinkControl::up);
    }
  }
}

// The link of output o came back up (a fault's end): lanes dropped for
// retries are tried again.
template <class R, class L>
void Engine<R, L>::retrain_lanes(Worker& w, uint32_t o) {
  LinkLanes& ll = w.lanes.link(o);
  if (!ll.lanes) return;
  ll.lane_dead = false;
  for (uint64_t m = ll.dropped & ~ll.fault_down; m; m &= m - 1) {
    const uint32_t k = static_cast<uint32_t>(__builtin_ctzll(m));
    ll.dropped &= ~(uint64_t{1} << k);
    lane_changed(w, o, k, LaneCause::retrained);
  }
  w.lanes.forget_retries(o, all_lanes(ll.lanes));
}

// Output o timed out on a transmission its lanes `blame` damaged: their
// retry counts grow, and with link.lane_degrade a lane over the threshold
// is dropped. False when the link died of it (nothing to send again).
template <class R, class L>
bool Engine<R, L>::lanes_after_timeout(Worker& w, uint32_t o) {
  LinkLanes& ll = w.lanes.link(o);
  const uint64_t blame = ll.blame;
  ll.blame = 0;
  if (!blame || !cfg_.retry.lane_degrade) return true;
  const uint64_t over =
      w.lanes.note_retry(o, blame, w.now, cfg_.retry.lane_threshold, cfg_.retry.lane_window_ps);
  for (uint64_t m = over; m; m &= m - 1) {
    const uint32_t k = static_cast<uint32_t>(__builtin_ctzll(m));
    ll.dropped |= uint64_t{1} << k;
    w.lanes_dropped++;
    lane_changed(w, o, k, LaneCause::retries);
  }
  return !w.out[o].dead;
}

// Lane k of output o went out of service or came back (ll already says
// which): the link's unit time follows its width from the next packet on
// (the one on the link keeps its time); the far input is told. No lane
// left: the link dies, unless every lane is down by faults (the fault plan
// kills the link then, and reprograms the tables).
template <class R, class L>
void Engine<R, L>::lane_changed(Worker& w, uint32_t o, uint32_t k, LaneCause why) {
  LinkLanes& ll = w.lanes.link(o);
  OutLink& ol = w.out[o];
  const uint32_t width = ll.width();
  LinkStats& ls = w.st.links[ol.stats];
  ls.width = static_cast<uint16_t>(width);
  ls.lowest_width = std::min<uint16_t>(ls.lowest_width, static_cast<uint16_t>(width));
  ls.lane_log.push_back({w.now, static_cast<uint16_t>(k), static_cast<uint16_t>(width), why});
  if (width == 0) {
    if (ll.all_faulted() || ll.lane_dead) return;
    ll.lane_dead = true;  // dies of its lanes: BlackWidow deasserts link active
    if (!ol.dead) {
      set_output_dead(w, o, true);
      link_control(w, o, LinkControl::down);
    }
    return;
  }
  const ps_t unit = ll.unit_ps();
  if (unit == ol.unit_ps) return;
  ol.unit_ps = unit;
  ls.unit_ps = unit;
  if (lcb_ && !cfg_.retry.timeout_ps && w.retry.sender(o).enabled())  // the time-out chosen per link
    w.retry.sender(o).set_timeout(2 * ol.wire_ps + 2 * ol.serialize(cfg_.format.max_units));
  w.router.set_link_units(o, w.in[o].unit_ps, unit);
  link_control(w, o, LinkControl::width, 0, 0, unit);
}

// Tells the far end of output o's link (its input, numbered like outputs
// on its worker) something, in order with what the link carried before.
template <class R, class L>
void Engine<R, L>::link_control(Worker& w, uint32_t o, LinkControl op, uint8_t vc, uint16_t seq,
                                ps_t unit) {
  const OutLink& ol = w.out[o];
  Event ev = event_at(w.now + ol.wire_ps, event_kind(LinkEvent::control), ol.peer_channel0 / nv_);
  ev.unit_ps = unit;
  ev.port = static_cast<uint16_t>(op);
  ev.vc = vc;
  ev.amount = seq;
  if (ol.remote)
    send_remote(w, ev, ol.peer_worker);
  else
    on_link_control(w, ev);
}

// The far end's side: input i (numbered like outputs) hears from its sender.
template <class R, class L>
void Engine<R, L>::on_link_control(Worker& w, const Event& ev) {
  const uint32_t i = ev.a;
  switch (static_cast<LinkControl>(ev.port)) {
    case LinkControl::width: {
      InLink& in = w.in[i];
      in.unit_ps = ev.unit_ps;
      w.mixed_rates = true;  // an input slower than its router's outputs: finish_route minds it
      w.router.set_link_units(i, ev.unit_ps, w.out[i].unit_ps);
      break;
    }
    case LinkControl::down:
      // The link died of its lanes at the far end: this end drops its input
      // and its own sending side, and says so in turn.
      if (!w.in[i].dead) set_input_dead(w, i, true);
      if (lanes_) w.lanes.link(i).lane_dead = true;
      if (!w.out[i].dead) {
        set_output_dead(w, i, true);
        link_control(w, i, LinkControl::down);
      }
      break;
    case LinkControl::up:
      if (w.in[i].dead) set_input_dead(w, i, false);
      break;
    case LinkControl::skip: {
      LinkHop link{{*this, w}};
      w.retry.skip(link, i, ev.vc, static_cast<LinkSeq>(ev.amount));
      break;
    }
  }
}

}  // namespace fabemu
