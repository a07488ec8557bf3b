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

  LinkStats& link_stats(uint32_t link) { return w.st.links[link]; }
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
    e.snap_keep(w, o, vc);
    w.vcs[size_t(o) * e.nv_ + vc].credits.untake(units);
  }
  void fail(const std::string& why) { e.fail(w, why); }
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
  void note_mixed_rates() { w.mixed_rates = true; }  // finish_route minds it
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
  uint32_t waiting_vcs(uint32_t o) {
    Router& rt = w.router;
    uint32_t waiting = 0;
    if (rt.requests(o)) {
      const uint32_t ch0 = (o - o % e.max_ports_) * e.nv_;
      rt.arbitrate(o, [&](uint32_t i) {
        const uint32_t c = ch0 + rt.requester_port(i) * e.nv_ + rt.requester_vc(i);
        waiting |= 1u << rt.offered(o, i, c).out_vc;
        return false;
      });
    }
    return waiting;
  }
  void wake_requesters(uint32_t o) {
    if (w.router.requests(o)) e.arm_wake(w, o, w.now);
  }
  void finish_eject(uint32_t o, rte_mbuf* m, ps_t now, ps_t dur) {
    e.finish_eject(w, w.out[o], m, now, dur);
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

// Two-hop recovery (link/two_hop_recovery.h): packet m, at local router lr,
// gets a route from there on the tables after the fault (the policy's
// reroute_from) and its encoding for it, and goes first in the source queue
// of lr's processor; with no route left it is discarded (no_route).
template <class R, class L>
[[gnu::noinline]] void Engine<R, L>::recovery_resend(Worker& w, uint32_t lr, rte_mbuf* m) {
  PacketMeta* pm = meta(m);
  const int32_t r = w.routers[lr];
  if (pm->flags & kPktTransmitError) {  // a damaged copy that moved on: its good one follows
    discard(w, DropReason::dead_port, m);
    return;
  }
  const int32_t ep = f_.routers[size_t(r)].first_endpoint();
  if (ep < 0 || !policy_reroute<R>(*w.tables.tables, f_.table_router(r), *pm)) {
    discard(w, DropReason::no_route, m);
    return;
  }
  if (!reencode_packet(static_cast<CodecKind>(cfg_.codec), m, *pm, lcb_)) {
    fail(w, "packet " + std::to_string(pm->id) + " could not be encoded again for its resend");
    rte_pktmbuf_free(m);
    return;
  }
  EndpointHost host{*this, w};
  w.eps.resend(host, static_cast<uint32_t>(ep), m);
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
