// Engine<R, Link>: wires the components of one run together and runs them.
//
//   sim/       the kernel: timing wheel, worker windows, real-time clock
//              (its host: engine_kernel_host.h)
//   router/    the router model R names (router/router_model.h), chosen at
//              compile time; it owns its allocation and reaches the rest of
//              the run through a RouterHost (engine_router_host.h)
//   link/      OutLink / InLink: serialization, wire, credits; LinkRetry,
//              LaneControl, LinkFaults (their host: engine_link_host.h);
//              TwoHopRecovery
//   routing/   RouteStage: R (the routing policy, chosen at compile time),
//              adaptive selection, the router pipeline's delay
//   endpoint/  Endpoints: traffic sources, source queues, injection,
//              reassembly, replies (their Host: engine_endpoint.h)
//   ethernet/  Bridge: ports and the learning bridge (its Host: engine_frames.h)
//   barrier/   BarrierNetwork: the T3E's barrier/eureka registers and packets
//              (its host: engine_barrier_host.h)
//   stats/     counters and histograms
//
// Each worker core owns a set of routers (and the endpoints attached to
// them) outright. A fabric link whose two routers live on different workers
// is a pair of SPSC rte_rings carrying packet arrivals one way and credit
// returns the other, each stamped with its emulated time. Workers advance in
// windows no longer than the smallest cross-core lookahead (conservative
// parallel discrete-event simulation, sim/window_kernel.h: wire, plus
// pipeline or credit latency, cross_core_lookahead()), so a run is
// deterministic for a given seed and placement.
//
// Few events per hop: a link that grants a packet enters it into the input
// FIFO at the far end at once, stamped with its arrival time, and (when it
// is the head) routes it there and then; the only event of the hop is the
// output's wake-up when the packet is ready and the link free. Credits are
// written into the upstream counter as a stream when downstream grants the
// packet; an output is woken only when it was waiting for them.
#pragma once
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/core/divisor.h"
#include "dataplane/core/eal.h"
#include "dataplane/endpoint/endpoints.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/engine/engine_core.h"
#include "dataplane/engine/engine_factory.h"
#include "dataplane/engine/engine_memory.h"
#include "dataplane/engine/event_kinds.h"
#include "dataplane/ethernet/bridge.h"
#include "dataplane/ethernet/eth_port.h"
#include "dataplane/link/credit_audit.h"
#include "dataplane/link/go_back_n.h"
#include "dataplane/link/lane_control.h"
#include "dataplane/link/two_hop_recovery.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_channel.h"
#include "dataplane/link/link_counters.h"
#include "dataplane/link/link_faults.h"
#include "dataplane/link/link_numbering.h"
#include "dataplane/link/link_retry.h"
#include "dataplane/link/link_send.h"
#include "dataplane/link/progress_timer.h"
#include "dataplane/router/input_discard.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/router_input.h"
#include "dataplane/router/router_model.h"
#include "dataplane/router/router_sizing.h"
#include "dataplane/router/stranded.h"
#include "dataplane/routing/route_stage.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/routing/table_slot.h"
#include "dataplane/sim/kernel_worker.h"
#include "dataplane/sim/realtime_kernel.h"
#include "dataplane/sim/timing_wheel.h"
#include "dataplane/sim/window_kernel.h"
#include "dataplane/sim/worker_threads.h"
#include "dataplane/stats/live_board.h"
#include "dataplane/stats/window_counts.h"

namespace fabemu {

template <class R, class LinkLayer = NoLinkLayer>
class Engine final : public EngineCore {
 public:
  using Tables = typename R::Tables;
  using Router = typename RouterModelOf<R>::type;

  Engine(Tables tables, const Fabric& fabric, const EngineConfig& cfg)
      : EngineCore(fabric, cfg), tables_(std::make_shared<const Tables>(std::move(tables))) {}

  RunStats run() override;

