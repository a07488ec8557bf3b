// Faults (FabricFault, link/fault.h; control/run/fault_plan.h expands a
// spec's or the control socket's fault into them) as one worker applies
// them at a window edge, doing the part it owns:
//  - a dead port's output discards what the router grants it (BlackWidow
//    §7.7: "the sending port [discards] any packets destined to the dead
//    port"), and its link's retransmit buffer is lost;
//  - the far input loses what was still on the wire (its tail had not come
//    by the fault's instant); an endpoint port loses the endpoint's link
//    both ways, and what the endpoint injects into it is discarded;
//  - a dead router loses what its buffers held;
//  - a packet the reprogrammed tables give no output is discarded at its
//    router (no_route; router/input_discard.h);
//  - bit errors, lanes (lane_control.h) and stopped sinks
//    (progress_timer.h) go to the components that own them;
//  - with two-hop recovery (recovery_memory.h) a dead link's sender sends
//    what its recovery memory holds again, unless its own router died.
// Every such packet is counted with its reason (DropReason) and its credits
// go back as if it had left, so credits stay conserved and the run drains.
//
// LinkFaults owns the faults' state of one worker (the next scheduled
// fault, those given while running it has taken, per output when its link
// went down, the packets lost) and the behaviour; the rest of the run it
// reaches through a host H given to each call (FaultHost below; the
// engine's is Engine::LinkHop): every call inlines, nothing virtual. What a
// fault does inside a router input's buffers is the router model's side
// (router/input_discard.h), asked through the host.
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/link/fault.h"
#include "dataplane/link/fault_inbox.h"
#include "dataplane/link/lane_control.h"
#include "dataplane/link/lanes.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_retry.h"
#include "dataplane/link/progress_timer.h"
#include "dataplane/link/recovery_memory.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The services of the run the faults use, for one worker (beyond those of
// the lanes, link-level retry and the forward-progress timer, whose
// components they reach).
template <class H>
concept FaultHost = LaneControlHost<H> && ProgressTimerHost<H> &&
    requires(H& h, uint32_t i, DropReason why) {
  { h.lanes() } -> std::same_as<LaneControl&>;
  { h.progress() } -> std::same_as<ForwardProgressTimer&>;
  // The router model: output i's link died (what waits for it goes now,
  // discarded); input i lost its link (what had not wholly arrived is lost);
  // router i stopped (what is inside it is lost); input channel i loses
  // all it holds; what waits at output i's VC is lost.
  h.output_dead(i);
  h.lose_arriving(i);
  h.flush_inside(i, why);
  h.lose_channel(i, why);
  h.flush_output(i, i, why);
  // Two-hop recovery (recovery_memory.h): on; output i's link died (its
  // router too: true); a fault at t may duplicate what is in flight.
  { h.recovery_on() } -> std::same_as<bool>;
  h.recovery_link_down(i, true);
  h.recovery_fault(ps_t{0});
};

// Where a worker's faults apply: the fabric, where its routers are and
// which faults there are.
struct FaultScope {
  const Fabric* fabric = nullptr;
  const std::vector<uint16_t>* router_worker = nullptr;  // [global router] its worker
  const std::vector<uint32_t>* router_local = nullptr;   // [global router] its index there
  int worker = 0;
  uint32_t max_ports = 0, nv = 0;
  const std::vector<FabricFault>* scheduled = nullptr;  // sorted by `at`
  FaultInbox* inbox = nullptr;                          // those given while running
};

class LinkFaults {
 public:
  // Virtual time: how many faults given while running this worker may take
  // at its next window edge (what worker 0 read, WindowCounts::rt_faults).
  uint32_t rt_upto = 0;
  uint64_t lost = 0;  // packets lost to faults (the drain counts them)

