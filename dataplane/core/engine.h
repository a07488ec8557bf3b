// Engine<R>: the event engine for one routing policy R (see routing_policy.h).
//
// Each worker core owns a set of routers (and the endpoints attached to them)
// outright: their input buffers, output ports, credits, timing wheel, mbuf
// pool and counters. A fabric link whose two routers live on different
// workers is a pair of SPSC rte_rings carrying packet arrivals one way and
// credit returns the other, each stamped with its emulated time. Workers
// advance in windows no longer than the smallest cross-core link latency
// (conservative parallel discrete-event simulation), so a run is
// deterministic for a given seed and placement.
//
// Router model (the simple model of the foundation): input-queued, one FIFO
// per (input port, VC) holding whole packets, counted in flow units (phits or
// flits). The packet at the head of a FIFO is routed, crosses the router
// pipeline, then requests its output; the output arbitrates round-robin among
// ready requesters and grants a packet only when the downstream buffer has
// credits for all of it (virtual cut-through). A granted packet occupies the
// link for units x unit time; its head reaches the next router after the
// link's wire latency, and its credits return upstream when its tail has left
// the buffer, after the wire latency of the reverse direction.
#pragma once
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/core/credit_counter.h"
#include "dataplane/core/engine_base.h"
#include "dataplane/codec/codec.h"
#include "dataplane/core/rng.h"
#include "dataplane/core/routing_policy.h"
#include "dataplane/core/timing_wheel.h"
#include "dataplane/core/traffic.h"
#include "dataplane/ethernet/eth_port.h"
#include "dataplane/ethernet/ether.h"
#include "dataplane/ethernet/mac_table.h"

namespace fabemu {

// Sense-reversing spin barrier for the worker cores (no locks, no syscalls).
class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n) {}
  template <class WhileWaiting>
  void wait(WhileWaiting&& poll) {
    const int sense = sense_.load(std::memory_order_relaxed);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      count_.store(0, std::memory_order_relaxed);
      sense_.store(sense ^ 1, std::memory_order_release);
      return;
    }
    // Spin (the peer core normally arrives within microseconds); yield when
    // the cores are oversubscribed so the peer can run at all.
    for (uint32_t spins = 0; sense_.load(std::memory_order_acquire) == sense; spins++) {
      poll();
      if (spins < 4096)
        rte_pause();
      else
        sched_yield();
    }
  }
  void wait() {
    wait([] {});
  }

 private:
  const int n_;
  alignas(64) std::atomic<int> count_{0};
  alignas(64) std::atomic<int> sense_{0};
};

// A process-wide counter: DPDK object names (pools, rings) must be unique.
int next_engine_instance();
// Bytes that fill synthetic payloads (a fixed, recognisable pattern).
const uint8_t* synthetic_payload();

template <class R>
class Engine final : public EngineBase {
 public:
  using Tables = typename R::Tables;

  Engine(Tables tables, const Fabric& fabric, const EngineConfig& cfg)
      : tables_(std::move(tables)), f_(fabric), cfg_(cfg) {}

  RunStats run() override;

 private:
  struct QEntry {
    rte_mbuf* m;
    ps_t arrive;  // head arrival at this input
  };

  static constexpr int kReqWords = kMaxPorts * kMaxVcs / 64;

  struct OutPort {
    ps_t free_ps = 0;
    ps_t unit_ps = 0;
    ps_t wire_ps = 0;
    int32_t peer_router = -1;
    int32_t peer_endpoint = -1;
    uint16_t peer_port = 0;
    uint16_t peer_worker = 0;
    uint16_t rr = 0;    // round-robin pointer over requester indices
    uint16_t nreq = 0;  // requesters waiting
    uint32_t link = 0;  // index into the link statistics
    ps_t wake_ps = kNever;  // a pending wake-up for credits still streaming back
    CreditCounter credits[kMaxVcs];
    uint64_t req[kReqWords] = {};  // requester (in_port << vc_shift | vc) with a ready head
  };

  struct FrameSlot {
    uint64_t key = 0;   // (src << 32 | msg_seq) + 1; 0: free
    ps_t first_ps = 0;  // first segment's arrival
    uint16_t got = 0;
    uint16_t nseg = 0;
  };

  struct Endpoint {
    Rng rng;
    ps_t inj_free = 0;
    bool inj_event_pending = false;
    uint32_t msg_seq = 0;
    uint64_t pkt_seq = 0;
    ps_t wake_ps = kNever;
    CreditCounter credits[kMaxVcs];
    // Source queues: [0] requests, [1] responses (responses go first so a
    // reply never waits behind requests: the request-response deadlock).
    std::vector<rte_mbuf*> srcq[2];
    uint32_t srcq_head[2] = {0, 0};
    uint32_t srcq_len[2] = {0, 0};
    uint32_t link = 0;
    // Reassembly of multi-packet messages: (src, msg_seq) -> segments seen.
    std::vector<uint64_t> rkey;
    std::vector<uint16_t> rcount;
    uint32_t rused = 0;
    uint32_t srcq_bound = 0;  // packets the source queues may hold
    // Port-bound endpoints: frames being reassembled at egress. Slot i holds
    // segments fseg[i * seg_cap_ .. + nseg) in segment order.
    int32_t binding = -1;     // index into cfg_.ports, -1: synthetic endpoint
    std::vector<FrameSlot> fslot;
    std::vector<rte_mbuf*> fseg;
  };

  struct Worker {
    int id = 0;
    unsigned lcore = 0;
    TimingWheel wheel;
    rte_mempool* pool = nullptr;
    std::vector<QEntry> q;          // [channel * qcap + i]
    std::vector<uint16_t> qhead, qlen;
    std::vector<uint32_t> occ;      // units buffered per channel
    std::vector<OutPort> out;       // [router * max_ports + port]
    std::vector<Endpoint> ep;       // all endpoints; only owned ones used
    // Credit-conservation bookkeeping (cumulative, each written by one side).
    std::vector<uint64_t> out_sent, out_crecv;   // [out * nv + vc]
    std::vector<uint64_t> in_arrived, in_csent;  // [channel]
    std::vector<uint64_t> ep_sent, ep_crecv;     // [endpoint * nv + vc]
    std::vector<uint64_t> ep_delivered;          // [endpoint * nv + vc]
    RunStats st;
    std::vector<rte_ring*> tx;      // to worker w (nullptr for self)
    std::vector<rte_ring*> rx;      // from worker w
    std::vector<std::vector<Event>> outbox;  // staged per destination worker
    std::vector<Event> inbox;
    std::vector<rte_mbuf*> seg_scratch = std::vector<rte_mbuf*>(64);  // a message's segments
    ps_t now = 0;
    ps_t next_time = kNever;  // published at the window barrier
    bool failed = false;
    RouteCandidates rc;
    // Ports (real time): the devices this core polls, their transmit bursts,
    // the bridge table and a frame's bytes on their way into segments.
    std::vector<uint32_t> devices;           // indices into devices_
    std::vector<std::vector<rte_mbuf*>> txb; // per device index
    rte_mempool* tx_pool = nullptr;
    MacTable mac;
    std::vector<uint8_t> frame;
    bool generating = true;
    LatencyHistogram lateness_iv, frame_latency_iv;  // since the last progress tick
    uint64_t over_bound_iv = 0;
  };

  // One DPDK port and the bindings (endpoints) that share it.
  struct Device {
    uint16_t port_id = 0;
    uint16_t worker = 0;
    bool link_up = true;
    std::vector<uint32_t> bindings;
  };

  // ---- indexing -----------------------------------------------------------
  uint32_t ch(uint32_t r, uint32_t p, uint32_t v) const { return (r * max_ports_ + p) * nv_ + v; }
  uint32_t oi(uint32_t r, uint32_t p) const { return r * max_ports_ + p; }

  // ---- setup ----------------------------------------------------------------
  bool setup(std::string* err);
  bool setup_worker(Worker& w, std::string* err);
  void seed_traffic(Worker& w);

