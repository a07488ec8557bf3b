// BlackWidow's forward-progress timer (section 7.7) on the sending end of
// each router output, and the fault that trips it, an endpoint that stops
// accepting (a stopped sink).
//
// "The sender-side of each YARC port maintains a forward progress countdown
// timer for each virtual channel ... A forward progress timeout may happen if
// the attached BlackWidow processor stops accepting requests causing the
// network to back pressure into the routers. ... The router will begin
// discarding packets that are destined to port which incurred the timeout."
//
// Each worker looks at its outputs' VCs 16 times per period
// (router.forward_progress_ns; one event, and no cost per packet beyond
// noting when one leaves, SenderVc::last_sent): a VC whose packets have
// waited a whole period without one leaving times out. Its port is reported
// (JSON forward_progress_timeouts) and grants what is bound for it without
// credits, discarding it (DropReason::forward_progress, OutLink::
// progress_timeout), until credits come back (what is beyond it accepts
// again).
//
// ForwardProgressTimer owns the state of one worker's outputs and the
// behaviour; the rest of the run it reaches through a host H given to each
// call (ProgressTimerHost below; the engine's is Engine::LinkHop): every
// call inlines, nothing virtual.
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <utility>
#include <vector>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_event.h"
#include "dataplane/sim/event.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The services of the run the timer uses, for one worker.
template <class H>
concept ProgressTimerHost = requires(H& h, const H& ch, const Event& ev, uint32_t o, uint32_t v,
                                     uint32_t units, ps_t t, rte_mbuf* m) {
  { ch.now() } -> std::same_as<ps_t>;
  h.schedule(ev);                                   // the next look, at ev.t
  { H::kind(LinkEvent::progress_check) } -> std::same_as<EventKind>;  // its number in this run
  { h.out(o) } -> std::same_as<OutLink&>;           // output o's link
  { h.link_stats(o) } -> std::same_as<LinkStats&>;  // link o's counters
  { h.vcs(o) } -> std::same_as<const SenderVc*>;    // output o's VCs (when one last sent)
  { h.waiting_vcs(o) } -> std::same_as<uint32_t>;   // VCs a packet asks output o for (a bit each)
  h.wake_requesters(o);                       // output o's requesters go (then discarded)
  h.finish_eject(o, m, t, t);                 // m reaches the endpoint beyond o (sent at, for)
  h.credits(o, v, units, t, t);               // credits for o's VC v (first at, then every)
};

class ForwardProgressTimer {
 public:
  static constexpr ps_t kChecks = 16;  // looks per timer period

  // For `outputs` outputs of nv VCs; period: router.forward_progress_ns in
  // ps (0: no timer, only stopped sinks). Schedules the first look.
  template <class H>
  void init(H& h, size_t outputs, uint32_t nv, ps_t period) {
    nv_ = nv;
    period_ = period;
    sink_stopped_.assign(outputs, 0);
    if (!period) return;
    waiting_since_.assign(outputs * nv, kNever);
    h.schedule(event_at(period / kChecks, H::kind(LinkEvent::progress_check), 0));
  }

  template <class H>
  void check(H& h);  // the progress_check event

  // The endpoint beyond output o has stopped accepting: what it is sent
  // waits in its receive buffer (hold), whose credits do not come back.
  bool sink_stopped(uint32_t o) const { return sink_stopped_[o]; }
  void hold(uint32_t o, rte_mbuf* m) { held_.push_back({o, m}); }
  template <class H>
  void set_sink(H& h, uint32_t o, bool stopped);

  // Buffers the stopped sinks hold (end of run).
  template <class F>
  void for_each_held(F&& f) {
    for (const auto& held : held_) f(held.second);
  }

 private:
  // [output * nv + vc] since when its packets wait (kNever: none wait)
  std::vector<ps_t> waiting_since_;
  std::vector<uint8_t> sink_stopped_;              // [output]
  std::vector<std::pair<uint32_t, rte_mbuf*>> held_;  // (output, packet) a stopped sink received
  uint32_t nv_ = 1;
  ps_t period_ = 0;
};

template <class H>
void ForwardProgressTimer::check(H& h) {
  const ps_t now = h.now(), period = period_;
  for (uint32_t o = 0; o < sink_stopped_.size(); o++) {
    OutLink& ol = h.out(o);
    const uint32_t waiting = h.waiting_vcs(o);
    for (uint32_t v = 0; v < nv_; v++) {
      const size_t s = size_t(o) * nv_ + v;
      ps_t& since = waiting_since_[s];
      if (!((waiting >> v) & 1)) {
        since = kNever;
        continue;
      }
      if (since == kNever) since = now;  // seen waiting first now
      const ps_t moved = std::max(since, h.vcs(o)[v].last_sent);
      if (ol.progress_timeout || now - moved < period) continue;
      ol.progress_timeout = true;
      LinkStats& ls = h.link_stats(ol.stats);
      ls.progress_timeouts++;
      ls.first_progress_timeout = std::min(ls.first_progress_timeout, now);
      ls.progress_timeout_vcs |= 1u << v;
      h.wake_requesters(o);  // they go, discarded
    }
  }
  // Looks again while anything may still move (the drain ends the run).
  // Often enough (a sixteenth of the period) that the VC that stopped first
  // times out first: its port's discards let the VCs behind it move again
  // before their own timers run out, as the hardware's countdowns would.
  h.schedule(event_at(now + std::max<ps_t>(1, period / kChecks), H::kind(LinkEvent::progress_check), 0));
}

// The endpoint beyond output o stops accepting, or accepts again: what
// waited reaches it now and its credits stream back, one stream per VC.
template <class H>
void ForwardProgressTimer::set_sink(H& h, uint32_t o, bool stopped) {
  if (sink_stopped_[o] == uint8_t(stopped)) return;
  sink_stopped_[o] = stopped;
  if (stopped) return;
  const OutLink& ol = h.out(o);
  const ps_t now = h.now();
  uint32_t units[kMaxVcs] = {};
  size_t kept = 0;
  for (const auto& held : held_) {
    if (held.first != o) {
      held_[kept++] = held;
      continue;
    }
    const PacketMeta* pm = meta(held.second);
    units[pm->vc] += pm->units;
    h.finish_eject(o, held.second, now, ol.serialize(pm->units));
  }
  held_.resize(kept);
  for (uint32_t v = 0; v < nv_; v++)
    if (units[v])
      h.credits(o, v, units[v], now + ol.wire_ps + ol.unit_ps + ol.wire_ps, ol.unit_ps);
}

}  // namespace fabemu
