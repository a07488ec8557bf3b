// Engine<R, Link>, continued: one hop. A packet enters a router input when
// the upstream link grants it; at the head of its FIFO it is routed and
// requests its output for the time it is through the pipeline; the output
// arbitrates when it is free and a requester is ready, and grants a packet
// the downstream buffer has credits for (virtual cut-through). The grant
// serialises the packet onto the link, enters it at the far end and writes
// the freed buffer's credits into the upstream counter as a stream.
// Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
inline void Engine<R, L>::dispatch(Worker& w, const Event& e) {
  switch (e.type) {
    case EventType::out_wake: {
      ps_t& wake = w.router.wake(e.a);
      if (wake == e.t) wake = kNever;
      if constexpr (kIslip)
        // e.a: the router's output 0. (The division stays: a router index
        // stored per output, read instead, measured 3% slower.)
        islip_cycle(w, e.a / max_ports_);
      else
        try_output(w, e.a);
      break;
    }
    case EventType::link_wake: {
      ps_t& wake = w.oq.link_wake(e.a);
      if (wake == e.t) wake = kNever;
      try_link(w, e.a);
      break;
    }
    case EventType::route: {
      QEntry& q = w.router.head(e.a);
      // (Link-level retry may have excised the packet meanwhile.)
      // (Or a fault dropped it.)
      if ((lcb_ || faults_) && (w.router.len(e.a) == 0 || q.routed)) break;
      if (compute_route(w, e.a, q)) finish_route(w, e.a, q, 0);
      break;
    }
    case EventType::ep_generate: {
      EndpointHost host{*this, w};
      w.eps.on_generate(host, e.a);
      break;
    }
    case EventType::ep_wake: {
      EndpointHost host{*this, w};
      w.eps.on_wake(host, e);
      break;
    }
    case EventType::ep_deliver: {
      EndpointHost host{*this, w};
      w.eps.on_deliver(host, e.a, e.m, e.t);
      break;
    }
    case EventType::credit:
      // A stream that had to wait for room in the counter's queue: the
      // streams before it have arrived by now.
      if (e.port == kEndpointPort)
        add_ep_credit_stream(w, e.a, e.vc, e.amount, e.t, e.unit_ps, true);
      else
        add_credit_stream(w, e.a, e.vc, e.amount, e.t, e.unit_ps, true);
      break;
    case EventType::port_replay: {
      BridgeHost host{{*this, w}};
      w.bridge.on_replay(host, e.a);
      break;
    }
    case EventType::link_timeout:
      lcb_go_back(w, e.a);
      break;
    case EventType::progress_check:
      check_progress(w);
      break;
    case EventType::tile:
      if constexpr (kTiled) {
        TileHost host{*this, w};
        w.router.on_event(host, e);
      }
      break;
    case EventType::remote_arrive:
    case EventType::mac_learn:
    case EventType::link_control:
      break;  // applied when taken from the ring (apply_remote)
  }
}