  // ---- event handlers -------------------------------------------------------
  void dispatch(Worker& w, const Event& e);
  void on_arrive(Worker& w, uint32_t r, uint16_t p, uint8_t v, rte_mbuf* m);
  void route_head(Worker& w, uint32_t r, uint16_t p, uint8_t v, ps_t not_before);
  void try_output(Worker& w, uint32_t r, uint16_t op);
  void grant(Worker& w, uint32_t r, uint16_t op, OutPort& o, uint32_t in_p, uint32_t in_v);
  void on_generate(Worker& w, uint32_t e);
  void make_message(Worker& w, uint32_t e, uint32_t dst, uint32_t bytes, uint8_t cls,
                    bool needs_reply, bool measured, ps_t gen_ps);
  void try_inject(Worker& w, uint32_t e);
  void on_deliver(Worker& w, uint32_t e, rte_mbuf* m);
  enum class Reassembly : uint8_t { partial, complete, overflow };
  Reassembly reassemble(Endpoint& ep, const PacketMeta& pm);
  enum class Enqueue : uint8_t { ok, queue_full, no_mbuf };
  Enqueue enqueue_message(Worker& w, uint32_t e, uint32_t dst, uint32_t bytes, uint8_t cls,
                          uint8_t flags, ps_t gen_ps, const uint8_t* payload, int32_t flow);

  // ---- Ethernet frames at port-bound endpoints (engine_frames.h) -------------
  bool setup_ports(std::string* err);
  void ingest_frame(Worker& w, const Device& dev, rte_mbuf* f);
  void send_frame(Worker& w, uint32_t from, uint32_t to, uint32_t len, uint16_t flow);
  void frame_segment(Worker& w, uint32_t e, rte_mbuf* m);
  void emit_frame(Worker& w, uint32_t e, rte_mbuf** segs, uint32_t nseg, ps_t gen_ps, uint8_t hops);
  void flush_tx(Worker& w);
  // Counters of binding b, zero, labelled with its name, device and endpoint.
  PortStats port_identity(uint32_t b) const {
    const PortEndpointConfig& pc = cfg_.ports[b];
    PortStats ps;
    ps.name = pc.name;
    ps.device = pc.device;
    ps.endpoint = static_cast<int32_t>(pc.endpoint);
    ps.port_id = pc.port_id;
    ps.vlan = pc.vlan;
    return ps;
  }
  void count_drop(Worker& w, uint32_t binding, FrameDrop why) {
    w.st.ports[binding].drops[static_cast<int>(why)]++;
  }
  void note_undelivered(rte_mbuf* m);
  // Every packet buffer a worker still holds: input buffers, source queues,
  // pending events and events received from other cores.
  template <class F>
  void for_each_packet_left(Worker& w, F&& f) {
    for (size_t c = 0; c < w.qlen.size(); c++)
      for (uint32_t i = 0; i < w.qlen[c]; i++) f(w.q[c * qcap_ + ((w.qhead[c] + i) & qmask_)].m);
    for (auto& ep : w.ep)
      for (int qi = 0; qi < 2; qi++) {
        const uint32_t qm = static_cast<uint32_t>(ep.srcq[qi].size()) - 1;
        for (uint32_t i = 0; i < ep.srcq_len[qi]; i++) f(ep.srcq[qi][(ep.srcq_head[qi] + i) & qm]);
      }
    auto packet_event = [&](const Event& ev) {
      if (ev.m && (ev.type == EventType::arrive || ev.type == EventType::ep_deliver)) f(ev.m);
    };
    w.wheel.for_each(packet_event);
    for (const Event& ev : w.inbox) packet_event(ev);
  }
  void drop_partial_frames(Worker& w);

  // ---- real time (engine_realtime.h) ------------------------------------------
  void worker_loop_realtime(Worker& w);
  void run_due_events(Worker& w, ps_t until);
  void publish_live(Worker& w, uint64_t tick);

  void schedule(Worker& w, const Event& ev, uint32_t dest_worker) {
    if (dest_worker == static_cast<uint32_t>(w.id)) {
      w.wheel.push(ev);
    } else {
      w.outbox[dest_worker].push_back(ev);
    }
  }
  // One pending wake-up per output: the earliest time it must look again.
  void arm_wake(Worker& w, uint32_t r, uint16_t op, OutPort& o, ps_t t) {
    if (t >= o.wake_ps) return;
    o.wake_ps = t;
    Event ev{};
    ev.t = t;
    ev.type = EventType::out_free;
    ev.a = r;
    ev.port = op;
    w.wheel.push(ev);
  }
  void add_busy(LinkStats& ls, ps_t start, ps_t dur) const {
    const ps_t a = std::max(start, measure_start_), b = std::min(start + dur, measure_end_);
    if (b > a) ls.busy_ps += b - a;
  }
  void fail(Worker& w, const std::string& why) {
    if (!w.failed) {
      w.failed = true;
      w.st.error = why;
    }
  }

  // ---- the run loop ---------------------------------------------------------
  static int worker_main(void* arg);
  void worker_loop(Worker& w);
  void flush_outbox(Worker& w);
  void drain_inbox(Worker& w);
  std::string check_credits() const;
  RunStats merge();

  Tables tables_;
  Fabric f_;
  EngineConfig cfg_;
  TrafficPattern pattern_;
  uint32_t nv_ = 0, vc_shift_ = 0, max_ports_ = 0, nrouters_ = 0, nep_ = 0;
  uint32_t qcap_ = 0, qmask_ = 0;
  int inst_ = 0;
  std::vector<uint32_t> cap_;           // buffer units per VC
  std::vector<uint16_t> router_worker_;
  std::vector<LinkStats> link_proto_;
  std::vector<uint32_t> out_link_;      // out index -> link index
  // What feeds each router input (r * max_ports + p): where its credits go
  // back to and the link whose statistics its buffer occupancy belongs to.
  struct InPort {
    int32_t up_router = -1;   // -1: an endpoint's injection link
    int32_t up_endpoint = -1;
    uint16_t up_port = 0;
    uint16_t up_worker = 0;
    ps_t up_wire_ps = 0;      // credits travel the reverse direction of that link
    uint32_t link = 0;
  };
  std::vector<InPort> in_;
  std::vector<uint32_t> ep_link_;       // endpoint -> injection link index
  ps_t measure_start_ = 0, measure_end_ = 0, gen_end_ = 0, drain_end_ = 0;
  ps_t window_ = 0;
  double gen_p_ = 0;                    // per-slot message probability
  ps_t gen_slot_ps_ = 0;
  std::vector<double> size_cdf_;
  uint32_t max_payload_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<SpinBarrier> barrier_;
  // Published per window by each worker, read by all after the barrier.
  struct alignas(64) Published {
    ps_t next_time;
    uint64_t injected, delivered;
    bool failed;
  };
  std::vector<Published> pub_;
  std::atomic<bool> stop_{false};
  std::chrono::steady_clock::time_point wall_start_;

  // Port-bound endpoints.
  std::vector<Device> devices_;
  std::vector<uint32_t> bound_eps_;   // flood targets: every port-bound endpoint
  std::vector<uint32_t> binding_device_;  // binding -> index into devices_
  uint32_t seg_cap_ = 1;              // most segments one frame needs
  uint32_t max_frame_ = 0;            // largest untagged frame any port accepts
  static constexpr uint32_t kFrameSlots = 64;

  // Real time: emulated ps = (TSC - tsc0_) * ps_per_cycle_.
  enum Phase : int { kRunning, kDraining, kDone };
  std::atomic<int> phase_{kRunning};
  uint64_t tsc0_ = 0;
  double ps_per_cycle_ = 0;
  ps_t drain_deadline_ = kNever;
  struct alignas(64) LivePub {
    std::atomic<uint64_t> injected{0}, delivered{0};
    std::atomic<uint64_t> tick{0};
    std::atomic<uint64_t> lateness_p99{0}, lateness_max{0}, frame_p99{0}, over_bound{0};
    std::unique_ptr<std::atomic<uint64_t>[]> rx, tx;  // per binding
  };
  std::unique_ptr<LivePub[]> live_;
};

template <class R>
std::unique_ptr<EngineBase> make_engine(typename R::Tables tables, const Fabric& fabric,
                                        const EngineConfig& cfg) {
  return std::make_unique<Engine<R>>(std::move(tables), fabric, cfg);
}

// ============================================================================
// Setup
// ============================================================================

