// Engine<R, L>, continued: what the link component of a worker may ask of
// the run (dataplane/link/link_retry.h, LinkRetryHost; lane_control.h,
// LaneControlHost; link_channel.h, LinkChannelHost): time and events, the
// links' senders and counters, what a link's channel carries reaching this
// worker's routers or the ring to another worker, the router
// model's input buffers, wake-ups and link rates, a link's death, credits,
// discards and failure. Made on the stack where the engine calls the link;
// every call inlines. Included from engine.h only.
#pragma once

namespace fabemu {

// Time, events and the links' senders as the router model's host has them.
template <class R, class L>
struct Engine<R, L>::LinkHop : Engine<R, L>::Hop {
  using Hop::e;
  using Hop::w;

  RunStats& stats() { return w.st; }  // (the capture tap's counters)
  uint64_t packets_sent(uint32_t o) const { return e.output_packets(w, o); }
  void add_busy(ps_t& busy, ps_t start, ps_t dur) const { e.add_busy(busy, start, dur); }
  rte_mbuf* alloc() {
    rte_mbuf* c = nullptr;
    return w.pool.alloc_bulk(&c, 1) ? c : nullptr;
  }

  // What a link's channel carries (link_channel.h): a packet reaches input
  // channel c (its link's retry receiver first, when link-level retry is
  // on), credits an output, a link-control message an input (the lanes');
  // or it goes onto the ring to another worker.
  // (A model that keeps the occupancy of a buffer fed from another worker
  // as one worker would: router/input_queued.h. Not under link-level retry,
  // whose receiver may hold the packet back.)
  void granted_upstream(uint32_t c, ps_t t) {
    if constexpr (requires { w.router.granted_upstream_at(c, t); })
      if (!e.lcb_) w.router.granted_upstream_at(c, t);
  }
  FABEMU_ALWAYS_INLINE void arrive(uint32_t c, rte_mbuf* m, ps_t head, LinkSeq seq, bool late) {
    if (e.lcb_) [[unlikely]]
      w.retry.receive(*this, c, m, head, seq, late);
    else
      e.enter_input(w, c, m, head, late);
  }
  FABEMU_ALWAYS_INLINE void credits(uint32_t o, uint32_t v, uint32_t units, ps_t first,
                                    ps_t every) {
    e.add_credit_stream(w, o, v, units, first, every);
  }

