// Engine<R, Link>, continued: the data-link layer of router-to-router links
// when link-level retry is on (cfg_.retry; dataplane/link/go_back_n.h). The
// sender's side runs where a packet is granted onto its link: sequence
// number, window, bit errors, the copy that crosses damaged, the time-out
// and the resend of the window. The receiver's side runs where the packet
// reaches the far input: sequence check, the CRC over the bytes that
// crossed, and the input queue's clean-up of a damaged packet (BlackWidow
// §4.3): excised from the buffer when its tail came before it could leave,
// else it moves on marked transmit error, owed no credits, and its
// destination discards it. Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
bool Engine<R, L>::setup_link_layer(Worker& w, std::string* err) {
  if (!lcb_) return true;
  const size_t nout = w.out.size();
  w.lcb_tx.assign(nout, GoBackNSender{});
  w.lcb_ber.assign(nout, BitErrors{});
  w.lcb_rx.assign(nout, GoBackNReceiver{});
  w.lcb_faults.clear();
  const uint32_t max_units = cfg_.format.max_units, min_units = std::max(1u, cfg_.format.min_units);
  for (uint32_t o = 0; o < nout; o++) {
    const OutLink& ol = w.out[o];
    if (ol.peer_router < 0 || ol.unit_ps == 0) continue;
    const uint32_t r = static_cast<uint32_t>(w.routers[o / max_ports_]), p = o % max_ports_;
    // An acknowledgement comes back a wire after the tail arrives.
    const RetryTiming timing =
        retry_timing(ol.wire_ps, ol.unit_ps, max_units, cfg_.retry.timeout_ps);
    if (std::string why = retry_timeout_problem(timing, int32_t(r), int32_t(p)); !why.empty()) {
      *err = std::move(why);
      return false;
    }
    const ps_t timeout = timing.timeout;
    // Enough window to keep sending until a time-out fires.
    const uint32_t window = cfg_.retry.window
                                ? cfg_.retry.window
                                : static_cast<uint32_t>(timeout / ol.serialize(min_units)) + 2;
    w.lcb_tx[o].init(window, timeout);
    w.lcb_ber[o].init(cfg_.retry.ber, cfg_.seed,
                      0x4C434200000000ull + uint64_t(r) * max_ports_ + p);
    for (const LinkPacketFault& lf : cfg_.retry.packet_faults)
      if (lf.router == r && lf.port == p) w.lcb_faults.push_back({o, lf});
  }
  return true;
}

// Output o's window is full: it may not send until the oldest packet's
// acknowledgement is back (*until; kNever: after a time-out, the resend).
template <class R, class L>
inline bool Engine<R, L>::lcb_window_full(Worker& w, uint32_t o, ps_t* until) {
  GoBackNSender& tx = w.lcb_tx[o];
  *until = kNever;
  return tx.enabled() && tx.full(w.now, until);
}

// The core grants packet m onto output o's link, which starts sending it at
// `start` (the link serialises it from then, take_link).
template <class R, class L>
void Engine<R, L>::lcb_send(Worker& w, uint32_t o, rte_mbuf* m, uint32_t units, uint8_t ov,
                            ps_t start) {
  OutLink& ol = w.out[o];
  GoBackNSender& tx = w.lcb_tx[o];
  LinkRetryCounters& rc = w.st.links[ol.stats].retry;
  if (tx.recovering()) {
    // A packet before it is missing at the far end, which discards this
    // one: it crosses, and the window keeps it for the resend.
    rte_mbuf_refcnt_update(m, 1);
    lcb_cross(w, o, m, ov, start, tx.push(m, units, ov, kNever));
    return;
  }
  LinkPacketFault::Kind fault{};
  const bool faulted = !w.lcb_faults.empty() && lcb_fault(w, o, &fault);
  uint32_t pos[kMaxBitErrorsKept];
  const uint32_t n = lcb_draw_errors(w, o, units, pos);
  const ps_t dur = ol.serialize(units);
  if (n == 0 && !faulted) {
    lcb_cross(w, o, m, ov, start, tx.push(nullptr, units, ov, start + dur + 2 * ol.wire_ps));
    return;
  }
  if (n == 0 && fault == LinkPacketFault::Kind::duplicate) {
    // Sent twice in a row: the second copy takes the link again and the far
    // end discards it (its number is behind).
    rc.duplicated_on_purpose++;
    rte_mbuf* dup = lcb_copy(w, m);
    const LinkSeq seq = tx.push(nullptr, units, ov, start + dur + 2 * ol.wire_ps);
    lcb_cross(w, o, m, ov, start, seq);
    if (dup) {
      lcb_cross(w, o, dup, ov, start + dur, seq);
      add_busy(ol.busy_ps, start + dur, dur);
      ol.free_ps = std::max(ol.free_ps, start + 2 * dur);
    }
    return;
  }
  if (faulted && fault == LinkPacketFault::Kind::drop) {
    rc.dropped_on_purpose++;
    tx.push(m, units, ov, kNever);  // lost: never acknowledged, sent again after the time-out
    lcb_expect_timeout(w, o, start);
    return;
  }
  // Damaged: the far end gets a copy with the bad bits (no buffer for the
  // copy: as if the link had lost the packet) and, when its CRC fails, never
  // acknowledges it; the sender keeps the packet and times out.
  rc.bit_errors += n;
  rte_mbuf* bad = lcb_damaged_copy(w, m, units, pos, n);
  if (bad && lcb_undetected(w, o, bad)) {  // taken and acknowledged as good
    rte_pktmbuf_free(m);
    lcb_cross(w, o, bad, ov, start, tx.push(nullptr, units, ov, start + dur + 2 * ol.wire_ps));
    return;
  }
  const LinkSeq seq = tx.push(m, units, ov, kNever);
  lcb_expect_timeout(w, o, start);
  if (bad) lcb_cross(w, o, bad, ov, start, seq);
}

