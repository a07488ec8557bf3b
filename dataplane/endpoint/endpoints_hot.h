// Endpoints, continued: the per-packet work, inlined into the engine that
// hosts them. Included from endpoints.h only.
#pragma once

namespace fabemu {

template <class H>
void Endpoints::on_generate(H& h, uint32_t e) {
  const ps_t now = h.now();
  if (now >= h.gen_end() || !generating_) return;
  const TrafficConfig& tc = *p_.traffic;
  Nic& ep = ep_[e];
  const bool measured = now >= h.measure_start();
  const uint32_t src = p_.fabric->processor(e);  // each of its slice ports generates for it
  PhaseState* ph = phase_.empty() ? nullptr : &phase_[e];
  if (ph && ph->left == 0) [[unlikely]] {  // a generation of a phase a eureka cut short
    ph->stale_generate = false;
    return;  // (the next phase generates again)
  }
  for (uint32_t b = 0; b < std::max<uint32_t>(1, tc.batch_size); b++) {
    if (ph && ph->left-- == 0) [[unlikely]] {
      ph->left = 0;
      break;
    }
    if (h.shedding()) {  // real time, behind the wall clock, run.overload: shed
      h.stats().drops[static_cast<int>(DropReason::shed_overload)]++;
      continue;
    }
    const uint32_t dst = p_.pattern.destination(src, ep.rng);
    const std::vector<double>& cdf = p_.size_cdf;
    if (!tc.shapes.empty()) {  // a packet type: its kind follows from its number
      const size_t k = message_kind(p_.seed, src, ep_[src].msg_seq, cdf);
      make_message(h, e, dst, tc.size_bytes[k], static_cast<uint8_t>(TrafficClass::request), true,
                   measured, now, tc.shapes[k].header_units);
      continue;
    }
    uint32_t bytes = tc.size_bytes[0];
    if (cdf.size() > 1) {
      const double u = ep.rng.unit();
      for (size_t i = 0; i < cdf.size(); i++)
        if (u <= cdf[i] || i + 1 == cdf.size()) {
          bytes = tc.size_bytes[i];
          break;
        }
    }
    const bool needs_reply = tc.reply_fraction > 0 && ep.rng.unit() <= tc.reply_fraction;
    make_message(h, e, dst, bytes, static_cast<uint8_t>(TrafficClass::request), needs_reply,
                 measured, now);
  }
  if (ph && ph->left == 0) [[unlikely]] {
    end_phase(h, e);
  } else if (!tc.single_batch) {
    const uint64_t slots = tc.on_off ? burst_slots(ep) : ep.rng.geometric(p_.gen);
    h.schedule(event_at(now + slots * p_.gen_slot_ps, H::kind(EndpointEvent::generate), e));
  }
  inject_processor(h, src);
}

// Each of processor p's injection ports sends what it can.
template <class H>
void Endpoints::inject_processor(H& h, uint32_t p) {
  const Fabric& f = *p_.fabric;
  if (f.slices <= 1) [[likely]] {
    try_inject(h, p);
    return;
  }
  for (uint32_t s = 0; s < f.slices; s++) try_inject(h, f.slice_endpoint(p, s));
}

// The network slice a packet of processor p takes (Fabric::slices). The
// paper keeps requests to one address in order (section 5: "requests to the
// same address maintain ordering in the network") and lets responses go
// anywhere: a request takes the slice its address hash names, so one
// address (or one frame flow) stays on one slice; a response the port with
// the fewest packets queued, counting those placed before it, ties going
// round from the slice its hash names (not always to slice 0).
inline uint32_t Endpoints::choose_slice(uint32_t p, uint8_t cls, uint16_t hash,
                                        const uint32_t* placed) const {
  const Fabric& f = *p_.fabric;
  const uint32_t n = f.slices;
  const uint32_t hashed = static_cast<uint32_t>((uint64_t(hash) * 0x9E3779B97F4A7C15ULL) >> 40) % n;
  if (cls != static_cast<uint8_t>(TrafficClass::response)) return hashed;
  uint32_t best = hashed, best_len = ~0u;
  for (uint32_t i = 0, s = hashed; i < n; i++, s = s + 1 == n ? 0 : s + 1) {
    const Nic& port = ep_[f.slice_endpoint(p, s)];
    const uint32_t len = port.srcq[0].len + port.srcq[1].len + placed[s];
    if (len < best_len) best = s, best_len = len;
  }
  return best;
}

template <class H>
void Endpoints::make_message(H& h, uint32_t e, uint32_t dst, uint32_t bytes, uint8_t cls,
                             bool needs_reply, bool measured, ps_t gen_ps, uint32_t header_units) {
  RunStats& st = h.stats();
  st.generated_messages++;
  const uint8_t flags = (measured ? kPktMeasured : 0) | (needs_reply ? kPktNeedsReply : 0);
  const Enqueue r =
      enqueue_message(h, e, dst, bytes, cls, flags, gen_ps, synthetic_payload(), -1, header_units);
  if (r == Enqueue::ok) return;
  st.drops[static_cast<int>(r == Enqueue::queue_full ? DropReason::source_queue_full
                                                     : DropReason::mbuf_pool_empty)]++;
  // Generated but refused: part of the offered load all the same.
  if (measured && gen_ps < h.measure_end())
    st.refused_units += header_units ? p_.format.units_with_header(bytes, header_units)
                                     : message_units(p_.format, bytes);
}

// Segments a message into packets of at most max_payload bytes and appends
// them to the source queue of endpoint e. `flags` apply to every segment
// (kPktNeedsReply only to the last). flow >= 0: every segment carries that
// hash (one path, in order); -1: each segment its own (spread).
template <class H>
Endpoints::Enqueue Endpoints::enqueue_message(H& h, uint32_t e, uint32_t dst, uint32_t bytes,
                                              uint8_t cls, uint8_t flags, ps_t gen_ps,
                                              const uint8_t* payload, int32_t flow,
                                              uint32_t header_units) {
  const Fabric& f = *p_.fabric;
  const uint32_t max_payload = p_.max_payload;
  // e's processor sends it (a slice port's generator sends for its processor).
  const uint32_t p = f.processor(e);
  Nic& ep = ep_[p];
  const uint32_t nseg = bytes <= max_payload ? 1 : (bytes + max_payload - 1) / max_payload;
  const int qi = cls == static_cast<uint8_t>(TrafficClass::response) ? 1 : 0;
  auto seg_hash = [&](uint32_t seq, uint32_t s) {
    return flow >= 0 ? static_cast<uint16_t>(flow & 0x7fff)
                     : static_cast<uint16_t>((seq * 0x9e37u + s * 0x7f4bu) & 0x7fff);
  };
  if (seg_scratch_.size() < nseg) {  // grow once, then reused
    seg_scratch_.resize(nseg);
    seg_slice_.resize(nseg);
  }
  const uint32_t seq = ep.msg_seq;
  if (f.slices <= 1) [[likely]] {
    if (ep.srcq[qi].len + nseg > ep.srcq_bound) return Enqueue::queue_full;
  } else {  // each packet's slice, and room for them in each slice's queue
    uint32_t placed[kMaxSlices] = {};
    for (uint32_t s = 0; s < nseg; s++) {
      const uint32_t sl = choose_slice(p, cls, seg_hash(seq, s), placed);
      seg_slice_[s] = static_cast<uint8_t>(sl);
      placed[sl]++;
    }
    for (uint32_t sl = 0; sl < f.slices; sl++) {
      const Nic& port = ep_[f.slice_endpoint(p, sl)];
      if (port.srcq[qi].len + placed[sl] > port.srcq_bound) return Enqueue::queue_full;
    }
  }
  // A frame's segments are built now, while their payload is at hand; a
  // synthetic packet when it is injected (SourceQueue), unless it joins one
  // of the first kBuildAhead places of its queue: below saturation it then
  // leaves soon, and is built while the buffer the pool hands out is in the
  // cache.
  const bool frame = payload != synthetic_payload();
  PacketPool& pool = h.pool();
  rte_mbuf** mv = seg_scratch_.data();
  if (frame && !pool.alloc_bulk(mv, nseg)) return Enqueue::no_mbuf;
  ep.msg_seq++;
  const bool measured = (flags & kPktMeasured) != 0;
  RunStats& st = h.stats();
  for (uint32_t s = 0; s < nseg; s++) {
    const uint32_t off = std::min(bytes, s * max_payload);
    const uint32_t sb = std::min(max_payload, bytes - off);
    const uint32_t port = f.slices <= 1 ? p : f.slice_endpoint(p, seg_slice_[s]);
    Nic& out = ep_[port];
    SourceQueue& q = out.srcq[qi];
    rte_mbuf* m = frame ? mv[s] : nullptr;
    if (!frame && q.len < SourceQueue::kBuildAhead && !pool.alloc_bulk(&m, 1))
      m = nullptr;  // (built when injected)
    PacketMeta& slot = q.push(m);
    PacketMeta& pm = m ? *meta(m) : slot;
    std::memset(&pm, 0, sizeof(pm));
    pm.id = (uint64_t(port) << 40) | out.pkt_seq++;
    pm.gen_ps = gen_ps;
    pm.src = p;
    pm.dst = dst;
    pm.msg_seq = seq;
    pm.units = static_cast<uint16_t>(header_units ? p_.format.units_with_header(sb, header_units)
                                                  : p_.format.units_for(sb));
    pm.payload_bytes = static_cast<uint16_t>(sb);
    pm.seg = static_cast<uint16_t>(s);
    pm.nseg = static_cast<uint16_t>(nseg);
    pm.hash = seg_hash(seq, s);
    pm.cls = cls;
    pm.flags =
        static_cast<uint8_t>((flags & ~kPktNeedsReply) |
                             (s + 1 == nseg ? (kPktLastSegment | (flags & kPktNeedsReply)) : 0));
    h.on_inject(pm);  // source-side lookup: route tag, starting VC
    if (m) build_packet(h, m, frame ? payload + off : payload);
    st.injected_packets++;
    if (measured) {
      st.measured_injected++;
      if (gen_ps < h.measure_end()) st.offered_units += pm.units;
    }
  }
  if (st.periods.on()) [[unlikely]] st.periods.generated(gen_ps, nseg);
  return Enqueue::ok;
}

// Packet m, its metadata written, gets its encoding (sealed with the link
// CRC when links retry).
template <class H>
void Endpoints::build_packet(H& h, rte_mbuf* m, const uint8_t* payload) {
  const PacketMeta& pm = *meta(m);
  if (encode_packet(p_.codec, m, pm, payload) == 0)
    h.fail("packet " + std::to_string(pm.id) + " could not be encoded (" +
           std::to_string(pm.payload_bytes) + " payload bytes)");
  if (p_.link_crc) link_crc_seal(p_.codec, m);
}

// The injection link sends the first packet (responses first) whose VC has
// credits at the router input; it looks again when the link frees or the
// credits come.
template <class H>
void Endpoints::try_inject(H& h, uint32_t e) {
  Nic& ep = ep_[e];
  if (!ep.queued()) return;
  const ps_t now = h.now();
  if (ep.inj_free > now) {
    arm_wake(h, e, ep.inj_free);
    return;
  }
  const uint32_t nv = p_.nv;
  // Responses first (traffic.response_priority strict), or the queues in
  // turn (alternate); a queue that cannot send passes its turn.
  const int first = ep.inj_first;
  for (int k = 0; k < 2; k++) {
    const int qi = first ^ k;
    SourceQueue& q = ep.srcq[qi];
    if (q.len == 0) continue;
    rte_mbuf* m = q.front();
    if (!(q.head_state & SourceQueue::kHeadKnown)) {
      const PacketMeta& pm = m ? *meta(m) : q.front_meta();
      q.head_units = pm.units;
      q.head_vc = pm.vc;
      q.head_state = SourceQueue::kHeadKnown;
      if (p_.wormhole && pm.seg) q.head_state |= SourceQueue::kHeadFollows;
    }
    const uint32_t units = q.head_units;
    ps_t wake = kNever;
    const uint8_t v = p_.wormhole           ? worm_vc(ep, e, qi, units, now, &wake)
                      : p_.inject_free_vcs ? free_vc(ep, e, units, now, &wake)
                                           : q.head_vc;
    if (v == kNoVc || !credits_[size_t(e) * nv + v].available(units, now, &wake)) {
      if (!(q.head_state & SourceQueue::kHeadStalled)) {  // once per packet
        q.head_state |= SourceQueue::kHeadStalled;
        h.stats().links[ep.link].credit_stalls++;
      }
      if (wake != kNever) arm_wake(h, e, wake);
      continue;
    }
    if (!m) {  // a synthetic packet: its buffer and encoding now
      if (!h.pool().alloc_bulk(&m, 1)) {
        h.fail("no packet buffer left for endpoint " + std::to_string(e) + "'s next packet (" +
               std::to_string(h.pool().capacity()) + " buffers on worker " +
               std::to_string(h.worker_id()) + "); give DPDK more memory (FABEMU_DPDK_MEM_MB)");
        return;
      }
      *meta(m) = q.front_meta();
      build_packet(h, m, synthetic_payload());
    }
    if (p_.inject_free_vcs) {  // the packet goes on the VC chosen for it
      meta(m)->vc = v;
      ep.last_vc = v;
    }
    if (p_.wormhole) {  // the rest of its message follows it on this VC
      meta(m)->vc = v;
      q.worm_vc = (meta(m)->flags & kPktLastSegment) ? SourceQueue::kNoWorm : v;
    }
    q.pop();
    if (!phase_.empty() && qi == 0 && q.len == 0 && phase_[e].join_pending) [[unlikely]] {
      phase_[e].join_pending = false;  // its phase's last request leaves: then it joins
      h.schedule(event_at(now + units * p_.fabric->endpoints[e].unit_ps,
                          H::kind(EndpointEvent::join), e));
    }
    // Beyond saturation the next packet has waited long enough to leave the
    // cache: fetch its metadata while this one is serialised.
    if (q.len)
      rte_prefetch0(q.front() ? static_cast<const void*>(meta(q.front())) : &q.front_meta());
    const FabricEndpoint& fe = p_.fabric->endpoints[e];
    const ps_t dur = units * fe.unit_ps;
    credits_[size_t(e) * nv + v].take(units);
    meta(m)->inj_ps = now;
    ep.inj_free = now + dur;
    if (h.stats().periods.on()) [[unlikely]] h.stats().periods.sent(now);
    LinkStats& ls = h.stats().links[ep.link];
    ls.packets++;
    ls.units += units;
    ls.vc_packets[v]++;
    ls.vc_units[v] += units;
    h.add_busy(ls.busy_ps, now, dur);
    if (h.capturing()) [[unlikely]]
      h.capture(ep.link, m, now, v, ls.packets - 1);
    h.enter_router(e, m, v, now + fe.wire_ps);
    if (p_.alternate_injection) ep.inj_first = static_cast<uint8_t>(qi ^ 1);
    if (ep.queued()) arm_wake(h, e, ep.inj_free);
    return;
  }
}

// traffic.process on_off, as BookSim2's source: slots until the next
// message. Each slot the source's state moves first (off to on with
// burst_alpha, on to off with burst_beta), then an on source generates
// with burst_r1; the slots between events are drawn at once.
inline uint64_t Endpoints::burst_slots(Nic& ep) const {
  uint64_t slots = 0;
  for (;;) {
    if (!ep.burst_on) {
      slots += ep.rng.geometric(p_.burst_wake);  // the slot it turns on, in which it may generate
      ep.burst_on = 1;
      if (ep.rng.unit() <= p_.burst_r1) return slots;
    }
    slots += ep.rng.geometric(p_.burst_event);
    if (ep.rng.unit() > p_.burst_off_share) return slots;
    ep.burst_on = 0;
  }
}

// vcs.injection free, as BookSim2's sources choose: of the inject_free_vcs
// VCs (every one), the first after the one last used whose router input
// has room for the packet (BookSim: not full, for one flit; here all its
// units, for cut-through). kNoVc when none has: *wake is lowered to the
// first credits' arrival.
inline uint8_t Endpoints::free_vc(const Nic& ep, uint32_t e, uint32_t units, ps_t now, ps_t* wake,
                                  uint8_t held) const {
  const uint32_t n = p_.inject_free_vcs;
  uint32_t v = ep.last_vc < n ? ep.last_vc : n - 1;
  const CreditCounter* cr = &credits_[size_t(e) * p_.nv];
  for (uint32_t k = 0; k < n; k++) {
    v = v + 1 == n ? 0 : v + 1;
    if (v != held && cr[v].available(units, now, wake)) return static_cast<uint8_t>(v);
  }
  return kNoVc;
}

// router.flow_control wormhole, as BookSim2's sources send a packet's
// flits: the first packet of a message takes a VC as it would without
// (free_vc, or its routing's) but not one the other source queue's open
// worm holds; the rest of the message follow it on that VC (the router
// input's VC stays the worm's until its last packet).
inline uint8_t Endpoints::worm_vc(const Nic& ep, uint32_t e, int qi, uint32_t units, ps_t now,
                                  ps_t* wake) const {
  const SourceQueue& q = ep.srcq[qi];
  if (q.head_state & SourceQueue::kHeadFollows) return q.worm_vc;
  const uint8_t held = ep.srcq[qi ^ 1].worm_vc;
  if (p_.inject_free_vcs) return free_vc(ep, e, units, now, wake, held);
  return q.head_vc == held ? kNoVc : q.head_vc;  // tried again when the other queue sends
}

// The proposal's recovery step 4 ("in-transit messages move from the
// recovery RAM to output queues"): ahead of what the processor queued.
template <class H>
void Endpoints::resend(H& h, uint32_t e, rte_mbuf* m) {
  const int qi = meta(m)->cls == static_cast<uint8_t>(TrafficClass::response) ? 1 : 0;
  ep_[e].srcq[qi].push_front(m);
  try_inject(h, e);
}

template <class H>
void Endpoints::add_credit_stream(H& h, uint32_t e, uint32_t v, uint32_t units, ps_t first,
                                  ps_t every, bool resumed) {
  CreditCounter& cc = credits_[size_t(e) * p_.nv + v];
  if (resumed) {
    cc.add_resumed(units, first, every);
  } else if (!cc.add_stream(units, first, every)) {
    h.defer_credits(e, v, units, first, every);
    return;
  }
  const Nic& ep = ep_[e];
  if (ep.queued()) arm_wake(h, e, first > ep.inj_free ? first : ep.inj_free);
}

// Delivery needs no event of its own unless it does something at that time
// (answer a request, pass a frame on).
template <class H>
inline void Endpoints::arrive(H& h, uint32_t e, rte_mbuf* m, ps_t t) {
  const PacketMeta* pm = meta(m);
  // (A multi-packet message is answered only when its last packet completes
  // it, so with replies its packets are delivered in time order too.)
  if ((pm->flags & (kPktFrame | kPktNeedsReply)) ||
      (pm->nseg > 1 && p_.traffic->reply_fraction > 0)) {
    Event ev = event_at(t, H::kind(EndpointEvent::deliver), e);
    ev.vc = pm->vc;
    ev.m = m;
    h.schedule(ev);
    return;
  }
  on_deliver(h, e, m, t);
}

// The tail of packet m reaches endpoint e at time t.
template <class H>
void Endpoints::on_deliver(H& h, uint32_t e, rte_mbuf* m, ps_t t) {
  const Fabric& f = *p_.fabric;
  PacketMeta* pm = meta(m);
  // A slice port delivers to its processor: reassembly, replies and frames
  // are the processor's (Fabric::slices).
  const uint32_t p = f.processor(e);
  if (pm->dst != p) {
    h.fail("packet " + std::to_string(pm->id) + " for endpoint " + std::to_string(pm->dst) +
           " was delivered to endpoint " + std::to_string(e) +
           (f.slices > 1 ? " (processor " + std::to_string(p) + ")" : std::string()) +
           " (misrouted)");
  }
  // (A packet whose damage the link CRC missed carries it here, as on a
  // real fabric: link/link_retry.h, undetected.)
  if (p_.check_deliveries && !(pm->flags & kPktFlippedBits) &&
      !decode_check(p_.codec, m, *pm)) {
    h.fail("packet " + std::to_string(pm->id) + " arrived with an encoding that does not "
           "match its metadata");
  }
  RunStats& st = h.stats();
  st.delivered_packets++;
  if (order_.counting() && order_.late(*pm)) [[unlikely]]
    st.out_of_order_packets++;
  if (t >= h.measure_start() && t < h.measure_end()) {
    st.accepted_units += pm->units;
    st.accepted_payload_bytes += pm->payload_bytes;
  }
  if (pm->flags & kPktMeasured) {
    st.measured_delivered++;
    st.latency_ps.add(t - pm->gen_ps);
    st.network_latency_ps.add(t - pm->inj_ps);
    st.hops.add(pm->hops);
  }
  if (st.periods.on()) [[unlikely]] st.periods.packet_arrived(t, pm->gen_ps, pm->inj_ps);
  if (*p_.on_deliver) (*p_.on_deliver)(pm->id, pm->src, pm->dst, t - pm->gen_ps, pm->hops);
  if (pm->flags & kPktFrame) {
    h.frame_segment(p, m);  // keeps the mbuf until the frame is whole
    return;
  }
  ps_t first_inj = 0;
  const MessageReassembly::Result ra = ep_[p].reassembly.add(*pm, &first_inj);
  if (ra == MessageReassembly::Result::overflow) {
    // The first segment found the table full: its message cannot be tracked.
    st.drops[static_cast<int>(DropReason::reassembly_overflow)]++;
  }
  if (ra == MessageReassembly::Result::complete) {
    st.delivered_messages++;
    if (st.periods.on()) [[unlikely]]
      st.periods.message_arrived(t, pm->gen_ps, first_inj, pm->hops);
    if (pm->nseg > 1 && (pm->flags & kPktMeasured)) {
      st.message_latency_ps.add(t - pm->gen_ps);
      st.message_network_latency_ps.add(t - first_inj);
    }
    if (pm->flags & kPktNeedsReply) {
      const TrafficConfig& tc = *p_.traffic;
      uint32_t bytes = tc.reply_bytes, header = 0;
      if (!tc.shapes.empty()) {  // the response of the request's packet type
        const MessageShape& s = tc.shapes[message_kind(p_.seed, pm->src, pm->msg_seq, p_.size_cdf)];
        bytes = s.reply_bytes;
        header = s.reply_header_units;
      }
      make_message(h, p, pm->src, bytes, static_cast<uint8_t>(TrafficClass::response), false,
                   (pm->flags & kPktMeasured) != 0, t, header);
      inject_processor(h, p);
    }
  }
  h.free_later(m);
}

}  // namespace fabemu