  // A hop's link (link/link_send.h, link/ejection.h): the routing's last
  // word on a packet leaving local router lr by output o; capture; two-hop
  // recovery's copy and link-level retry's sender; credits for an endpoint,
  // a change to an output VC's credits (the routing stage's snapshot keeps
  // the old value), one deferred, the router model woken by them; the
  // endpoint a packet reaches.
  FABEMU_ALWAYS_INLINE void forwarded(uint32_t lr, uint32_t o, PacketMeta& pm) {
    R::on_forward(w.route.t(), e.f_.table_router(w.routers[lr]),
                  static_cast<uint8_t>(o - w.router.output(lr, 0)), pm);
  }
  FABEMU_ALWAYS_INLINE bool capturing() const { return e.capturing_; }
  void capture(uint32_t link, const rte_mbuf* m, ps_t t, uint8_t vc, uint64_t seq) {
    e.capture_packet(w, link, m, t, vc, seq);
  }
  FABEMU_ALWAYS_INLINE bool retry_on() const { return e.lcb_; }
  void retry_send(uint32_t o, rte_mbuf* m, uint32_t units, uint8_t vc, ps_t now) {
    w.retry.send(*this, o, m, units, vc, now);
  }
  void recovery_keep(uint32_t o, rte_mbuf* m, uint32_t units) { w.recovery.keep(*this, o, m, units); }
  FABEMU_ALWAYS_INLINE void endpoint_credits(uint32_t ep, uint32_t v, uint32_t units, ps_t first,
                                             ps_t every) {
    e.add_ep_credit_stream(w, ep, v, units, first, every);
  }
  FABEMU_ALWAYS_INLINE bool faults_on() const { return e.faults_; }
  FABEMU_ALWAYS_INLINE void credits_change(uint32_t o, uint32_t v) { w.route.keep(*this, o, v); }
  void defer_credits(uint32_t o, uint32_t v, uint32_t units, ps_t first, ps_t every) {
    e.defer_credit_stream(w, o, 0, v, units, first, every);  // its counter's queue is full
  }
  FABEMU_ALWAYS_INLINE void credits_back(uint32_t o, uint32_t v, const CreditCounter& cc) {
    w.router.credits_back(router_host(), o, v, cc);
  }
  bool recovery_duplicate(const rte_mbuf* m, ps_t tail) { return w.recovery.duplicate(m, tail); }
  FABEMU_ALWAYS_INLINE void reach_endpoint(uint32_t ep, rte_mbuf* m, ps_t tail) {
    EndpointHost host{e, w};
    w.eps.arrive(host, ep, m, tail);
  }
  void control(const Event& ev) { w.lanes.on_control(*this, ev); }
  void send_remote(const Event& ev, uint32_t worker) { e.send_remote(w, ev, worker); }
  // Two-hop recovery (link/recovery_memory.h): the ack of packet id sent on
  // output o; a link's death; a fault that may duplicate what is in flight.
  void recovery_ack(uint32_t o, uint64_t id, ps_t release) { w.recovery.ack(o, id, release); }
  bool recovery_on() const { return e.recovering(); }
  void recovery_link_down(uint32_t o, bool own_router_dead) {
    w.recovery.link_down(*this, o, e.ports_div_.div(o), own_router_dead);
  }
  void recovery_fault(ps_t at) { w.recovery.fault_at(at); }
  void resend_from(uint32_t lr, rte_mbuf* m) { e.recovery_resend(w, lr, m); }
  // ... (TwoHopRecovery::resend): the processor of local router lr to send
  // packet pm again from, on the tables after the fault (-1: none, or no
  // route); its encoding for that route; its place in the source queue.
  int32_t reroute(uint32_t lr, PacketMeta& pm) {
    const int32_t r = w.routers[lr];
    const int32_t ep = e.f_.routers[size_t(r)].first_endpoint();
    if (ep < 0 || !policy_reroute<R>(w.route.t(), e.f_.table_router(r), pm)) return -1;
    return ep;
  }
  bool reencode(rte_mbuf* m, const PacketMeta& pm) {
    return reencode_packet(static_cast<CodecKind>(e.cfg_.codec), m, pm, e.lcb_);
  }
  void resend_at_source(uint32_t ep, rte_mbuf* m) {
    EndpointHost host{e, w};
    w.eps.resend(host, ep, m);
  }
  // Past the retry receiver: into the router input.
  void enter_input(uint32_t c, rte_mbuf* m, ps_t arrive, bool late) {
    e.enter_input(w, c, m, arrive, late);
  }

  // The router model's input buffers (router_model.h: remove_last,
  // sending_last), as the model keeps them.
  rte_mbuf* remove_last(uint32_t c) { return w.router.remove_last(static_cast<Hop&>(*this), c); }
  QEntry* sending_last(uint32_t c) { return w.router.sending_last(c); }
  // Output o's link is free at t: the router model looks again.
  void link_ready(uint32_t o, ps_t t) { w.router.link_ready(static_cast<Hop&>(*this), o, t); }
  void untake_credits(uint32_t o, uint8_t vc, uint32_t units) {
    credits_change(o, vc);
    w.vcs[size_t(o) * e.nv_ + vc].credits.untake(units);
  }
  int32_t router_id(uint32_t i) const { return w.routers[i / e.max_ports_]; }
  uint32_t port_of(uint32_t i) const { return i % e.max_ports_; }

  // Lanes (dataplane/link/lane_control.h).
  bool lanes_on() const { return e.lanes_; }
  uint32_t lane_errors(uint32_t o, uint32_t bits, uint32_t* pos, uint32_t n) {
    return w.lanes.errors(o, bits, pos, n);
  }
  bool lanes_after_timeout(uint32_t o) { return w.lanes.after_timeout(*this, o); }
  InLink& in(uint32_t i) { return w.in[i]; }
  void set_output_dead(uint32_t o, bool down) { w.faults.set_output_dead(*this, o, down); }
  void set_input_dead(uint32_t i, bool down) { w.faults.set_input_dead(*this, i, down); }
  void set_link_units(uint32_t i, ps_t in_unit, ps_t out_unit) {
    w.router.set_link_units(i, in_unit, out_unit);
  }
  void note_mixed_rates() { w.route.mixed_rates = true; }  // (routing/route_stage.h)
  LinkRetry* retry() { return e.lcb_ ? &w.retry : nullptr; }