// A damaged copy whose CRC still matches (CRC-16 misses about one in 65536
// patterns of four or more even-weight bit errors): the receiver takes it
// as good and acknowledges it, as a real link's would. The sender, which
// knows what the far end will make of each transmission (the emulation
// shortcut), must know this too, or the two ends fall out of step.
template <class R, class L>
inline bool Engine<R, L>::lcb_undetected(Worker& w, uint32_t o, const rte_mbuf* bad) {
  if (!link_crc_ok(static_cast<CodecKind>(cfg_.codec), bad)) return false;
  w.st.links[w.out[o].stats].retry.undetected_errors++;
  return true;
}

// The bit errors of a transmission of `units` on output o's link: the
// link's rate over all its checked bits, then, where lanes can change, its
// lanes' (lane_errors). Returns how many; their positions (up to
// kMaxBitErrorsKept) in pos.
template <class R, class L>
inline uint32_t Engine<R, L>::lcb_draw_errors(Worker& w, uint32_t o, uint32_t units,
                                              uint32_t* pos) {
  const uint32_t bits = packet_checked_bits(static_cast<CodecKind>(cfg_.codec), units);
  w.lcb_tx[o].checked_bits += bits;  // (folded into the link's counters at the end)
  const uint32_t n = w.lcb_ber[o].next(bits, pos, kMaxBitErrorsKept);
  if (lanes_) [[unlikely]]
    return lane_errors(w, o, bits, pos, n);
  return n;
}

// What crosses when bits pos[0..n) of packet m are damaged: a copy with
// those bits flipped (the sender's packet stays intact for the resend).
template <class R, class L>
rte_mbuf* Engine<R, L>::lcb_damaged_copy(Worker& w, const rte_mbuf* m, uint32_t units,
                                         const uint32_t* pos, uint32_t n) {
  rte_mbuf* bad = lcb_copy(w, m);
  if (bad) {
    for (uint32_t i = 0; i < n; i++)
      flip_checked_bit(static_cast<CodecKind>(cfg_.codec), bad, units, pos[i]);
    meta(bad)->flags |= kPktFlippedBits;
  }
  return bad;
}

// A test fault on the packet output o is sending (the n-th since the start).
template <class R, class L>
bool Engine<R, L>::lcb_fault(Worker& w, uint32_t o, LinkPacketFault::Kind* kind) {
  const uint64_t n = output_packets(w, o);
  for (const auto& [fo, lf] : w.lcb_faults) {
    if (fo == o && lf.packet == n) {
      *kind = lf.kind;
      return true;
    }
  }
  return false;
}

// A copy of packet m (bytes and metadata) from this worker's buffers.
template <class R, class L>
rte_mbuf* Engine<R, L>::lcb_copy(Worker& w, const rte_mbuf* m) {
  rte_mbuf* c = nullptr;
  if (!w.pool.alloc_bulk(&c, 1)) return nullptr;
  const uint16_t len = rte_pktmbuf_data_len(m);
  std::memcpy(rte_pktmbuf_append(c, len), rte_pktmbuf_mtod(m, const uint8_t*), len);
  *meta(c) = *meta(m);
  return c;
}

