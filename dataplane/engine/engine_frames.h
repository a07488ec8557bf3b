// Engine<R, Link>, continued: Ethernet frames at port-bound endpoints.
//
// The fabric behaves as one learning bridge whose ports are the port-bound
// endpoints. A frame received on a DPDK port is classified to its binding
// (VLAN, source MAC set), its source address learned, its destination looked
// up (group and unknown addresses flood to every other binding), and each
// copy is segmented into fabric packets that carry the frame's bytes in the
// profile's encoding (phits or flits) with one flow hash, so hashed routing
// keeps a flow on one path. At the egress endpoint the segments are decoded,
// checked and reassembled in order, the binding's VLAN tag is put back, and
// the frame is transmitted when its last segment's tail is delivered.
#pragma once

namespace fabemu {

// Included from engine.h only.

template <class R, class L>
bool Engine<R, L>::setup_ports(std::string* err) {
  devices_.clear();
  bound_eps_.clear();
  binding_device_.clear();
  max_frame_ = 0;
  for (uint32_t b = 0; b < cfg_.ports.size(); b++) {
    const PortEndpointConfig& pc = cfg_.ports[b];
    if (pc.endpoint >= f_.processors()) {  // with slices: a processor, on every slice
      *err = "port '" + pc.name + "' is bound to endpoint " + std::to_string(pc.endpoint) +
             " but the fabric has endpoints 0 to " + std::to_string(f_.processors() - 1);
      return false;
    }
    const uint16_t wk = router_worker_[f_.endpoints[pc.endpoint].router];
    Device* dev = nullptr;
    for (Device& d : devices_)
      if (!d.replay && !pc.replay && d.port_id == pc.port_id) dev = &d;
    if (pc.replay) {  // a replayed host: a device of its own
      devices_.push_back(Device{0xFFFF, wk, true, {}, true});
      dev = &devices_.back();
    } else if (!dev) {
      devices_.push_back(Device{pc.port_id, wk, true, {}});
      dev = &devices_.back();
    } else if (dev->worker != wk) {
      *err = "port '" + pc.name + "' shares DPDK device '" + pc.device + "' with port '" +
             cfg_.ports[dev->bindings[0]].name + "', but their endpoints' routers are on "
             "different workers; one core polls a device: use run.workers: 1 or bind the "
             "device's endpoints to routers on one worker";
      return false;
    }
    dev->bindings.push_back(b);
    binding_device_.push_back(static_cast<uint32_t>(dev - devices_.data()));
    bound_eps_.push_back(pc.endpoint);
    max_frame_ = std::max(max_frame_, pc.max_frame_bytes);
  }
  replay_.assign(cfg_.ports.size(), ReplayCursor{});
  seg_cap_ = frame_segments(cfg_);
  if (!cfg_.ports.empty() && seg_cap_ > 4095) {
    *err = "a " + std::to_string(max_frame_) + "-byte frame needs " + std::to_string(seg_cap_) +
           " fabric packets of " + std::to_string(max_payload_) +
           " payload bytes; at most 4095 fit the segment field: lower the port MTU";
    return false;
  }
  return true;
}

template <class R, class L>
void Engine<R, L>::ingest_frame(Worker& w, const Device& dev, rte_mbuf* f) {
  const uint32_t len = rte_pktmbuf_pkt_len(f);
  const uint32_t n = std::min<uint32_t>(len, static_cast<uint32_t>(w.frame.size()));
  // The frame's bytes in place, or copied into w.frame when the mbuf is a chain.
  const auto* p = static_cast<const uint8_t*>(rte_pktmbuf_read(f, 0, n, w.frame.data()));
  ingest_bytes(w, dev, p, p ? n : 0, len);
}

template <class R, class L>
void Engine<R, L>::ingest_bytes(Worker& w, const Device& dev, const uint8_t* hdr, uint32_t avail,
                                uint32_t len) {
  // Device-level faults belong to the device's first binding.
  uint32_t b = dev.bindings[0];
  w.st.ports[b].rx_frames++;
  w.st.ports[b].rx_bytes += len;
  if (capturing_ && avail) [[unlikely]]  // as the host sent it, before any check
    capture_frame(w, b, hdr, avail, len, CaptureDir::inbound);
  if (w.shedding) {  // behind the wall clock, run.overload: shed
    count_drop(w, b, FrameDrop::shed_overload);
    return;
  }
  uint8_t* buf = w.frame.data();
  if (len < kEthHeaderBytes) {
    count_drop(w, b, FrameDrop::runt);
    return;
  }
  if (len > w.frame.size() || avail < len) {
    count_drop(w, b, FrameDrop::oversize);
    return;
  }
  // Strip an 802.1Q tag: the fabric carries the untagged frame and the egress
  // binding puts its own tag back.
  uint16_t vlan = 0;
  uint32_t flen = len;
  if (be16_at(hdr + 12) == kEtherTypeVlan) {
    if (len < kEthHeaderBytes + kVlanTagBytes) {
      count_drop(w, b, FrameDrop::runt);
      return;
    }
    vlan = be16_at(hdr + 14) & 0x0fff;
    flen = len - kVlanTagBytes;
    std::memmove(buf, hdr, 12);
    std::memmove(buf + 12, hdr + 16, len - 16);
  } else if (hdr != buf) {
    std::memcpy(buf, hdr, len);
  }
  const uint64_t dst = mac_at(buf), src = mac_at(buf + 6);
  if (mac_is_group(src) || src == 0) {
    count_drop(w, b, FrameDrop::bad_source_mac);
    return;
  }
  // The binding: this VLAN and a MAC set holding the source, else this VLAN
  // with no MAC set.
  int32_t bind = -1;
  bool vlan_known = false;
  for (uint32_t cand : dev.bindings) {
    const PortEndpointConfig& pc = cfg_.ports[cand];
    if (pc.vlan != vlan) continue;
    vlan_known = true;
    if (pc.macs.empty()) {
      if (bind < 0) bind = static_cast<int32_t>(cand);
    } else if (std::find(pc.macs.begin(), pc.macs.end(), src) != pc.macs.end()) {
      bind = static_cast<int32_t>(cand);
      break;
    }
  }
  if (bind < 0) {
    count_drop(w, b, vlan_known ? FrameDrop::unknown_source : FrameDrop::unknown_vlan);
    return;
  }
  if (static_cast<uint32_t>(bind) != b) {
    // Counted at the device's first binding above; move it to the real one.
    w.st.ports[b].rx_frames--;
    w.st.ports[b].rx_bytes -= len;
    b = static_cast<uint32_t>(bind);
    w.st.ports[b].rx_frames++;
    w.st.ports[b].rx_bytes += len;
  }
  if (flen > cfg_.ports[b].max_frame_bytes) {
    count_drop(w, b, FrameDrop::oversize);
    return;
  }
  PortStats& ps = w.st.ports[b];
  const uint32_t from = cfg_.ports[b].endpoint;
  const uint64_t tsc = rte_rdtsc();
  const MacTable::Learn learned = w.mac.learn(src, static_cast<int32_t>(from), tsc);
  if (learned == MacTable::Learn::full) ps.mac_table_full++;
  if (learned == MacTable::Learn::learned || learned == MacTable::Learn::moved) {
    (learned == MacTable::Learn::moved ? ps.mac_moves : ps.macs_learned)++;
    // The other cores learn it too, through the rings.
    Event ev{};
    ev.t = w.now;
    ev.type = EventType::mac_learn;
    ev.a = from;
    ev.unit_ps = src;
    for (uint32_t o = 0; o < workers_.size(); o++)
      if (o != static_cast<uint32_t>(w.id)) send_remote(w, ev, o);
  }
  const uint16_t flow = flow_hash(buf, flen);
  const int32_t to = mac_is_group(dst) ? -1 : w.mac.lookup(dst, tsc);
  if (to < 0) {
    ps.flooded++;
    for (uint32_t d : bound_eps_)
      if (d != from) send_frame(w, from, d, flen, flow);
    return;
  }
  if (static_cast<uint32_t>(to) == from) {
    count_drop(w, b, FrameDrop::same_endpoint);
    return;
  }
  send_frame(w, from, static_cast<uint32_t>(to), flen, flow);
}

// One copy of the frame in w.frame from endpoint `from` to `to`.
template <class R, class L>
void Engine<R, L>::send_frame(Worker& w, uint32_t from, uint32_t to, uint32_t len, uint16_t flow) {
  const uint32_t b = static_cast<uint32_t>(w.ep[from].binding);
  const uint8_t flags = kPktFrame | (w.now >= measure_start_ ? kPktMeasured : 0);
  switch (enqueue_message(w, from, to, len, static_cast<uint8_t>(TrafficClass::request), flags,
                          w.now, w.frame.data(), flow)) {
    case Enqueue::ok:
      w.st.ports[b].fabric_frames++;
      inject_processor(w, from);
      break;
    case Enqueue::queue_full:
      count_drop(w, b, FrameDrop::ingress_queue_full);
      break;
    default:
      count_drop(w, b, FrameDrop::mbuf_pool_empty);
      break;
  }
}

// A frame segment reached its egress endpoint: keep it until the frame is whole.
template <class R, class L>
void Engine<R, L>::frame_segment(Worker& w, uint32_t e, rte_mbuf* m) {
  Nic& ep = w.ep[e];
  PacketMeta* pm = meta(m);
  if (ep.binding < 0) {  // cannot happen: frames go only to port-bound endpoints
    fail(w, "frame packet " + std::to_string(pm->id) + " reached endpoint " + std::to_string(e) +
                ", which has no port");
    rte_pktmbuf_free(m);
    return;
  }
  if (pm->nseg <= 1) {
    emit_frame(w, e, &m, 1, pm->gen_ps, pm->hops);
    return;
  }
  const uint64_t key = ((uint64_t(pm->src) << 32) | pm->msg_seq) + 1;
  int32_t slot = -1, free_slot = -1, oldest = -1;
  for (uint32_t i = 0; i < kFrameSlots; i++) {
    const FrameSlot& fs = ep.fslot[i];
    if (fs.key == key) {
      slot = static_cast<int32_t>(i);
      break;
    }
    if (fs.key == 0) {
      if (free_slot < 0) free_slot = static_cast<int32_t>(i);
    } else if (oldest < 0 || fs.first_ps < ep.fslot[oldest].first_ps) {
      oldest = static_cast<int32_t>(i);
    }
  }
  const uint32_t b = static_cast<uint32_t>(ep.binding);
  if (slot < 0) {
    if (free_slot < 0) {
      // Full: a frame whose segments have been missing for a long time (a
      // lossless fabric loses none; a fault could) gives way.
      constexpr ps_t kReassemblyTimeout = 1000 * 1000 * 1000;  // 1 ms emulated
      if (oldest >= 0 && w.now - ep.fslot[oldest].first_ps > kReassemblyTimeout) {
        FrameSlot& fs = ep.fslot[oldest];
        for (uint32_t s = 0; s < seg_cap_; s++) {
          rte_mbuf*& sm = ep.fseg[size_t(oldest) * seg_cap_ + s];
          if (sm) rte_pktmbuf_free(sm);
          sm = nullptr;
        }
        fs = FrameSlot{};
        count_drop(w, b, FrameDrop::reassembly_timeout);
        free_slot = oldest;
      } else {
        count_drop(w, b, FrameDrop::reassembly_overflow);
        rte_pktmbuf_free(m);
        return;
      }
    }
    slot = free_slot;
    ep.fslot[slot] = FrameSlot{key, w.now, 0, pm->nseg};
  }
  FrameSlot& fs = ep.fslot[slot];
  rte_mbuf** segs = &ep.fseg[size_t(slot) * seg_cap_];
  if (pm->seg >= fs.nseg || pm->seg >= seg_cap_ || segs[pm->seg]) {
    fail(w, "frame packet " + std::to_string(pm->id) + " has segment " + std::to_string(pm->seg) +
                " of " + std::to_string(fs.nseg) + ", already seen or out of range");
    rte_pktmbuf_free(m);
    return;
  }
  segs[pm->seg] = m;
  if (++fs.got < fs.nseg) return;
  const ps_t gen = pm->gen_ps;
  const uint8_t hops = pm->hops;
  emit_frame(w, e, segs, fs.nseg, gen, hops);
  for (uint32_t s = 0; s < fs.nseg; s++) segs[s] = nullptr;
  fs = FrameSlot{};
}

// Decodes the segments (freeing them) into one transmit buffer, puts the
// binding's VLAN tag back and queues it for the port.
template <class R, class L>
void Engine<R, L>::emit_frame(Worker& w, uint32_t e, rte_mbuf** segs, uint32_t nseg, ps_t gen_ps,
                           uint8_t hops) {
  const uint32_t b = static_cast<uint32_t>(w.ep[e].binding);
  const PortEndpointConfig& pc = cfg_.ports[b];
  PortStats& ps = w.st.ports[b];
  uint8_t* buf = w.frame.data();
  uint32_t len = 0;
  bool good = true;
  for (uint32_t s = 0; s < nseg; s++) {
    const int n = good ? decode_payload(static_cast<CodecKind>(cfg_.codec), segs[s], buf + len,
                                        static_cast<uint32_t>(w.frame.size()) - len)
                       : -1;
    if (n < 0) good = false;
    else len += static_cast<uint32_t>(n);
    rte_pktmbuf_free(segs[s]);
  }
  if (!good || len < kEthHeaderBytes) {
    count_drop(w, b, FrameDrop::corrupted);
    return;
  }
  const uint32_t dev = binding_device_[b];
  if (!devices_[dev].link_up) {
    count_drop(w, b, FrameDrop::egress_link_down);
    return;
  }
  const uint32_t out_len = len + (pc.vlan ? kVlanTagBytes : 0);
  rte_mbuf* tx = nullptr;
  uint8_t* out = w.frame_out.data();  // a replayed host takes the frame as it is
  if (!devices_[dev].replay) {
    tx = rte_pktmbuf_alloc(w.tx_pool);
    if (!tx) {
      count_drop(w, b, FrameDrop::mbuf_pool_empty);
      return;
    }
    out = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(tx, static_cast<uint16_t>(out_len)));
    if (!out) {
      rte_pktmbuf_free(tx);
      count_drop(w, b, FrameDrop::oversize);
      return;
    }
  }
  if (pc.vlan) {
    std::memcpy(out, buf, 12);
    out[12] = kEtherTypeVlan >> 8;
    out[13] = kEtherTypeVlan & 0xff;
    out[14] = static_cast<uint8_t>(pc.vlan >> 8);
    out[15] = static_cast<uint8_t>(pc.vlan & 0xff);
    std::memcpy(out + 16, buf + 12, len - 12);
  } else {
    std::memcpy(out, buf, len);
  }
  if (capturing_) [[unlikely]]
    capture_frame(w, b, out, out_len, out_len, CaptureDir::outbound);
  const ps_t lat = w.now - gen_ps;
  ps.frame_latency_ps.add(lat);
  ps.frame_hops.add(hops);
  w.frame_latency_iv.add(lat);
  w.st.delivered_messages++;
  if (!tx) {
    ps.tx_frames++;
    ps.tx_bytes += out_len;
    return;
  }
  meta(tx)->dst = b;  // the binding, for the transmit counters
  auto& q = w.txb[dev];
  q.push_back(tx);
  if (q.size() >= 32) flush_tx(w);
}