// Packet m enters input channel c; its head arrives at `arrive` (now or
// later: the buffer space is already the packet's, as the credits say).
template <class R, class L>
inline void Engine<R, L>::enter_input(Worker& w, uint32_t c, rte_mbuf* m, ps_t arrive, bool late) {
  Router& rt = w.router;
  if (faults_ && w.in[c / nv_].dead) [[unlikely]] {
    refuse_at_dead_input(w, c, m);
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
  // A late head that had arrived when the FIFO's last packet was granted
  // waits for that packet's tail, as grant() makes a waiting one do.
  const ps_t not_before =
      late && rt.len(c) == 0 && arrive <= rt.last_granted(c) ? rt.last_tail_out(c) : 0;
  QEntry e{};
  e.m = m;
  e.arrive = arrive;
  e.units = static_cast<uint16_t>(units);
  if (rt.push(c, e) == 1) setup_head(w, c, not_before);
}

// The entry at the head of channel c is routed. An adaptive choice is made
// with the state of the moment its head arrives (a route event when that is
// later than now); a deterministic one at once. not_before: the previous
// packet's tail leaves the buffer then (0: nothing ahead of it).
template <class R, class L>
inline void Engine<R, L>::setup_head(Worker& w, uint32_t c, ps_t not_before) {
  QEntry& e = w.router.head(c);
  if (!compute_route(w, c, e)) return;
  if (w.rc.adaptive && w.rc.count > 1 && e.arrive > w.now) {
    w.wheel.push(event_at(e.arrive, EventType::route, c));
    return;
  }
  finish_route(w, c, e, not_before);
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
  const size_t q0 = size_t(rt.output(lr, 0)) * nv_;
  RoutingContext ctx{&w.route_rng[lr],
                     QueueView(&w.vcs[q0], nv_, cap_.data(), w.now, &w.pending[q0])};
  R::route(*w.tables.tables, ctx, f_.table_router(r), static_cast<uint8_t>(rt.port_of_channel(c)),
           *pm, w.rc);
  if (w.rc.count == 0) {
    if (faults_) {  // unreachable after a fault
      discard_unroutable(w, c);
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
  const uint32_t lr = rt.router_of_channel(c), p = rt.port_of_channel(c), v = rt.vc_of_channel(c);
  const int32_t r = w.routers[lr];
  PacketMeta* pm = meta(e.m);
  const uint32_t o0 = rt.output(lr, 0);
  if (w.rc.up_after_down) [[unlikely]]  // counted at the link it came down (report.cpp)
    w.st.links[w.in[c / nv_].stats].down_route_violations++;
  const bool choose = w.rc.adaptive && w.rc.count > 1;
  // (The tiled router makes an adaptive choice itself, in two stages: c[0]
  // stands for the candidates until it has.)
  const RouteCandidate pick =
      !kTiled && choose ? select_candidate(w.rc, selection_view(w, lr), e.units) : w.rc.c[0];
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
  if constexpr (kTiled) {  // on through the tiles: the row bus takes it (engine_hop_tiled.h)
    uint64_t allowed = 0;  // adaptive: the tiles choose among these ports (one VC, c[0]'s)
    if (choose)
      for (uint32_t i = 0; i < w.rc.count; i++) allowed |= uint64_t{1} << w.rc.c[i].port;
    TileHost host{*this, w};
    rt.head_routed(host, c, ready, allowed);
    pm->out_port = e.out_port;  // the column's first allowed row until the subswitch chooses
    snap_keep(w, o0 + e.out_port, pick.vc);
    w.pending[size_t(o0 + e.out_port) * nv_ + pick.vc] += e.units;
    return;
  }
  snap_keep(w, o0 + pick.port, pick.vc);
  w.pending[size_t(o0 + pick.port) * nv_ + pick.vc] += e.units;
  // The output looks at its credits for this VC once the pipeline is
  // through: fetch them meanwhile (a 128-byte counter per output VC, megabytes
  // on a large fabric).
  rte_prefetch0(&w.vcs[size_t(o0 + pick.port) * nv_ + pick.vc]);
  if constexpr (kIslip) {  // its VC allocator may give any VC of the port the routing allows
    uint8_t mask = 0;
    for (uint32_t i = 0; i < w.rc.count; i++)
      if (w.rc.c[i].port == pick.port) mask |= static_cast<uint8_t>(1u << w.rc.c[i].vc);
    // Into an endpoint any VC will do (it depends on no other channel), as
    // BookSim's routings eject on any.
    if (w.out[o0 + pick.port].peer_router < 0) mask = static_cast<uint8_t>((1u << nv_) - 1);
    e.islip[kVcMask] = mask;
  }
  if (ready < not_before) ready = not_before;
  e.ready = ready;
  const uint32_t o = o0 + pick.port;
  rt.request(o, rt.requester(p, v));
  // The switch can take it when the output link is free or, with output
  // queues, as soon as one of the output's crossings is: waiting for the
  // link there would bring back the head-of-line blocking the queues remove.
  const ps_t free = w.oq.enabled() ? w.oq.output_free_at(o) : w.out[o].free_ps;
  arm_wake(w, o, ready > free ? ready : free);
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
  if constexpr (!kIslip) {  // a plain copy (GreedySnapshot::kLazyDecisions says why)
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
  if constexpr (!kIslip) return;  // (its snapshot is a copy)
  if (!w.greedy) return;
  const uint32_t lr = o / max_ports_;
  w.snap.keep(lr, size_t(o) * nv_ + v, w.now, [&](ps_t at) {
    const size_t q0 = size_t(lr) * max_ports_ * nv_;
    const QueueView then(&w.vcs[q0], nv_, cap_.data(), at, &w.pending[q0]);
    return then.live_queue(o - lr * max_ports_, v);
  });
}

// The packet requester i of output o offers: the head of its input FIFO c
// or, in the tiled router, of its column buffer (i is then a row group and
// VC). Both carry what arbitration reads: ready, units, out_vc, stalled.
template <class Router>
__attribute__((always_inline)) inline auto& offered_packet(Router& rt, uint32_t o, uint32_t i,
                                                           uint32_t c) {
  if constexpr (std::is_same_v<Router, YarcTiledRouter>)
    return rt.column_head(o, i);
  else
    return rt.head(c);
}

// Output o looks at its requesters: the link must be free; the round-robin
// arbiter picks among those through the pipeline whose packet the
// downstream buffer has credits for.
template <class R, class L>
inline void Engine<R, L>::try_output(Worker& w, uint32_t o) {
  Router& rt = w.router;
  if (rt.requests(o) == 0) return;
  OutLink& ol = w.out[o];
  const ps_t now = w.now;
  // The switch sends into output o when its link is free or, with output
  // queues (switch speedup), when one of its crossings is.
  const bool oq = w.oq.enabled();
  const ps_t out_free = oq ? w.oq.output_free_at(o) : ol.free_ps;
  if (out_free > now) {
    arm_wake(w, o, out_free);  // busy: look again when it frees
    return;
  }
  if (lcb_ && !oq && lcb_window_full(w, o, false)) [[unlikely]]
    return;                                // the link's retransmit window has no room
  const uint32_t o0 = o - o % max_ports_;  // output (and input) 0 of this router
  const uint32_t ch0 = o0 * nv_;           // channel of (port 0, VC 0)
  const SenderVc* cr = &w.vcs[size_t(o) * nv_];
  // Per VC: the fewest units known to be short now, so that one credit
  // lookup per VC serves the requesters behind it; kept for the credit
  // streams that come back (add_credit_stream).
  uint16_t* short_units = w.blocked[o].units;
  w.blocked[o] = BlockedUnits{};
  ps_t wake = kNever;
  uint32_t won_c = 0;
  const int32_t won = rt.arbitrate(o, [&](uint32_t i) FABEMU_ALWAYS_INLINE {
    const uint32_t c = ch0 + rt.requester_port(i) * nv_ + rt.requester_vc(i);
    auto& e = offered_packet(rt, o, i, c);
    if (e.ready > now) {
      if (e.ready < wake) wake = e.ready;
      return false;
    }
    if constexpr (!kTiled) {
      const ps_t in_free = rt.input_free_at(o0 + rt.requester_port(i));
      if (in_free > now) {  // the input is sending its speedup's worth elsewhere
        if (in_free < wake) wake = in_free;
        return false;
      }
    }
    const uint32_t v = e.out_vc;
    if (oq) {  // room in its output queue; else the link wakes this output when it sends from it
      if (w.oq.space(o, v) < e.units) return false;
      won_c = c;
      return true;
    }
    if (faults_ && ol.progress_timeout) [[unlikely]] {  // discarded: needs no credits
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
    if constexpr (kTiled)
      grant_tiled(w, o, static_cast<uint32_t>(won));
    else
      grant(w, o, won_c);
    // The others go when the link (or an output crossing) frees (now, when
    // link-level retry excised the winner instead).
    if (rt.requests(o)) arm_wake(w, o, std::max(now, oq ? w.oq.output_free_at(o) : ol.free_ps));
    return;
  }
  // A requester's pipeline or credits still streaming back end at `wake`;
  // credits not yet written wake the output when they are (add_credit_stream).
  for (uint32_t v = 0; v < nv_; v++)
    if (short_units[v] != 0xFFFF) cr[v].credits.available(short_units[v], now, &wake);
  if (wake != kNever) arm_wake(w, o, wake);
}

// Input channel c's head crosses the switch to output o: onto the link at
// once, or (switch speedup) into the output queue of its VC.
template <class R, class L>
inline void Engine<R, L>::grant(Worker& w, uint32_t o, uint32_t c) {
  Router& rt = w.router;
  OutLink& ol = w.out[o];
  const uint32_t in_p = rt.port_of_channel(c), in_v = rt.vc_of_channel(c);
  bool withhold = false;  // a damaged packet moves on: no credits for it
  if (lcb_ && lcb_damaged_head(w, c, &withhold)) [[unlikely]]
    return;  // excised: nothing crosses
  rt.withdraw(o, rt.requester(in_p, in_v));
  const QEntry e = rt.pop(c);
  // The packet behind the new head is routed when that one has crossed:
  // fetch its metadata now, which queueing has left cold.
  if (rt.len(c) > 1) rte_prefetch0(meta(rt.at(c, 1).m));
  const ps_t now = w.now;
  const bool oq = w.oq.enabled();
  // The packet streams out of this input buffer one unit per `unit` from
  // now: onto the output link at its rate or, with switch speedup, into the
  // output queue as fast as it arrived (the switch is not the bottleneck).
  const InLink& in = w.in[c / nv_];
  const ps_t unit = oq ? in.unit_ps : ol.unit_ps;
  const ps_t dur = e.units * unit;
  const bool dead = faults_ && (ol.dead || ol.progress_timeout);
  if (!oq && !dead) [[likely]]
    take_link(w, o, e.units, e.out_vc);
  rt.occupy_input(c / nv_, now + dur);
  // Each freed unit's credit reaches the upstream sender after the reverse
  // link's latency, the first at now + unit + wire.
  if (!withhold) [[likely]]
    return_credits(w, c, e.units, now + unit + in.up_wire_ps, unit);
  else
    rt.forget(c, e.units);
  if (dead) [[unlikely]] {
    snap_keep(w, o, e.out_vc);
    w.pending[size_t(o) * nv_ + e.out_vc] -= e.units;
    discard_at_dead_port(w, e.m, ol.dead ? DropReason::dead_port : DropReason::forward_progress);
  } else if (!oq) {
    deliver_from_link(w, rt.router_of_channel(c), o, e.m, e.units, e.out_vc);
  } else {
    w.oq.occupy_output(o, now + dur);
    w.oq.push(o, e.out_vc, e.m, e.units);  // its head is there from now (cut-through)
    try_link(w, o);
  }
  // The next packet in this input FIFO may cross the switch once this one's
  // tail has been read out (when it had already arrived).
  if (rt.len(c)) {
    const QEntry& nx = rt.head(c);
    setup_head(w, c, nx.arrive <= now ? now + dur : 0);
  } else {
    rt.remember_departure(c, now, now + dur);
  }
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
// the next router's input, another core's, or the endpoint.
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
    if (lcb_) [[unlikely]] {
      lcb_send(w, o, m, units, ov, now);
    } else if (!ol.remote) {
      enter_input(w, ol.peer_channel0 + ov, m, now + ol.wire_ps);
    } else {
      Event ev = event_at(now + ol.wire_ps, EventType::remote_arrive,
                          static_cast<uint32_t>(ol.peer_router));
      ev.m = m;
      ev.port = ol.peer_port;
      ev.vc = ov;
      send_remote(w, ev, ol.peer_worker);
    }
  } else {
    eject(w, ol, o, m, now, ol.serialize(units));
  }
}

// Switch speedup: the link of output o takes the head of one of its VC
// queues (round robin) whose packet the downstream buffer has credits for.
template <class R, class L>
inline void Engine<R, L>::try_link(Worker& w, uint32_t o) {
  OutputQueues& oq = w.oq;
  const uint32_t ne = oq.nonempty(o);
  if (ne == 0) return;
  OutLink& ol = w.out[o];
  const ps_t now = w.now;
  if (ol.free_ps > now) {
    arm_link_wake(w, o, ol.free_ps);
    return;
  }
  if (lcb_ && lcb_window_full(w, o, true)) [[unlikely]]
    return;  // the link's retransmit window has no room
  const SenderVc* cr = &w.vcs[size_t(o) * nv_];
  uint8_t& rr = oq.rr(o);
  ps_t wake = kNever;
  for (uint32_t k = 0, v = rr; k < nv_; k++, v = v + 1 == nv_ ? 0 : v + 1) {
    if (!((ne >> v) & 1)) continue;
    OqEntry& h = oq.head(o, v);
    if (cr[v].credits.available(h.units, now, &wake)) {
      rr = static_cast<uint8_t>(v + 1 == nv_ ? 0 : v + 1);
      const OqEntry e = oq.pop(o, v);
      if (faults_ && ol.dead) [[unlikely]] {
        snap_keep(w, o, v);
        w.pending[size_t(o) * nv_ + v] -= e.units;
        discard_at_dead_port(w, e.m);
      } else {
        take_link(w, o, e.units, static_cast<uint8_t>(v));
        deliver_from_link(w, o / max_ports_, o, e.m, e.units, static_cast<uint8_t>(v));
      }
      if (oq.nonempty(o)) arm_link_wake(w, o, ol.free_ps);
      // Room in the queue: a requester that found it full may cross now.
      if (w.router.requests(o)) arm_wake(w, o, std::max(now, oq.output_free_at(o)));
      return;
    }
    if (!h.stalled) {  // at the head, link free, credits short: once per packet and hop
      h.stalled = 1;
      ol.credit_stalls++;
    }
  }
  if (wake != kNever) arm_link_wake(w, o, wake);
}

// Credits of input channel c go back to the sender of its link.
template <class R, class L>
inline void Engine<R, L>::return_credits(Worker& w, uint32_t c, uint32_t units, ps_t first, ps_t every) {
  const InLink& in = w.in[c / nv_];
  const uint32_t v = c % nv_;
  if (in.up_router < 0) {
    add_ep_credit_stream(w, static_cast<uint32_t>(in.up_endpoint), v, units, first, every);
  } else if (!in.remote) {
    add_credit_stream(w, in.up_output, v, units, first, every);
  } else {
    send_remote(w, credit_event(static_cast<uint32_t>(in.up_router), in.up_port, v, units, first, every),
                in.up_worker);
  }
}

template <class R, class L>
inline void Engine<R, L>::add_credit_stream(Worker& w, uint32_t o, uint32_t v, uint32_t units,
                                            ps_t first, ps_t every, bool resumed) {
  CreditCounter& cc = w.vcs[size_t(o) * nv_ + v].credits;
  // Credits back: what is beyond the port accepts again (engine_progress.h).
  if (faults_ && w.out[o].progress_timeout) [[unlikely]]
    w.out[o].progress_timeout = false;
  snap_keep(w, o, v);
  if (resumed) {
    cc.add_resumed(units, first, every);
  } else if (!cc.add_stream(units, first, every)) {
    defer_credit_stream(w, o, 0, v, units, first, every);  // its queue is full
    return;
  }
  if (w.oq.enabled()) {  // the link waits for them, at the head of the VC's output queue
    if (!((w.oq.nonempty(o) >> v) & 1)) return;
    ps_t at = kNever;
    if (cc.available(w.oq.head(o, v).units, w.now, &at)) at = w.now;
    if (at != kNever) arm_link_wake(w, o, std::max(at, w.out[o].free_ps));
    return;
  }
  // Only requesters found short of credits wait for these: wake the output
  // when the fewest units one of them needs are there (a later stream wakes
  // it when this one is not enough). Other requesters have wakes of their own.
  const uint16_t need = w.blocked[o].units[v];
  if (need == BlockedUnits::kNone || !w.router.requests(o)) return;
  ps_t at = kNever;
  if (cc.available(need, w.now, &at)) at = w.now;
  if (at == kNever) return;
  const ps_t free = w.out[o].free_ps;
  arm_wake(w, o, at > free ? at : free);
}

}  // namespace fabemu