template <class R>
bool Engine<R>::setup(std::string* err) {
  inst_ = next_engine_instance();
  nv_ = static_cast<uint32_t>(f_.num_vcs);
  if (nv_ < 1 || nv_ > kMaxVcs) {
    *err = "the fabric has " + std::to_string(nv_) + " VCs; 1.." + std::to_string(kMaxVcs) +
           " are supported";
    return false;
  }
  vc_shift_ = 0;
  while ((1u << vc_shift_) < nv_) vc_shift_++;
  nrouters_ = static_cast<uint32_t>(f_.routers.size());
  nep_ = static_cast<uint32_t>(f_.endpoints.size());
  max_ports_ = 0;
  for (const auto& r : f_.routers)
    max_ports_ = std::max<uint32_t>(max_ports_, static_cast<uint32_t>(r.ports.size()));
  if (max_ports_ > kMaxPorts) {
    *err = "a router has " + std::to_string(max_ports_) + " ports; at most " +
           std::to_string(kMaxPorts) + " are supported";
    return false;
  }
  if ((max_ports_ << vc_shift_) > kReqWords * 64) {
    *err = "ports x VCs exceed the arbiter's requester set";
    return false;
  }
  cap_.assign(nv_, 0);
  uint32_t maxcap = 1;
  for (uint32_t v = 0; v < nv_; v++) {
    cap_[v] = f_.vc_buffer_units[v];
    if (cap_[v] < cfg_.format.max_units) {
      *err = "VC " + std::to_string(v) + " buffer (" + std::to_string(cap_[v]) +
             " units) cannot hold a maximum-length packet (" +
             std::to_string(cfg_.format.max_units) +
             " units): virtual cut-through needs room for a whole packet";
      return false;
    }
    maxcap = std::max(maxcap, cap_[v]);
  }
  const uint32_t minu = std::max<uint32_t>(1, cfg_.format.min_units);
  qcap_ = 1;
  while (qcap_ < maxcap / minu + 1) qcap_ <<= 1;
  qmask_ = qcap_ - 1;

  // Placement.
  const int nw = std::max(1, cfg_.workers);
  router_worker_.assign(nrouters_, 0);
  for (uint32_t r = 0; r < nrouters_; r++) {
    int w = r < cfg_.router_worker.size() ? cfg_.router_worker[r]
                                          : static_cast<int>(uint64_t(r) * nw / nrouters_);
    if (w < 0 || w >= nw) {
      *err = "router " + std::to_string(r) + " placed on worker " + std::to_string(w) +
             " but the run has " + std::to_string(nw) + " workers";
      return false;
    }
    router_worker_[r] = static_cast<uint16_t>(w);
  }

  // Links: every connected router output, then every endpoint injection link.
  out_link_.assign(size_t(nrouters_) * max_ports_, ~0u);
  window_ = kNever;
  for (uint32_t r = 0; r < nrouters_; r++) {
    for (uint32_t p = 0; p < f_.routers[r].ports.size(); p++) {
      const FabricPort& fp = f_.routers[r].ports[p];
      if (!fp.connected()) continue;
      if (fp.unit_ps == 0) {
        *err = "router " + std::to_string(r) + " port " + std::to_string(p) +
               " has a zero unit time (link rate missing)";
        return false;
      }
      LinkStats ls;
      ls.router = static_cast<int32_t>(r);
      ls.port = static_cast<int16_t>(p);
      ls.peer_router = fp.peer_router;
      ls.peer_port = fp.peer_port;
      ls.endpoint = fp.endpoint;
      out_link_[oi(r, p)] = static_cast<uint32_t>(link_proto_.size());
      link_proto_.push_back(ls);
      if (fp.peer_router >= 0 && router_worker_[fp.peer_router] != router_worker_[r])
        window_ = std::min(window_, fp.wire_ps);
    }
  }
  ep_link_.assign(nep_, 0);
  for (uint32_t e = 0; e < nep_; e++) {
    const FabricEndpoint& fe = f_.endpoints[e];
    if (fe.router < 0 || static_cast<uint32_t>(fe.router) >= nrouters_ ||
        fe.port < 0 || static_cast<uint32_t>(fe.port) >= f_.routers[fe.router].ports.size() ||
        f_.routers[fe.router].ports[fe.port].endpoint != static_cast<int32_t>(e)) {
      *err = "endpoint " + std::to_string(e) + " is not attached to the router port it names";
      return false;
    }
    LinkStats ls;
    ls.router = -1;
    ls.endpoint = static_cast<int32_t>(e);
    ls.peer_router = fe.router;
    ls.peer_port = fe.port;
    ep_link_[e] = static_cast<uint32_t>(link_proto_.size());
    link_proto_.push_back(ls);
  }
  in_.assign(size_t(nrouters_) * max_ports_, InPort{});
  for (uint32_t r = 0; r < nrouters_; r++) {
    for (uint32_t p = 0; p < f_.routers[r].ports.size(); p++) {
      const FabricPort& fp = f_.routers[r].ports[p];
      InPort& in = in_[oi(r, p)];
      if (fp.endpoint >= 0) {
        in.up_endpoint = fp.endpoint;
        in.up_wire_ps = f_.endpoints[fp.endpoint].wire_ps;
        in.link = ep_link_[fp.endpoint];
      } else if (fp.peer_router >= 0) {
        in.up_router = fp.peer_router;
        in.up_port = static_cast<uint16_t>(fp.peer_port);
        in.up_worker = router_worker_[fp.peer_router];
        in.up_wire_ps = f_.routers[fp.peer_router].ports[fp.peer_port].wire_ps;
        in.link = out_link_[oi(fp.peer_router, fp.peer_port)];
      }
    }
  }
  if (nw > 1) {
    if (window_ == kNever) window_ = 1000 * kPsPerNs;  // no cross-core link at all
    if (window_ == 0) {
      *err = "a link between routers on different workers has zero latency; conservative "
             "parallel emulation needs link.wire_ns > 0 (or run.workers: 1)";
      return false;
    }
  } else {
    window_ = 1000 * kPsPerNs;  // one worker: windows only pace progress and termination
  }

  // Phases.
  measure_start_ = cfg_.warmup_ps;
  measure_end_ = cfg_.warmup_ps + cfg_.measure_ps;
  gen_end_ = measure_end_;
  drain_end_ = gen_end_ + cfg_.drain_ps;

  // Traffic: Bernoulli trials, one per injection-link unit time, each
  // succeeding with p = load / (mean units per message), so that the offered
  // load is the configured fraction of the injection bandwidth.
  if (!pattern_.init(f_, cfg_, err)) return false;
  max_payload_ = cfg_.format.max_payload_bytes();
  if (max_payload_ == 0) {
    *err = "the packet format leaves no room for payload (max_units too small)";
    return false;
  }
  double wsum = 0, mean_units = 0;
  size_cdf_.clear();
  for (size_t i = 0; i < cfg_.size_bytes.size(); i++) wsum += cfg_.size_weight[i];
  double acc = 0;
  for (size_t i = 0; i < cfg_.size_bytes.size(); i++) {
    const uint32_t b = cfg_.size_bytes[i];
    const uint32_t nseg = b == 0 ? 1 : (b + max_payload_ - 1) / max_payload_;
    double units = 0;
    for (uint32_t s = 0; s < nseg; s++) {
      const uint32_t sb = std::min(max_payload_, b - std::min(b, s * max_payload_));
      units += cfg_.format.units_for(sb);
    }
    mean_units += units * cfg_.size_weight[i] / wsum;
    acc += cfg_.size_weight[i] / wsum;
    size_cdf_.push_back(acc);
  }
  if (nep_ == 0) {
    *err = "the fabric has no endpoints";
    return false;
  }
  if (!setup_ports(err)) return false;
  if (cfg_.realtime) {
    // Real time: generation and measurement last until the run is stopped.
    gen_end_ = kNever;
    measure_end_ = kNever;
    drain_end_ = kNever;
  }
  gen_slot_ps_ = f_.endpoints[0].unit_ps;
  gen_p_ = cfg_.load / mean_units / std::max<uint32_t>(1, cfg_.batch_size);
  if (gen_p_ > 1.0) gen_p_ = 1.0;

  workers_.clear();
  for (int i = 0; i < nw; i++) {
    workers_.push_back(std::make_unique<Worker>());
    workers_.back()->id = i;
  }
  pub_.assign(nw, Published{});
  live_ = std::make_unique<LivePub[]>(nw);
  for (int i = 0; i < nw; i++) {
    live_[i].rx = std::make_unique<std::atomic<uint64_t>[]>(cfg_.ports.size() + 1);
    live_[i].tx = std::make_unique<std::atomic<uint64_t>[]>(cfg_.ports.size() + 1);
    for (size_t b = 0; b <= cfg_.ports.size(); b++) {
      live_[i].rx[b].store(0);
      live_[i].tx[b].store(0);
    }
  }
  barrier_ = std::make_unique<SpinBarrier>(nw);
  // Lcores: the main lcore runs worker 0, the next enabled lcores the rest.
  unsigned lc = rte_get_main_lcore();
  workers_[0]->lcore = lc;
  for (int i = 1; i < nw; i++) {
    lc = rte_get_next_lcore(lc, 1, 0);
    if (lc >= RTE_MAX_LCORE) {
      *err = "run.workers is " + std::to_string(nw) + " but DPDK has only " +
             std::to_string(rte_lcore_count()) + " lcore(s); lower run.workers";
      return false;
    }
    workers_[i]->lcore = lc;
  }
  for (auto& w : workers_)
    if (!setup_worker(*w, err)) return false;
  // Cross-core rings, one per ordered pair.
  const int inst = inst_;
  for (int a = 0; a < nw; a++) {
    for (int b = 0; b < nw; b++) {
      if (a == b) continue;
      const std::string name = "fx" + std::to_string(inst) + "_" + std::to_string(a) + "_" +
                               std::to_string(b);
      rte_ring* ring = rte_ring_create_elem(name.c_str(), sizeof(Event), 1 << 16,
                                            rte_lcore_to_socket_id(workers_[b]->lcore),
                                            RING_F_SP_ENQ | RING_F_SC_DEQ);
      if (!ring) {
        *err = "cannot create cross-core ring " + name + ": " + rte_strerror(rte_errno);
        return false;
      }
      workers_[a]->tx[b] = ring;
      workers_[b]->rx[a] = ring;
    }
  }
  return true;
}