  // For a worker of `outputs` outputs.
  void init(const FaultScope& scope, size_t outputs) {
    s_ = scope;
    down_since_.assign(outputs, kNever);
    router_dead_.assign(scope.max_ports ? outputs / scope.max_ports : 0, 0);
  }
  // When the next scheduled fault is due (kNever: none is left).
  ps_t next_at() const { return next_ < s_.scheduled->size() ? (*s_.scheduled)[next_].at : kNever; }
  // Per output, when its link went down (kNever: up).
  const std::vector<ps_t>& down_since() const { return down_since_; }

  // At a window edge at emulated time `now` (h.now() is no earlier): the
  // scheduled faults whose time has come, then those given while running,
  // up to `upto` of them (virtual time: every worker takes the same ones at
  // the same edge).
  template <class H>
  void apply(H& h, ps_t now, uint32_t upto);
  template <class H>
  void apply(H& h, const FabricFault& f);
  // Output o's link dies or comes back; input i's (numbered like outputs).
  template <class H>
  void set_output_dead(H& h, uint32_t o, bool down);
  template <class H>
  void set_input_dead(H& h, uint32_t i, bool down);
  // Local router lr stopped.
  template <class H>
  void flush_router(H& h, uint32_t lr);

  // n packets lost, counted in st under `why` (the drain waits for them no
  // more).
  void lose(RunStats& st, DropReason why, uint64_t n) {
    st.drops[static_cast<int>(why)] += n;
    lost += n;
  }
  // Packet m discarded (by a fault, or link.retry_limit gave up): lost and
  // freed; but a damaged copy that had moved on marked (link-level retry)
  // was never a packet of its own: it goes as its destination would have
  // discarded it. A copy two-hop recovery sent again counts as resent-lost.
  void discard(RunStats& st, RecoveryCounters& recovery, DropReason why, rte_mbuf* m) {
    const uint8_t flags = meta(m)->flags;
    if (flags & kPktTransmitError) [[unlikely]]
      st.transmit_error_discards++;
    else
      lose(st, why, 1);
    if ((flags & kPktResent) && why != DropReason::duplicate) [[unlikely]]
      recovery.resent_lost++;
    rte_pktmbuf_free(m);
  }

 private:
  FaultScope s_;
  size_t next_ = 0;       // the next scheduled fault
  uint32_t rt_seen_ = 0;  // faults given while running already applied
  std::vector<ps_t> down_since_;
  std::vector<uint8_t> router_dead_;  // [local router] flushed, no port up since
};

template <class H>
void LinkFaults::apply(H& h, ps_t now, uint32_t upto) {
  static_assert(FaultHost<H>);
  const std::vector<FabricFault>& scheduled = *s_.scheduled;
  while (next_ < scheduled.size() && scheduled[next_].at <= now) apply(h, scheduled[next_++]);
  const uint32_t n = std::min(upto, s_.inbox->count());
  if (n <= rt_seen_) return;
  const std::vector<FabricFault> fresh = s_.inbox->take(rt_seen_, n, s_.worker == 0, h.now());
  rt_seen_ = n;
  for (const FabricFault& f : fresh) apply(h, f);
}