  // What output o's link tells its far end, in order with its packets.
  void send_control(uint32_t o, LinkControl op, uint8_t vc, uint16_t seq, ps_t unit) {
    fabemu::send_control(*this, w.out[o], e.nv_, w.now, op, vc, seq, unit);
  }
  void send_skip(uint32_t o, uint8_t vc, uint32_t seq) {
    send_control(o, LinkControl::skip, vc, static_cast<uint16_t>(seq), 0);
  }

  // The forward-progress timer (dataplane/link/progress_timer.h): the VCs
  // a packet asks output o for (the arbiter's requesters; none is granted
  // here, and the round-robin pointer stays where it was).
  uint32_t waiting_vcs(uint32_t o) { return requested_vcs(w.router, o, e.max_ports_, e.nv_); }
  void wake_requesters(uint32_t o) {
    if (w.router.requests(o)) e.arm_wake(w, o, w.now);
  }
  void finish_eject(uint32_t o, rte_mbuf* m, ps_t now, ps_t dur) {
    fabemu::finish_eject(*this, w.out[o], m, now, dur);
  }

  // Faults (dataplane/link/link_faults.h): the components they reach, and
  // the router model's buffers (router/input_discard.h).
  LaneControl& lanes() { return w.lanes; }
  ForwardProgressTimer& progress() { return w.progress; }
  void output_dead(uint32_t o) { w.router.output_dead(router_host(), o); }
  void lose_arriving(uint32_t i) { fabemu::lose_arriving(w.router, router_host(), i); }
  void lose_channel(uint32_t c, DropReason why) { lose_all(w.router, router_host(), c, why); }
  void flush_inside(uint32_t lr, DropReason why) {
    w.router.flush_inside(router_host(), lr,
                          [&](rte_mbuf* m, uint32_t o, uint8_t vc, uint32_t units) {
                            this->unroute_units(o, vc, units);
                            this->discard(why, m);
                          });
  }
  void flush_output(uint32_t o, uint32_t v, DropReason why) {
    w.router.flush_output(router_host(), o, v,
                          [&](rte_mbuf* m, uint32_t, uint8_t, uint32_t) { this->discard(why, m); });
  }
  Hop& router_host() { return *this; }
};

// Two-hop recovery: packet m, at local router lr, is sent again from there.
template <class R, class L>
void Engine<R, L>::recovery_resend(Worker& w, uint32_t lr, rte_mbuf* m) {
  LinkHop host{{*this, w}};
  w.recovery.resend(host, lr, m);
}

template <class R, class L>
void Engine<R, L>::apply_faults(Worker& w, ps_t now, uint32_t rt_upto) {
  if (now > w.now) w.now = now;
  LinkHop host{{*this, w}};
  w.faults.apply(host, now, rt_upto);
}

template <class R, class L>
[[gnu::noinline]] void Engine<R, L>::check_progress(Worker& w) {
  static_assert(ProgressTimerHost<LinkHop>);
  LinkHop host{{*this, w}};
  w.progress.check(host);
}

template <class R, class L>
void Engine<R, L>::capture_packet(Worker& w, uint32_t link, const rte_mbuf* m, ps_t t, uint8_t vc,
                                  uint64_t seq) {
  static_assert(CaptureRecorderHost<LinkHop>);
  LinkHop host{{*this, w}};
  w.capture.packet(host, link, m, t, vc, seq);
}

template <class R, class L>
void Engine<R, L>::capture_frame(Worker& w, uint32_t b, const uint8_t* frame, uint32_t avail,
                                 uint32_t len, CaptureDir dir) {
  LinkHop host{{*this, w}};
  w.capture.frame(host, b, frame, avail, len, dir);
}

}  // namespace fabemu
