// The allocation of the input-queued virtual cut-through router
// (input_queued.h), for any model M built on its input buffers and any
// engine host H (router_model.h): a routed head requests its output for the
// time it is through the pipeline; the output arbitrates when it is free and
// a requester is ready, and grants a packet the downstream buffer has
// credits for. The grant serialises the packet onto the link (the host's)
// or, with switch speedup, puts it in the output queue of its VC, whose
// link takes it when the downstream credits are there.
//
// Free functions of the model, so that a model built on another (the iSLIP
// router, the YARC tiled router) reuses them with its own operations: each
// call here goes to M's, resolved at compile time.
#pragma once
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/link.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/output_queues.h"
#include "dataplane/router/router_event.h"
#include "dataplane/routing/route.h"
#include "dataplane/sim/event.h"

namespace fabemu::iq {

// The head e of input channel at.channel is routed (e.out_port, e.out_vc set) and
// through the pipeline at `ready`, not before not_before (the packet ahead
// of it leaves the buffer then): it requests its output, which looks at it
// when it is ready and the output's link (or a crossing into its queues) is
// free.
template <class M, class H>
FABEMU_ALWAYS_INLINE inline void head_routed(M& rt, H& h, const RoutedHead& at, QEntry& e,
                                             ps_t ready, ps_t not_before) {
  const uint32_t o = rt.output(at.router, e.out_port);
  h.route_units(o, e.out_vc, e.units);
  // The output looks at its credits for this VC once the pipeline is
  // through: fetch them meanwhile (a 128-byte counter per output VC,
  // megabytes on a large fabric).
  rte_prefetch0(&h.vcs(o)[e.out_vc]);
  if (ready < not_before) ready = not_before;
  e.ready = ready;
  rt.request(o, rt.requester(at.port, at.vc));
  // The switch can take it when the output link is free or, with output
  // queues, as soon as one of the output's crossings is: waiting for the
  // link there would bring back the head-of-line blocking the queues remove.
  const OutputQueues& oq = rt.output_queues();
  const ps_t free = oq.enabled() ? oq.output_free_at(o) : h.out(o).free_ps;
  rt.arm_output(h, o, ready > free ? ready : free);
}

// Output o looks at its requesters: the link must be free; the arbiter
// picks among those through the pipeline whose packet the downstream
// buffer has credits for. The packet requester i offers is M's
// (offered(o, i, c)); an input that has its switch crossings busy sends
// nothing more (M::kInputCrossings); the winner is M's to grant.
template <class M, class H>
inline void try_output(M& rt, H& h, uint32_t o) {
  if (rt.requests(o) == 0) return;
  OutLink& ol = h.out(o);
  const ps_t now = h.now();
  // The switch sends into output o when its link is free or, with output
  // queues (switch speedup), when one of its crossings is.
  OutputQueues& queues = rt.output_queues();
  const bool oq = queues.enabled();
  const ps_t out_free = oq ? queues.output_free_at(o) : ol.free_ps;
  if (out_free > now) {
    rt.arm_output(h, o, out_free);  // busy: look again when it frees
    return;
  }
  if (ps_t until; !oq && h.retry_window_full(o, &until)) [[unlikely]] {
    if (until != kNever) rt.arm_output(h, o, until);
    return;  // the link's retransmit window has no room
  }
  const uint32_t nv = rt.nv();
  const uint32_t o0 = rt.first_output(o);  // output (and input) 0 of this router
  const uint32_t ch0 = o0 * nv;                // channel of (port 0, VC 0)
  const SenderVc* cr = h.vcs(o);
  // Per VC: the fewest units known to be short now, so that one credit
  // lookup per VC serves the requesters behind it; kept for the credit
  // streams that come back (credits_back).
  uint16_t* short_units = rt.blocked(o).units;
  rt.blocked(o) = BlockedUnits{};
  ps_t wake = kNever;
  uint32_t won_c = 0;
  const int32_t won = rt.arbitrate(o, [&](uint32_t i) FABEMU_ALWAYS_INLINE {
    const uint32_t c = ch0 + rt.requester_port(i) * nv + rt.requester_vc(i);
    auto& e = rt.offered(o, i, c);
    if (e.ready > now) {
      if (e.ready < wake) wake = e.ready;
      return false;
    }
    if constexpr (M::kInputCrossings) {
      const ps_t in_free = rt.input_free_at(o0 + rt.requester_port(i));
      if (in_free > now) {  // the input is sending its speedup's worth elsewhere
        if (in_free < wake) wake = in_free;
        return false;
      }
    }
    const uint32_t v = e.out_vc;
    if (oq) {  // room in its output queue; else the link wakes this output when it sends from it
      if (queues.space(o, v) < e.units) return false;
      won_c = c;
      return true;
    }
    if (h.progress_timed_out(o)) [[unlikely]] {  // discarded: needs no credits
      won_c = c;
      return true;
    }
    if (e.units < short_units[v]) {
      ps_t ignored = kNever;
      if (cr[v].credits.available(e.units, now, &ignored)) {
        won_c = c;
        return true;
      }
      short_units[v] = e.units;
    }
    if (!e.stalled) {  // ready, link free, credits short: once per packet and hop
      e.stalled = 1;
      ol.credit_stalls++;
    }
    return false;
  });
  if (won >= 0) {
    rt.grant_requester(h, o, static_cast<uint32_t>(won), won_c);
    // The others go when the link (or an output crossing) frees (now, when
    // link-level retry excised the winner instead).
    if (rt.requests(o))
      rt.arm_output(h, o, std::max(now, oq ? queues.output_free_at(o) : ol.free_ps));
    return;
  }
  // A requester's pipeline or credits still streaming back end at `wake`;
  // credits not yet written wake the output when they are (credits_back).
  for (uint32_t v = 0; v < nv; v++)
    if (short_units[v] != 0xFFFF) cr[v].credits.available(short_units[v], now, &wake);
  if (wake != kNever) rt.arm_output(h, o, wake);
}

template <class M, class H>
inline void try_link(M& rt, H& h, uint32_t o);

// Input channel c's head crosses the switch to output o: onto the link at
// once (reaching the far end `delay` later than the link alone takes it), or
// (switch speedup) into the output queue of its VC.
template <class M, class H>
inline void grant(M& rt, H& h, uint32_t o, uint32_t c, ps_t delay = 0) {
  OutLink& ol = h.out(o);
  const uint32_t in_p = rt.port_of_channel(c), in_v = rt.vc_of_channel(c);
  bool withhold = false;  // a damaged packet moves on: no credits for it
  if (h.damaged_head(c, &withhold)) [[unlikely]]
    return;  // excised: nothing crosses
  rt.withdraw(o, rt.requester(in_p, in_v));
  const QEntry e = rt.pop(c, h.now());
  h.left_input(c, o, e.m, e.units);
  // The packet behind the new head is routed when that one has crossed:
  // fetch its metadata now, which queueing has left cold.
  if (rt.len(c) > 1) rte_prefetch0(meta(rt.at(c, 1).m));
  const ps_t now = h.now();
  OutputQueues& queues = rt.output_queues();
  const bool oq = queues.enabled();
  // The packet streams out of this input buffer one unit per `unit` from
  // now: onto the output link at its rate or, with switch speedup, into the
  // output queue as fast as it arrived (the switch is not the bottleneck).
  const uint32_t in = rt.input_of_channel(c);
  const InLink& il = h.in(in);
  const ps_t unit = oq ? il.unit_ps : ol.unit_ps;
  const ps_t dur = e.units * unit;
  const bool dead = h.discards(o);
  if (!oq && !dead) [[likely]]
    h.take_link(o, e.units, e.out_vc);
  rt.occupy_input(in, now + dur);
  // Each freed unit's credit reaches the upstream sender after the reverse
  // link's latency, the first at now + unit + wire.
  if (!withhold) [[likely]]
    h.return_credits(c, e.units, now + unit + il.up_wire_ps, unit);
  else
    rt.forget(c, e.units);
  if (dead) [[unlikely]] {
    h.discard_at_output(o, e.m, e.units, e.out_vc);
  } else if (!oq) {
    h.deliver(rt.router_of_channel(c), o, e.m, e.units, e.out_vc, delay);
  } else {
    queues.occupy_output(o, now + dur);
    queues.push(o, e.out_vc, e.m, e.units);  // its head is there from now (cut-through)
    try_link(rt, h, o);
  }
  // The next packet in this input FIFO may cross the switch once this one's
  // tail has been read out (when it had already arrived).
  if (rt.len(c)) {
    const QEntry& nx = rt.head(c);
    h.route_head(c, nx.arrive <= now ? now + dur : 0);
  } else {
    rt.remember_departure(c, now, now + dur);
  }
}

// Switch speedup: the link of output o takes the head of one of its VC
// queues (round robin) whose packet the downstream buffer has credits for.
template <class M, class H>
inline void try_link(M& rt, H& h, uint32_t o) {
  OutputQueues& oq = rt.output_queues();
  const uint32_t ne = oq.nonempty(o);
  if (ne == 0) return;
  OutLink& ol = h.out(o);
  const ps_t now = h.now();
  if (ol.free_ps > now) {
    rt.arm_link(h, o, ol.free_ps);
    return;
  }
  if (ps_t until; h.retry_window_full(o, &until)) [[unlikely]] {
    if (until != kNever) rt.arm_link(h, o, until);
    return;  // the link's retransmit window has no room
  }
  const uint32_t nv = rt.nv();
  const SenderVc* cr = h.vcs(o);
  uint8_t& rr = oq.rr(o);
  ps_t wake = kNever;
  for (uint32_t k = 0, v = rr; k < nv; k++, v = v + 1 == nv ? 0 : v + 1) {
    if (!((ne >> v) & 1)) continue;
    OqEntry& hd = oq.head(o, v);
    if (cr[v].credits.available(hd.units, now, &wake)) {
      rr = static_cast<uint8_t>(v + 1 == nv ? 0 : v + 1);
      const OqEntry e = oq.pop(o, v);
      if (h.link_dead(o)) [[unlikely]] {
        h.discard_at_output(o, e.m, e.units, static_cast<uint8_t>(v));
      } else {
        h.take_link(o, e.units, static_cast<uint8_t>(v));
        h.deliver(rt.router_of_output(o), o, e.m, e.units, static_cast<uint8_t>(v));
      }
      if (oq.nonempty(o)) rt.arm_link(h, o, ol.free_ps);
      // Room in the queue: a requester that found it full may cross now.
      if (rt.requests(o)) rt.arm_output(h, o, std::max(now, oq.output_free_at(o)));
      return;
    }
    if (!hd.stalled) {  // at the head, link free, credits short: once per packet and hop
      hd.stalled = 1;
      ol.credit_stalls++;
    }
  }
  if (wake != kNever) rt.arm_link(h, o, wake);
}

// Credits for VC v of output o have reached its counter cc: only requesters
// found short of credits wait for these: wake the output when the fewest
// units one of them needs are there (a later stream wakes it when this one
// is not enough); with output queues, the link waits for them at the head
// of the VC's queue. Other requesters have wakes of their own.
template <class M, class H>
FABEMU_ALWAYS_INLINE inline void credits_back(M& rt, H& h, uint32_t o, uint32_t v,
                                              const CreditCounter& cc) {
  const ps_t now = h.now();
  OutputQueues& oq = rt.output_queues();
  if (oq.enabled()) {
    if (!((oq.nonempty(o) >> v) & 1)) return;
    ps_t at = kNever;
    if (cc.available(oq.head(o, v).units, now, &at)) at = now;
    if (at != kNever) rt.arm_link(h, o, std::max(at, h.out(o).free_ps));
    return;
  }
  const uint16_t need = rt.blocked(o).units[v];
  if (need == BlockedUnits::kNone || !rt.requests(o)) return;
  ps_t at = kNever;
  if (cc.available(need, now, &at)) at = now;
  if (at == kNever) return;
  const ps_t free = h.out(o).free_ps;
  rt.arm_output(h, o, at > free ? at : free);
}

}  // namespace fabemu::iq