template <class R, class L>
void Engine<R, L>::flush_tx(Worker& w) {
  for (uint32_t d : w.devices) {
    auto& q = w.txb[d];
    if (q.empty()) continue;
    const uint16_t n = static_cast<uint16_t>(q.size());
    const uint16_t sent = rte_eth_tx_burst(devices_[d].port_id, 0, q.data(), n);
    for (uint16_t i = 0; i < n; i++) {
      rte_mbuf* m = q[i];
      const uint32_t b = meta(m)->dst;
      if (i < sent) {
        w.st.ports[b].tx_frames++;
        w.st.ports[b].tx_bytes += rte_pktmbuf_pkt_len(m);
      } else {
        count_drop(w, b, FrameDrop::tx_full);
        rte_pktmbuf_free(m);
      }
    }
    q.clear();
  }
}

// At the end of a run: frames still in the fabric or half reassembled are
// counted, once each, at the binding they were bound for. note_undelivered
// sees every packet still in the fabric (before drop_partial_frames).
template <class R, class L>
void Engine<R, L>::note_undelivered(rte_mbuf* m) {
  const PacketMeta* pm = meta(m);
  if (!(pm->flags & kPktFrame) || pm->seg != 0 || pm->dst >= nep_) return;
  Worker& wd = *workers_[router_worker_[f_.endpoints[pm->dst].router]];
  const Nic& ep = wd.ep[pm->dst];
  if (ep.binding < 0) return;
  if (pm->nseg > 1) {
    const uint64_t key = ((uint64_t(pm->src) << 32) | pm->msg_seq) + 1;
    for (const FrameSlot& fs : ep.fslot)
      if (fs.key == key) return;  // counted with its slot
  }
  wd.st.ports[ep.binding].drops[static_cast<int>(FrameDrop::undelivered_at_end)]++;
}