  // New routing tables (routing/table_slot.h): publish_tables from any
  // thread while running, adopted by each worker at its next window edge;
  // schedule_tables before run(), adopted by every worker at emulated time
  // `at` (a window edge falls there); false once run() has begun.
  void publish_tables(std::shared_ptr<const Tables> t) { tables_.publish(std::move(t)); }
  bool schedule_tables(std::shared_ptr<const Tables> t, ps_t at) {
    return tables_.schedule(std::move(t), at);
  }

 private:
  static constexpr uint16_t kEndpointPort = 0xFFFF;  // credit events for an endpoint

  // The kernel's part of a worker (its events, time, rings and counters:
  // sim/kernel_worker.h) and the components'.
  struct Worker : KernelWorker {
    PacketPool pool;
    FreeLater free_later;               // delivered packets, freed a few deliveries on
    Router router;                      // every router this worker owns (their model)
    std::vector<int32_t> routers;       // local router -> global id
    // Routing: the window's tables, random streams, units routed to each
    // output VC and not yet sent, the greedy snapshot (routing/route_stage.h).
    RouteStage<R, Router> route;
    std::vector<OutLink> out;           // [output]
    std::vector<InLink> in;             // [output index of the input port]
    std::vector<SenderVc> vcs;          // [output * nv + vc]: credits, packets sent
    // Link-level retry (dataplane/link/link_retry.h): per output the
    // go-back-N sender and its bit errors, per input the receiver.
    LinkRetry retry;
    // Lanes of its router links (dataplane/link/lane_control.h; set up only
    // when they can change).
    LaneControl lanes;
    // Faults (dataplane/link/link_faults.h; set up only with faults).
    LinkFaults faults;
    // Virtual time: the routing tables this worker may adopt at its next
    // window edge (WindowCounts::tables_generation).
    uint64_t tables_upto = 0;
    // The forward-progress timer and stopped sinks
    // (dataplane/link/progress_timer.h; set up only with faults).
    ForwardProgressTimer progress;
    Endpoints eps;                      // the endpoints of its routers (endpoint/endpoints.h)
    RunStats st;
    Bridge bridge;        // its ports and copy of the MAC table (ethernet/bridge.h)
    BarrierNetwork barriers;  // its routers' BSU registers (barrier/barrier_network.h)
    CaptureRecorder capture;  // records what crosses its tapped links and ports (capture_tap.h)
    // Two-hop recovery (dataplane/link/two_hop_recovery.h; set up only with
    // link.recovery two_hop): its outputs' memories, its endpoints' filter.
    TwoHopRecovery recovery;
  };

  // ---- setup (engine_setup.h; the rest in engine_core.cpp) ------------------
  bool setup(std::string* err);
  ps_t cross_core_lookahead(const FabricPort& link) const;
  bool setup_worker(Worker& w, std::string* err);

  // ---- dispatch, and a hop's shared entries (engine_hop.h) ------------------
  void dispatch(Worker& w, const Event& e);
  // late: from another core, taken at a window edge after its arrival.
  void enter_input(Worker& w, uint32_t c, rte_mbuf* m, ps_t arrive, bool late = false);
  void add_credit_stream(Worker& w, uint32_t o, uint32_t v, uint32_t units, ps_t first, ps_t every,
                         bool resumed = false);
  // A credit stream whose counter cannot take it yet is delivered at its
  // first credit (a = output, or endpoint with port kEndpointPort).
  void defer_credit_stream(Worker& w, uint32_t a, uint16_t port, uint32_t v, uint32_t units,
                           ps_t first, ps_t every) {
    w.wheel.push(credit_event(event_kind(LinkEvent::credit), a, port, v, units, first, every));
  }
  // Output o must look again at t (its router model says how).
  void arm_wake(Worker& w, uint32_t o, ps_t t) {
    Hop host{*this, w};
    w.router.arm_output(host, o, t);
  }
  // The router model's host (engine_router_host.h).
  struct Hop;

