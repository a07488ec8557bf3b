// The routing stage of the routers one worker owns: the routing function
// (R, routing_policy.h) gives the head of an input its candidates, adaptive
// selection (selection.h) picks one on the state of the router's output VCs
// (their credits, and the units routed to them and not yet sent), and the
// packet is ready for its output once through the router pipeline. The
// router model asks for it through its host (route_head) and gets the
// routed head back (head_routed, router/router_model.h).
//
// It owns what only routing reads: the window's routing tables
// (table_slot.h), each router's random stream, the units routed to each
// output VC, and a greedy allocator's snapshot of them (greedy_snapshot.h).
// The host H (the engine's router host) gives time, the links and their
// credits, the router model, and what becomes of a packet with no route.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/core/divisor.h"
#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/rng.h"
#include "dataplane/link/link.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/router_event.h"
#include "dataplane/router/router_shape.h"
#include "dataplane/routing/greedy_snapshot.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/routing/selection.h"
#include "dataplane/routing/table_slot.h"

namespace fabemu {

template <class R, class Router>
class RouteStage {
 public:
  using Tables = typename R::Tables;

  typename TableSlot<Tables>::Reader tables;  // this window's (attached before init)
  // Some router's inputs are slower than one of its outputs (link/link_wiring.h,
  // or a lane change): a cut-through start waits for the packet's own tail.
  bool mixed_rates = false;

  struct Shape {
    const Fabric* fabric;
    uint32_t nv, max_ports;
    const uint32_t* cap;  // buffer units per VC
    ps_t cycle_ps;        // a greedy allocator's cycle (its snapshot lasts one)
    uint64_t seed;
  };
  void init(const Shape& s, const std::vector<int32_t>& routers) {
    f_ = s.fabric;
    nv_ = s.nv;
    max_ports_ = s.max_ports;
    nv_div_ = Divisor(s.nv);
    ports_div_ = Divisor(s.max_ports);
    cap_ = s.cap;
    cycle_ps_ = s.cycle_ps;
    rng_.clear();
    for (int32_t r : routers) rng_.emplace_back(s.seed, 0x524f555445000000ull + uint64_t(r));
    const size_t entries = routers.size() * max_ports_ * nv_;
    pending_.assign(entries, 0);
    greedy_ = policy_allocator<R>(*tables.tables) == Allocator::greedy;
    if (greedy_) snap_.init(routers.size(), entries, Router::kLazySnapshot);
  }

  const Tables& t() const { return *tables.tables; }
  int32_t table_router(int32_t r) const { return f_->table_router(r); }
  // The pipeline of global router r from input port p to output port q.
  ps_t pipeline_ps(int32_t r, uint32_t p, uint32_t q) const {
    return R::pipeline_ps(t(), table_router(r), static_cast<uint8_t>(p), static_cast<uint8_t>(q));
  }

  // The routing function's view of local router lr: its random stream and
  // the state of its outputs' VCs now.
  template <class H>
  RoutingContext context(H& h, uint32_t lr) {
    const uint32_t o0 = lr * max_ports_;
    return RoutingContext{&rng_[lr], QueueView(h.vcs(o0), nv_, cap_, h.now(),
                                               &pending_[size_t(o0) * nv_])};
  }

  // Packet pm enters input channel c: a decision the policy makes then
  // (R::on_enter), where it has one.
  template <class H>
  __attribute__((always_inline)) void on_enter(H& h, uint32_t c, PacketMeta& pm) {
    if constexpr (requires(RoutingContext& ctx) {
                    R::on_enter(t(), ctx, int32_t{}, uint8_t{}, pm);
                  }) {
      const Router& rt = h.router();
      const uint32_t lr = rt.router_of_channel(c);
      RoutingContext ctx = context(h, lr);
      R::on_enter(t(), ctx, table_router(h.global_router(lr)),
                  static_cast<uint8_t>(rt.port_of_channel(c)), pm);
    }
  }

