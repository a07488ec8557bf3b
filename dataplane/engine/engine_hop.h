// Engine<R, Link>, continued: one hop. A packet enters a router input when
// the upstream link grants it; at the head of its FIFO it is routed, and
// the router model takes it from there (router/router_model.h): it grants
// it an output, and the link serialises it, enters it at the far end and
// writes the freed buffer's credits into the upstream counter as a stream.
// Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
inline void Engine<R, L>::dispatch(Worker& w, const Event& e) {
  switch (e.kind) {
    case event_kind(RouterEvent::out_wake):
    case event_kind(RouterEvent::link_wake):
    case event_kind(RouterEvent::tile): {  // the router model's own
      Hop host{*this, w};
      w.router.on_event(host, e);
      break;
    }
    case event_kind(RouterEvent::route): {
      QEntry& q = w.router.head(e.a);
      // (Link-level retry may have excised the packet meanwhile.)
      // (Or a fault dropped it.)
      if ((lcb_ || faults_) && (w.router.len(e.a) == 0 || q.routed)) break;
      if (compute_route(w, e.a, q)) finish_route(w, e.a, q, 0);
      break;
    }
    case event_kind(EndpointEvent::generate): {
      EndpointHost host{*this, w};
      w.eps.on_generate(host, e.a);
      break;
    }
    case event_kind(EndpointEvent::wake): {
      EndpointHost host{*this, w};
      w.eps.on_wake(host, e);
      break;
    }
    case event_kind(EndpointEvent::deliver): {
      EndpointHost host{*this, w};
      w.eps.on_deliver(host, e.a, e.m, e.t);
      break;
    }
    case event_kind(EndpointEvent::join): {
      EndpointHost host{*this, w};
      w.eps.on_join(host, e.a);
      break;
    }
    case event_kind(BarrierEvent::signal): {
      BarrierHost host{*this, w};
      w.barriers.on_signal(host, e);
      break;
    }
    case event_kind(BarrierEvent::notify): {
      EndpointHost host{*this, w};
      w.eps.on_barrier(host, e);
      break;
    }
    case event_kind(LinkEvent::credit):
      // A stream that had to wait for room in the counter's queue: the
      // streams before it have arrived by now.
      if (e.port == kEndpointPort)
        add_ep_credit_stream(w, e.a, e.vc, e.amount, e.t, e.unit_ps, true);
      else
        add_credit_stream(w, e.a, e.vc, e.amount, e.t, e.unit_ps, true);
      break;
    case event_kind(BridgeEvent::port_replay): {
      BridgeHost host{{*this, w}};
      w.bridge.on_replay(host, e.a);
      break;
    }
    case event_kind(LinkEvent::retry_timeout): {
      static_assert(LinkRetryHost<LinkHop> && LaneControlHost<LinkHop>);
      LinkHop host{{*this, w}};
      w.retry.go_back(host, e.a);
      break;
    }
    case event_kind(LinkEvent::progress_check):
      check_progress(w);
      break;
    case event_kind(LinkEvent::remote_arrive):
    case event_kind(BridgeEvent::mac_learn):
    case event_kind(LinkEvent::control):
      break;  // applied when taken from the ring (apply_remote)
    default:
      if (owner_of(e.kind) == EventOwner::router) {  // a model's own kind (RouterEvent::model_own)
        Hop host{*this, w};
        w.router.on_event(host, e);
      }
      break;
  }
}

// Packet m enters input channel c; its head arrives at `arrive` (now or
// later: the buffer space is already the packet's, as the credits say).
template <class R, class L>
inline void Engine<R, L>::enter_input(Worker& w, uint32_t c, rte_mbuf* m, ps_t arrive, bool late) {
  Router& rt = w.router;
  if (faults_ && w.in[nv_div_.div(c)].dead) [[unlikely]] {
    Hop host{*this, w};
    refuse_at_dead_input(rt, host, c, m);  // (router/input_discard.h)
    return;
  }
  const uint32_t units = meta(m)->units;
  const uint32_t v = rt.vc_of_channel(c);
  if (rt.occupancy(c) + units > cap_[v] || rt.len(c) >= qcap_) {
    const uint32_t lr = rt.router_of_channel(c);
    fail(w, "credit violation: router " + std::to_string(w.routers[lr]) + " port " +
                std::to_string(rt.port_of_channel(c)) + " VC " + std::to_string(v) + " holds " +
                std::to_string(rt.occupancy(c)) + " units in a " + std::to_string(cap_[v]) +
                "-unit buffer and is sent " + std::to_string(units) + " more");
    rte_pktmbuf_free(m);
    return;
  }
  if constexpr (requires(RoutingContext& ctx, PacketMeta& pm) {
                  R::on_enter(*w.tables.tables, ctx, int32_t{}, uint8_t{}, pm);
                }) {  // a decision as the packet enters (routing_policy.h)
    const uint32_t lr = rt.router_of_channel(c);
    RoutingContext ctx = routing_context(w, lr);
    R::on_enter(*w.tables.tables, ctx, f_.table_router(w.routers[lr]),
                static_cast<uint8_t>(rt.port_of_channel(c)), *meta(m));
  }
  QEntry e{};
  e.m = m;
  e.arrive = arrive;
  e.units = static_cast<uint16_t>(units);
  Hop host{*this, w};
  rt.arrive(host, c, e, late);  // the router model's buffers
}