  // ---- link-level retry (dataplane/link/link_retry.h) ------------------------
  // The link component's host (engine_link_host.h).
  struct LinkHop;
  static constexpr uint32_t kMaxBitErrorsKept = LinkRetry::kMaxBitErrorsKept;
  // What the router model asks of it (engine_router_host.h).
  bool lcb_window_full(Worker& w, uint32_t o, ps_t* until) {
    return w.retry.window_full(o, w.now, until);
  }
  bool lcb_damaged_head(Worker& w, uint32_t c, bool* withhold) {
    LinkHop host{{*this, w}};
    return w.retry.damaged_head(host, c, withhold);
  }

  // ---- two-hop recovery (dataplane/link/two_hop_recovery.h) ----------------
  // Compiled in only where the routing can route from any router (the 3D
  // mesh's): the other engines' hops pay nothing for it.
  static constexpr bool kRecovery = policy_reroutes<R>;
  bool recovering() const { return kRecovery && recovery_; }
  // After a fault, a packet at local router lr its route cannot take on
  // is sent again from there (true) rather than discarded.
  bool reroutes(const Worker& w, DropReason why) const {
    return recovering() && w.recovery.reroutes(why);
  }
  void recovery_resend(Worker& w, uint32_t lr, rte_mbuf* m);  // (TwoHopRecovery::resend)

  // ---- faults (dataplane/link/link_faults.h; router/input_discard.h) ---------
  // At a window edge at emulated time `now` (engine_link_host.h).
  void apply_faults(Worker& w, ps_t now, uint32_t rt_upto = UINT32_MAX);
  ps_t next_fault_at(const Worker& w) const { return faults_ ? w.faults.next_at() : kNever; }
  void discard_at_dead_port(Worker& w, rte_mbuf* m, DropReason why = DropReason::dead_port) {
    discard(w, why, m);
  }
  // A packet a fault discards (LinkFaults::discard).
  void discard(Worker& w, DropReason why, rte_mbuf* m) {
    w.faults.discard(w.st, w.recovery.counters(), why, m);
  }

  // ---- endpoints (endpoint/endpoints.h; their Host: engine_endpoint.h) ------
  struct EndpointHost;
  void add_ep_credit_stream(Worker& w, uint32_t e, uint32_t v, uint32_t units, ps_t first,
                            ps_t every, bool resumed = false);

  // ---- the bridge (ethernet/bridge.h; its Host: engine_frames.h) --------------
  struct BridgeHost;
  // ---- barrier/eureka networks (barrier/barrier_network.h) ------------------
  struct BarrierHost;
  void note_undelivered(rte_mbuf* m);

  // ---- the forward-progress timer and capture taps (dataplane/link/) -------
  // Out of line where the event dispatch or a grant calls them: the host
  // each makes for its component stays off the hot path's frame.
  void check_progress(Worker& w);
  void capture_packet(Worker& w, uint32_t link, const rte_mbuf* m, ps_t t, uint8_t vc,
                      uint64_t seq);
  void capture_frame(Worker& w, uint32_t b, const uint8_t* frame, uint32_t avail, uint32_t len,
                     CaptureDir dir);
  // Packets sent on router output o so far (its link's sequence number).
  uint64_t output_packets(const Worker& w, uint32_t o) const {
    uint64_t n = 0;
    for (uint32_t v = 0; v < nv_; v++) n += w.vcs[size_t(o) * nv_ + v].packets;
    return n;
  }