template <class H>
void LinkFaults::apply(H& h, const FabricFault& f) {
  if (f.router < 0 || size_t(f.router) >= s_.router_worker->size()) return;
  const bool mine = (*s_.router_worker)[f.router] == s_.worker;
  if ((f.op == FabricFault::Op::port_down || f.op == FabricFault::Op::router_flush) &&
      h.recovery_on()) [[unlikely]]
    h.recovery_fault(f.at);  // (every worker: its destinations may see duplicates)
  const uint32_t local = (*s_.router_local)[f.router];
  if (f.op == FabricFault::Op::router_flush) {
    if (mine) flush_router(h, local);
    return;
  }
  const uint32_t o = local * s_.max_ports + uint32_t(f.port);
  const uint64_t link = uint64_t(f.router) * s_.max_ports + uint32_t(f.port);
  if (f.op == FabricFault::Op::lane_down || f.op == FabricFault::Op::lane_up ||
      f.op == FabricFault::Op::lane_ber) {  // the sender's, one direction (lane_control.h)
    if (mine && h.lanes_on()) {
      LaneFault lf;
      lf.op = f.op == FabricFault::Op::lane_down ? LaneFault::Op::down
              : f.op == FabricFault::Op::lane_up ? LaneFault::Op::up
                                                 : LaneFault::Op::ber;
      lf.lane = f.lane;
      lf.ber = f.ber;
      lf.streams = 0x4C414E0000000000ull + link * kMaxLanes;
      lf.link_alive = f.link_alive;
      h.lanes().apply_fault(h, o, lf);
    }
    return;
  }
  const FabricPort& fp = s_.fabric->routers[size_t(f.router)].ports[size_t(f.port)];
  if (f.op == FabricFault::Op::ber) {
    if (LinkRetry* retry = h.retry(); mine && retry)
      retry->set_ber(o, f.ber, 0x4C434200000000ull + link);
    return;
  }
  if (f.op == FabricFault::Op::sink_stop || f.op == FabricFault::Op::sink_start) {
    if (mine) h.progress().set_sink(h, o, f.op == FabricFault::Op::sink_stop);
    return;
  }
  const bool down = f.op == FabricFault::Op::port_down;
  if (mine) {
    set_output_dead(h, o, down);
    if (fp.endpoint >= 0) set_input_dead(h, o, down);  // the endpoint's link, both ways
    if (!down && h.lanes_on()) h.lanes().retrain(h, o);
  }
  if (fp.peer_router >= 0 && (*s_.router_worker)[fp.peer_router] == s_.worker)
    set_input_dead(h, (*s_.router_local)[fp.peer_router] * s_.max_ports + uint32_t(fp.peer_port),
                   down);
}

template <class H>
void LinkFaults::set_output_dead(H& h, uint32_t o, bool down) {
  OutLink& ol = h.out(o);
  if (ol.dead == down) return;
  ol.dead = down;
  LinkStats& ls = h.link_stats(ol.stats);
  const uint32_t lr = o / s_.max_ports;
  if (!down) {
    ls.down_ps += h.now() - down_since_[o];
    down_since_[o] = kNever;
    router_dead_[lr] = 0;
    return;
  }
  ls.went_down++;
  down_since_[o] = h.now();
  // What the retransmit buffer still holds never reached the far end.
  if (LinkRetry* retry = h.retry()) retry->lose_window(h, o);
  // Two-hop recovery: what the recovery memory holds is sent again.
  if (h.recovery_on()) [[unlikely]]
    h.recovery_link_down(o, router_dead_[lr] != 0);
  // Its requesters are granted and discarded (the router model's grant).
  h.output_dead(o);
}

template <class H>
void LinkFaults::set_input_dead(H& h, uint32_t i, bool down) {
  InLink& in = h.in(i);
  LinkRetry* retry = h.retry();
  if (retry && in.up_router >= 0) retry->restart_receiver(h, i);  // numbering starts again
  if (in.dead == down) return;
  in.dead = down;
  if (down) h.lose_arriving(i);
}

// Every packet in router lr's input buffers and output queues (the tiled
// router: and in its tiles, first, so that the input buffers' credits come
// back in time order) is lost. A damaged copy at the back of an input's
// buffers (link-level retry) goes first as if it had not come: it was never
// good, and its sender still holds the packet and its credits.
template <class H>
void LinkFaults::flush_router(H& h, uint32_t lr) {
  router_dead_[lr] = 1;
  h.flush_inside(lr, DropReason::lost_in_dead_router);
  LinkRetry* retry = h.retry();
  for (uint32_t p = 0; p < s_.max_ports; p++) {
    const uint32_t o = lr * s_.max_ports + p;
    if (retry && h.in(o).up_router >= 0) retry->excise_damaged(h, o);
    for (uint32_t v = 0; v < s_.nv; v++) {
      h.lose_channel(o * s_.nv + v, DropReason::lost_in_dead_router);
      h.flush_output(o, v, DropReason::lost_in_dead_router);
    }
  }
}

}  // namespace fabemu
