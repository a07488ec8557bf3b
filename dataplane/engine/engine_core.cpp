// EngineCore (engine_core.h): setup independent of the routing policy and
// the router model (the fabric's checks, placement, links, traffic, and a
// worker's links, endpoints and pools), and the faults given while running.
#include "dataplane/engine/engine_core.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <algorithm>
#include <atomic>

#include "dataplane/engine/engine_memory.h"
#include "dataplane/engine/engine_sizing.h"
#include "dataplane/link/link_numbering.h"

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

  // Placement: which worker owns each router, and its index there.
  const int nw = std::max(1, cfg_.workers);
  router_worker_.assign(nrouters_, 0);
  router_local_.assign(nrouters_, 0);
  std::vector<uint32_t> per_worker(nw, 0);
  for (uint32_t r = 0; r < nrouters_; r++) {
    // (Without a placement, by the router's slice-0 id: a processor's
    // ports in every slice, which send for one processor, share a worker.)
    const uint32_t own = static_cast<uint32_t>(f_.table_router(static_cast<int32_t>(r)));
    const uint32_t per_slice = f_.slices > 1 ? f_.slice_routers : nrouters_;
    int w = r < cfg_.router_worker.size() ? cfg_.router_worker[r]
                                          : static_cast<int>(uint64_t(own) * nw / per_slice);
    if (w < 0 || w >= nw) {
      *err = "router " + std::to_string(r) + " placed on worker " + std::to_string(w) +
             " but the run has " + std::to_string(nw) + " workers";
      return false;
    }
    router_worker_[r] = static_cast<uint16_t>(w);
    router_local_[r] = per_worker[w]++;
  }
  for (uint32_t e = f_.processors(); e < nep_; e++) {
    const uint32_t home = f_.processor(e);
    if (router_worker_[f_.endpoints[e].router] != router_worker_[f_.endpoints[home].router]) {
      *err = "endpoint " + std::to_string(e) + " (processor " + std::to_string(home) +
             "'s port in slice " + std::to_string(e / f_.processors()) +
             ") is on another worker than the processor's slice-0 port: place each router's "
             "slice copies on one worker";
      return false;
    }
  }
  if (!setup_links(lookahead, err)) return false;
  if (!setup_traffic(err)) return false;
  if (!bridge_.init(f_, cfg_, static_cast<CodecKind>(cfg_.codec), router_worker_,
                    frame_segments(cfg_), endpoints_.max_payload, err))
    return false;
  capturing_ = !cfg_.capture.queues.empty();
  lcb_ = cfg_.retry.enabled;
  // Lane degrade can kill a link (its last lane dropped): the dead-port
  // checks are armed for it as for faults.
  const bool degrade = lcb_ && cfg_.retry.lane_degrade;
  faults_ = cfg_.faults_possible || !cfg_.faults.empty() || degrade;
  // Lanes are tracked where they can change: faults may name them, or lane
  // degrade drops them (lane masks are 64 bits: the spec refuses more).
  lanes_ = faults_ && f_.lanes <= kMaxLanes;
  if (capturing_) {
    const CaptureTaps& ct = cfg_.capture;
    if (ct.queues.size() != size_t(nw) || ct.link_iface.size() != link_proto_.size() ||
        ct.device_iface.size() != cfg_.ports.size() ||
        (!ct.src.empty() && ct.src.size() != f_.processors()) ||
        (!ct.dst.empty() && ct.dst.size() != f_.processors())) {
      *err = "capture taps do not match the fabric (" + std::to_string(ct.link_iface.size()) +
             " links, " + std::to_string(ct.queues.size()) + " queues for " +
             std::to_string(link_proto_.size()) + " links and " + std::to_string(nw) + " workers)";
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

// Links: every connected router output, then every endpoint injection link;
// the conservative window is the smallest lookahead of a link between cores.
bool EngineCore::setup_links(const Lookahead& lookahead, std::string* err) {
  const int nw = std::max(1, cfg_.workers);
  link_proto_ = number_links(f_);  // dataplane/link/link_numbering.h
  out_link_.assign(size_t(nrouters_) * max_ports_, ~0u);
  ep_link_.assign(nep_, 0);
  window_ = kNever;
  for (uint32_t l = 0; l < link_proto_.size(); l++) {
    const LinkStats& ls = link_proto_[l];
    if (ls.router < 0) {
      const uint32_t e = static_cast<uint32_t>(ls.endpoint);
      const FabricEndpoint& fe = f_.endpoints[e];
      if (fe.router < 0 || static_cast<uint32_t>(fe.router) >= nrouters_ || fe.port < 0 ||
          static_cast<uint32_t>(fe.port) >= f_.routers[fe.router].ports.size() ||
          f_.routers[fe.router].ports[fe.port].endpoint != static_cast<int32_t>(e)) {
        *err = "endpoint " + std::to_string(e) + " is not attached to the router port it names";
        return false;
      }
      ep_link_[e] = l;
      continue;
    }
    const uint32_t r = static_cast<uint32_t>(ls.router), p = static_cast<uint32_t>(ls.port);
    const FabricPort& fp = f_.routers[r].ports[p];
    if (fp.unit_ps == 0) {
      *err = "router " + std::to_string(r) + " port " + std::to_string(p) +
             " has a zero unit time (link rate missing)";
      return false;
    }
    out_link_[size_t(r) * max_ports_ + p] = l;
    if (fp.peer_router >= 0 && router_worker_[fp.peer_router] != router_worker_[r])
      window_ = std::min(window_, lookahead(fp));
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
  endpoints_.reassembly_slots = messages_span_packets(cfg_) ? kReassemblySlots : 0;
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
  endpoints_.gen = Geometric(generation_probability(cfg_.format, cfg_.size_bytes, cfg_.size_weight,
                                                    cfg_.load, cfg_.batch_size));
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
  shape.input_speedup = cfg_.input_speedup;
  shape.output_speedup = cfg_.output_speedup;
  shape.output_queue_units = output_queue_caps(cfg_, cap_);
  shape.islip_iterations = cfg_.islip_iterations;
  shape.tile_degree = cfg_.tiles.degree;
  shape.row_units = cfg_.tiles.row_units;
  shape.column_units = cfg_.tiles.column_units;
  shape.min_units = cfg_.format.min_units;
  return shape;
}

// Worker `worker`'s router links (routers: local router -> global id;
// output o = local router * max_ports_ + port, router/router_shape.h): each
// output's sender side with its credits, and the input side of the same
// port. Returns whether some router's inputs are slower than one of its
// outputs (Worker::mixed_rates).
bool EngineCore::wire_links(int worker, const std::vector<int32_t>& routers,
                            std::vector<OutLink>& outputs, std::vector<InLink>& inputs,
                            std::vector<SenderVc>& vcs) const {
  const uint32_t nlr = static_cast<uint32_t>(routers.size());
  const size_t nout = size_t(nlr) * max_ports_;
  outputs.assign(nout, OutLink{});
  inputs.assign(nout, InLink{});
  vcs.assign(nout * nv_, SenderVc{});
  bool mixed = false;
  for (uint32_t lr = 0; lr < nlr; lr++) {
    const uint32_t r = static_cast<uint32_t>(routers[lr]);
    for (uint32_t p = 0; p < f_.routers[r].ports.size(); p++) {
      const FabricPort& fp = f_.routers[r].ports[p];
      if (!fp.connected()) continue;
      const uint32_t o = lr * max_ports_ + p;
      OutLink& ol = outputs[o];
      ol.unit_ps = fp.unit_ps;
      ol.wire_ps = fp.wire_ps;
      ol.peer_router = fp.peer_router;
      ol.peer_port = static_cast<uint16_t>(fp.peer_port < 0 ? 0 : fp.peer_port);
      ol.peer_endpoint = fp.endpoint;
      ol.peer_worker = fp.peer_router >= 0 ? router_worker_[fp.peer_router] : worker;
      ol.remote = ol.peer_worker != worker;
      if (fp.peer_router >= 0)
        ol.peer_channel0 = (router_local_[fp.peer_router] * max_ports_ + ol.peer_port) * nv_;
      ol.stats = out_link_[size_t(r) * max_ports_ + p];
      for (uint32_t v = 0; v < nv_; v++) vcs[size_t(o) * nv_ + v].credits = CreditCounter(cap_[v]);
      // The input side of the same port: where its credits go back to.
      InLink& in = inputs[o];
      if (fp.endpoint >= 0) {
        in.up_endpoint = fp.endpoint;
        in.up_wire_ps = f_.endpoints[fp.endpoint].wire_ps;
        in.unit_ps = f_.endpoints[fp.endpoint].unit_ps;
        in.stats = ep_link_[fp.endpoint];
      } else if (fp.peer_router >= 0) {
        in.up_router = fp.peer_router;
        in.up_port = static_cast<uint16_t>(fp.peer_port);
        in.up_worker = router_worker_[fp.peer_router];
        in.remote = in.up_worker != worker;
        in.up_output = router_local_[fp.peer_router] * max_ports_ + in.up_port;
        in.up_wire_ps = f_.routers[fp.peer_router].ports[fp.peer_port].wire_ps;
        in.unit_ps = f_.routers[fp.peer_router].ports[fp.peer_port].unit_ps;
        in.stats = out_link_[size_t(fp.peer_router) * max_ports_ + fp.peer_port];
      }
    }
    // Links of several rates at one router (link.router_rate): a packet
    // from a slower input must not leave on a faster output before its tail
    // has arrived (finish_route).
    ps_t in_max = 0, out_min = kNever;
    for (uint32_t p = 0; p < f_.routers[r].ports.size(); p++) {
      if (!f_.routers[r].ports[p].connected()) continue;
      const uint32_t o = lr * max_ports_ + p;
      in_max = std::max(in_max, inputs[o].unit_ps);
      out_min = std::min(out_min, outputs[o].unit_ps);
    }
    if (in_max > out_min) mixed = true;
  }
  return mixed;
}

// A worker's transmit buffers for the devices it polls.
bool EngineCore::setup_tx_pool(const KernelWorker& w, Bridge& bridge, std::string* err) const {
  const std::string tname = "ft" + std::to_string(inst_) + "_" + std::to_string(w.id);
  rte_mempool* tx_pool = rte_pktmbuf_pool_create(
      tname.c_str(), tx_pool_buffers(bridge.polled().size()), 256, kMbufPrivSize,
      tx_data_room(bridge_.max_frame), rte_lcore_to_socket_id(w.lcore));
  if (!tx_pool) {
    *err = "cannot create the transmit buffer pool (" + tname + "): " + rte_strerror(rte_errno) +
           "; give DPDK more memory (FABEMU_DPDK_MEM_MB)";
    return false;
  }
  bridge.set_tx_pool(tx_pool);
  return true;
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
  eps.init(endpoints_, owned, cap_, ep_link_);
}

bool EngineCore::inject_faults(const std::vector<EngineFault>& changes, size_t* first) {
  if (!faults_) return false;
  std::lock_guard<std::mutex> g(rt_faults_mu_);
  if (first) *first = rt_faults_.size();
  rt_faults_.insert(rt_faults_.end(), changes.begin(), changes.end());
  rt_applied_at_.resize(rt_faults_.size(), kNever);
  rt_faults_n_.store(static_cast<uint32_t>(rt_faults_.size()), std::memory_order_release);
  return true;
}

std::vector<ps_t> EngineCore::injected_applied_at() const {
  std::lock_guard<std::mutex> g(rt_faults_mu_);
  return rt_applied_at_;
}

}  // namespace fabemu