template <class R>
bool Engine<R>::setup_worker(Worker& w, std::string* err) {
  const int nw = static_cast<int>(workers_.size());
  const size_t nch = size_t(nrouters_) * max_ports_ * nv_;
  w.q.assign(nch * qcap_, QEntry{nullptr, 0});
  w.qhead.assign(nch, 0);
  w.qlen.assign(nch, 0);
  w.occ.assign(nch, 0);
  w.out.assign(size_t(nrouters_) * max_ports_, OutPort{});
  w.out_sent.assign(size_t(nrouters_) * max_ports_ * nv_, 0);
  w.out_crecv.assign(w.out_sent.size(), 0);
  w.in_arrived.assign(nch, 0);
  w.in_csent.assign(nch, 0);
  w.ep_sent.assign(size_t(nep_) * nv_, 0);
  w.ep_crecv.assign(w.ep_sent.size(), 0);
  w.ep_delivered.assign(w.ep_sent.size(), 0);
  w.ep.resize(nep_);
  w.st = RunStats{};
  w.st.links = link_proto_;
  w.tx.assign(nw, nullptr);
  w.rx.assign(nw, nullptr);
  w.outbox.assign(nw, {});
  for (auto& ob : w.outbox) ob.reserve(4096);
  w.inbox.reserve(4096);
  uint64_t bufs = 0;
  uint32_t owned_eps = 0;
  for (uint32_t r = 0; r < nrouters_; r++) {
    if (router_worker_[r] != w.id) continue;
    for (uint32_t p = 0; p < f_.routers[r].ports.size(); p++) {
      const FabricPort& fp = f_.routers[r].ports[p];
      if (!fp.connected()) continue;
      OutPort& o = w.out[oi(r, p)];
      o.unit_ps = fp.unit_ps;
      o.wire_ps = fp.wire_ps;
      o.peer_router = fp.peer_router;
      o.peer_port = static_cast<uint16_t>(fp.peer_port < 0 ? 0 : fp.peer_port);
      o.peer_endpoint = fp.endpoint;
      o.peer_worker = fp.peer_router >= 0 ? router_worker_[fp.peer_router] : w.id;
      o.link = out_link_[oi(r, p)];
      for (uint32_t v = 0; v < nv_; v++) {
        o.credits[v].settled = cap_[v];
        bufs += cap_[v] / std::max<uint32_t>(1, cfg_.format.min_units) + 1;
      }
    }
  }
  for (uint32_t e = 0; e < nep_; e++) {
    if (router_worker_[f_.endpoints[e].router] != w.id) continue;
    owned_eps++;
    Endpoint& ep = w.ep[e];
    ep.rng = Rng(cfg_.seed, e);
    for (uint32_t v = 0; v < nv_; v++) ep.credits[v].settled = cap_[v];
    uint32_t sq = 1;
    while (sq < cfg_.source_queue_packets) sq <<= 1;
    ep.srcq_bound = cfg_.source_queue_packets;
    for (auto& q : ep.srcq) q.assign(sq, nullptr);
    ep.link = ep_link_[e];
    ep.rkey.assign(1024, 0);
    ep.rcount.assign(1024, 0);
  }
  bufs += uint64_t(owned_eps) * 2 * cfg_.source_queue_packets + 4096;
  // Port-bound endpoints: a frame queue, reassembly slots, the bridge table.
  w.st.ports.clear();
  for (uint32_t b = 0; b < cfg_.ports.size(); b++) {
    const PortEndpointConfig& pc = cfg_.ports[b];
    w.st.ports.push_back(port_identity(b));
    w.ep[pc.endpoint].binding = static_cast<int32_t>(b);
    if (router_worker_[f_.endpoints[pc.endpoint].router] != w.id) continue;
    Endpoint& ep = w.ep[pc.endpoint];
    ep.srcq_bound = std::max<uint32_t>(cfg_.source_queue_packets, pc.queue_frames * seg_cap_);
    uint32_t sq = 1;
    while (sq < ep.srcq_bound) sq <<= 1;
    for (auto& q : ep.srcq) q.assign(sq, nullptr);
    ep.fslot.assign(kFrameSlots, FrameSlot{});
    ep.fseg.assign(size_t(kFrameSlots) * seg_cap_, nullptr);
    bufs += uint64_t(ep.srcq_bound) + uint64_t(kFrameSlots) * seg_cap_;
  }
  const double cycles_per_s = double(rte_get_tsc_hz());
  w.mac = MacTable(4096, static_cast<uint64_t>(cfg_.mac_aging_s * cycles_per_s));
  for (uint32_t b = 0; b < cfg_.ports.size(); b++)
    for (uint64_t mac : cfg_.ports[b].macs) w.mac.pin(mac, static_cast<int32_t>(cfg_.ports[b].endpoint));
  w.txb.assign(devices_.size(), {});
  for (uint32_t d = 0; d < devices_.size(); d++) {
    if (devices_[d].worker != w.id) continue;
    w.devices.push_back(d);
    w.txb[d].reserve(64);
  }
  if (!cfg_.ports.empty()) w.frame.assign(std::max<uint32_t>(max_frame_ + 64, 16384), 0);
  if (!w.devices.empty()) {
    const std::string tname = "ft" + std::to_string(inst_) + "_" + std::to_string(w.id);
    const uint16_t troom = static_cast<uint16_t>(
        std::max<uint32_t>(RTE_MBUF_DEFAULT_BUF_SIZE, max_frame_ + kVlanTagBytes + RTE_PKTMBUF_HEADROOM));
    w.tx_pool = rte_pktmbuf_pool_create(tname.c_str(), 4095 + 2048 * w.devices.size(), 256,
                                        kMbufPrivSize, troom, rte_lcore_to_socket_id(w.lcore));
    if (!w.tx_pool) {
      *err = "cannot create the transmit buffer pool (" + tname + "): " + rte_strerror(rte_errno) +
             "; give DPDK more memory (FABEMU_DPDK_MEM_MB)";
      return false;
    }
  }
  const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(bufs, 1u << 21));
  const std::string name = "fp" + std::to_string(inst_) + "_" + std::to_string(w.id);
  // Data room: the largest encoded packet (up to 16 bytes a unit) plus slack.
  const uint16_t room = static_cast<uint16_t>(16 * cfg_.format.max_units + 64);
  w.pool = rte_pktmbuf_pool_create(name.c_str(), n, 256, kMbufPrivSize, room,
                                   rte_lcore_to_socket_id(w.lcore));
  if (!w.pool) {
    *err = "cannot create a pool of " + std::to_string(n) + " packet buffers (" + name +
           "): " + rte_strerror(rte_errno) + "; give DPDK more memory (-m) or shrink the fabric";
    return false;
  }
  return true;
}

template <class R>
void Engine<R>::seed_traffic(Worker& w) {
  if (cfg_.load <= 0) return;
  for (uint32_t e = 0; e < nep_; e++) {
    if (router_worker_[f_.endpoints[e].router] != w.id) continue;
    Endpoint& ep = w.ep[e];
    if (ep.binding >= 0) continue;  // its traffic comes from its port
    Event ev{};
    ev.t = (ep.rng.geometric(gen_p_) - 1) * gen_slot_ps_;
    ev.type = EventType::ep_generate;
    ev.a = e;
    w.wheel.push(ev);
  }
}

// ============================================================================
// Event handlers
// ============================================================================