template <class R, class L>
void Engine<R, L>::drop_partial_frames(Worker& w) {
  for (auto& ep : w.ep) {
    if (ep.binding < 0) continue;
    for (uint32_t i = 0; i < ep.fslot.size(); i++) {
      if (ep.fslot[i].key == 0) continue;
      w.st.ports[ep.binding].drops[static_cast<int>(FrameDrop::undelivered_at_end)]++;
      for (uint32_t s = 0; s < seg_cap_; s++) {
        rte_mbuf*& sm = ep.fseg[size_t(i) * seg_cap_ + s];
        if (sm) rte_pktmbuf_free(sm);
        sm = nullptr;
      }
      ep.fslot[i] = FrameSlot{};
    }
  }
  for (auto& q : w.txb) {
    for (rte_mbuf* m : q) rte_pktmbuf_free(m);
    q.clear();
  }
}

}  // namespace fabemu

namespace fabemu {

// Replayed hosts (ports[].replay): each sends its file's frames at their
// recorded times (divided by replay_speed) from emulated time 0, pass after
// pass; the worker of the host's endpoint runs them as events.
template <class R, class L>
void Engine<R, L>::seed_replay(Worker& w) {
  for (uint32_t b = 0; b < cfg_.ports.size(); b++) {
    const PortEndpointConfig& pc = cfg_.ports[b];
    if (!pc.replay || router_worker_[f_.endpoints[pc.endpoint].router] != w.id) continue;
    replay_[b] = ReplayCursor{};
    if (pc.replay->frames() == 0) {
      replay_[b].done = true;  // a host that only listens
      continue;
    }
    w.wheel.push(event_at(static_cast<ps_t>(double(pc.replay->t_ps[0]) / pc.replay_speed),
                          EventType::port_replay, b));
  }
}

template <class R, class L>
void Engine<R, L>::on_replay(Worker& w, uint32_t b) {
  const PortEndpointConfig& pc = cfg_.ports[b];
  const ReplayTrace& tr = *pc.replay;
  ReplayCursor& rc = replay_[b];
  if (w.now >= gen_end_ || !w.generating) return;  // the run is over: the rest is unsent
  const uint32_t len = tr.length(rc.next);
  const uint32_t avail = std::min<uint32_t>(len, static_cast<uint32_t>(w.frame.size()));
  w.st.ports[b].replay_sent++;
  ingest_bytes(w, devices_[binding_device_[b]], tr.frame(rc.next), avail, len);
  if (++rc.next == tr.frames()) {
    rc.next = 0;
    rc.base += tr.pass_ps(pc.replay_speed);
    if (++rc.pass == pc.replay_loops) {
      rc.done = true;
      return;
    }
  }
  const ps_t t = rc.base + static_cast<ps_t>(double(tr.t_ps[rc.next]) / pc.replay_speed);
  w.wheel.push(event_at(std::max(t, w.now), EventType::port_replay, b));
}

}  // namespace fabemu