// The sender of output o will time out on the transmission that started at
// `start` (the first such since its last resend).
template <class R, class L>
void Engine<R, L>::lcb_expect_timeout(Worker& w, uint32_t o, ps_t start) {
  GoBackNSender& tx = w.lcb_tx[o];
  if (tx.recovering()) return;
  tx.expect_timeout(start);
  w.wheel.push(event_at(tx.rewind_at(), EventType::link_timeout, o));
}

// What output o's link sends from `start` reaches the far end a wire later.
template <class R, class L>
inline void Engine<R, L>::lcb_cross(Worker& w, uint32_t o, rte_mbuf* m, uint8_t ov, ps_t start,
                                    LinkSeq seq) {
  const OutLink& ol = w.out[o];
  if (!ol.remote) {
    lcb_receive(w, ol.peer_channel0 + ov, m, start + ol.wire_ps, seq, false);
    return;
  }
  Event ev =
      event_at(start + ol.wire_ps, EventType::remote_arrive, static_cast<uint32_t>(ol.peer_router));
  ev.m = m;
  ev.port = ol.peer_port;
  ev.vc = ov;
  ev.amount = seq;
  send_remote(w, ev, ol.peer_worker);
}

// Output o's sender timed out: it sends its whole window again, oldest
// first, after the packet on the link now; the core's next packets follow.
// The lanes whose bits caused it count a retry (a lane may be dropped, the
// link narrower or dead: engine_lanes.h); at link.retry_limit time-outs in
// a row the oldest packet is given up instead of sent again.
template <class R, class L>
void Engine<R, L>::lcb_go_back(Worker& w, uint32_t o) {
  GoBackNSender& tx = w.lcb_tx[o];
  if (!tx.recovering() || tx.rewind_at() != w.now) return;
  OutLink& ol = w.out[o];
  LinkRetryCounters& rc = w.st.links[ol.stats].retry;
  rc.timeouts++;
  if (lanes_ && !lanes_after_timeout(w, o)) [[unlikely]]
    return;  // the link died of its lanes: its window was lost with it
  uint32_t n = tx.go_back(w.now);
  if (cfg_.retry.limit && n && tx.timeouts_of_oldest() > cfg_.retry.limit) [[unlikely]] {
    lcb_give_up(w, o);
    n--;
  }
  w.lcb_retries += n;
  ps_t start = std::max(w.now, ol.free_ps);
  for (uint32_t i = 0; i < n; i++) {
    RetryEntry& e = tx.entry(i);
    rte_mbuf* m = e.m;
    const LinkSeq seq = tx.seq_of(i);
    const ps_t dur = ol.serialize(e.units);
    rc.retries++;
    add_busy(ol.busy_ps, start, dur);
    if (tx.recovering()) {  // one before it was damaged again: the far end discards it
      rte_mbuf_refcnt_update(m, 1);
      lcb_cross(w, o, m, e.vc, start, seq);
    } else {
      uint32_t pos[kMaxBitErrorsKept];
      const uint32_t nb = lcb_draw_errors(w, o, e.units, pos);
      if (nb == 0) {
        e.m = nullptr;
        e.acked_at = start + dur + 2 * ol.wire_ps;
        lcb_cross(w, o, m, e.vc, start, seq);
      } else {
        rc.bit_errors += nb;
        rte_mbuf* bad = lcb_damaged_copy(w, m, e.units, pos, nb);
        if (bad && lcb_undetected(w, o, bad)) {  // taken as good (lcb_undetected)
          rte_pktmbuf_free(m);
          e.m = nullptr;
          e.acked_at = start + dur + 2 * ol.wire_ps;
        } else {
          lcb_expect_timeout(w, o, start);
        }
        if (bad) lcb_cross(w, o, bad, e.vc, start, seq);
      }
    }
    start += dur;
  }
  ol.free_ps = start;
  // The core's packets wait for the link (and, when the window is full, for
  // acknowledgements: try_output looks at that).
  Hop host{*this, w};
  w.router.link_ready(host, o, start);
}

// Output o's sender gives up on its oldest packet (link.retry_limit): it is
// discarded and counted, its credits are the sender's again (the far end
// holds no good copy of it), and the far end skips its number.
template <class R, class L>
void Engine<R, L>::lcb_give_up(Worker& w, uint32_t o) {
  const uint8_t vc = w.lcb_tx[o].entry(0).vc;
  bool packet = true;
  const LinkSeq seq = w.lcb_tx[o].give_up_oldest([&](uint32_t units, uint8_t v, rte_mbuf* m) {
    snap_keep(w, o, v);
    w.vcs[size_t(o) * nv_ + v].credits.untake(units);
    // A damaged copy that had moved on marked at an earlier hop was never a
    // packet of its own (its good copy follows it): discard counts it as
    // its destination's discard would, not as a packet given up.
    packet = !(meta(m)->flags & kPktTransmitError);
    discard(w, DropReason::retry_limit_exceeded, m);
  });
  if (packet) {
    w.st.links[w.out[o].stats].retry.given_up++;
    w.lcb_given_up++;
  }
  link_control(w, o, LinkControl::skip, vc, seq);
}