template <class R>
inline void Engine<R>::dispatch(Worker& w, const Event& e) {
  switch (e.type) {
    case EventType::arrive:
      on_arrive(w, e.a, e.port, e.vc, e.m);
      break;
    case EventType::ready: {
      const uint32_t c = ch(e.a, e.port, e.vc);
      rte_mbuf* m = w.q[c * qcap_ + w.qhead[c]].m;
      OutPort& o = w.out[oi(e.a, meta(m)->out_port)];
      const uint32_t idx = (uint32_t(e.port) << vc_shift_) | e.vc;
      o.req[idx >> 6] |= 1ull << (idx & 63);
      o.nreq++;
      try_output(w, e.a, meta(m)->out_port);
      break;
    }
    case EventType::out_free: {
      OutPort& o = w.out[oi(e.a, e.port)];
      if (o.wake_ps == e.t) o.wake_ps = kNever;
      try_output(w, e.a, e.port);
      break;
    }
    case EventType::credit: {
      OutPort& o = w.out[oi(e.a, e.port)];
      o.credits[e.vc].add_stream(e.amount, e.t, e.unit_ps);
      w.out_crecv[oi(e.a, e.port) * nv_ + e.vc] += e.amount;
      try_output(w, e.a, e.port);
      break;
    }
    case EventType::ep_generate:
      on_generate(w, e.a);
      break;
    case EventType::ep_free:
      w.ep[e.a].inj_event_pending = false;
      if (w.ep[e.a].wake_ps == e.t) w.ep[e.a].wake_ps = kNever;
      try_inject(w, e.a);
      break;
    case EventType::ep_credit:
      w.ep[e.a].credits[e.vc].add_stream(e.amount, e.t, e.unit_ps);
      w.ep_crecv[size_t(e.a) * nv_ + e.vc] += e.amount;
      try_inject(w, e.a);
      break;
    case EventType::ep_deliver:
      on_deliver(w, e.a, e.m);
      break;
    case EventType::mac_learn:
      w.mac.learn(e.unit_ps, static_cast<int32_t>(e.a), rte_rdtsc());
      break;
  }
}

template <class R>
inline void Engine<R>::on_arrive(Worker& w, uint32_t r, uint16_t p, uint8_t v, rte_mbuf* m) {
  const uint32_t c = ch(r, p, v);
  const uint32_t units = meta(m)->units;
  w.q[c * qcap_ + ((w.qhead[c] + w.qlen[c]) & qmask_)] = QEntry{m, w.now};
  w.qlen[c]++;
  w.occ[c] += units;
  w.in_arrived[c] += units;
  if (w.occ[c] > cap_[v] || w.qlen[c] > qcap_) {
    fail(w, "credit violation: router " + std::to_string(r) + " port " + std::to_string(p) +
                " VC " + std::to_string(v) + " holds " + std::to_string(w.occ[c]) +
                " units in a " + std::to_string(cap_[v]) + "-unit buffer");
    return;
  }
  LinkStats& ls = w.st.links[in_[oi(r, p)].link];
  if (w.occ[c] > ls.vc_peak_occupancy[v]) ls.vc_peak_occupancy[v] = w.occ[c];
  if (w.qlen[c] == 1) route_head(w, r, p, v, w.now);
}

template <class R>
inline void Engine<R>::route_head(Worker& w, uint32_t r, uint16_t p, uint8_t v, ps_t not_before) {
  const uint32_t c = ch(r, p, v);
  QEntry& qe = w.q[c * qcap_ + w.qhead[c]];
  PacketMeta* pm = meta(qe.m);
  w.rc.count = 0;
  w.rc.adaptive = false;
  R::route(tables_, static_cast<int32_t>(r), static_cast<uint8_t>(p), *pm, w.rc);
  if (w.rc.count == 0) {
    fail(w, "no route at router " + std::to_string(r) + " for a packet to endpoint " +
                std::to_string(pm->dst) + " (routing tables are incomplete)");
    return;
  }
  RouteCandidate pick = w.rc.c[0];
  if (w.rc.adaptive && w.rc.count > 1) {
    // Adaptive choice: the candidate whose downstream buffer has the most credits.
    uint32_t best = 0;
    for (uint32_t i = 0; i < w.rc.count; i++) {
      const RouteCandidate cand = w.rc.c[i];
      const uint32_t cr = w.out[oi(r, cand.port)].credits[cand.vc].held();
      if (i == 0 || cr > best) {
        best = cr;
        pick = cand;
      }
    }
  }
  pm->out_port = pick.port;
  pm->out_vc = pick.vc;
  ps_t ready = qe.arrive + R::pipeline_ps(tables_, static_cast<int32_t>(r), static_cast<uint8_t>(p),
                                          pick.port);
  if (ready < not_before) ready = not_before;
  Event ev{};
  ev.t = ready;
  ev.type = EventType::ready;
  ev.a = r;
  ev.port = p;
  ev.vc = v;
  w.wheel.push(ev);
}

template <class R>
inline void Engine<R>::try_output(Worker& w, uint32_t r, uint16_t op) {
  OutPort& o = w.out[oi(r, op)];
  if (o.nreq == 0) return;
  if (o.free_ps > w.now) {
    arm_wake(w, r, op, o, o.free_ps);  // busy: look again when the link frees
    return;
  }
  const uint32_t nbits = max_ports_ << vc_shift_;
  ps_t wake = kNever;
  // Round-robin over the waiting requesters, starting after the last grant.
  uint32_t i = o.rr;
  for (uint32_t k = 0, n = o.nreq; k < n; k++) {
    for (;;) {  // next set bit at or after i, wrapping (n > 0 guarantees one)
      if (i >= nbits) i = 0;
      const uint64_t bits = o.req[i >> 6] >> (i & 63);
      if (bits) {
        i += static_cast<uint32_t>(__builtin_ctzll(bits));
        break;
      }
      i = ((i >> 6) + 1) << 6;
    }
    const uint32_t in_p = i >> vc_shift_, in_v = i & ((1u << vc_shift_) - 1);
    const uint32_t c = ch(r, in_p, in_v);
    PacketMeta* pm = meta(w.q[c * qcap_ + w.qhead[c]].m);
    if (o.credits[pm->out_vc].available(pm->units, w.now, &wake)) {
      o.rr = static_cast<uint16_t>(i + 1 >= nbits ? 0 : i + 1);
      grant(w, r, op, o, in_p, in_v);
      if (o.nreq) arm_wake(w, r, op, o, o.free_ps);  // the others go when the link frees
      return;
    }
    if (!(pm->flags & kPktCreditStalled)) {  // ready, link free, credits short: once per packet and hop
      pm->flags |= kPktCreditStalled;
      w.st.links[o.link].credit_stalls++;
    }
    i++;
  }
  // Credits still streaming back will be enough at `wake`: look again then.
  if (wake != kNever) arm_wake(w, r, op, o, wake);
}

