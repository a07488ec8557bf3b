// Engine<R, Link>, continued: the endpoints' network interfaces. Traffic
// sources generate messages, which are segmented into packets in the source
// queues; the injection link sends one packet at a time when the router
// input has credits for it; at egress packets are delivered, messages
// reassembled and requests answered. Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
void Engine<R, L>::on_generate(Worker& w, uint32_t e) {
  if (w.now >= gen_end_ || !w.generating) return;
  Nic& ep = w.ep[e];
  const bool measured = w.now >= measure_start_;
  const uint32_t src = f_.processor(e);  // each of its slice ports generates for it
  for (uint32_t b = 0; b < std::max<uint32_t>(1, cfg_.batch_size); b++) {
    if (w.shedding) {  // real time, behind the wall clock, run.overload: shed
      w.st.drops[static_cast<int>(DropReason::shed_overload)]++;
      continue;
    }
    const uint32_t dst = pattern_.destination(src, ep.rng);
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
  if (!cfg_.single_batch)
    w.wheel.push(
        event_at(w.now + ep.rng.geometric(gen_) * gen_slot_ps_, EventType::ep_generate, e));
  inject_processor(w, src);
}

// Each of processor p's injection ports sends what it can.
template <class R, class L>
void Engine<R, L>::inject_processor(Worker& w, uint32_t p) {
  if (f_.slices <= 1) [[likely]] {
    try_inject(w, p);
    return;
  }
  for (uint32_t s = 0; s < f_.slices; s++) try_inject(w, f_.slice_endpoint(p, s));
}

// The network slice a packet of processor p takes (Fabric::slices). The
// paper keeps requests to one address in order (section 5: "requests to the
// same address maintain ordering in the network") and lets responses go
// anywhere: a request takes the slice its address hash names, so one
// address (or one frame flow) stays on one slice; a response the port with
// the fewest packets queued, counting those placed before it, ties going
// round from the slice its hash names (not always to slice 0).
template <class R, class L>
uint32_t Engine<R, L>::choose_slice(Worker& w, uint32_t p, uint8_t cls, uint16_t hash,
                                    const uint32_t* placed) const {
  const uint32_t n = f_.slices;
  const uint32_t hashed = static_cast<uint32_t>((uint64_t(hash) * 0x9E3779B97F4A7C15ULL) >> 40) % n;
  if (cls != static_cast<uint8_t>(TrafficClass::response)) return hashed;
  uint32_t best = hashed, best_len = ~0u;
  for (uint32_t i = 0, s = hashed; i < n; i++, s = s + 1 == n ? 0 : s + 1) {
    const Nic& port = w.ep[f_.slice_endpoint(p, s)];
    const uint32_t len = port.srcq[0].len + port.srcq[1].len + placed[s];
    if (len < best_len) best = s, best_len = len;
  }
  return best;
}

template <class R, class L>
void Engine<R, L>::make_message(Worker& w, uint32_t e, uint32_t dst, uint32_t bytes, uint8_t cls,
                                bool needs_reply, bool measured, ps_t gen_ps) {
  w.st.generated_messages++;
  const uint8_t flags = (measured ? kPktMeasured : 0) | (needs_reply ? kPktNeedsReply : 0);
  const Enqueue r = enqueue_message(w, e, dst, bytes, cls, flags, gen_ps, synthetic_payload(), -1);
  if (r == Enqueue::ok) return;
  w.st.drops[static_cast<int>(r == Enqueue::queue_full ? DropReason::source_queue_full
                                                       : DropReason::mbuf_pool_empty)]++;
  // Generated but refused: part of the offered load all the same.
  if (measured && gen_ps < measure_end_) w.st.refused_units += message_units(cfg_.format, bytes);
}

// Segments a message into packets of at most max_payload_ bytes and appends
// them to the source queue of endpoint e. `flags` apply to every segment
// (kPktNeedsReply only to the last). flow >= 0: every segment carries that
// hash (one path, in order); -1: each segment its own (spread).
template <class R, class L>
typename Engine<R, L>::Enqueue Engine<R, L>::enqueue_message(Worker& w, uint32_t e, uint32_t dst,
                                                             uint32_t bytes, uint8_t cls,
                                                             uint8_t flags, ps_t gen_ps,
                                                             const uint8_t* payload, int32_t flow) {
  // e's processor sends it (a slice port's generator sends for its processor).
  const uint32_t p = f_.processor(e);
  Nic& ep = w.ep[p];
  const uint32_t nseg = bytes == 0 ? 1 : (bytes + max_payload_ - 1) / max_payload_;
  const int qi = cls == static_cast<uint8_t>(TrafficClass::response) ? 1 : 0;
  auto seg_hash = [&](uint32_t seq, uint32_t s) {
    return flow >= 0 ? static_cast<uint16_t>(flow & 0x7fff)
                     : static_cast<uint16_t>((seq * 0x9e37u + s * 0x7f4bu) & 0x7fff);
  };
  if (w.seg_scratch.size() < nseg) {  // grow once, then reused
    w.seg_scratch.resize(nseg);
    w.seg_slice.resize(nseg);
  }
  const uint32_t seq = ep.msg_seq;
  if (f_.slices <= 1) [[likely]] {
    if (ep.srcq[qi].len + nseg > ep.srcq_bound) return Enqueue::queue_full;
  } else {  // each packet's slice, and room for them in each slice's queue
    uint32_t placed[kMaxSlices] = {};
    for (uint32_t s = 0; s < nseg; s++) {
      const uint32_t sl = choose_slice(w, p, cls, seg_hash(seq, s), placed);
      w.seg_slice[s] = static_cast<uint8_t>(sl);
      placed[sl]++;
    }
    for (uint32_t sl = 0; sl < f_.slices; sl++) {
      const Nic& port = w.ep[f_.slice_endpoint(p, sl)];
      if (port.srcq[qi].len + placed[sl] > port.srcq_bound) return Enqueue::queue_full;
    }
  }
  // A frame's segments are built now, while their payload is at hand; a
  // synthetic packet when it is injected (SourceQueue), unless it joins one
  // of the first kBuildAhead places of its queue: below saturation it then
  // leaves soon, and is built while the buffer the pool hands out is in the
  // cache.
  const bool frame = payload != synthetic_payload();
  rte_mbuf** mv = w.seg_scratch.data();
  if (frame && !w.pool.alloc_bulk(mv, nseg)) return Enqueue::no_mbuf;
  ep.msg_seq++;
  const bool measured = (flags & kPktMeasured) != 0;
  for (uint32_t s = 0; s < nseg; s++) {
    const uint32_t off = std::min(bytes, s * max_payload_);
    const uint32_t sb = std::min(max_payload_, bytes - off);
    const uint32_t port = f_.slices <= 1 ? p : f_.slice_endpoint(p, w.seg_slice[s]);
    Nic& out = w.ep[port];
    SourceQueue& q = out.srcq[qi];
    rte_mbuf* m = frame ? mv[s] : nullptr;
    if (!frame && q.len < SourceQueue::kBuildAhead && !w.pool.alloc_bulk(&m, 1))
      m = nullptr;  // (built when injected)
    PacketMeta& slot = q.push(m);
    PacketMeta& pm = m ? *meta(m) : slot;
    std::memset(&pm, 0, sizeof(pm));
    pm.id = (uint64_t(port) << 40) | out.pkt_seq++;
    pm.gen_ps = gen_ps;
    pm.src = p;
    pm.dst = dst;
    pm.msg_seq = seq;
    pm.units = static_cast<uint16_t>(cfg_.format.units_for(sb));
    pm.payload_bytes = static_cast<uint16_t>(sb);
    pm.seg = static_cast<uint16_t>(s);
    pm.nseg = static_cast<uint16_t>(nseg);
    pm.hash = seg_hash(seq, s);
    pm.cls = cls;
    pm.flags =
        static_cast<uint8_t>((flags & ~kPktNeedsReply) |
                             (s + 1 == nseg ? (kPktLastSegment | (flags & kPktNeedsReply)) : 0));
    R::on_inject(*w.tables.tables, f_, pm);  // source-side lookup: route tag, starting VC
    if (m) build_packet(w, m, frame ? payload + off : payload);
    w.st.injected_packets++;
    if (measured) {
      w.st.measured_injected++;
      if (gen_ps < measure_end_) w.st.offered_units += pm.units;
    }
  }
  return Enqueue::ok;
}

// Packet m, its metadata written, gets its encoding (sealed with the link
// CRC when links retry).
template <class R, class L>
void Engine<R, L>::build_packet(Worker& w, rte_mbuf* m, const uint8_t* payload) {
  const PacketMeta& pm = *meta(m);
  if (encode_packet(static_cast<CodecKind>(cfg_.codec), m, pm, payload) == 0)
    fail(w, "packet " + std::to_string(pm.id) + " could not be encoded (" +
                std::to_string(pm.payload_bytes) + " payload bytes)");
  if (lcb_) link_crc_seal(static_cast<CodecKind>(cfg_.codec), m);
}

// The injection link sends the first packet (responses first) whose VC has
// credits at the router input; it looks again when the link frees or the
// credits come.
template <class R, class L>
void Engine<R, L>::try_inject(Worker& w, uint32_t e) {
  Nic& ep = w.ep[e];
  if (!ep.queued()) return;
  if (ep.inj_free > w.now) {
    arm_ep_wake(w, e, ep.inj_free);
    return;
  }
  for (int qi = 1; qi >= 0; qi--) {
    SourceQueue& q = ep.srcq[qi];
    if (q.len == 0) continue;
    rte_mbuf* m = q.front();
    if (!(q.head_state & SourceQueue::kHeadKnown)) {
      const PacketMeta& pm = m ? *meta(m) : q.front_meta();
      q.head_units = pm.units;
      q.head_vc = pm.vc;
      q.head_state = SourceQueue::kHeadKnown;
    }
    const uint8_t v = q.head_vc;
    const uint32_t units = q.head_units;
    ps_t wake = kNever;
    if (!w.ep_credits[size_t(e) * nv_ + v].available(units, w.now, &wake)) {
      if (!(q.head_state & SourceQueue::kHeadStalled)) {  // once per packet
        q.head_state |= SourceQueue::kHeadStalled;
        w.st.links[ep.link].credit_stalls++;
      }
      if (wake != kNever) arm_ep_wake(w, e, wake);
      continue;
    }
    if (!m) {  // a synthetic packet: its buffer and encoding now
      if (!w.pool.alloc_bulk(&m, 1)) {
        fail(w, "no packet buffer left for endpoint " + std::to_string(e) + "'s next packet (" +
                    std::to_string(w.pool.capacity()) + " buffers on worker " +
                    std::to_string(w.id) + "); give DPDK more memory (FABEMU_DPDK_MEM_MB)");
        return;
      }
      *meta(m) = q.front_meta();
      build_packet(w, m, synthetic_payload());
    }
    q.pop();
    // Beyond saturation the next packet has waited long enough to leave the
    // cache: fetch its metadata while this one is serialised.
    if (q.len)
      rte_prefetch0(q.front() ? static_cast<const void*>(meta(q.front())) : &q.front_meta());
    const FabricEndpoint& fe = f_.endpoints[e];
    const ps_t dur = units * fe.unit_ps;
    w.ep_credits[size_t(e) * nv_ + v].take(units);
    meta(m)->inj_ps = w.now;
    ep.inj_free = w.now + dur;
    LinkStats& ls = w.st.links[ep.link];
    ls.packets++;
    ls.units += units;
    ls.vc_packets[v]++;
    ls.vc_units[v] += units;
    add_busy(ls.busy_ps, w.now, dur);
    if (capturing_) [[unlikely]]
      capture_packet(w, ep.link, m, w.now, v, ls.packets - 1);
    const uint32_t c = w.router.channel(router_local_[fe.router], static_cast<uint32_t>(fe.port), v);
    enter_input(w, c, m, w.now + fe.wire_ps);
    if (ep.queued()) arm_ep_wake(w, e, ep.inj_free);
    return;
  }
}

template <class R, class L>
void Engine<R, L>::add_ep_credit_stream(Worker& w, uint32_t e, uint32_t v, uint32_t units, ps_t first,
                                        ps_t every, bool resumed) {
  CreditCounter& cc = w.ep_credits[size_t(e) * nv_ + v];
  if (resumed) {
    cc.add_resumed(units, first, every);
  } else if (!cc.add_stream(units, first, every)) {
    defer_credit_stream(w, e, kEndpointPort, v, units, first, every);
    return;
  }
  const Nic& ep = w.ep[e];
  if (ep.queued()) arm_ep_wake(w, e, first > ep.inj_free ? first : ep.inj_free);
}

// A router output hands a packet to its endpoint, which sinks it at line
// rate: the tail is delivered at now + wire + serialization, the credits
// stream back as the units arrive. Delivery needs no event of its own unless
// it does something at that time (answer a request, pass a frame on).
template <class R, class L>
inline void Engine<R, L>::eject(Worker& w, const OutLink& ol, uint32_t o, rte_mbuf* m, ps_t now,
                                ps_t dur) {
  PacketMeta* pm = meta(m);
  if (faults_ && w.sink_stopped[o]) [[unlikely]] {  // waits in its receive buffer
    w.sink_held.push_back({o, m});
    return;
  }
  add_credit_stream(w, o, pm->vc, pm->units, now + ol.wire_ps + ol.unit_ps + ol.wire_ps,
                    ol.unit_ps);
  finish_eject(w, ol, m, now, dur);
}

// Packet m, whose credits are on their way back, reaches its endpoint.
template <class R, class L>
inline void Engine<R, L>::finish_eject(Worker& w, const OutLink& ol, rte_mbuf* m, ps_t now,
                                       ps_t dur) {
  PacketMeta* pm = meta(m);
  const uint8_t ov = pm->vc;
  if (pm->flags & kPktTransmitError) [[unlikely]] {
    // Damaged on a link and moved on before its CRC failed: its good copy
    // comes after it (BlackWidow §4.3: "eventually discarded by the network
    // interface at the destination").
    w.st.transmit_error_discards++;
    rte_pktmbuf_free(m);
    return;
  }
  const ps_t t = now + ol.wire_ps + dur;
  const uint32_t e = static_cast<uint32_t>(ol.peer_endpoint);
  // (A multi-packet message is answered only when its last packet completes
  // it, so with replies its packets are delivered in time order too.)
  if ((pm->flags & (kPktFrame | kPktNeedsReply)) || (pm->nseg > 1 && cfg_.reply_fraction > 0)) {
    Event ev = event_at(t, EventType::ep_deliver, e);
    ev.vc = ov;
    ev.m = m;
    w.wheel.push(ev);
    return;
  }
  on_deliver(w, e, m, t);
}

// The tail of packet m reaches endpoint e at time t.
template <class R, class L>
void Engine<R, L>::on_deliver(Worker& w, uint32_t e, rte_mbuf* m, ps_t t) {
  PacketMeta* pm = meta(m);
  // A slice port delivers to its processor: reassembly, replies and frames
  // are the processor's (Fabric::slices).
  const uint32_t p = f_.processor(e);
  if (pm->dst != p) {
    fail(w, "packet " + std::to_string(pm->id) + " for endpoint " + std::to_string(pm->dst) +
                " was delivered to endpoint " + std::to_string(e) +
                (f_.slices > 1 ? " (processor " + std::to_string(p) + ")" : std::string()) +
                " (misrouted)");
  }
  // (A packet whose damage the link CRC missed carries it here, as on a
  // real fabric: engine_link_layer.h, lcb_undetected.)
  if ((cfg_.check_invariants || cfg_.check_deliveries) && !(pm->flags & kPktFlippedBits) &&
      !decode_check(static_cast<CodecKind>(cfg_.codec), m, *pm)) {
    fail(w, "packet " + std::to_string(pm->id) + " arrived with an encoding that does not "
                "match its metadata");
  }
  w.st.delivered_packets++;
  if (t >= measure_start_ && t < measure_end_) w.st.accepted_units += pm->units;
  if (pm->flags & kPktMeasured) {
    w.st.measured_delivered++;
    w.st.latency_ps.add(t - pm->gen_ps);
    w.st.network_latency_ps.add(t - pm->inj_ps);
    w.st.hops.add(pm->hops);
  }
  if (cfg_.on_deliver) cfg_.on_deliver(pm->id, pm->src, pm->dst, t - pm->gen_ps, pm->hops);
  if (pm->flags & kPktFrame) {
    frame_segment(w, p, m);  // keeps the mbuf until the frame is whole
    return;
  }
  const MessageReassembly::Result ra = w.ep[p].reassembly.add(*pm);
  if (ra == MessageReassembly::Result::overflow) {
    // The first segment found the table full: its message cannot be tracked.
    w.st.drops[static_cast<int>(DropReason::reassembly_overflow)]++;
  }
  if (ra == MessageReassembly::Result::complete) {
    w.st.delivered_messages++;
    if (pm->flags & kPktNeedsReply) {
      make_message(w, p, pm->src, cfg_.reply_bytes, static_cast<uint8_t>(TrafficClass::response),
                   false, (pm->flags & kPktMeasured) != 0, t);
      inject_processor(w, p);
    }
  }
  w.free_later.push(m);
}

}  // namespace fabemu
