// Engine<R, Link>, continued: faults (FabricFault; control/run/fault_plan.h
// expands a spec's or the control socket's fault into them). Applied at a
// window edge, each worker doing the part it owns:
//  - a dead port's output discards what the router grants it (BlackWidow
//    §7.7: "the sending port [discards] any packets destined to the dead
//    port"), and its link's retransmit buffer is lost;
//  - the far input loses what was still on the wire (its tail had not come
//    by the fault's instant); an endpoint port loses the endpoint's link
//    both ways, and what the endpoint injects into it is discarded;
//  - a dead router loses what its buffers held;
//  - a packet the reprogrammed tables give no output is discarded at its
//    router (no_route).
// Every such packet is counted with its reason (DropReason) and its credits
// go back as if it had left, so credits stay conserved and the run drains.
// Included from engine.h only.
#pragma once

namespace fabemu {

// At a window edge at emulated time `now`: the scheduled faults whose time
// has come, then those given while running (up to rt_upto in virtual time,
// so that every worker takes the same ones at the same edge).
template <class R, class L>
void Engine<R, L>::apply_faults(Worker& w, ps_t now, uint32_t rt_upto) {
  if (now > w.now) w.now = now;
  while (w.next_fault < cfg_.faults.size() && cfg_.faults[w.next_fault].at <= now)
    apply_fault(w, cfg_.faults[w.next_fault++]);
  const uint32_t n = std::min(rt_upto, fault_inbox_.count());
  if (n <= w.rt_faults_seen) return;
  const std::vector<FabricFault> fresh = fault_inbox_.take(w.rt_faults_seen, n, w.id == 0, w.now);
  w.rt_faults_seen = n;
  for (const FabricFault& f : fresh) apply_fault(w, f);
}

template <class R, class L>
void Engine<R, L>::apply_fault(Worker& w, const FabricFault& f) {
  if (f.router < 0 || uint32_t(f.router) >= nrouters_) return;
  const bool mine = router_worker_[f.router] == w.id;
  if (f.op == FabricFault::Op::router_flush) {
    if (mine) flush_router(w, router_local_[f.router]);
    return;
  }
  if (f.op == FabricFault::Op::lane_down || f.op == FabricFault::Op::lane_up ||
      f.op == FabricFault::Op::lane_ber) {  // the sender's, one direction (lane_control.h)
    if (mine && lanes_) {
      const uint32_t o = router_local_[f.router] * max_ports_ + uint32_t(f.port);
      const uint64_t link = uint64_t(f.router) * max_ports_ + uint32_t(f.port);
      LaneFault lf;
      lf.op = f.op == FabricFault::Op::lane_down ? LaneFault::Op::down
              : f.op == FabricFault::Op::lane_up ? LaneFault::Op::up
                                                  : LaneFault::Op::ber;
      lf.lane = f.lane;
      lf.ber = f.ber;
      lf.streams = 0x4C414E0000000000ull + link * kMaxLanes;
      lf.link_alive = f.link_alive;
      LinkHop host{{*this, w}};
      w.lanes.apply_fault(host, o, lf);
    }
    return;
  }
  const FabricPort& fp = f_.routers[size_t(f.router)].ports[size_t(f.port)];
  const uint32_t o = router_local_[f.router] * max_ports_ + uint32_t(f.port);
  if (f.op == FabricFault::Op::ber) {
    if (mine && lcb_)
      w.retry.set_ber(o, f.ber, 0x4C434200000000ull + uint64_t(f.router) * max_ports_ + uint32_t(f.port));
    return;
  }
  if (f.op == FabricFault::Op::sink_stop || f.op == FabricFault::Op::sink_start) {
    if (mine) {
      LinkHop host{{*this, w}};
      w.progress.set_sink(host, o, f.op == FabricFault::Op::sink_stop);
    }
    return;
  }
  const bool down = f.op == FabricFault::Op::port_down;
  if (mine) {
    set_output_dead(w, o, down);
    if (fp.endpoint >= 0) set_input_dead(w, o, down);  // the endpoint's link, both ways
    if (!down && lanes_) {
      LinkHop host{{*this, w}};
      w.lanes.retrain(host, o);
    }
  }
  if (fp.peer_router >= 0 && router_worker_[fp.peer_router] == w.id)
    set_input_dead(w, router_local_[fp.peer_router] * max_ports_ + uint32_t(fp.peer_port), down);
}

template <class R, class L>
void Engine<R, L>::set_output_dead(Worker& w, uint32_t o, bool down) {
  OutLink& ol = w.out[o];
  if (ol.dead == down) return;
  ol.dead = down;
  LinkStats& ls = w.st.links[ol.stats];
  if (!down) {
    ls.down_ps += w.now - w.down_since[o];
    w.down_since[o] = kNever;
    return;
  }
  ls.went_down++;
  w.down_since[o] = w.now;
  // What the retransmit buffer still holds never reached the far end.
  if (lcb_) {
    LinkHop link{{*this, w}};
    w.retry.lose_window(link, o);
  }
  // Its requesters are granted and discarded (the router model's grant).
  Hop host{*this, w};
  w.router.output_dead(host, o);
}

// Input i (numbered like outputs) loses its link: what had not wholly
// arrived by now is lost.
template <class R, class L>
void Engine<R, L>::set_input_dead(Worker& w, uint32_t i, bool down) {
  InLink& in = w.in[i];
  if (lcb_ && in.up_router >= 0) {  // numbering starts again with the link
    LinkHop link{{*this, w}};
    w.retry.restart_receiver(link, i);
  }
  if (in.dead == down) return;
  in.dead = down;
  if (!down) return;
  Router& rt = w.router;
  for (uint32_t v = 0; v < nv_; v++) {
    const uint32_t c = i * nv_ + v;
    while (rt.len(c) && rt.back(c).arrive + rt.back(c).units * in.unit_ps > w.now)
      drop_back(w, c, DropReason::lost_in_flight);
  }
}

// Router lr stopped: every packet in its input buffers and output queues
// (the tiled router: and in its tiles, first, so that the input buffers'
// credits come back in time order) is lost.
template <class R, class L>
void Engine<R, L>::flush_router(Worker& w, uint32_t lr) {
  Router& rt = w.router;
  Hop host{*this, w};
  rt.flush_inside(host, lr, [&](rte_mbuf* m, uint32_t o, uint8_t vc, uint32_t units) {
    host.unroute_units(o, vc, units);
    discard(w, DropReason::lost_in_dead_router, m);
  });
  for (uint32_t p = 0; p < max_ports_; p++) {
    const uint32_t o = lr * max_ports_ + p;
    if (lcb_ && w.in[o].up_router >= 0) excise_damaged(w, o);
    for (uint32_t v = 0; v < nv_; v++) {
      const uint32_t c = o * nv_ + v;
      while (rt.len(c)) drop_back(w, c, DropReason::lost_in_dead_router);
      rt.flush_output(host, o, v, [&](rte_mbuf* m, uint32_t, uint8_t, uint32_t) {
        discard(w, DropReason::lost_in_dead_router, m);
      });
    }
  }
}

// Link-level retry: a damaged copy at the back of input i's buffers goes
// as if it had not come (it was never good; its sender still holds the
// packet and its credits, dataplane/link/link_retry.h), before anything is lost.
template <class R, class L>
void Engine<R, L>::excise_damaged(Worker& w, uint32_t i) {
  LinkHop link{{*this, w}};
  w.retry.excise_damaged(link, i);
}

// The last packet of channel c is lost: it leaves as far as credits are
// concerned (they go back to the sender), and is freed and counted.
template <class R, class L>
void Engine<R, L>::drop_back(Worker& w, uint32_t c, DropReason why) {
  Router& rt = w.router;
  if (rt.len(c) == 1 && rt.head(c).routed) {  // it was requesting its output
    const QEntry& h = rt.head(c);
    const uint32_t o = rt.output(rt.router_of_channel(c), h.out_port);
    rt.withdraw_head(o, c);
    Hop{*this, w}.unroute_units(o, h.out_vc, h.units);
  }
  const QEntry e = rt.drop_back(c);
  const ps_t out = read_out_discarded(w, c, e.units);
  if (rt.len(c) == 0) rt.remember_departure(c, w.now, out);
  discard(w, why, e.m);
}

// A discarded packet of `units` leaves input channel c's buffer as a granted
// one would: read out after what the input is sending, its credits streaming
// back behind it (a counter's streams never overlap, credit_counter.h).
// Returns when its tail is out.
template <class R, class L>
ps_t Engine<R, L>::read_out_discarded(Worker& w, uint32_t c, uint32_t units) {
  Router& rt = w.router;
  const uint32_t i = c / nv_;
  const InLink& in = w.in[i];
  const ps_t start = std::max(w.now, rt.input_free_at(i));
  rt.occupy_input(i, start + units * in.unit_ps);
  return_credits(w, c, units, start + in.unit_ps + in.up_wire_ps, in.unit_ps);
  return start + units * in.unit_ps;
}

// Packet m reaches input channel c, whose link is dead: discarded, and its
// credits go back (only an endpoint injects into a dead router's input).
template <class R, class L>
void Engine<R, L>::refuse_at_dead_input(Worker& w, uint32_t c, rte_mbuf* m) {
  const uint32_t units = meta(m)->units;
  w.router.pass_through(c, units);
  read_out_discarded(w, c, units);
  discard(w, DropReason::dead_port, m);
}

// The head of channel c has no route (a fault left its destination
// unreachable from here): discarded; the packet behind it is routed next.
template <class R, class L>
void Engine<R, L>::discard_unroutable(Worker& w, uint32_t c) {
  Router& rt = w.router;
  const QEntry e = rt.pop(c);
  const ps_t out = read_out_discarded(w, c, e.units);
  discard(w, DropReason::no_route, e.m);
  if (rt.len(c))
    setup_head(w, c, out);
  else
    rt.remember_departure(c, w.now, out);
}

}  // namespace fabemu
