// Engine<R, Link>, continued: BlackWidow's forward-progress timer (section
// 7.7) and the fault that trips it, an endpoint that stops accepting.
//
// "The sender-side of each YARC port maintains a forward progress countdown
// timer for each virtual channel ... A forward progress timeout may happen if
// the attached BlackWidow processor stops accepting requests causing the
// network to back pressure into the routers. ... The router will begin
// discarding packets that are destined to port which incurred the timeout."
//
// Each worker looks at its outputs' VCs 16 times per period
// (router.forward_progress_ns; one event, and no cost per packet beyond
// noting when one leaves): a VC whose packets have waited a whole period
// without one leaving times out. Its port is reported (JSON
// forward_progress_timeouts) and grants what is bound for it without
// credits, discarding it (DropReason::forward_progress), until credits come
// back (what is beyond it accepts again). Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
void Engine<R, L>::check_progress(Worker& w) {
  const ps_t now = w.now, period = cfg_.forward_progress_ps;
  Router& rt = w.router;
  for (uint32_t o = 0; o < w.out.size(); o++) {
    OutLink& ol = w.out[o];
    // The VCs a packet asks this output for (the arbiter's requesters; none
    // is granted here, and the round-robin pointer stays where it was).
    uint32_t waiting = 0;
    if (rt.requests(o)) {
      const uint32_t ch0 = (o - o % max_ports_) * nv_;
      rt.arbitrate(o, [&](uint32_t i) {
        const uint32_t c = ch0 + rt.requester_port(i) * nv_ + rt.requester_vc(i);
        waiting |= 1u << rt.offered(o, i, c).out_vc;
        return false;
      });
    }
    for (uint32_t v = 0; v < nv_; v++) {
      const size_t s = size_t(o) * nv_ + v;
      ps_t& since = w.waiting_since[s];
      if (!((waiting >> v) & 1)) {
        since = kNever;
        continue;
      }
      if (since == kNever) since = now;  // seen waiting first now
      const ps_t moved = std::max(since, w.vcs[s].last_sent);
      if (ol.progress_timeout || now - moved < period) continue;
      ol.progress_timeout = true;
      LinkStats& ls = w.st.links[ol.stats];
      ls.progress_timeouts++;
      ls.first_progress_timeout = std::min(ls.first_progress_timeout, now);
      ls.progress_timeout_vcs |= 1u << v;
      if (w.router.requests(o)) arm_wake(w, o, now);  // its requesters go, discarded
    }
  }
  // Looks again while anything may still move (the drain ends the run).
  // Often enough (a sixteenth of the period) that the VC that stopped first
  // times out first: its port's discards let the VCs behind it move again
  // before their own timers run out, as the hardware's countdowns would.
  w.wheel.push(event_at(now + std::max<ps_t>(1, period / kProgressChecks),
                        event_kind(LinkEvent::progress_check), 0));
}

// The endpoint beyond output o stops accepting (what it is sent waits in its
// receive buffer, whose credits do not come back), or accepts again: what
// waited reaches it now and its credits stream back, one stream per VC.
template <class R, class L>
void Engine<R, L>::set_sink(Worker& w, uint32_t o, bool stopped) {
  if (w.sink_stopped[o] == uint8_t(stopped)) return;
  w.sink_stopped[o] = stopped;
  if (stopped) return;
  const OutLink& ol = w.out[o];
  uint32_t units[kMaxVcs] = {};
  size_t kept = 0;
  for (const auto& held : w.sink_held) {
    if (held.first != o) {
      w.sink_held[kept++] = held;
      continue;
    }
    const PacketMeta* pm = meta(held.second);
    units[pm->vc] += pm->units;
    finish_eject(w, ol, held.second, w.now, ol.serialize(pm->units));
  }
  w.sink_held.resize(kept);
  for (uint32_t v = 0; v < nv_; v++)
    if (units[v])
      add_credit_stream(w, o, v, units[v], w.now + ol.wire_ps + ol.unit_ps + ol.wire_ps,
                        ol.unit_ps);
}

}  // namespace fabemu
