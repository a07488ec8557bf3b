#include "dataplane/ethernet/bridge.h"

#include <rte_errno.h>

#include <algorithm>

#include "dataplane/ethernet/eth_port.h"
#include "dataplane/ethernet/ether.h"

namespace fabemu {

bool BridgePorts::init(const Fabric& f, const BridgeConfig& c, CodecKind k,
                       const std::vector<uint16_t>& router_worker, uint32_t segments,
                       uint32_t max_payload, std::string* err) {
  cfg = &c;
  codec = k;
  devices.clear();
  bound_eps.clear();
  binding_device.clear();
  max_frame = 0;
  for (uint32_t b = 0; b < c.ports.size(); b++) {
    const PortEndpointConfig& pc = c.ports[b];
    if (pc.endpoint >= f.processors()) {  // with slices: a processor, on every slice
      *err = "port '" + pc.name + "' is bound to endpoint " + std::to_string(pc.endpoint) +
             " but the fabric has endpoints 0 to " + std::to_string(f.processors() - 1);
      return false;
    }
    const uint16_t wk = router_worker[f.endpoints[pc.endpoint].router];
    Device* dev = nullptr;
    for (Device& d : devices)
      if (!d.replay && !pc.replay && d.port_id == pc.port_id) dev = &d;
    if (pc.replay) {  // a replayed host: a device of its own
      devices.push_back(Device{0xFFFF, wk, true, {}, true});
      dev = &devices.back();
    } else if (!dev) {
      devices.push_back(Device{pc.port_id, wk, true, {}});
      dev = &devices.back();
    } else if (dev->worker != wk) {
      *err = "port '" + pc.name + "' shares DPDK device '" + pc.device + "' with port '" +
             c.ports[dev->bindings[0]].name + "', but their endpoints' routers are on "
             "different workers; one core polls a device: use run.workers: 1 or bind the "
             "device's endpoints to routers on one worker";
      return false;
    }
    dev->bindings.push_back(b);
    binding_device.push_back(static_cast<uint32_t>(dev - devices.data()));
    bound_eps.push_back(pc.endpoint);
    max_frame = std::max(max_frame, pc.max_frame_bytes);
  }
  replay.assign(c.ports.size(), ReplayCursor{});
  seg_cap = segments;
  if (!c.ports.empty() && seg_cap > 4095) {
    *err = "a " + std::to_string(max_frame) + "-byte frame needs " + std::to_string(seg_cap) +
           " fabric packets of " + std::to_string(max_payload) +
           " payload bytes; at most 4095 fit the segment field: lower the port MTU";
    return false;
  }
  return true;
}

PortStats BridgePorts::port_identity(uint32_t b) const {
  const PortEndpointConfig& pc = cfg->ports[b];
  PortStats ps;
  ps.name = pc.name;
  ps.device = pc.device;
  ps.endpoint = static_cast<int32_t>(pc.endpoint);
  ps.port_id = pc.port_id;
  ps.vlan = pc.vlan;
  return ps;
}

void Bridge::init(BridgePorts& ports, int worker, double tsc_hz, Endpoints& eps, RunStats& st,
                  ps_t lateness_bound_ps) {
  ports_ = &ports;
  lateness_bound_ps_ = lateness_bound_ps;
  worker_ = worker;
  link_checked_.assign(ports.devices.size(), 0);
  const std::vector<PortEndpointConfig>& pcs = ports.ports();
  const Fabric& f = eps.fabric();
  st.ports.clear();
  for (uint32_t b = 0; b < pcs.size(); b++) {
    const PortEndpointConfig& pc = pcs[b];
    st.ports.push_back(ports.port_identity(b));
    eps.nic(pc.endpoint).binding = static_cast<int32_t>(b);
    if (ports.worker_of(b) != worker) continue;
    for (uint32_t s = 0; s < f.slices; s++) {  // a frame may take any slice's port
      Nic& port = eps.nic(f.slice_endpoint(pc.endpoint, s));
      port.srcq_bound = std::max<uint32_t>(eps.source_queue_packets(), pc.queue_frames * ports.seg_cap);
      for (auto& q : port.srcq) q.init(port.srcq_bound);
    }
    Nic& ep = eps.nic(pc.endpoint);
    ep.fslot.assign(kFrameSlots, FrameSlot{});
    ep.fseg.assign(size_t(kFrameSlots) * ports.seg_cap, nullptr);
  }
  mac_ = MacTable(4096, static_cast<uint64_t>(ports.cfg->mac_aging_s * tsc_hz));
  for (uint32_t b = 0; b < pcs.size(); b++)
    for (uint64_t mac : pcs[b].macs) mac_.pin(mac, static_cast<int32_t>(pcs[b].endpoint));
  txb_.assign(ports.devices.size(), {});
  for (uint32_t d = 0; d < ports.devices.size(); d++) {
    if (ports.devices[d].worker != worker) continue;
    if (ports.devices[d].replay) {  // no port to poll: its frames are events (on_replay)
      frame_out_.assign(ports.max_frame + 64, 0);
      continue;
    }
    polled_.push_back(d);
    txb_[d].reserve(64);
  }
  if (!pcs.empty()) frame_.assign(std::max<uint32_t>(ports.max_frame + 64, 16384), 0);
}

uint16_t tx_data_room(uint32_t max_frame) {
  return static_cast<uint16_t>(std::max<uint32_t>(
      RTE_MBUF_DEFAULT_BUF_SIZE, max_frame + kVlanTagBytes + RTE_PKTMBUF_HEADROOM));
}

bool Bridge::make_tx_pool(const std::string& name, int socket, std::string* err) {
  tx_pool_ = rte_pktmbuf_pool_create(name.c_str(), tx_pool_buffers(polled_.size()), 256,
                                     kMbufPrivSize, tx_data_room(ports_->max_frame), socket);
  if (!tx_pool_) {
    *err = "cannot create the transmit buffer pool (" + name + "): " + rte_strerror(rte_errno) +
           "; give DPDK more memory (FABEMU_DPDK_MEM_MB)";
    return false;
  }
  return true;
}

void Bridge::check_links(uint64_t tsc, uint64_t tsc_hz) {
  for (uint32_t d : polled_) {
    if (tsc - link_checked_[d] < tsc_hz / 10) continue;
    link_checked_[d] = tsc;
    ports_->devices[d].link_up = eth_port_link_up(ports_->devices[d].port_id);
  }
}

void Bridge::release() {
  if (tx_pool_) rte_mempool_free(tx_pool_);
  tx_pool_ = nullptr;
}

void Bridge::seed_replay(TimingWheel& wheel, EventKind replay) {
  const std::vector<PortEndpointConfig>& pcs = ports_->ports();
  for (uint32_t b = 0; b < pcs.size(); b++) {
    const PortEndpointConfig& pc = pcs[b];
    if (!pc.replay || ports_->worker_of(b) != worker_) continue;
    ports_->replay[b] = BridgePorts::ReplayCursor{};
    if (pc.replay->frames() == 0) {
      ports_->replay[b].done = true;  // a host that only listens
      continue;
    }
    wheel.push(
        event_at(static_cast<ps_t>(double(pc.replay->t_ps[0]) / pc.replay_speed), replay, b));
  }
}

void Bridge::note_undelivered(const PacketMeta& pm, const Endpoints& eps, RunStats& st) const {
  const Nic& ep = eps.nic(pm.dst);
  if (ep.binding < 0) return;
  if (pm.nseg > 1) {
    const uint64_t key = ((uint64_t(pm.src) << 32) | pm.msg_seq) + 1;
    for (const FrameSlot& fs : ep.fslot)
      if (fs.key == key) return;  // counted with its slot
  }
  st.ports[ep.binding].drops[static_cast<int>(FrameDrop::undelivered_at_end)]++;
}

void Bridge::drop_partial_frames(Endpoints& eps, RunStats& st) {
  const uint32_t seg_cap = ports_ ? ports_->seg_cap : 1;
  for (uint32_t e = 0; e < eps.size(); e++) {
    Nic& ep = eps.nic(e);
    if (ep.binding < 0) continue;
    for (uint32_t i = 0; i < ep.fslot.size(); i++) {
      if (ep.fslot[i].key == 0) continue;
      st.ports[ep.binding].drops[static_cast<int>(FrameDrop::undelivered_at_end)]++;
      for (uint32_t s = 0; s < seg_cap; s++) {
        rte_mbuf*& sm = ep.fseg[size_t(i) * seg_cap + s];
        if (sm) rte_pktmbuf_free(sm);
        sm = nullptr;
      }
      ep.fslot[i] = FrameSlot{};
    }
  }
  for (auto& q : txb_) {
    for (rte_mbuf* m : q) rte_pktmbuf_free(m);
    q.clear();
  }
}

}  // namespace fabemu