  // Input channel c has a new head: it is routed. An adaptive choice is
  // made with the state of the moment its head arrives (a route event when
  // that is later than now); a deterministic one at once. not_before: the
  // previous packet's tail leaves the buffer then (0: nothing ahead).
  template <class H>
  __attribute__((always_inline)) void route_head(H& h, uint32_t c, ps_t not_before) {
    Router& rt = h.router();
    QEntry& e = rt.head(c);
    // A model may route a head itself: a wormhole router's flits follow their
    // worm's head (router/input_queued_islip.h).
    if constexpr (requires { rt.route_follower(h, c, e, not_before); }) {
      if (rt.route_follower(h, c, e, not_before)) return;
    }
    if (!candidates(h, c, e)) return;
    if (rc_.adaptive && rc_.count > 1 && e.arrive > h.now()) {
      h.schedule(event_at(e.arrive, H::kind(RouterEvent::route), c));
      return;
    }
    finish(h, c, e, not_before);
  }
  // The route event of channel c: its head arrived. gone_possible: link-level
  // retry or a fault may have taken the head meanwhile.
  template <class H>
  void on_route_event(H& h, uint32_t c, bool gone_possible) {
    Router& rt = h.router();
    QEntry& q = rt.head(c);
    if (gone_possible && (rt.len(c) == 0 || q.routed)) return;
    if (candidates(h, c, q)) finish(h, c, q, 0);
  }

  // Units routed to output o's VC v and not yet sent (what adaptive
  // selection sees beyond the credits); their credits are about to change
  // (keep: the snapshot's value first).
  template <class H>
  __attribute__((always_inline)) void route_units(H& h, uint32_t o, uint32_t v, uint32_t units) {
    keep(h, o, v);
    pending_[size_t(o) * nv_ + v] += units;
  }
  template <class H>
  __attribute__((always_inline)) void unroute_units(H& h, uint32_t o, uint32_t v, uint32_t units) {
    keep(h, o, v);
    pending_[size_t(o) * nv_ + v] -= units;
  }
  // The queue of output o's VC v (its credits or units routed to it) is
  // about to change: a greedy router deciding on a lazy snapshot keeps its
  // value.
  template <class H>
  __attribute__((always_inline)) void keep(H& h, uint32_t o, uint32_t v) {
    if constexpr (!Router::kLazySnapshot) return;  // (its snapshot is a copy)
    if (!greedy_) return;
    const uint32_t lr = ports_div_.div(o);
    snap_.keep(lr, size_t(o) * nv_ + v, h.now(), [&](ps_t at) {
      const size_t q0 = size_t(lr) * max_ports_ * nv_;
      const QueueView then(h.vcs(lr * max_ports_), nv_, cap_, at, &pending_[q0]);
      return then.live_queue(o - lr * max_ports_, v);
    });
  }

 private:
  // The routing function's candidates for the head of channel c, in rc_;
  // false when it has none (the host has the packet then).
  template <class H>
  bool candidates(H& h, uint32_t c, const QEntry& e) {
    const Router& rt = h.router();
    const uint32_t lr = rt.router_of_channel(c);
    const int32_t r = h.global_router(lr);
    const uint8_t p = static_cast<uint8_t>(rt.port_of_channel(c));
    const PacketMeta* pm = meta(e.m);
    rc_.count = 0;
    rc_.adaptive = false;
    rc_.up_after_down = false;
    RoutingContext ctx = context(h, lr);
    R::route(t(), ctx, table_router(r), p, *pm, rc_);
    if (rc_.count != 0) return true;
    // A policy that refuses packets itself (the 3D mesh's turn check) says why.
    const DropReason why = policy_refusal<R>(t(), table_router(r), p, *pm);
    if (!h.unroutable(c, lr, e.m, why))
      h.fail("no route at router " + std::to_string(r) + " for a packet to endpoint " +
             std::to_string(pm->dst) + " (routing tables are incomplete)");
    return false;
  }