namespace fabemu {

// The router-model operations (router_model.h) of a model Self built on
// the input buffers, as the input-queued router does them; Self hides
// those it does differently, and every call made here goes to Self's.
template <class Self>
class InputQueuedOps {
 public:
  // The requester's packet is the head of its input FIFO; an input port has
  // its own switch crossings (input_speedup); selection among adaptive
  // candidates is the engine's, on live queues or a copied snapshot.
  static constexpr bool kInputCrossings = true;
  static constexpr bool kChoosesAdaptively = false;
  static constexpr bool kLazySnapshot = false;
  static constexpr bool kInternalBuffers = false;
  // Credits of an arriving packet leave its buffer at the earliest one unit
  // of the fastest link into the router after its head arrives.
  static ps_t earliest_credit(ps_t unit, ps_t /*pipeline*/) { return unit; }

  void set_link_units(uint32_t /*port*/, ps_t /*in*/, ps_t /*out*/) {}

  // Packet e enters input channel c (its buffer space is the packet's, as
  // the credits say); a new head is routed. late: it came from another core
  // and is taken after its arrival: a late head that had arrived when the
  // FIFO's last packet was granted waits for that packet's tail, as grant()
  // makes a waiting one do.
  template <class H>
  FABEMU_ALWAYS_INLINE void arrive(H& h, uint32_t c, const QEntry& e, bool late) {
    auto& rt = self();
    const ps_t not_before =
        late && rt.len(c) == 0 && e.arrive <= rt.last_granted(c) ? rt.last_tail_out(c) : 0;
    if (rt.push(c, e) == 1) h.route_head(c, not_before);
  }
  template <class H>
  FABEMU_ALWAYS_INLINE void head_routed(H& h, const RoutedHead& at, QEntry& e,
                                        const RouteCandidates& /*rc*/, ps_t ready,
                                        ps_t not_before) {
    iq::head_routed(self(), h, at, e, ready, not_before);
  }
  // Link-level retry (link/link_retry.h): the damaged copy of a packet is
  // the last to have entered channel c; it leaves as if it had not come
  // (withdrawn from its output if, the FIFO's head, it was requesting it).
  // nullptr when the channel is empty.
  template <class H>
  rte_mbuf* remove_last(H& h, uint32_t c) {
    auto& rt = self();
    if (rt.len(c) == 0) return nullptr;
    if (rt.len(c) == 1 && rt.head(c).routed) {
      const QEntry& e = rt.head(c);
      const uint32_t o = rt.output(rt.router_of_channel(c), e.out_port);
      rt.withdraw_head(o, c);
      h.unroute_units(o, e.out_vc, e.units);
    }
    return rt.pop_back(c).m;
  }
  // The packet channel c sends now (its head) if it is the last to have
  // entered, as a damaged copy is: the FIFO's only one; else nullptr.
  QEntry* sending_last(uint32_t c) {
    auto& rt = self();
    return rt.len(c) == 1 ? &rt.head(c) : nullptr;
  }
  // One pending wake-up per output: the earliest.
  template <class H>
  FABEMU_ALWAYS_INLINE void arm_output(H& h, uint32_t o, ps_t t) {
    ps_t& wake = self().wake(o);
    if (t >= wake) return;
    wake = t;
    h.schedule(event_at(t, H::kind(RouterEvent::out_wake), o));
  }
  // Switch speedup: one pending wake-up per output link.
  template <class H>
  void arm_link(H& h, uint32_t o, ps_t t) {
    ps_t& wake = self().output_queues().link_wake(o);
    if (t >= wake) return;
    wake = t;
    h.schedule(event_at(t, H::kind(RouterEvent::link_wake), o));
  }
  template <class H>
  void on_event(H& h, const Event& ev) {
    if (ev.kind == H::kind(RouterEvent::out_wake)) {
      ps_t& wake = self().wake(ev.a);
      if (wake == ev.t) wake = kNever;
      iq::try_output(self(), h, ev.a);
    } else {  // link_wake
      ps_t& wake = self().output_queues().link_wake(ev.a);
      if (wake == ev.t) wake = kNever;
      iq::try_link(self(), h, ev.a);
    }
  }
  // What requester i of output o offers (input channel c's head).
  QEntry& offered(uint32_t /*o*/, uint32_t /*i*/, uint32_t c) { return self().head(c); }
  template <class H>
  FABEMU_ALWAYS_INLINE void grant_requester(H& h, uint32_t o, uint32_t /*i*/, uint32_t c) {
    iq::grant(self(), h, o, c);
  }
  // The routed head of channel c, which requested output o, leaves without
  // crossing (a fault, or link-level retry excising it).
  void withdraw_head(uint32_t o, uint32_t c) {
    Self& rt = self();
    rt.withdraw(o, rt.requester(rt.port_of_channel(c), rt.vc_of_channel(c)));
  }
  template <class H>
  FABEMU_ALWAYS_INLINE void credits_back(H& h, uint32_t o, uint32_t v, const CreditCounter& cc) {
    iq::credits_back(self(), h, o, v, cc);
  }
  // Output o's link died: its requesters (and queued packets) go now,
  // discarded as they are granted.
  template <class H>
  void output_dead(H& h, uint32_t o) {
    Self& rt = self();
    if (rt.requests(o)) rt.arm_output(h, o, h.now());
    if (rt.output_queues().enabled() && rt.output_queues().nonempty(o)) rt.arm_link(h, o, h.now());
  }
  // Output o's link can take a packet again from t (link-level retry sent
  // what it had to resend).
  template <class H>
  void link_ready(H& h, uint32_t o, ps_t t) {
    Self& rt = self();
    if (rt.output_queues().enabled()) {
      if (rt.output_queues().nonempty(o)) rt.arm_link(h, o, t);
    } else if (rt.requests(o)) {
      rt.arm_output(h, o, t);
    }
  }
  // Router lr stopped: the packets inside it other than in its input
  // buffers (none here) and in output o's VC v queue are lost(m, o, vc, units).
  template <class H, class Lost>
  void flush_inside(H& /*h*/, uint32_t /*lr*/, Lost&& /*lost*/) {}
  template <class H, class Lost>
  void flush_output(H& /*h*/, uint32_t o, uint32_t v, Lost&& lost) {
    OutputQueues& oq = self().output_queues();
    if (!oq.enabled()) return;
    while ((oq.nonempty(o) >> v) & 1) {
      const OqEntry e = oq.pop(o, v);
      lost(e.m, o, static_cast<uint8_t>(v), e.units);
    }
  }
  // Every packet the routers hold.
  template <class F>
  void for_each_packet(F&& f) {
    Self& rt = self();
    for (size_t c = 0; c < rt.channels(); c++)
      for (uint32_t i = 0; i < rt.len(static_cast<uint32_t>(c)); i++)
        f(rt.at(static_cast<uint32_t>(c), i).m);
    if (rt.output_queues().enabled())
      rt.output_queues().for_each([&](const OqEntry& e) { f(e.m); });
  }
  // The model's own counters into the run's.
  template <class Stats>
  void add_counters(Stats& /*st*/) const {}
  // Credit conservation of buffers inside the routers: none here.
  std::string check_inside() const { return {}; }

 private:
  Self& self() { return static_cast<Self&>(*this); }
};

// The input-queued virtual cut-through router (router.model input_queued).
class InputQueuedRouter final : public InputQueuedBuffers,
                                public InputQueuedOps<InputQueuedRouter> {};

}  // namespace fabemu