template <class R>
inline void Engine<R>::grant(Worker& w, uint32_t r, uint16_t op, OutPort& o, uint32_t in_p,
                             uint32_t in_v) {
  const uint32_t c = ch(r, in_p, in_v);
  QEntry qe = w.q[c * qcap_ + w.qhead[c]];
  w.qhead[c] = static_cast<uint16_t>((w.qhead[c] + 1) & qmask_);
  w.qlen[c]--;
  const uint32_t idx = (in_p << vc_shift_) | in_v;
  o.req[idx >> 6] &= ~(1ull << (idx & 63));
  o.nreq--;

  rte_mbuf* m = qe.m;
  PacketMeta* pm = meta(m);
  pm->flags &= static_cast<uint8_t>(~kPktCreditStalled);
  const uint32_t units = pm->units;
  const uint8_t ov = pm->out_vc;
  const ps_t dur = units * o.unit_ps;
  const ps_t now = w.now;
  w.occ[c] -= units;
  o.credits[ov].take(units);
  w.out_sent[oi(r, op) * nv_ + ov] += units;
  o.free_ps = now + dur;  // requesters arriving meanwhile schedule the wake-up
  LinkStats& ls = w.st.links[o.link];
  ls.packets++;
  ls.units += units;
  ls.vc_packets[ov]++;
  ls.vc_units[ov] += units;
  add_busy(ls, now, dur);
  w.st.packet_hops++;

  // The packet streams out of this input buffer one unit per o.unit_ps from
  // now; each freed unit's credit reaches the upstream sender after the
  // reverse link's latency, the first at now + unit + wire.
  w.in_csent[c] += units;
  {
    const InPort& in = in_[oi(r, in_p)];
    Event ev{};
    ev.t = now + o.unit_ps + in.up_wire_ps;
    ev.amount = static_cast<uint16_t>(units);
    ev.vc = static_cast<uint8_t>(in_v);
    ev.unit_ps = o.unit_ps;
    if (in.up_router < 0) {
      ev.type = EventType::ep_credit;
      ev.a = static_cast<uint32_t>(in.up_endpoint);
      w.wheel.push(ev);
    } else {
      ev.type = EventType::credit;
      ev.a = static_cast<uint32_t>(in.up_router);
      ev.port = in.up_port;
      schedule(w, ev, in.up_worker);
    }
  }

  R::on_forward(tables_, static_cast<int32_t>(r), static_cast<uint8_t>(op), *pm);
  pm->vc = ov;
  Event ev{};
  ev.m = m;
  if (o.peer_router >= 0) {
    pm->hops++;
    ev.t = now + o.wire_ps;
    ev.type = EventType::arrive;
    ev.a = static_cast<uint32_t>(o.peer_router);
    ev.port = o.peer_port;
    ev.vc = ov;
    schedule(w, ev, o.peer_worker);
  } else {
    ev.t = now + o.wire_ps + dur;  // tail delivered at the endpoint
    ev.type = EventType::ep_deliver;
    ev.a = static_cast<uint32_t>(o.peer_endpoint);
    ev.vc = ov;
    w.wheel.push(ev);
    // The endpoint sinks units as they arrive; their credits stream back.
    Event cr{};
    cr.t = now + o.wire_ps + o.unit_ps + o.wire_ps;
    cr.type = EventType::credit;
    cr.a = r;
    cr.port = op;
    cr.vc = ov;
    cr.amount = static_cast<uint16_t>(units);
    cr.unit_ps = o.unit_ps;
    w.wheel.push(cr);
  }
  // The next packet in this input FIFO may cross the switch once this one's
  // tail has been read out.
  if (w.qlen[c]) route_head(w, r, static_cast<uint16_t>(in_p), static_cast<uint8_t>(in_v), now + dur);
}

template <class R>
void Engine<R>::on_generate(Worker& w, uint32_t e) {
  if (w.now >= gen_end_ || !w.generating) return;
  Endpoint& ep = w.ep[e];
  const bool measured = w.now >= measure_start_;
  for (uint32_t b = 0; b < std::max<uint32_t>(1, cfg_.batch_size); b++) {
    const uint32_t dst = pattern_.destination(e, ep.rng);
    uint32_t bytes = cfg_.size_bytes[0];
    if (size_cdf_.size() > 1) {
      const double u = ep.rng.unit();
      for (size_t i = 0; i < size_cdf_.size(); i++)
        if (u <= size_cdf_[i] || i + 1 == size_cdf_.size()) {
          bytes = cfg_.size_bytes[i];
          break;
        }
    }
    const bool needs_reply = cfg_.reply_fraction > 0 && ep.rng.unit() <= cfg_.reply_fraction;
    make_message(w, e, dst, bytes, static_cast<uint8_t>(TrafficClass::request), needs_reply,
                 measured, w.now);
  }
  Event ev{};
  ev.t = w.now + ep.rng.geometric(gen_p_) * gen_slot_ps_;
  ev.type = EventType::ep_generate;
  ev.a = e;
  w.wheel.push(ev);
  try_inject(w, e);
}

template <class R>
void Engine<R>::make_message(Worker& w, uint32_t e, uint32_t dst, uint32_t bytes, uint8_t cls,
                             bool needs_reply, bool measured, ps_t gen_ps) {
  w.st.generated_messages++;
  const uint8_t flags = (measured ? kPktMeasured : 0) | (needs_reply ? kPktNeedsReply : 0);
  switch (enqueue_message(w, e, dst, bytes, cls, flags, gen_ps, synthetic_payload(), -1)) {
    case Enqueue::queue_full:
      w.st.drops[static_cast<int>(DropReason::source_queue_full)]++;
      break;
    case Enqueue::no_mbuf:
      w.st.drops[static_cast<int>(DropReason::mbuf_pool_empty)]++;
      break;
    default:
      break;
  }
}

// Segments a message into packets of at most max_payload_ bytes and appends
// them to the source queue of endpoint e. `flags` apply to every segment
// (kPktNeedsReply only to the last). flow >= 0: every segment carries that
// hash (one path, in order); -1: each segment its own (spread).
template <class R>
typename Engine<R>::Enqueue Engine<R>::enqueue_message(Worker& w, uint32_t e, uint32_t dst,
                                                       uint32_t bytes, uint8_t cls, uint8_t flags,
                                                       ps_t gen_ps, const uint8_t* payload,
                                                       int32_t flow) {
  Endpoint& ep = w.ep[e];
  const uint32_t nseg = bytes == 0 ? 1 : (bytes + max_payload_ - 1) / max_payload_;
  const int qi = cls == static_cast<uint8_t>(TrafficClass::response) ? 1 : 0;
  const uint32_t qmask = static_cast<uint32_t>(ep.srcq[qi].size()) - 1;
  if (ep.srcq_len[qi] + nseg > ep.srcq_bound) return Enqueue::queue_full;
  if (w.seg_scratch.size() < nseg) w.seg_scratch.resize(nseg);  // grows once, then reused
  rte_mbuf** mv = w.seg_scratch.data();
  if (rte_pktmbuf_alloc_bulk(w.pool, mv, nseg) != 0) return Enqueue::no_mbuf;
  const uint32_t seq = ep.msg_seq++;
  const bool measured = (flags & kPktMeasured) != 0;
  for (uint32_t s = 0; s < nseg; s++) {
    rte_mbuf* m = mv[s];
    PacketMeta* pm = meta(m);
    std::memset(pm, 0, sizeof(*pm));
    const uint32_t off = std::min(bytes, s * max_payload_);
    const uint32_t sb = std::min(max_payload_, bytes - off);
    pm->id = (uint64_t(e) << 40) | ep.pkt_seq++;
    pm->gen_ps = gen_ps;
    pm->src = e;
    pm->dst = dst;
    pm->msg_seq = seq;
    pm->units = static_cast<uint16_t>(cfg_.format.units_for(sb));
    pm->payload_bytes = static_cast<uint16_t>(sb);
    pm->seg = static_cast<uint16_t>(s);
    pm->nseg = static_cast<uint16_t>(nseg);
    pm->hash = flow >= 0 ? static_cast<uint16_t>(flow & 0x7fff)
                         : static_cast<uint16_t>((seq * 0x9e37u + s * 0x7f4bu) & 0x7fff);
    pm->cls = cls;
    pm->flags = static_cast<uint8_t>((flags & ~kPktNeedsReply) |
                                     (s + 1 == nseg ? (kPktLastSegment | (flags & kPktNeedsReply)) : 0));
    R::on_inject(tables_, f_, *pm);  // source-side lookup: route tag, starting VC
    const uint8_t* seg_payload = payload == synthetic_payload() ? payload : payload + off;
    if (encode_packet(static_cast<CodecKind>(cfg_.codec), m, *pm, seg_payload) == 0)
      fail(w, "packet " + std::to_string(pm->id) + " could not be encoded (" +
                  std::to_string(sb) + " payload bytes)");
    ep.srcq[qi][(ep.srcq_head[qi] + ep.srcq_len[qi]) & qmask] = m;
    ep.srcq_len[qi]++;
    w.st.injected_packets++;
    if (measured) {
      w.st.measured_injected++;
      if (gen_ps < measure_end_) w.st.offered_units += pm->units;
    }
  }
  return Enqueue::ok;
}

