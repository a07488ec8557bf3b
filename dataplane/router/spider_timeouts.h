// The Spider router's time-outs and its losses to faults (Galles, "Spider:
// A High-Speed Network Interconnect", IEEE Micro 1997, "Error handling"),
// continuing spider.h:
//
// - deadlock time-out (router.deadlock_timeout_ns): "If a given virtual
//   channel remains full with no progress for a time-out period, the chip
//   sets a deadlock time-out bit and resets the port." Full: no room for the
//   longest message (spider.h init); progress: a message
//   leaving the buffer. The reset discards what every VC buffer of the port
//   holds, each message counted deadlock_timeout, and its credits go back to
//   the sender.
// - tail time-out (router.tail_timeout_ns): "a message remains in progress
//   over a certain virtual channel with no data flowing for a time-out
//   period": in fabemu, a message whose link died after its head came in and
//   before its tail did. Without the time-out it is lost at once
//   (lost_in_flight, as in the other models); with it, it holds its buffer
//   for the time-out, then the chip ends it ("fabricates a tail micropacket,
//   setting an error indicator"): the error-marked remnant is discarded
//   there, counted tail_timeout, as its destination would discard it.
//
// The losses (the engine's fault paths, router/input_discard.h) take a
// message from anywhere in a buffer: overloads of input_discard.h's
// functions for this model, found by argument-dependent lookup.
#pragma once
#include "dataplane/router/input_discard.h"
#include "dataplane/router/spider.h"

namespace fabemu {

// The last message to arrive in channel c is lost (its credits go back).
template <class H>
void lose_last(SpiderRouter& rt, H& h, uint32_t c, DropReason why) {
  const QEntry e = rt.lose(h, c, rt.lists().last(c));
  read_out_discarded(rt, h, c, e.units);
  h.discard(why, e.m);
}

template <class H>
void lose_arriving(SpiderRouter& rt, H& h, uint32_t i) {
  rt.lose_arriving(h, i);
}

// The first unrouted message of channel c has no route (a fault left its
// destination unreachable): discarded; the next unrouted one is routed.
template <class H>
[[gnu::noinline]] void discard_unroutable(SpiderRouter& rt, H& h, uint32_t c) {
  const QEntry e = rt.lose(h, c, rt.lists().unrouted(c));
  read_out_discarded(rt, h, c, e.units);
  h.discard(DropReason::no_route, e.m);
  if (rt.lists().unrouted(c) != SpiderLists::kNil) h.route_head(c, 0);
}

template <class H>
void SpiderRouter::lose_arriving(H& h, uint32_t i) {
  const ps_t unit = h.in(i).unit_ps, now = h.now();
  for (uint32_t v = 0; v < nv(); v++) {
    const uint32_t c = channel_of_output(i, v);
    while (len(c)) {
      SpiderLists::Slot& s = lists_.slot(c, lists_.last(c));
      if (s.e.arrive + s.e.units * unit <= now) break;  // wholly arrived
      if (!tail_ || s.e.arrive > now) {                 // nothing of it is here, or no tail timer
        fabemu::lose_last(*this, h, c, DropReason::lost_in_flight);
        continue;
      }
      if (!s.cut) {  // its head is here, its tail never comes: the tail timer runs
        s.cut = 1;
        s.e.ready = now + tail_;
        Event ev = event_at(now + tail_, H::kind(RouterEvent::model_own), c);
        ev.port = kTailTimeout;
        h.schedule(ev);
      }
      break;  // what came before it had wholly arrived
    }
  }
}

template <class H>
void SpiderRouter::tail_timeout(H& h, uint32_t c) {
  const ps_t now = h.now();
  for (uint16_t s = lists_.first(c); s != SpiderLists::kNil;) {
    const SpiderLists::Slot& sl = lists_.slot(c, s);
    const uint16_t next = sl.next;
    if (sl.cut && sl.e.ready <= now) {
      const QEntry e = lose(h, c, s);
      read_out_discarded(*this, h, c, e.units);
      h.discard(DropReason::tail_timeout, e.m);
    }
    s = next;
  }
}

template <class H>
void SpiderRouter::note_full(H& h, uint32_t c) {
  if (dl_armed_[c]) return;
  dl_armed_[c] = 1;
  progress_[c] = h.now();
  Event ev = event_at(h.now() + deadlock_, H::kind(RouterEvent::model_own), c);
  ev.port = kDeadlockCheck;
  h.schedule(ev);
}

// Channel c's deadlock timer expires: still full with no message gone
// since it filled (or since the last one went), the chip resets its port:
// every VC buffer of that input.
template <class H>
void SpiderRouter::deadlock_check(H& h, uint32_t c) {
  if (occupancy(c) < full_at_) {
    dl_armed_[c] = 0;
    return;
  }
  const ps_t due = progress_[c] + deadlock_;
  if (due > h.now()) {
    Event ev = event_at(due, H::kind(RouterEvent::model_own), c);
    ev.port = kDeadlockCheck;
    h.schedule(ev);
    return;
  }
  n_.deadlock_resets++;
  const uint32_t first = c - c % nv();
  for (uint32_t v = 0; v < nv(); v++) {
    dl_armed_[first + v] = 0;  // (a pending check finds its buffer no longer full)
    while (len(first + v)) fabemu::lose_last(*this, h, first + v, DropReason::deadlock_timeout);
  }
}

}  // namespace fabemu
