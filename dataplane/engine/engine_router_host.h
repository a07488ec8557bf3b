// Engine<R, L>, continued: what the router model of a worker may ask of the
// run (router/router_model.h, RouterHost): time and events, the links'
// senders and credits, the routing stage (routing/route_stage.h) for the
// next head, and what faults and link-level retry decide about a packet. Made on the stack where the engine
// calls the model; every call inlines. Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
struct Engine<R, L>::Hop {
  Engine& e;
  Worker& w;

  FABEMU_ALWAYS_INLINE ps_t now() const { return w.now; }
  FABEMU_ALWAYS_INLINE void schedule(const Event& ev) { w.wheel.push(ev); }
  // The components' event kinds as this run numbers them (event_kinds.h).
  template <class K>
  static constexpr EventKind kind(K k) {
    return event_kind(k);
  }
  // A synchronous allocator's cycle: one longest packet on a router link.
  FABEMU_ALWAYS_INLINE ps_t cycle_ps() const { return e.alloc_cycle_ps_; }
  FABEMU_ALWAYS_INLINE OutLink& out(uint32_t o) { return w.out[o]; }
  FABEMU_ALWAYS_INLINE const InLink& in(uint32_t i) const { return w.in[i]; }
  FABEMU_ALWAYS_INLINE const SenderVc* vcs(uint32_t o) const { return &w.vcs[size_t(o) * e.nv_]; }

  Router& router() { return w.router; }
  const Router& router() const { return w.router; }
  int32_t global_router(uint32_t lr) const { return w.routers[lr]; }
  LinkStats& link_stats(uint32_t link) { return w.st.links[link]; }
  void fail(const std::string& why) { e.fail(w, why); }

  // Input channel c has a new head: the routing stage routes it, and the
  // model's head_routed follows (at once, or at its arrival when adaptive).
  FABEMU_ALWAYS_INLINE void route_head(uint32_t c, ps_t not_before) {
    w.route.route_head(*this, c, not_before);
  }
  // Units routed to output o's VC v and not yet sent (what adaptive
  // selection sees beyond the credits).
  FABEMU_ALWAYS_INLINE void route_units(uint32_t o, uint32_t v, uint32_t units) {
    w.route.route_units(*this, o, v, units);
  }
  FABEMU_ALWAYS_INLINE void unroute_units(uint32_t o, uint32_t v, uint32_t units) {
    w.route.unroute_units(*this, o, v, units);
  }

  // The link of output o starts sending a packet now (link/link_send.h):
  // its units are sent, no longer only routed there.
  FABEMU_ALWAYS_INLINE void take_link(uint32_t o, uint32_t units, uint8_t vc) {
    unroute_units(o, vc, units);
    OutLink& ol = w.out[o];
    const ps_t dur = start_packet(ol, w.vcs[size_t(o) * e.nv_ + vc], units, w.now);
    e.add_busy(ol.busy_ps, w.now, dur);
    w.st.packet_hops++;
  }
  // ... and it reaches the far end (lr: the local router of o).
  FABEMU_ALWAYS_INLINE void deliver(uint32_t lr, uint32_t o, rte_mbuf* m, uint32_t units,
                                    uint8_t vc, ps_t delay = 0) {
    LinkHop host{{e, w}};
    send_to_far_end(host, w.out[o], lr, o, m, units, vc, delay);
  }
  // Units of input channel c leave its buffer; their credits stream back to
  // the sender (the first reaching it at `first`).
  FABEMU_ALWAYS_INLINE void return_credits(uint32_t c, uint32_t units, ps_t first, ps_t every) {
    const uint32_t i = e.nv_div_.div(c), v = c - i * e.nv_;
    LinkHop host{{e, w}};
    fabemu::return_credits(host, w.in[i], v, units, first, every);
  }
  // Packet m of `units` leaves input channel c now for output o (two-hop
  // recovery: its sender learns when to let its copy go).
  FABEMU_ALWAYS_INLINE void left_input(uint32_t c, uint32_t o, const rte_mbuf* m, uint32_t units) {
    if (e.recovering()) [[unlikely]] {
      LinkHop host{{e, w}};
      w.recovery.ack_departure(host, w.in[e.nv_div_.div(c)], w.out[o], m, units);
    }
  }