  // Selects among rc_'s candidates and hands the routed head to the router
  // model with the time it is through the router pipeline.
  template <class H>
  void finish(H& h, uint32_t c, QEntry& e, ps_t not_before) {
    Router& rt = h.router();
    const uint32_t lr = rt.router_of_channel(c), p = rt.port_of_channel(c);
    const int32_t r = h.global_router(lr);
    PacketMeta* pm = meta(e.m);
    const uint32_t o0 = lr * max_ports_;
    if (rc_.up_after_down) [[unlikely]]  // counted at the link it came down (report.cpp)
      h.link_stats(h.in(nv_div_.div(c)).stats).down_route_violations++;
    const bool choose = rc_.adaptive && rc_.count > 1;
    // (A model may make an adaptive choice itself, as the tiled router does in
    // two stages: c[0] stands for the candidates until it has.)
    const RouteCandidate pick = !Router::kChoosesAdaptively && choose
                                    ? select_candidate(rc_, selection_view(h, lr), e.units)
                                    : rc_.c[0];
    pm->out_port = pick.port;
    pm->out_vc = pick.vc;
    pm->out_note = pick.note;
    e.out_port = pick.port;
    e.out_vc = pick.vc;
    e.routed = 1;
    ps_t ready = e.arrive + pipeline_ps(r, p, pick.port);
    if (mixed_rates) [[unlikely]] {
      // Cut-through onto a faster link cannot outrun the packet's own tail on
      // the slower link it arrives on: it starts no earlier than that tail
      // allows (its credits then stream back no faster than it arrived).
      const ps_t in_unit = h.in(o0 + p).unit_ps, out_unit = h.out(o0 + pick.port).unit_ps;
      if (in_unit > out_unit) ready = std::max(ready, e.arrive + e.units * (in_unit - out_unit));
    }
    rt.head_routed(h, RoutedHead{c, lr, p, rt.vc_of_channel(c)}, e, rc_, ready, not_before);
  }

  // The queue state an adaptive selection at local router lr sees: live
  // (sequential allocation: every decision before this one counts), or the
  // router's snapshot of its current allocation cycle (greedy: decisions in
  // the same cycle do not see each other), begun by the cycle's first
  // decision.
  template <class H>
  QueueView selection_view(H& h, uint32_t lr) {
    const uint32_t o0 = lr * max_ports_;
    const size_t q0 = size_t(o0) * nv_;
    const SenderVc* vcs = h.vcs(o0);
    const ps_t now = h.now();
    const QueueView live(vcs, nv_, cap_, now, &pending_[q0]);
    if (!greedy_) return live;
    const ps_t cycle_end = (now / cycle_ps_ + 1) * cycle_ps_;
    if constexpr (!Router::kLazySnapshot) {  // a plain copy (GreedySnapshot::kLazyDecisions says why)
      uint32_t* copy = snap_.copy(q0);
      if (snap_.begin_copy(lr, now, cycle_end))
        for (uint32_t p = 0; p < max_ports_; p++)
          for (uint32_t v = 0; v < nv_; v++) copy[size_t(p) * nv_ + v] = live.queue(p, v);
      return QueueView::of_queues(copy, nv_, cap_, now);
    }
    if (snap_.begin(lr, now, cycle_end)) {  // keep the rest now (GreedySnapshot::begin)
      const QueueView then(vcs, nv_, cap_, snap_.at(lr), &pending_[q0]);
      for (uint32_t p = 0; p < max_ports_; p++)
        for (uint32_t v = 0; v < nv_; v++) {
          const size_t q = q0 + size_t(p) * nv_ + v;
          if (!snap_.kept(lr, q)) snap_.put(lr, q, then.live_queue(p, v));
        }
    }
    return QueueView::snapshot(vcs, nv_, cap_, now, &pending_[q0], snap_.at(lr), snap_.saved(q0),
                               snap_.stamps(q0), snap_.gen(lr));
  }

  const Fabric* f_ = nullptr;
  uint32_t nv_ = 0, max_ports_ = 0;
  Divisor nv_div_, ports_div_;
  const uint32_t* cap_ = nullptr;
  ps_t cycle_ps_ = 1;
  bool greedy_ = false;  // greedy allocation (routing_policy.h): the snapshot
  std::vector<Rng> rng_;           // local router -> its routing random stream
  std::vector<uint32_t> pending_;  // [output * nv + vc]: units routed there and not yet sent
  GreedySnapshot snap_;
  RouteCandidates rc_;
};

}  // namespace fabemu