template <class R>
void Engine<R>::try_inject(Worker& w, uint32_t e) {
  Endpoint& ep = w.ep[e];
  if (ep.inj_free > w.now || ep.inj_event_pending) return;
  for (int qi = 1; qi >= 0; qi--) {
    if (ep.srcq_len[qi] == 0) continue;
    const uint32_t qmask = static_cast<uint32_t>(ep.srcq[qi].size()) - 1;
    rte_mbuf* m = ep.srcq[qi][ep.srcq_head[qi]];
    PacketMeta* pm = meta(m);
    const uint8_t v = pm->vc;
    ps_t wake = kNever;
    if (!ep.credits[v].available(pm->units, w.now, &wake)) {
      if (!(pm->flags & kPktCreditStalled)) {  // once per packet
        pm->flags |= kPktCreditStalled;
        w.st.links[ep.link].credit_stalls++;
      }
      if (wake < ep.wake_ps) {
        ep.wake_ps = wake;
        Event ev{};
        ev.t = wake;
        ev.type = EventType::ep_free;
        ev.a = e;
        w.wheel.push(ev);
      }
      continue;
    }
    ep.srcq_head[qi] = (ep.srcq_head[qi] + 1) & qmask;
    ep.srcq_len[qi]--;
    pm->flags &= static_cast<uint8_t>(~kPktCreditStalled);
    const FabricEndpoint& fe = f_.endpoints[e];
    const ps_t dur = pm->units * fe.unit_ps;
    ep.credits[v].take(pm->units);
    w.ep_sent[size_t(e) * nv_ + v] += pm->units;
    pm->inj_ps = w.now;
    ep.inj_free = w.now + dur;
    LinkStats& ls = w.st.links[ep.link];
    ls.packets++;
    ls.units += pm->units;
    ls.vc_packets[v]++;
    ls.vc_units[v] += pm->units;
    add_busy(ls, w.now, dur);
    Event ev{};
    ev.t = w.now + fe.wire_ps;
    ev.type = EventType::arrive;
    ev.a = static_cast<uint32_t>(fe.router);
    ev.port = static_cast<uint16_t>(fe.port);
    ev.vc = v;
    ev.m = m;
    w.wheel.push(ev);
    Event fr{};
    fr.t = ep.inj_free;
    fr.type = EventType::ep_free;
    fr.a = e;
    w.wheel.push(fr);
    ep.inj_event_pending = true;
    return;
  }
}