  // Faults (link/link_faults.h, link/progress_timer.h): what output o grants is
  // discarded while its link is dead or its forward-progress timer expired.
  FABEMU_ALWAYS_INLINE bool discards(uint32_t o) const {
    return e.faults_ && (w.out[o].dead || w.out[o].progress_timeout);
  }
  FABEMU_ALWAYS_INLINE bool link_dead(uint32_t o) const { return e.faults_ && w.out[o].dead; }
  FABEMU_ALWAYS_INLINE bool progress_timed_out(uint32_t o) const {
    return e.faults_ && w.out[o].progress_timeout;
  }
  void discard_at_output(uint32_t o, rte_mbuf* m, uint32_t units, uint8_t vc) {
    unroute_units(o, vc, units);
    const DropReason why = w.out[o].dead ? DropReason::dead_port : DropReason::forward_progress;
    if (e.reroutes(w, why)) [[unlikely]] {  // in transit: sent again from here
      e.recovery_resend(w, e.ports_div_.div(o), m);
      return;
    }
    e.discard_at_dead_port(w, m, why);
  }
  // A packet a fault takes from an input buffer (router/input_discard.h).
  void discard(DropReason why, rte_mbuf* m) { e.discard(w, why, m); }

  // Link-level retry (link/link_retry.h): output o's retransmit window has
  // no room until *until (kNever: until a resend); the head of input
  // channel c is a damaged copy (excised: true, nothing crosses; or it moves
  // on marked and *withhold its credits).
  FABEMU_ALWAYS_INLINE bool retry_window_full(uint32_t o, ps_t* until) {
    return e.lcb_ && e.lcb_window_full(w, o, until);
  }
  FABEMU_ALWAYS_INLINE bool damaged_head(uint32_t c, bool* withhold) {
    return e.lcb_ && e.lcb_damaged_head(w, c, withhold);
  }

  // Entering input channel c (router/router_input.h): a fault killed its
  // link; the routing policy's decision on entry.
  FABEMU_ALWAYS_INLINE bool input_dead(uint32_t c) const {
    return e.faults_ && w.in[e.nv_div_.div(c)].dead;
  }
  FABEMU_ALWAYS_INLINE void route_on_enter(uint32_t c, PacketMeta& pm) {
    w.route.on_enter(*this, c, pm);
  }
  // The head m of channel c (local router lr) has no route, `why` when its
  // policy refused it (DropReason::count: none given). After a fault it is
  // discarded, or sent again from lr by two-hop recovery; a refusal is
  // discarded; false otherwise (the tables are incomplete: the run fails).
  bool unroutable(uint32_t c, uint32_t lr, rte_mbuf* m, DropReason why) {
    if (!e.faults_ && why == DropReason::count) return false;
    const DropReason reason = why != DropReason::count ? why : DropReason::no_route;
    if (e.recovering()) [[unlikely]] {  // its sender lets its copy go; after a fault, sent again
      LinkHop lh{{e, w}};
      w.recovery.ack_gone(lh, w.in[e.nv_div_.div(c)], m);
      if (w.recovery.reroutes(reason)) {
        take_unroutable(w.router, *this, c, [&](rte_mbuf* x) { e.recovery_resend(w, lr, x); });
        return true;
      }
    }
    if (why != DropReason::count)
      discard_unroutable(w.router, *this, c, why);
    else
      discard_unroutable(w.router, *this, c);  // (router/input_discard.h; a model may have its own)
    return true;
  }
};

}  // namespace fabemu
