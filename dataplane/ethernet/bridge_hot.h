// Bridge, continued: the per-frame work, inlined into the engine that hosts
// it. Included from bridge.h only.
#pragma once

namespace fabemu {

template <class H, class CatchUp>
void Bridge::receive(H& h, bool running, CatchUp&& catch_up, RunStats& st) {
  constexpr uint16_t kBurst = 32;
  rte_mbuf* rx[kBurst];
  for (uint32_t d : polled_) {
    const uint16_t n = running ? rte_eth_rx_burst(ports_->devices[d].port_id, 0, rx, kBurst) : 0;
    catch_up();
    for (uint16_t i = 0; i < n; i++) {
      ingest_frame(h, d, rx[i]);
      rte_pktmbuf_free(rx[i]);
    }
  }
  if (polled_.empty()) catch_up();
  flush_tx(st, h.wall_now());
}

template <class H>
void Bridge::ingest_frame(H& h, uint32_t d, rte_mbuf* f) {
  const uint32_t len = rte_pktmbuf_pkt_len(f);
  const uint32_t n = std::min<uint32_t>(len, static_cast<uint32_t>(frame_.size()));
  // The frame's bytes in place, or copied into frame_ when the mbuf is a chain.
  const auto* p = static_cast<const uint8_t*>(rte_pktmbuf_read(f, 0, n, frame_.data()));
  ingest_bytes(h, ports_->devices[d], p, p ? n : 0, len);
}

template <class H>
void Bridge::ingest_bytes(H& h, const BridgePorts::Device& dev, const uint8_t* hdr, uint32_t avail,
                          uint32_t len) {
  const std::vector<PortEndpointConfig>& ports = ports_->ports();
  RunStats& st = h.stats();
  // Device-level faults belong to the device's first binding.
  uint32_t b = dev.bindings[0];
  st.ports[b].rx_frames++;
  st.ports[b].rx_bytes += len;
  if (h.capturing() && avail) [[unlikely]]  // as the host sent it, before any check
    h.capture_frame(b, hdr, avail, len, CaptureDir::inbound);
  if (h.shedding()) {  // behind the wall clock, run.overload: shed
    count_drop(st, b, FrameDrop::shed_overload);
    return;
  }
  uint8_t* buf = frame_.data();
  if (len < kEthHeaderBytes) {
    count_drop(st, b, FrameDrop::runt);
    return;
  }
  if (len > frame_.size() || avail < len) {
    count_drop(st, b, FrameDrop::oversize);
    return;
  }
  // Strip an 802.1Q tag: the fabric carries the untagged frame and the egress
  // binding puts its own tag back.
  uint16_t vlan = 0;
  uint32_t flen = len;
  if (be16_at(hdr + 12) == kEtherTypeVlan) {
    if (len < kEthHeaderBytes + kVlanTagBytes) {
      count_drop(st, b, FrameDrop::runt);
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
    count_drop(st, b, FrameDrop::bad_source_mac);
    return;
  }
  // The binding: this VLAN and a MAC set holding the source, else this VLAN
  // with no MAC set.
  int32_t bind = -1;
  bool vlan_known = false;
  for (uint32_t cand : dev.bindings) {
    const PortEndpointConfig& pc = ports[cand];
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
    count_drop(st, b, vlan_known ? FrameDrop::unknown_source : FrameDrop::unknown_vlan);
    return;
  }
  if (static_cast<uint32_t>(bind) != b) {
    // Counted at the device's first binding above; move it to the real one.
    st.ports[b].rx_frames--;
    st.ports[b].rx_bytes -= len;
    b = static_cast<uint32_t>(bind);
    st.ports[b].rx_frames++;
    st.ports[b].rx_bytes += len;
  }
  if (flen > ports[b].max_frame_bytes) {
    count_drop(st, b, FrameDrop::oversize);
    return;
  }
  PortStats& ps = st.ports[b];
  const uint32_t from = ports[b].endpoint;
  const uint64_t tsc = rte_rdtsc();
  const MacTable::Learn learned = mac_.learn(src, static_cast<int32_t>(from), tsc);
  if (learned == MacTable::Learn::full) ps.mac_table_full++;
  if (learned == MacTable::Learn::learned || learned == MacTable::Learn::moved) {
    (learned == MacTable::Learn::moved ? ps.mac_moves : ps.macs_learned)++;
    h.share_learned(src, from);  // the other cores learn it too, through the rings
  }
  const uint16_t flow = flow_hash(buf, flen);
  const int32_t to = mac_is_group(dst) ? -1 : mac_.lookup(dst, tsc);
  if (to < 0) {
    ps.flooded++;
    for (uint32_t d : ports_->bound_eps)
      if (d != from) send_frame(h, from, d, flen, flow);
    return;
  }
  if (static_cast<uint32_t>(to) == from) {
    count_drop(st, b, FrameDrop::same_endpoint);
    return;
  }
  send_frame(h, from, static_cast<uint32_t>(to), flen, flow);
}

// One copy of the frame in frame_ from endpoint `from` to `to`.
template <class H>
void Bridge::send_frame(H& h, uint32_t from, uint32_t to, uint32_t len, uint16_t flow) {
  RunStats& st = h.stats();
  const uint32_t b = static_cast<uint32_t>(h.nic(from).binding);
  const uint8_t flags = kPktFrame | (h.now() >= h.measure_start() ? kPktMeasured : 0);
  switch (h.enqueue_frame(from, to, len, flags, frame_.data(), flow)) {
    case Endpoints::Enqueue::ok:
      st.ports[b].fabric_frames++;
      h.inject(from);
      break;
    case Endpoints::Enqueue::queue_full:
      count_drop(st, b, FrameDrop::ingress_queue_full);
      break;
    default:
      count_drop(st, b, FrameDrop::mbuf_pool_empty);
      break;
  }
}

template <class H>
void Bridge::frame_segment(H& h, uint32_t e, rte_mbuf* m) {
  Nic& ep = h.nic(e);
  PacketMeta* pm = meta(m);
  if (ep.binding < 0) {  // cannot happen: frames go only to port-bound endpoints
    h.fail("frame packet " + std::to_string(pm->id) + " reached endpoint " + std::to_string(e) +
           ", which has no port");
    rte_pktmbuf_free(m);
    return;
  }
  if (pm->nseg <= 1) {
    emit_frame(h, e, &m, 1, pm->gen_ps, pm->hops);
    return;
  }
  const uint32_t seg_cap = ports_->seg_cap;
  const ps_t now = h.now();
  const uint64_t key = ((uint64_t(pm->src) << 32) | pm->msg_seq) + 1;
  int32_t slot = -1, free_slot = -1, oldest = -1;
  for (uint32_t i = 0; i < ep.fslot.size(); i++) {
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
      if (oldest >= 0 && now - ep.fslot[oldest].first_ps > kReassemblyTimeout) {
        FrameSlot& fs = ep.fslot[oldest];
        for (uint32_t s = 0; s < seg_cap; s++) {
          rte_mbuf*& sm = ep.fseg[size_t(oldest) * seg_cap + s];
          if (sm) rte_pktmbuf_free(sm);
          sm = nullptr;
        }
        fs = FrameSlot{};
        count_drop(h.stats(), b, FrameDrop::reassembly_timeout);
        free_slot = oldest;
      } else {
        count_drop(h.stats(), b, FrameDrop::reassembly_overflow);
        rte_pktmbuf_free(m);
        return;
      }
    }
    slot = free_slot;
    ep.fslot[slot] = FrameSlot{key, now, 0, pm->nseg};
  }
  FrameSlot& fs = ep.fslot[slot];
  rte_mbuf** segs = &ep.fseg[size_t(slot) * seg_cap];
  if (pm->seg >= fs.nseg || pm->seg >= seg_cap || segs[pm->seg]) {
    h.fail("frame packet " + std::to_string(pm->id) + " has segment " + std::to_string(pm->seg) +
           " of " + std::to_string(fs.nseg) + ", already seen or out of range");
    rte_pktmbuf_free(m);
    return;
  }
  segs[pm->seg] = m;
  if (++fs.got < fs.nseg) return;
  const ps_t gen = pm->gen_ps;
  const uint8_t hops = pm->hops;
  emit_frame(h, e, segs, fs.nseg, gen, hops);
  for (uint32_t s = 0; s < fs.nseg; s++) segs[s] = nullptr;
  fs = FrameSlot{};
}

// Decodes the segments (freeing them) into one transmit buffer, puts the
// binding's VLAN tag back and queues it for the port.
template <class H>
void Bridge::emit_frame(H& h, uint32_t e, rte_mbuf** segs, uint32_t nseg, ps_t gen_ps,
                        uint8_t hops) {
  RunStats& st = h.stats();
  const uint32_t b = static_cast<uint32_t>(h.nic(e).binding);
  const PortEndpointConfig& pc = ports_->ports()[b];
  PortStats& ps = st.ports[b];
  uint8_t* buf = frame_.data();
  uint32_t len = 0;
  bool good = true;
  for (uint32_t s = 0; s < nseg; s++) {
    const int n = good ? decode_payload(ports_->codec, segs[s], buf + len,
                                        static_cast<uint32_t>(frame_.size()) - len)
                       : -1;
    if (n < 0) good = false;
    else len += static_cast<uint32_t>(n);
    rte_pktmbuf_free(segs[s]);
  }
  if (!good || len < kEthHeaderBytes) {
    count_drop(st, b, FrameDrop::corrupted);
    return;
  }
  const uint32_t dev = ports_->binding_device[b];
  const BridgePorts::Device& device = ports_->devices[dev];
  if (!device.link_up) {
    count_drop(st, b, FrameDrop::egress_link_down);
    return;
  }
  const uint32_t out_len = len + (pc.vlan ? kVlanTagBytes : 0);
  rte_mbuf* tx = nullptr;
  uint8_t* out = frame_out_.data();  // a replayed host takes the frame as it is
  if (!device.replay) {
    tx = rte_pktmbuf_alloc(tx_pool_);
    if (!tx) {
      count_drop(st, b, FrameDrop::mbuf_pool_empty);
      return;
    }
    out = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(tx, static_cast<uint16_t>(out_len)));
    if (!out) {
      rte_pktmbuf_free(tx);
      count_drop(st, b, FrameDrop::oversize);
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
  if (h.capturing()) [[unlikely]]
    h.capture_frame(b, out, out_len, out_len, CaptureDir::outbound);
  const ps_t lat = h.now() - gen_ps;
  ps.frame_latency_ps.add(lat);
  ps.frame_hops.add(hops);
  frame_latency_iv_.add(lat);
  st.delivered_messages++;
  if (!tx) {
    ps.tx_frames++;
    ps.tx_bytes += out_len;
    return;
  }
  meta(tx)->dst = b;  // the binding, for the transmit counters
  meta(tx)->gen_ps = h.now();  // when it should leave: its lateness is counted as it goes
  auto& q = txb_[dev];
  q.push_back(tx);
  if (q.size() >= 32) flush_tx(st, h.wall_now());
}

inline void Bridge::flush_tx(RunStats& st, ps_t wall_ps) {
  constexpr uint16_t kBurst = 32;  // emit_frame flushes at this many
  for (uint32_t d : polled_) {
    auto& q = txb_[d];
    for (size_t at = 0; at < q.size(); at += kBurst) {
      const uint16_t n = static_cast<uint16_t>(std::min<size_t>(kBurst, q.size() - at));
      // What the counters need, read before the port owns the buffers (a
      // driver may free them inside tx_burst).
      uint32_t binding[kBurst], bytes[kBurst];
      ps_t due[kBurst];
      for (uint16_t i = 0; i < n; i++) {
        const PacketMeta* pm = meta(q[at + i]);
        binding[i] = pm->dst;
        due[i] = pm->gen_ps;
        bytes[i] = rte_pktmbuf_pkt_len(q[at + i]);
      }
      const uint16_t sent = rte_eth_tx_burst(ports_->devices[d].port_id, 0, &q[at], n);
      for (uint16_t i = 0; i < n; i++) {
        if (i >= sent) {
          count_drop(st, binding[i], FrameDrop::tx_full);
          rte_pktmbuf_free(q[at + i]);
          continue;
        }
        PortStats& ps = st.ports[binding[i]];
        ps.tx_frames++;
        ps.tx_bytes += bytes[i];
        // Frame lateness: handed to the port now, due when its tail reached
        // the egress endpoint (the event that completed it ran late, and the
        // frame waited for its burst).
        const ps_t late = wall_ps > due[i] ? wall_ps - due[i] : 0;
        ps.frame_lateness_ps.add(late);
        if (late > lateness_bound_ps_) ps.frames_over_bound++;
      }
    }
    q.clear();
  }
}

// Replayed hosts (ports[].replay): each sends its file's frames at their
// recorded times (divided by replay_speed) from emulated time 0, pass after
// pass; the worker of the host's endpoint runs them as events.
template <class H>
void Bridge::on_replay(H& h, uint32_t b) {
  const PortEndpointConfig& pc = ports_->ports()[b];
  const ReplayTrace& tr = *pc.replay;
  BridgePorts::ReplayCursor& rc = ports_->replay[b];
  const ps_t now = h.now();
  if (now >= h.gen_end() || !h.generating()) return;  // the run is over: the rest is unsent
  const uint32_t len = tr.length(rc.next);
  const uint32_t avail = std::min<uint32_t>(len, static_cast<uint32_t>(frame_.size()));
  h.stats().ports[b].replay_sent++;
  ingest_bytes(h, ports_->devices[ports_->binding_device[b]], tr.frame(rc.next), avail, len);
  if (++rc.next == tr.frames()) {
    rc.next = 0;
    rc.base += tr.pass_ps(pc.replay_speed);
    if (++rc.pass == pc.replay_loops) {
      rc.done = true;
      return;
    }
  }
  const ps_t t = rc.base + static_cast<ps_t>(double(tr.t_ps[rc.next]) / pc.replay_speed);
  h.schedule(event_at(std::max(t, now), H::kind(BridgeEvent::port_replay), b));
}

}  // namespace fabemu