// The sender of input i's link gave up on number seq, which the receiver
// still expects: a damaged copy of it at the back of VC v's buffer goes as
// if it had not come (its sender took its credits back), and the next
// number is expected.
template <class R, class L>
void Engine<R, L>::lcb_skip(Worker& w, uint32_t i, uint8_t v, LinkSeq seq) {
  GoBackNReceiver& rx = w.lcb_rx[i];
  if (!rx.in_sequence(seq)) {
    fail(w, "link-level retry out of step: the sender of the link into router " +
                std::to_string(w.routers[i / max_ports_]) + " port " +
                std::to_string(i % max_ports_) + " gave up on number " + std::to_string(seq) +
                " but its receiver expects " + std::to_string(rx.expected));
    return;
  }
  if ((rx.damaged_vcs >> v) & 1) lcb_excise(w, i * nv_ + v);
  rx.took();
}

// Packet m, number seq, reaches input channel c (its head at `arrive`).
template <class R, class L>
void Engine<R, L>::lcb_receive(Worker& w, uint32_t c, rte_mbuf* m, ps_t arrive, LinkSeq seq,
                               bool late) {
  const uint32_t in = c / nv_, v = c % nv_;
  GoBackNReceiver& rx = w.lcb_rx[in];
  if (!rx.in_sequence(seq)) {
    w.st.links[w.in[in].stats].retry.seq_discards++;
    rte_pktmbuf_free(m);
    return;
  }
  // The damaged copy of this packet is the last entry of the buffer (what
  // came after it was discarded) and its tail came long ago: excise it.
  if ((rx.damaged_vcs >> v) & 1) lcb_excise(w, c);
  if (!(meta(m)->flags & kPktFlippedBits) || link_crc_ok(static_cast<CodecKind>(cfg_.codec), m)) {
    rx.took();
  } else {
    w.st.links[w.in[in].stats].retry.crc_errors++;
    w.lcb_crc_errors++;
    rx.damaged_vcs = static_cast<uint8_t>(rx.damaged_vcs | (1u << v));
  }
  enter_input(w, c, m, arrive, late);
}

// Removes the damaged packet at the back of channel c, as if it had not come.
template <class R, class L>
void Engine<R, L>::lcb_excise(Worker& w, uint32_t c) {
  Router& rt = w.router;
  const uint32_t in = c / nv_, v = c % nv_;
  w.lcb_rx[in].damaged_vcs = static_cast<uint8_t>(w.lcb_rx[in].damaged_vcs & ~(1u << v));
  if (rt.len(c) == 0) return;
  if (rt.len(c) == 1 && rt.head(c).routed) {  // it was requesting its output
    const QEntry& h = rt.head(c);
    const uint32_t o = rt.output(rt.router_of_channel(c), h.out_port);
    rt.withdraw_head(o, c);
    Hop{*this, w}.unroute_units(o, h.out_vc, h.units);
  }
  const QEntry e = rt.pop_back(c);
  w.st.links[w.in[in].stats].retry.excised++;
  rte_pktmbuf_free(e.m);
}

// Channel c's head is granted (in the tiled router: starts across its row
// bus; either way it leaves the input buffer): if it is a damaged copy,
// either its tail (and
// with it the CRC failure) has come, and it is excised (true: nothing
// crosses), or it moves on before the failure is known, marked transmit
// error, and its credits are not returned (*withhold).
template <class R, class L>
bool Engine<R, L>::lcb_damaged_head(Worker& w, uint32_t c, bool* withhold) {
  const uint32_t in = c / nv_, v = c % nv_;
  if (!((w.lcb_rx[in].damaged_vcs >> v) & 1) || w.router.len(c) != 1) return false;
  QEntry& h = w.router.head(c);
  if (w.now >= h.arrive + h.units * w.in[in].unit_ps) {
    lcb_excise(w, c);
    return true;
  }
  w.lcb_rx[in].damaged_vcs = static_cast<uint8_t>(w.lcb_rx[in].damaged_vcs & ~(1u << v));
  w.st.links[w.in[in].stats].retry.bad_forwarded++;
  w.lcb_bad_out++;
  mark_transmit_error(static_cast<CodecKind>(cfg_.codec), h.m);
  *withhold = true;
  return false;
}

}  // namespace fabemu