// The entry at the head of channel c is routed. An adaptive choice is made
// with the state of the moment its head arrives (a route event when that is
// later than now); a deterministic one at once. not_before: the previous
// packet's tail leaves the buffer then (0: nothing ahead of it).
template <class R, class L>
inline void Engine<R, L>::setup_head(Worker& w, uint32_t c, ps_t not_before) {
  QEntry& e = w.router.head(c);
  // A model may route a head itself: a wormhole router's flits follow their
  // worm's head (input_queued_islip.h).
  if constexpr (requires(Hop& host) { w.router.route_follower(host, c, e, not_before); }) {
    Hop host{*this, w};
    if (w.router.route_follower(host, c, e, not_before)) return;
  }
  if (!compute_route(w, c, e)) return;
  if (w.rc.adaptive && w.rc.count > 1 && e.arrive > w.now) {
    w.wheel.push(event_at(e.arrive, event_kind(RouterEvent::route), c));
    return;
  }
  finish_route(w, c, e, not_before);
}

template <class R, class L>
inline RoutingContext Engine<R, L>::routing_context(Worker& w, uint32_t lr) {
  const size_t q0 = size_t(w.router.output(lr, 0)) * nv_;
  return RoutingContext{&w.route_rng[lr],
                        QueueView(&w.vcs[q0], nv_, cap_.data(), w.now, &w.pending[q0])};
}

// The routing function's candidates for the head of channel c, in w.rc.
template <class R, class L>
inline bool Engine<R, L>::compute_route(Worker& w, uint32_t c, const QEntry& e) {
  const Router& rt = w.router;
  const uint32_t lr = rt.router_of_channel(c);
  const int32_t r = w.routers[lr];
  const PacketMeta* pm = meta(e.m);
  w.rc.count = 0;
  w.rc.adaptive = false;
  w.rc.up_after_down = false;
  RoutingContext ctx = routing_context(w, lr);
  R::route(*w.tables.tables, ctx, f_.table_router(r), static_cast<uint8_t>(rt.port_of_channel(c)),
           *pm, w.rc);
  if (w.rc.count == 0) {
    // A policy that refuses packets itself (the 3D mesh's turn check) says why.
    const DropReason why = policy_refusal<R>(*w.tables.tables, f_.table_router(r),
                                             static_cast<uint8_t>(rt.port_of_channel(c)), *pm);
    if (faults_ || why != DropReason::count) {  // refused, or unreachable after a fault
      Hop host{*this, w};
      const DropReason reason = why != DropReason::count ? why : DropReason::no_route;
      if (recovering()) [[unlikely]] {  // its sender lets its copy go; after a fault, sent again
        LinkHop lh{{*this, w}};
        w.recovery.ack_gone(lh, w.in[nv_div_.div(c)], e.m);
        if (w.recovery.reroutes(reason)) {
          take_unroutable(w.router, host, c, [&](rte_mbuf* m) { recovery_resend(w, lr, m); });
          return false;
        }
      }
      if (why != DropReason::count)
        discard_unroutable(w.router, host, c, why);
      else
        discard_unroutable(w.router, host, c);  // (router/input_discard.h; a model may have its own)
      return false;
    }
    fail(w, "no route at router " + std::to_string(r) + " for a packet to endpoint " +
                std::to_string(pm->dst) + " (routing tables are incomplete)");
    return false;
  }
  return true;
}