  // ---- the run (engine_run.h; the kernel's host: engine_kernel_host.h) -------
  // Every packet buffer a worker still holds: input buffers, source queues,
  // pending events and events received from other cores.
  template <class F>
  void for_each_packet_left(Worker& w, F&& f) {
    w.router.for_each_packet(f);
    w.eps.for_each_queued(f);
    auto packet_event = [&](const Event& ev) {
      if (ev.m && (ev.kind == event_kind(LinkEvent::remote_arrive) ||
                   ev.kind == event_kind(EndpointEvent::deliver)))
        f(ev.m);
    };
    w.wheel.for_each(packet_event);
    for (const Event& ev : w.inbox) packet_event(ev);
    w.retry.for_each_held(f);
    w.progress.for_each_held(f);
  }
  void send_remote(Worker& w, const Event& ev, uint32_t dest_worker) {
    w.send_remote(ev, dest_worker);
  }
  void apply_remote(Worker& w, Event& ev);
  void add_busy(ps_t& busy, ps_t start, ps_t dur) const {
    const ps_t a = std::max(start, measure_start_), b = std::min(start + dur, measure_end_);
    if (b > a) busy += b - a;
  }
  void fold_link_counters(Worker& w);
  void fail(Worker& w, const std::string& why) {
    if (!w.failed) {
      w.failed = true;
      w.st.error = why;
    }
  }
  struct KernelHost;
  void run_worker(Worker& w);
  std::vector<KernelWorker*> kernel_workers() const {
    std::vector<KernelWorker*> ks;
    for (const auto& w : workers_) ks.push_back(w.get());
    return ks;
  }
  // ---- several ranks (sim/rank_link.h; engine_ranks.h) -------------------------
  // This process's workers (all of them without other ranks).
  bool is_local(const KernelWorker& w) const {
    return w.id >= local_first_ && w.id < local_first_ + local_count_;
  }
  std::vector<KernelWorker*> local_workers() const {
    std::vector<KernelWorker*> ks;
    for (const auto& w : workers_)
      if (is_local(*w)) ks.push_back(w.get());
    return ks;
  }
  // At a window edge, on this rank's first worker: every rank's publications
  // (pubs, by worker of the run) and the events staged for each other's
  // workers, exchanged. False when the job broke (the worker has failed).
  bool exchange_ranks(WindowPublication<WindowCounts>* pubs, uint8_t parity);
  // After the run: every rank's workers' counters into rank 0's stand-ins.
  bool gather_ranks(std::string* err);
  int local_first_ = 0, local_count_ = 1;
  std::vector<std::string> rank_out_, rank_in_;  // (kept: their capacity is reused)
  RunStats rank_models_;  // the other ranks' router-model totals (rank 0; merge adds them)
  std::string check_credits() const;
  std::string where_stranded();  // (engine_run.h)
  RunStats merge();              // (EngineCore::merge, and the router models' counters)
  void release();

  TableSlot<Tables> tables_;
  std::vector<std::unique_ptr<Worker>> workers_;
  // (What each worker publishes at a window edge beside the kernel's:
  // stats/window_counts.h.)
  WindowKernel<WindowCounts> windows_;
  RealtimeKernel realtime_;

  // Real time: what each worker publishes beside the kernel's
  // (sim/realtime_kernel.h), for worker 0's drain and live figures.
  LiveBoard live_;
};

template <class R>
std::unique_ptr<EngineBase> make_engine(typename R::Tables tables, const Fabric& fabric,
                                        const EngineConfig& cfg) {
  return std::make_unique<Engine<R>>(std::move(tables), fabric, cfg);
}

template <class R>
bool replace_tables(EngineBase& engine, typename R::Tables tables, ps_t at) {
  auto& e = static_cast<Engine<R>&>(engine);
  auto t = std::make_shared<const typename R::Tables>(std::move(tables));
  if (at != kNever) return e.schedule_tables(std::move(t), at);
  e.publish_tables(std::move(t));
  return true;
}

}  // namespace fabemu

#include "dataplane/engine/engine_barrier_host.h"
#include "dataplane/engine/engine_endpoint.h"
#include "dataplane/engine/engine_frames.h"
#include "dataplane/engine/engine_hop.h"
#include "dataplane/engine/engine_kernel_host.h"
#include "dataplane/engine/engine_link_host.h"
#include "dataplane/engine/engine_ranks.h"
#include "dataplane/engine/engine_router_host.h"
#include "dataplane/engine/engine_run.h"
#include "dataplane/engine/engine_setup.h"
