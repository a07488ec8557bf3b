// EngineCore (engine_core.h): setup independent of the routing policy and
// the router model (the fabric's checks, placement, links, traffic, and a
// worker's links, endpoints and pools).
#include "dataplane/engine/engine_core.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <algorithm>
#include <atomic>

#include "dataplane/engine/engine_memory.h"
#include "dataplane/link/link_numbering.h"
#include "dataplane/router/router_sizing.h"
#include "dataplane/sim/placement.h"
#include "dataplane/stats/run_merge.h"

namespace fabemu {

int next_engine_instance() {
  static std::atomic<int> next{0};
  return next.fetch_add(1);
}

bool EngineCore::setup_fabric(const Lookahead& lookahead, std::string* err) {
  inst_ = next_engine_instance();
  nv_ = static_cast<uint32_t>(f_.num_vcs);
  if (nv_ < 1 || nv_ > kMaxVcs) {
    *err = "the fabric has " + std::to_string(nv_) + " VCs; 1.." + std::to_string(kMaxVcs) +
           " are supported";
    return false;
  }
  nrouters_ = static_cast<uint32_t>(f_.routers.size());
  nep_ = static_cast<uint32_t>(f_.endpoints.size());
  if (nep_ == 0) {
    *err = "the fabric has no endpoints";
    return false;
  }
  max_ports_ = 0;
  for (const auto& r : f_.routers)
    max_ports_ = std::max<uint32_t>(max_ports_, static_cast<uint32_t>(r.ports.size()));
  if (max_ports_ == 0) {
    *err = "the fabric's routers have no ports (" + std::to_string(nrouters_) +
           " routers): check the topology's size";
    return false;
  }
  if (max_ports_ > kMaxPorts) {
    *err = "a router has " + std::to_string(max_ports_) + " ports; at most " +
           std::to_string(kMaxPorts) + " are supported";
    return false;
  }
  nv_div_ = Divisor(nv_);
  ports_div_ = Divisor(max_ports_);
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
  qcap_ = fifo_entries(maxcap, cfg_.format.min_units);
  if (qcap_ > kMaxFifoEntries) {
    *err = "a VC buffer of " + std::to_string(maxcap) + " units holds more than " +
           std::to_string(kMaxFifoEntries) + " packets";
    return false;
  }

  const int nw = std::max(1, cfg_.workers);
  if (!place_routers(f_, nw, cfg_.router_worker, &router_worker_, &router_local_, err))
    return false;  // sim/placement.h
  // Links (link/link_wiring.h), and the conservative window: the smallest
  // lookahead of a link between workers (sim/placement.h).
  if (!index_links(f_, max_ports_, &links_, err) ||
      !conservative_window(f_, router_worker_, nw, lookahead, &window_, err))
    return false;
  if (cfg_.barrier.on()) {  // (barrier/barrier_network.h)
    if (!cfg_.barrier.fits(f_.routers.size(), err)) return false;
    if (nw > 1) window_ = cfg_.barrier.window(window_);
    endpoints_.barrier_units = cfg_.barrier.units;
  }
  if (!setup_traffic(err)) return false;
  if (!bridge_.init(f_, cfg_, static_cast<CodecKind>(cfg_.codec), router_worker_,
                    frame_segments(cfg_), endpoints_.max_payload, err))
    return false;
  capturing_ = !cfg_.capture.queues.empty();
  lcb_ = cfg_.retry.enabled;
  recovery_ = cfg_.recovery.on;
  // Lane degrade can kill a link (its last lane dropped): the dead-port
  // checks are armed for it as for faults.
  const bool degrade = lcb_ && cfg_.retry.lane_degrade;
  faults_ = cfg_.faults_possible || !cfg_.faults.empty() || degrade;
  // Lanes are tracked where they can change: faults may name them, or lane
  // degrade drops them (lane masks are 64 bits: the spec refuses more).
  lanes_ = faults_ && f_.lanes <= kMaxLanes;
  if (capturing_) {
    const CaptureTaps& ct = cfg_.capture;
    if (ct.queues.size() != size_t(nw) || ct.link_iface.size() != links_.links.size() ||
        ct.device_iface.size() != cfg_.ports.size() ||
        (!ct.src.empty() && ct.src.size() != f_.processors()) ||
        (!ct.dst.empty() && ct.dst.size() != f_.processors())) {
      *err = "capture taps do not match the fabric (" + std::to_string(ct.link_iface.size()) +
             " links, " + std::to_string(ct.queues.size()) + " queues for " +
             std::to_string(links_.links.size()) + " links and " + std::to_string(nw) + " workers)";
      return false;
    }
  }
  if (cfg_.realtime) {
    // Real time: generation and measurement last until the run is stopped.
    gen_end_ = kNever;
    measure_end_ = kNever;
    drain_end_ = kNever;
  }
  return true;
}

// Traffic: Bernoulli trials, one per injection-link unit time, each
// succeeding with p = load / (mean units per message), so that the offered
// load is the configured fraction of the injection bandwidth.
bool EngineCore::setup_traffic(std::string* err) {
  measure_start_ = cfg_.warmup_ps;
  measure_end_ = cfg_.warmup_ps + cfg_.measure_ps;
  gen_end_ = measure_end_;
  drain_end_ = gen_end_ + cfg_.drain_ps;
  endpoints_.fabric = &f_;
  endpoints_.traffic = &cfg_;
  endpoints_.format = cfg_.format;
  endpoints_.codec = static_cast<CodecKind>(cfg_.codec);
  endpoints_.seed = cfg_.seed;
  endpoints_.nv = nv_;
  endpoints_.source_queue_packets = cfg_.source_queue_packets;
  endpoints_.check_deliveries = cfg_.check_invariants || cfg_.check_deliveries;
  endpoints_.link_crc = cfg_.retry.enabled;
  // Reassembly tables only where a message can span packets (frames always
  // can): single-packet traffic never looks them up.
  endpoints_.reassembly_slots =
      messages_span_packets(cfg_, cfg_.format, !cfg_.ports.empty()) ? kReassemblySlots : 0;
  endpoints_.on_deliver = &cfg_.on_deliver;
  if (!endpoints_.init(err)) return false;
  {
    uint32_t units = 1;
    for (uint32_t b : cfg_.size_bytes)
      units = std::max(units, std::min(cfg_.format.units_for(b), cfg_.format.max_units));
    ps_t unit = f_.endpoints[0].unit_ps;
    for (const auto& r : f_.routers)
      for (const auto& p : r.ports)
        if (p.peer_router >= 0 && p.unit_ps) unit = std::min(unit, p.unit_ps);
    alloc_cycle_ps_ = std::max<ps_t>(1, unit * units);
  }
  endpoints_.set_generation(generation_probability(cfg_.format, cfg_));
  return true;
}

// The shape of a worker's `routers` local routers (their pipeline is the
// routing policy's to give).
RouterShape EngineCore::router_shape(uint32_t routers) const {
  RouterShape shape;
  shape.routers = routers;
  shape.max_ports = max_ports_;
  shape.nv = nv_;
  shape.qcap = qcap_;
  shape.config = cfg_.router;
  shape.output_queue_units = output_queue_caps(cfg_.router.output_queue_units, cap_);
  shape.min_units = cfg_.format.min_units;
  return shape;
}

// A worker's packet buffers (engine_memory.h), from its lcore's socket.
bool EngineCore::setup_pool(const KernelWorker& w, PacketPool& pool, bool polls_devices,
                            std::string* err) const {
  const uint32_t limit = worker_buffer_limit(cfg_, f_, w.id);  // engine_memory.h
  // Data room: DPDK's headroom plus the longest encoded packet (codec.h).
  const uint16_t room = packet_data_room(static_cast<CodecKind>(cfg_.codec), cfg_.format.max_units);
  const uint32_t first = pool_first_buffers(polls_devices);
  return pool.init("fp" + std::to_string(inst_) + "_" + std::to_string(w.id), first, limit,
                   kMbufPrivSize, room, static_cast<int>(rte_lcore_to_socket_id(w.lcore)), err);
}

// The endpoints of the routers `worker` owns.
void EngineCore::setup_endpoints(int worker, Endpoints& eps) const {
  std::vector<uint32_t> owned;
  for (uint32_t e = 0; e < nep_; e++)
    if (router_worker_[f_.endpoints[e].router] == worker) owned.push_back(e);
  eps.init(endpoints_, owned, cap_, links_.ep_link);
}

// The workers' counters and the run's figures in one report.
RunStats EngineCore::merge(const std::vector<WorkerResult>& workers) const {
  RunStats out;
  out.links = links_.links;
  out.realtime = cfg_.realtime;
  out.time_scale = cfg_.time_scale;
  out.lateness_bound_ps = cfg_.lateness_bound_ps;
  for (uint32_t b = 0; b < cfg_.ports.size(); b++) out.ports.push_back(bridge_.port_identity(b));
  out.measure_start_ps = measure_start_;
  out.measure_end_ps = measure_end_;
  out.link_retry = lcb_;
  merge_workers(out, workers);  // stats/run_merge.cpp
  // What a replayed host's loops promised and the run ended before sending.
  for (size_t b = 0; b < cfg_.ports.size(); b++) {
    const PortEndpointConfig& pc = cfg_.ports[b];
    if (pc.replay && pc.replay_loops > 0) {
      const uint64_t promised = uint64_t(pc.replay_loops) * pc.replay->frames();
      out.ports[b].replay_unsent = promised - std::min(promised, out.ports[b].replay_sent);
    }
  }
  return out;
}

}  // namespace fabemu