// Selects among w.rc's candidates and requests the output for the time the
// packet is through the router pipeline.
template <class R, class L>
inline void Engine<R, L>::finish_route(Worker& w, uint32_t c, QEntry& e, ps_t not_before) {
  Router& rt = w.router;
  const uint32_t lr = rt.router_of_channel(c), p = rt.port_of_channel(c);
  const int32_t r = w.routers[lr];
  PacketMeta* pm = meta(e.m);
  const uint32_t o0 = rt.output(lr, 0);
  if (w.rc.up_after_down) [[unlikely]]  // counted at the link it came down (report.cpp)
    w.st.links[w.in[nv_div_.div(c)].stats].down_route_violations++;
  const bool choose = w.rc.adaptive && w.rc.count > 1;
  // (A model may make an adaptive choice itself, as the tiled router does in
  // two stages: c[0] stands for the candidates until it has.)
  const RouteCandidate pick = !Router::kChoosesAdaptively && choose
                                  ? select_candidate(w.rc, selection_view(w, lr), e.units)
                                  : w.rc.c[0];
  pm->out_port = pick.port;
  pm->out_vc = pick.vc;
  pm->out_note = pick.note;
  e.out_port = pick.port;
  e.out_vc = pick.vc;
  e.routed = 1;
  ps_t ready = e.arrive + R::pipeline_ps(*w.tables.tables, f_.table_router(r),
                                         static_cast<uint8_t>(p), pick.port);
  if (w.mixed_rates) [[unlikely]] {
    // Cut-through onto a faster link cannot outrun the packet's own tail on
    // the slower link it arrives on: it starts no earlier than that tail
    // allows (its credits then stream back no faster than it arrived).
    const ps_t in_unit = w.in[rt.output(lr, p)].unit_ps, out_unit = w.out[o0 + pick.port].unit_ps;
    if (in_unit > out_unit) ready = std::max(ready, e.arrive + e.units * (in_unit - out_unit));
  }
  Hop host{*this, w};
  rt.head_routed(host, RoutedHead{c, lr, p, rt.vc_of_channel(c)}, e, w.rc, ready, not_before);
}

// The queue state an adaptive selection at local router lr sees: live
// (sequential allocation: every decision before this one counts), or the
// router's snapshot of its current allocation cycle (greedy: decisions in
// the same cycle do not see each other), begun by the cycle's first
// decision (routing/greedy_snapshot.h).
template <class R, class L>
inline QueueView Engine<R, L>::selection_view(Worker& w, uint32_t lr) {
  const size_t q0 = size_t(w.router.output(lr, 0)) * nv_;
  const QueueView live(&w.vcs[q0], nv_, cap_.data(), w.now, &w.pending[q0]);
  if (!w.greedy) return live;
  const ps_t cycle_end = (w.now / alloc_cycle_ps_ + 1) * alloc_cycle_ps_;
  if constexpr (!Router::kLazySnapshot) {  // a plain copy (GreedySnapshot::kLazyDecisions says why)
    uint32_t* copy = w.snap.copy(q0);
    if (w.snap.begin_copy(lr, w.now, cycle_end))
      for (uint32_t p = 0; p < max_ports_; p++)
        for (uint32_t v = 0; v < nv_; v++) copy[size_t(p) * nv_ + v] = live.queue(p, v);
    return QueueView::of_queues(copy, nv_, cap_.data(), w.now);
  }
  if (w.snap.begin(lr, w.now, cycle_end)) {  // keep the rest now (GreedySnapshot::begin)
    const QueueView then(&w.vcs[q0], nv_, cap_.data(), w.snap.at(lr), &w.pending[q0]);
    for (uint32_t p = 0; p < max_ports_; p++)
      for (uint32_t v = 0; v < nv_; v++) {
        const size_t q = q0 + size_t(p) * nv_ + v;
        if (!w.snap.kept(lr, q)) w.snap.put(lr, q, then.live_queue(p, v));
      }
  }
  return QueueView::snapshot(&w.vcs[q0], nv_, cap_.data(), w.now, &w.pending[q0], w.snap.at(lr),
                             w.snap.saved(q0), w.snap.stamps(q0), w.snap.gen(lr));
}