template <class R>
typename Engine<R>::Reassembly Engine<R>::reassemble(Endpoint& ep, const PacketMeta& pm) {
  if (pm.nseg <= 1) return Reassembly::complete;
  const uint64_t key = ((uint64_t(pm.src) << 32) | pm.msg_seq) + 1;
  const uint32_t mask = static_cast<uint32_t>(ep.rkey.size()) - 1;
  uint32_t h = static_cast<uint32_t>((key * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
  for (uint32_t probe = 0; probe <= mask; probe++, h = (h + 1) & mask) {
    if (ep.rkey[h] == key) {
      if (++ep.rcount[h] == pm.nseg) {
        // Backward-shift deletion keeps probe chains intact.
        ep.rkey[h] = 0;
        ep.rused--;
        uint32_t hole = h, j = (h + 1) & mask;
        while (ep.rkey[j]) {
          const uint32_t home =
              static_cast<uint32_t>((ep.rkey[j] * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
          if (((j - home) & mask) >= ((j - hole) & mask)) {
            ep.rkey[hole] = ep.rkey[j];
            ep.rcount[hole] = ep.rcount[j];
            ep.rkey[j] = 0;
            hole = j;
          }
          j = (j + 1) & mask;
        }
        return Reassembly::complete;
      }
      return Reassembly::partial;
    }
    if (ep.rkey[h] == 0) {
      // Keep the table at most 3/4 full so probe chains stay short.
      if (ep.rused * 4 >= (mask + 1) * 3) return Reassembly::overflow;
      ep.rkey[h] = key;
      ep.rcount[h] = 1;
      ep.rused++;
      return Reassembly::partial;
    }
  }
  return Reassembly::overflow;
}

template <class R>
void Engine<R>::on_deliver(Worker& w, uint32_t e, rte_mbuf* m) {
  PacketMeta* pm = meta(m);
  const ps_t now = w.now;
  w.ep_delivered[size_t(e) * nv_ + pm->vc] += pm->units;
  if (pm->dst != e) {
    fail(w, "packet " + std::to_string(pm->id) + " for endpoint " + std::to_string(pm->dst) +
                " was delivered to endpoint " + std::to_string(e) + " (misrouted)");
  }
  if (cfg_.check_invariants && !decode_check(static_cast<CodecKind>(cfg_.codec), m, *pm)) {
    fail(w, "packet " + std::to_string(pm->id) + " arrived with an encoding that does not "
                "match its metadata");
  }
  w.st.delivered_packets++;
  if (now >= measure_start_ && now < measure_end_) w.st.accepted_units += pm->units;
  if (pm->flags & kPktMeasured) {
    w.st.measured_delivered++;
    w.st.latency_ps.add(now - pm->gen_ps);
    w.st.network_latency_ps.add(now - pm->inj_ps);
    w.st.hops.add(pm->hops);
  }
  if (cfg_.on_deliver) cfg_.on_deliver(pm->id, pm->src, pm->dst, now - pm->gen_ps, pm->hops);
  if (pm->flags & kPktFrame) {
    frame_segment(w, e, m);  // keeps the mbuf until the frame is whole
    return;
  }
  Endpoint& ep = w.ep[e];
  const Reassembly ra = reassemble(ep, *pm);
  if (ra == Reassembly::overflow) {
    // The first segment found the table full: its message cannot be tracked.
    w.st.drops[static_cast<int>(DropReason::reassembly_overflow)]++;
  }
  if (ra == Reassembly::complete) {
    w.st.delivered_messages++;
    if (pm->flags & kPktNeedsReply) {
      make_message(w, e, pm->src, cfg_.reply_bytes, static_cast<uint8_t>(TrafficClass::response),
                   false, (pm->flags & kPktMeasured) != 0, now);
      try_inject(w, e);
    }
  }
  rte_pktmbuf_free(m);
}

// ============================================================================
// Run loop
// ============================================================================

template <class R>
void Engine<R>::flush_outbox(Worker& w) {
  for (size_t d = 0; d < w.outbox.size(); d++) {
    auto& ob = w.outbox[d];
    size_t sent = 0;
    while (sent < ob.size()) {
      sent += rte_ring_enqueue_burst_elem(w.tx[d], ob.data() + sent, sizeof(Event),
                                          static_cast<unsigned>(ob.size() - sent), nullptr);
      if (sent < ob.size()) drain_inbox(w);  // let the peer make room; keep its messages
    }
    ob.clear();
  }
}

template <class R>
void Engine<R>::drain_inbox(Worker& w) {
  Event buf[64];
  for (size_t s = 0; s < w.rx.size(); s++) {
    if (!w.rx[s]) continue;
    unsigned n;
    while ((n = rte_ring_dequeue_burst_elem(w.rx[s], buf, sizeof(Event), 64, nullptr)) > 0)
      w.inbox.insert(w.inbox.end(), buf, buf + n);
  }
}

template <class R>
int Engine<R>::worker_main(void* arg) {
  auto* pair = static_cast<std::pair<Engine*, Worker*>*>(arg);
  if (pair->first->cfg_.realtime)
    pair->first->worker_loop_realtime(*pair->second);
  else
    pair->first->worker_loop(*pair->second);
  return 0;
}

template <class R>
void Engine<R>::worker_loop(Worker& w) {
  const int nw = static_cast<int>(workers_.size());
  ps_t wstart = 0;
  auto last_progress = std::chrono::steady_clock::now();
  const ps_t total_ps = gen_end_;
  for (;;) {
    const ps_t wend = wstart + window_;
    // Process every event of this window.
    for (;;) {
      const ps_t t = w.wheel.next_time();
      if (t >= wend) break;
      const Event ev = w.wheel.pop();
      w.now = ev.t;
      dispatch(w, ev);
      w.st.events++;
      if (cfg_.check_invariants && nw == 1) {
        std::string bad = check_credits();
        w.st.invariant_checks++;
        if (!bad.empty()) fail(w, "credit conservation broken at t=" + std::to_string(w.now) +
                                      " ps: " + bad);
      }
      if (w.failed) break;
    }
    if (nw > 1) {
      flush_outbox(w);
      barrier_->wait([&] { drain_inbox(w); });
      drain_inbox(w);
      for (const Event& ev : w.inbox) w.wheel.push(ev);
      w.inbox.clear();
    }
    pub_[w.id] = Published{w.wheel.next_time(), w.st.injected_packets, w.st.delivered_packets,
                           w.failed};
    if (nw > 1) barrier_->wait();
    if (cfg_.check_invariants && nw > 1) {
      if (w.id == 0) {
        std::string bad = check_credits();
        w.st.invariant_checks++;
        if (!bad.empty()) fail(w, "credit conservation broken at a window edge t=" +
                                      std::to_string(wend) + " ps: " + bad);
      }
      barrier_->wait();
    }
    ps_t gnext = kNever;
    uint64_t inj = 0, del = 0;
    bool any_failed = false;
    for (int i = 0; i < nw; i++) {
      gnext = std::min(gnext, pub_[i].next_time);
      inj += pub_[i].injected;
      del += pub_[i].delivered;
      any_failed |= pub_[i].failed;
    }
    if (w.id == 0 && cfg_.progress && cfg_.progress_s > 0) {
      const auto now = std::chrono::steady_clock::now();
      if (std::chrono::duration<double>(now - last_progress).count() >= cfg_.progress_s) {
        last_progress = now;
        cfg_.progress(std::min(1.0, double(wend) / double(std::max<ps_t>(1, total_ps))), wend, del);
      }
    }
    if (any_failed) break;
    if (wend >= gen_end_ && inj == del) {
      w.st.drained = true;
      w.st.end_ps = wend;
      break;
    }
    if (wend >= drain_end_ || gnext == kNever) {
      w.st.end_ps = wend;
      break;
    }
    wstart = std::max(wend, gnext);
  }
}

template <class R>
std::string Engine<R>::check_credits() const {
  // For every link and VC: credits held by the sender + units in flight
  // forward + units buffered downstream + credits in flight back = buffer size.
  auto units_queued = [&](const Worker& w, uint32_t c) {
    uint64_t u = 0;
    for (uint32_t i = 0; i < w.qlen[c]; i++) u += meta(w.q[c * qcap_ + ((w.qhead[c] + i) & qmask_)].m)->units;
    return u;
  };
  for (uint32_t r = 0; r < nrouters_; r++) {
    const Worker& ws = *workers_[router_worker_[r]];
    for (uint32_t p = 0; p < f_.routers[r].ports.size(); p++) {
      const FabricPort& fp = f_.routers[r].ports[p];
      if (!fp.connected()) continue;
      const OutPort& o = ws.out[oi(r, p)];
      for (uint32_t v = 0; v < nv_; v++) {
        const size_t s = size_t(oi(r, p)) * nv_ + v;
        int64_t fwd, buffered, back;
        if (fp.peer_router >= 0) {
          const Worker& wr = *workers_[router_worker_[fp.peer_router]];
          const uint32_t c = ch(fp.peer_router, fp.peer_port, v);
          fwd = int64_t(ws.out_sent[s]) - int64_t(wr.in_arrived[c]);
          buffered = int64_t(units_queued(wr, c));
          back = int64_t(wr.in_csent[c]) - int64_t(ws.out_crecv[s]);
        } else {
          // The endpoint sinks at line rate: credits leave as units are sent.
          fwd = 0;
          buffered = 0;
          back = int64_t(ws.out_sent[s]) - int64_t(ws.out_crecv[s]);
        }
        const int64_t total = int64_t(o.credits[v].held()) + fwd + buffered + back;
        if (total != int64_t(cap_[v]) || fwd < 0 || back < 0)
          return "router " + std::to_string(r) + " port " + std::to_string(p) + " VC " +
                 std::to_string(v) + ": credits " + std::to_string(o.credits[v].held()) + " + in flight " +
                 std::to_string(fwd) + " + buffered " + std::to_string(buffered) +
                 " + credits returning " + std::to_string(back) + " != " + std::to_string(cap_[v]);
      }
    }
  }
  for (uint32_t e = 0; e < nep_; e++) {
    const FabricEndpoint& fe = f_.endpoints[e];
    const Worker& w = *workers_[router_worker_[fe.router]];
    for (uint32_t v = 0; v < nv_; v++) {
      const size_t s = size_t(e) * nv_ + v;
      const uint32_t c = ch(fe.router, fe.port, v);
      const int64_t total = int64_t(w.ep[e].credits[v].held()) +
                            (int64_t(w.ep_sent[s]) - int64_t(w.in_arrived[c])) +
                            int64_t(units_queued(w, c)) +
                            (int64_t(w.in_csent[c]) - int64_t(w.ep_crecv[s]));
      if (total != int64_t(cap_[v]))
        return "injection link of endpoint " + std::to_string(e) + " VC " + std::to_string(v) +
               ": credits do not add up to " + std::to_string(cap_[v]);
    }
  }
  return {};
}

template <class R>
RunStats Engine<R>::merge() {
  RunStats out;
  out.links = link_proto_;
  out.realtime = cfg_.realtime;
  out.time_scale = cfg_.time_scale;
  out.lateness_bound_ps = cfg_.lateness_bound_ps;
  for (uint32_t b = 0; b < cfg_.ports.size(); b++) out.ports.push_back(port_identity(b));
  out.measure_start_ps = measure_start_;
  out.measure_end_ps = measure_end_;
  out.drained = true;
  for (auto& wp : workers_) {
    RunStats& s = wp->st;
    out.end_ps = std::max(out.end_ps, s.end_ps);
    out.drained = out.drained && s.drained;
    out.generated_messages += s.generated_messages;
    out.injected_packets += s.injected_packets;
    out.delivered_packets += s.delivered_packets;
    out.delivered_messages += s.delivered_messages;
    out.measured_injected += s.measured_injected;
    out.measured_delivered += s.measured_delivered;
    out.offered_units += s.offered_units;
    out.accepted_units += s.accepted_units;
    for (int i = 0; i < static_cast<int>(DropReason::count); i++) out.drops[i] += s.drops[i];
    out.packet_hops += s.packet_hops;
    out.events += s.events;
    out.latency_ps.merge(s.latency_ps);
    out.network_latency_ps.merge(s.network_latency_ps);
    out.hops.merge(s.hops);
    out.invariant_checks += s.invariant_checks;
    out.lateness_ps.merge(s.lateness_ps);
    out.poll_gap_ps.merge(s.poll_gap_ps);
    out.worker_lateness_ps.push_back(s.lateness_ps);
    out.events_over_bound += s.events_over_bound;
    for (size_t b = 0; b < out.ports.size(); b++) out.ports[b].merge(s.ports[b]);
    if (out.invariant_failure.empty() && s.error.rfind("credit", 0) == 0)
      out.invariant_failure = s.error;
    if (out.error.empty()) out.error = s.error;
    for (size_t l = 0; l < out.links.size(); l++) out.links[l].merge(s.links[l]);
  }
  if (cfg_.realtime) {
    out.measure_end_ps = std::max(out.end_ps, measure_start_);
    // Packets cross cores: only the totals say whether the fabric emptied.
    out.drained = out.injected_packets == out.delivered_packets;
  }
  if (out.injected_packets > out.delivered_packets)
    out.drops[static_cast<int>(DropReason::undelivered_at_end)] =
        out.injected_packets - out.delivered_packets;
  return out;
}

template <class R>
RunStats Engine<R>::run() {
  std::string err;
  if (!setup(&err)) {
    RunStats s;
    s.error = err;
    return s;
  }
  for (auto& w : workers_) seed_traffic(*w);
  if (cfg_.realtime) {
    ps_per_cycle_ = 1e12 / double(rte_get_tsc_hz()) / cfg_.time_scale;
    tsc0_ = rte_rdtsc();
  }
  const auto t0 = std::chrono::steady_clock::now();
  const int nw = static_cast<int>(workers_.size());
  std::vector<std::pair<Engine*, Worker*>> args;
  for (auto& w : workers_) args.emplace_back(this, w.get());
  for (int i = 1; i < nw; i++) {
    const int rc = rte_eal_remote_launch(&Engine::worker_main, &args[i], workers_[i]->lcore);
    if (rc != 0) {
      RunStats s;
      s.error = "cannot launch worker " + std::to_string(i) + " on lcore " +
                std::to_string(workers_[i]->lcore) + " (busy?)";
      return s;
    }
  }
  if (cfg_.realtime)
    worker_loop_realtime(*workers_[0]);
  else
    worker_loop(*workers_[0]);
  for (int i = 1; i < nw; i++) rte_eal_wait_lcore(workers_[i]->lcore);
  // Frames that did not make it are counted before their buffers go.
  for (auto& w : workers_) {
    drain_inbox(*w);
    for_each_packet_left(*w, [&](rte_mbuf* m) { note_undelivered(m); });
  }
  for (auto& w : workers_) drop_partial_frames(*w);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunStats out = merge();
  out.wall_s = wall;
  // Free what is still in the fabric (only after a failed or undrained run).
  for (auto& w : workers_) {
    for_each_packet_left(*w, [](rte_mbuf* m) { rte_pktmbuf_free(m); });
    w->inbox.clear();
    w->wheel = TimingWheel{};
  }
  for (auto& w : workers_) {
    for (rte_ring* r : w->tx)
      if (r) rte_ring_free(r);
  }
  for (auto& w : workers_) {
    rte_mempool_free(w->pool);
    if (w->tx_pool) rte_mempool_free(w->tx_pool);
  }
  return out;
}

}  // namespace fabemu

#include "dataplane/core/engine_frames.h"
#include "dataplane/core/engine_realtime.h"