// The queue of output o's VC v (its credits or units routed to it) is
// about to change: a greedy router deciding on a lazy snapshot keeps its
// value.
template <class R, class L>
__attribute__((always_inline)) inline void Engine<R, L>::snap_keep(Worker& w, uint32_t o,
                                                                   uint32_t v) {
  if constexpr (!Router::kLazySnapshot) return;  // (its snapshot is a copy)
  if (!w.greedy) return;
  const uint32_t lr = ports_div_.div(o);
  w.snap.keep(lr, size_t(o) * nv_ + v, w.now, [&](ps_t at) {
    const size_t q0 = size_t(lr) * max_ports_ * nv_;
    const QueueView then(&w.vcs[q0], nv_, cap_.data(), at, &w.pending[q0]);
    return then.live_queue(o - lr * max_ports_, v);
  });
}

// The link of output o starts sending a packet: serialization, the
// downstream credits, the counters.
template <class R, class L>
__attribute__((always_inline)) inline void Engine<R, L>::take_link(Worker& w, uint32_t o,
                                                                   uint32_t units, uint8_t ov) {
  OutLink& ol = w.out[o];
  const ps_t now = w.now;
  const ps_t dur = ol.serialize(units);
  SenderVc& sv = w.vcs[size_t(o) * nv_ + ov];
  snap_keep(w, o, ov);
  sv.credits.take(units);
  w.pending[size_t(o) * nv_ + ov] -= units;
  sv.packets++;
  sv.last_sent = now;
  ol.free_ps = now + dur;  // requesters arriving meanwhile schedule the wake-up
  add_busy(ol.busy_ps, now, dur);
  w.st.packet_hops++;
}

// The packet the link of output o started sending now reaches the far end:
// a router input by the link's channel (link/link_channel.h), or the
// endpoint.
template <class R, class L>
__attribute__((always_inline)) inline void Engine<R, L>::deliver_from_link(Worker& w, uint32_t lr,
                                                                           uint32_t o, rte_mbuf* m,
                                                                           uint32_t units,
                                                                           uint8_t ov) {
  OutLink& ol = w.out[o];
  const ps_t now = w.now;
  PacketMeta* pm = meta(m);
  R::on_forward(*w.tables.tables, f_.table_router(w.routers[lr]),
                static_cast<uint8_t>(o - w.router.output(lr, 0)), *pm);
  pm->vc = ov;
  if (capturing_) [[unlikely]]
    capture_packet(w, ol.stats, m, now, ov, output_packets(w, o) - 1);
  if (ol.peer_router >= 0) {
    pm->hops++;
    if (recovering()) [[unlikely]] {
      LinkHop host{{*this, w}};
      w.recovery.keep(host, o, m, units);
    }
    if (lcb_) [[unlikely]] {
      LinkHop host{{*this, w}};
      w.retry.send(host, o, m, units, ov, now);
    } else {
      LinkHop host{{*this, w}};
      carry(host, ol, LinkPacket{m, now + ol.wire_ps, ov, 0});  // by the link's channel
    }
  } else {
    eject(w, ol, o, m, now, ol.serialize(units));
  }
}

// Credits of input channel c go back to the sender of its link (by the
// link's channel) or to the endpoint.
template <class R, class L>
inline void Engine<R, L>::return_credits(Worker& w, uint32_t c, uint32_t units, ps_t first, ps_t every) {
  const uint32_t i = nv_div_.div(c), v = c - i * nv_;
  const InLink& in = w.in[i];
  if (in.up_router < 0) {
    add_ep_credit_stream(w, static_cast<uint32_t>(in.up_endpoint), v, units, first, every);
    return;
  }
  LinkHop host{{*this, w}};
  carry(host, in, CreditStream{v, units, first, every});  // by the link's channel
}

template <class R, class L>
inline void Engine<R, L>::add_credit_stream(Worker& w, uint32_t o, uint32_t v, uint32_t units,
                                            ps_t first, ps_t every, bool resumed) {
  CreditCounter& cc = w.vcs[size_t(o) * nv_ + v].credits;
  // Credits back: what is beyond the port accepts again (progress_timer.h).
  if (faults_ && w.out[o].progress_timeout) [[unlikely]]
    w.out[o].progress_timeout = false;
  snap_keep(w, o, v);
  if (resumed) {
    cc.add_resumed(units, first, every);
  } else if (!cc.add_stream(units, first, every)) {
    defer_credit_stream(w, o, 0, v, units, first, every);  // its queue is full
    return;
  }
  Hop host{*this, w};  // the router model wakes what waits for them
  w.router.credits_back(host, o, v, cc);
}

}  // namespace fabemu
