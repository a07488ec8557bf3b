// The data-link layer of a worker's router-to-router links when link-level
// retry is on (link.retry; the protocol's halves are go_back_n.h). The
// sender's side runs where a packet is granted onto its link: sequence
// number, window, bit errors, the copy that crosses damaged, the time-out
// and the resend of the window. The receiver's side runs where the packet
// reaches the far input: sequence check, the CRC over the bytes that
// crossed, and the input queue's clean-up of a damaged packet (BlackWidow
// §4.3): excised from the buffer when its tail came before it could leave,
// else it moves on marked transmit error, owed no credits, and its
// destination discards it.
//
// LinkRetry owns the state (per output its sender and bit errors, per input,
// numbered like outputs, its receiver) and the behaviour; the rest of the
// run it reaches through a host H given to each call (LinkRetryHost below,
// the engine's is Engine::LinkHop): every call inlines, nothing virtual.
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <concepts>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/retry_timing.h"
#include "dataplane/link/go_back_n.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_channel.h"
#include "dataplane/link/link_event.h"
#include "dataplane/link/retry_config.h"
#include "dataplane/sim/event.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The services of the run link-level retry uses, for one worker (a packet
// crosses by its link's channel, whose host's arrive gives it to receive).
template <class H>
concept LinkRetryHost =
    LinkChannelHost<H> && requires(H& h, const H& ch, const Event& ev, uint32_t i, uint32_t units,
                                   uint8_t vc, ps_t t, ps_t& busy, rte_mbuf* m, uint32_t* pos,
                                   DropReason why, const std::string& text) {
  { ch.now() } -> std::same_as<ps_t>;
  h.schedule(ev);                                    // the time-out, at ev.t
  { H::kind(LinkEvent::retry_timeout) } -> std::same_as<EventKind>;  // as the run numbers it
  { h.out(i) } -> std::same_as<OutLink&>;            // output i's link
  { h.in(i) } -> std::convertible_to<const InLink&>;  // the link into input i
  { h.link_stats(i) } -> std::same_as<LinkStats&>;   // link i's counters
  { ch.packets_sent(i) } -> std::same_as<uint64_t>;  // on output i so far
  h.add_busy(busy, t, t);                            // the link busy from, for (measured part)
  { h.alloc() } -> std::same_as<rte_mbuf*>;          // a buffer for a copy (nullptr: none)
  h.enter_input(i, m, t, true);                      // into input channel i (arrival, late)
  { h.remove_last(i) } -> std::same_as<rte_mbuf*>;   // input channel i's last packet leaves
  h.sending_last(i);  // the packet channel i sends now if it came last (QEntry*), or nullptr
  h.link_ready(i, t);                                // output i's link is free at t
  h.untake_credits(i, vc, units);                    // the far end never took them
  h.discard(why, m);
  h.fail(text);
  { ch.router_id(i) } -> std::convertible_to<int32_t>;  // of input or output i (for messages)
  { ch.port_of(i) } -> std::convertible_to<uint32_t>;
  { ch.lanes_on() } -> std::same_as<bool>;             // lanes can change (lane_control.h)
  { h.lane_errors(i, units, pos, units) } -> std::same_as<uint32_t>;
  { h.lanes_after_timeout(i) } -> std::same_as<bool>;
  h.send_skip(i, vc, units);  // tell output i's far end: number skipped (in order)
};

class LinkRetry {
 public:
  // Bit errors kept per transmission (more are counted, not flipped: damaged anyway).
  static constexpr uint32_t kMaxBitErrorsKept = 16;

  // Counts of this worker's links (the progress line and the drain).
  uint64_t bad_out = 0;  // damaged packets that moved on marked (the drain counts them)
  uint64_t crc_errors = 0, retries = 0;
  uint64_t given_up = 0;  // packets given up at link.retry_limit

  // Sets up the sender of every router-to-router output (out; routers: local
  // router -> global id; max_ports per router) and every receiver.
  bool init(const std::vector<OutLink>& out, const std::vector<int32_t>& routers,
            uint32_t max_ports, uint32_t nv, const LinkRetryConfig& cfg, uint32_t max_units,
            uint32_t min_units, uint64_t seed, CodecKind codec, std::string* err);

  GoBackNSender& sender(uint32_t o) { return tx_[o]; }
  bool has_sender(uint32_t o) const { return o < tx_.size(); }
  // A fresh seed for a link's (or lane's) new bit error rate.
  uint64_t fresh_seed() { return seed_ ^ (uint64_t(ber_changes_++) << 40); }
  void set_ber(uint32_t o, double ber, uint64_t stream) {
    if (tx_[o].enabled()) ber_[o].init(ber, fresh_seed(), stream);
  }

  // ---- the sender --------------------------------------------------------------
  // Output o's window is full: it may not send until the oldest packet's
  // acknowledgement is back (*until; kNever: after a time-out, the resend).
  bool window_full(uint32_t o, ps_t now, ps_t* until) {
    GoBackNSender& tx = tx_[o];
    *until = kNever;
    return tx.enabled() && tx.full(now, until);
  }
  template <class H>
  void send(H& h, uint32_t o, rte_mbuf* m, uint32_t units, uint8_t ov, ps_t start);
  template <class H>
  void go_back(H& h, uint32_t o);  // the link_timeout event of output o
  // Output o's link died: what its window holds never reached the far end.
  template <class H>
  void lose_window(H& h, uint32_t o) {
    if (!tx_[o].enabled()) return;
    tx_[o].reset([&](uint32_t units, uint8_t vc, rte_mbuf* m) {
      h.untake_credits(o, vc, units);
      h.discard(DropReason::lost_in_flight, m);
    });
  }

  // ---- the receiver ------------------------------------------------------------
  template <class H>
  void receive(H& h, uint32_t c, rte_mbuf* m, ps_t arrive, LinkSeq seq, bool late);
  template <class H>
  bool damaged_head(H& h, uint32_t c, bool* withhold);
  template <class H>
  void skip(H& h, uint32_t i, uint8_t v, LinkSeq seq);
  // A damaged copy at the back of input i's buffers goes as if it had not
  // come (it was never good; its sender still holds the packet and its
  // credits), before anything is lost.
  template <class H>
  void excise_damaged(H& h, uint32_t i) {
    for (uint32_t v = 0; v < nv_; v++)
      if ((rx_[i].damaged_vcs >> v) & 1) excise(h, i * nv_ + v);
  }
  // Input i's link went down or came back: numbering starts again with it.
  template <class H>
  void restart_receiver(H& h, uint32_t i) {
    excise_damaged(h, i);
    rx_[i] = GoBackNReceiver{};
  }

  // Buffers the senders still hold (end of run).
  template <class F>
  void for_each_held(F&& f) {
    for (GoBackNSender& tx : tx_) tx.for_each_held(f);
  }

 private:
  template <class H>
  bool fault(const H& h, uint32_t o, LinkPacketFault::Kind* kind) const;
  template <class H>
  rte_mbuf* copy(H& h, const rte_mbuf* m);
  template <class H>
  bool undetected(H& h, uint32_t o, const rte_mbuf* bad);
  template <class H>
  uint32_t draw_errors(H& h, uint32_t o, uint32_t units, uint32_t* pos);
  template <class H>
  rte_mbuf* damaged_copy(H& h, const rte_mbuf* m, uint32_t units, const uint32_t* pos,
                         uint32_t n);
  template <class H>
  void expect_timeout(H& h, uint32_t o, ps_t start);
  template <class H>
  void cross(H& h, uint32_t o, rte_mbuf* m, uint8_t ov, ps_t start, LinkSeq seq);
  template <class H>
  void give_up(H& h, uint32_t o);
  template <class H>
  void excise(H& h, uint32_t c);

  std::vector<GoBackNSender> tx_;  // [output]
  std::vector<BitErrors> ber_;     // [output]
  std::vector<GoBackNReceiver> rx_;  // [input, numbered like outputs]
  std::vector<std::pair<uint32_t, LinkPacketFault>> faults_;  // (output, test fault)
  const LinkRetryConfig* cfg_ = nullptr;
  CodecKind codec_{};
  uint32_t nv_ = 1;
  uint64_t seed_ = 0;
  uint32_t ber_changes_ = 0;  // faults that set a link's BER (a fresh seed each)
};

inline bool LinkRetry::init(const std::vector<OutLink>& out, const std::vector<int32_t>& routers,
                            uint32_t max_ports, uint32_t nv, const LinkRetryConfig& cfg,
                            uint32_t max_units, uint32_t min_units, uint64_t seed,
                            CodecKind codec, std::string* err) {
  const size_t nout = out.size();
  tx_.assign(nout, GoBackNSender{});
  ber_.assign(nout, BitErrors{});
  rx_.assign(nout, GoBackNReceiver{});
  faults_.clear();
  cfg_ = &cfg;
  codec_ = codec;
  nv_ = nv;
  seed_ = seed;
  min_units = std::max(1u, min_units);
  for (uint32_t o = 0; o < nout; o++) {
    const OutLink& ol = out[o];
    if (ol.peer_router < 0 || ol.unit_ps == 0) continue;
    const uint32_t r = static_cast<uint32_t>(routers[o / max_ports]), p = o % max_ports;
    // An acknowledgement comes back a wire after the tail arrives.
    const RetryTiming timing = retry_timing(ol.wire_ps, ol.unit_ps, max_units, cfg.timeout_ps);
    if (std::string why = retry_timeout_problem(timing, int32_t(r), int32_t(p)); !why.empty()) {
      *err = std::move(why);
      return false;
    }
    const ps_t timeout = timing.timeout;
    // Enough window to keep sending until a time-out fires.
    const uint32_t window =
        cfg.window ? cfg.window : static_cast<uint32_t>(timeout / ol.serialize(min_units)) + 2;
    tx_[o].init(window, timeout);
    ber_[o].init(cfg.ber, seed, 0x4C434200000000ull + uint64_t(r) * max_ports + p);
    for (const LinkPacketFault& lf : cfg.packet_faults)
      if (lf.router == r && lf.port == p) faults_.push_back({o, lf});
  }
  return true;
}

// The core grants packet m onto output o's link, which starts sending it at
// `start` (the engine serialises it from then).
template <class H>
void LinkRetry::send(H& h, uint32_t o, rte_mbuf* m, uint32_t units, uint8_t ov, ps_t start) {
  OutLink& ol = h.out(o);
  GoBackNSender& tx = tx_[o];
  LinkRetryCounters& rc = h.link_stats(ol.stats).retry;
  if (tx.recovering()) {
    // A packet before it is missing at the far end, which discards this
    // one: it crosses, and the window keeps it for the resend.
    rte_mbuf_refcnt_update(m, 1);
    cross(h, o, m, ov, start, tx.push(m, units, ov, kNever));
    return;
  }
  LinkPacketFault::Kind fault_kind{};
  const bool faulted = !faults_.empty() && fault(h, o, &fault_kind);
  uint32_t pos[kMaxBitErrorsKept];
  const uint32_t n = draw_errors(h, o, units, pos);
  const ps_t dur = ol.serialize(units);
  if (n == 0 && !faulted) {
    cross(h, o, m, ov, start, tx.push(nullptr, units, ov, start + dur + 2 * ol.wire_ps));
    return;
  }
  if (n == 0 && fault_kind == LinkPacketFault::Kind::duplicate) {
    // Sent twice in a row: the second copy takes the link again and the far
    // end discards it (its number is behind).
    rc.duplicated_on_purpose++;
    rte_mbuf* dup = copy(h, m);
    const LinkSeq seq = tx.push(nullptr, units, ov, start + dur + 2 * ol.wire_ps);
    cross(h, o, m, ov, start, seq);
    if (dup) {
      cross(h, o, dup, ov, start + dur, seq);
      h.add_busy(ol.busy_ps, start + dur, dur);
      ol.free_ps = std::max(ol.free_ps, start + 2 * dur);
    }
    return;
  }
  if (faulted && fault_kind == LinkPacketFault::Kind::drop) {
    rc.dropped_on_purpose++;
    tx.push(m, units, ov, kNever);  // lost: never acknowledged, sent again after the time-out
    expect_timeout(h, o, start);
    return;
  }
  // Damaged: the far end gets a copy with the bad bits (no buffer for the
  // copy: as if the link had lost the packet) and, when its CRC fails, never
  // acknowledges it; the sender keeps the packet and times out.
  rc.bit_errors += n;
  rte_mbuf* bad = damaged_copy(h, m, units, pos, n);
  if (bad && undetected(h, o, bad)) {  // taken and acknowledged as good
    rte_pktmbuf_free(m);
    cross(h, o, bad, ov, start, tx.push(nullptr, units, ov, start + dur + 2 * ol.wire_ps));
    return;
  }
  const LinkSeq seq = tx.push(m, units, ov, kNever);
  expect_timeout(h, o, start);
  if (bad) cross(h, o, bad, ov, start, seq);
}

// A damaged copy whose CRC still matches (CRC-16 misses about one in 65536
// patterns of four or more even-weight bit errors): the receiver takes it
// as good and acknowledges it, as a real link's would. The sender, which
// knows what the far end will make of each transmission (the emulation
// shortcut), must know this too, or the two ends fall out of step.
template <class H>
inline bool LinkRetry::undetected(H& h, uint32_t o, const rte_mbuf* bad) {
  if (!link_crc_ok(codec_, bad)) return false;
  h.link_stats(h.out(o).stats).retry.undetected_errors++;
  return true;
}

// The bit errors of a transmission of `units` on output o's link: the
// link's rate over all its checked bits, then, where lanes can change, its
// lanes' (the host's lane_errors). Returns how many; their positions (up to
// kMaxBitErrorsKept) in pos.
template <class H>
inline uint32_t LinkRetry::draw_errors(H& h, uint32_t o, uint32_t units, uint32_t* pos) {
  const uint32_t bits = packet_checked_bits(codec_, units);
  tx_[o].checked_bits += bits;  // (folded into the link's counters at the end)
  const uint32_t n = ber_[o].next(bits, pos, kMaxBitErrorsKept);
  if (h.lanes_on()) [[unlikely]]
    return h.lane_errors(o, bits, pos, n);
  return n;
}

// What crosses when bits pos[0..n) of packet m are damaged: a copy with
// those bits flipped (the sender's packet stays intact for the resend).
template <class H>
rte_mbuf* LinkRetry::damaged_copy(H& h, const rte_mbuf* m, uint32_t units, const uint32_t* pos,
                                  uint32_t n) {
  rte_mbuf* bad = copy(h, m);
  if (bad) {
    for (uint32_t i = 0; i < n; i++) flip_checked_bit(codec_, bad, units, pos[i]);
    meta(bad)->flags |= kPktFlippedBits;
  }
  return bad;
}

// A test fault on the packet output o is sending (the n-th since the start).
template <class H>
bool LinkRetry::fault(const H& h, uint32_t o, LinkPacketFault::Kind* kind) const {
  const uint64_t n = h.packets_sent(o);
  for (const auto& [fo, lf] : faults_) {
    if (fo == o && lf.packet == n) {
      *kind = lf.kind;
      return true;
    }
  }
  return false;
}

// A copy of packet m (bytes and metadata) from this worker's buffers.
template <class H>
rte_mbuf* LinkRetry::copy(H& h, const rte_mbuf* m) {
  rte_mbuf* c = h.alloc();
  if (!c) return nullptr;
  const uint16_t len = rte_pktmbuf_data_len(m);
  std::memcpy(rte_pktmbuf_append(c, len), rte_pktmbuf_mtod(m, const uint8_t*), len);
  *meta(c) = *meta(m);
  return c;
}

// The sender of output o will time out on the transmission that started at
// `start` (the first such since its last resend).
template <class H>
void LinkRetry::expect_timeout(H& h, uint32_t o, ps_t start) {
  GoBackNSender& tx = tx_[o];
  if (tx.recovering()) return;
  tx.expect_timeout(start);
  h.schedule(event_at(tx.rewind_at(), H::kind(LinkEvent::retry_timeout), o));
}

// What output o's link sends from `start` reaches the far end a wire later,
// by the link's channel (link_channel.h), and the far end's receive takes it.
template <class H>
inline void LinkRetry::cross(H& h, uint32_t o, rte_mbuf* m, uint8_t ov, ps_t start, LinkSeq seq) {
  const OutLink& ol = h.out(o);
  carry(h, ol, LinkPacket{m, start + ol.wire_ps, ov, seq});
}

// Output o's sender timed out: it sends its whole window again, oldest
// first, after the packet on the link now; the core's next packets follow.
// The lanes whose bits caused it count a retry (a lane may be dropped, the
// link narrower or dead: the host's lanes_after_timeout); at
// link.retry_limit time-outs in a row the oldest packet is given up instead
// of sent again.
template <class H>
void LinkRetry::go_back(H& h, uint32_t o) {
  GoBackNSender& tx = tx_[o];
  const ps_t now = h.now();
  if (!tx.recovering() || tx.rewind_at() != now) return;
  OutLink& ol = h.out(o);
  LinkRetryCounters& rc = h.link_stats(ol.stats).retry;
  rc.timeouts++;
  if (h.lanes_on() && !h.lanes_after_timeout(o)) [[unlikely]]
    return;  // the link died of its lanes: its window was lost with it
  uint32_t n = tx.go_back(now);
  if (cfg_->limit && n && tx.timeouts_of_oldest() > cfg_->limit) [[unlikely]] {
    give_up(h, o);
    n--;
  }
  retries += n;
  ps_t start = std::max(now, ol.free_ps);
  for (uint32_t i = 0; i < n; i++) {
    RetryEntry& e = tx.entry(i);
    rte_mbuf* m = e.m;
    const LinkSeq seq = tx.seq_of(i);
    const ps_t dur = ol.serialize(e.units);
    rc.retries++;
    h.add_busy(ol.busy_ps, start, dur);
    if (tx.recovering()) {  // one before it was damaged again: the far end discards it
      rte_mbuf_refcnt_update(m, 1);
      cross(h, o, m, e.vc, start, seq);
    } else {
      uint32_t pos[kMaxBitErrorsKept];
      const uint32_t nb = draw_errors(h, o, e.units, pos);
      if (nb == 0) {
        e.m = nullptr;
        e.acked_at = start + dur + 2 * ol.wire_ps;
        cross(h, o, m, e.vc, start, seq);
      } else {
        rc.bit_errors += nb;
        rte_mbuf* bad = damaged_copy(h, m, e.units, pos, nb);
        if (bad && undetected(h, o, bad)) {  // taken as good (undetected)
          rte_pktmbuf_free(m);
          e.m = nullptr;
          e.acked_at = start + dur + 2 * ol.wire_ps;
        } else {
          expect_timeout(h, o, start);
        }
        if (bad) cross(h, o, bad, e.vc, start, seq);
      }
    }
    start += dur;
  }
  ol.free_ps = start;
  // The core's packets wait for the link (and, when the window is full, for
  // acknowledgements: the router model looks at that).
  h.link_ready(o, start);
}

// Output o's sender gives up on its oldest packet (link.retry_limit): it is
// discarded and counted, its credits are the sender's again (the far end
// holds no good copy of it), and the far end skips its number.
template <class H>
void LinkRetry::give_up(H& h, uint32_t o) {
  const uint8_t vc = tx_[o].entry(0).vc;
  bool packet = true;
  const LinkSeq seq = tx_[o].give_up_oldest([&](uint32_t units, uint8_t v, rte_mbuf* m) {
    h.untake_credits(o, v, units);
    // A damaged copy that had moved on marked at an earlier hop was never a
    // packet of its own (its good copy follows it): discard counts it as
    // its destination's discard would, not as a packet given up.
    packet = !(meta(m)->flags & kPktTransmitError);
    h.discard(DropReason::retry_limit_exceeded, m);
  });
  if (packet) {
    h.link_stats(h.out(o).stats).retry.given_up++;
    given_up++;
  }
  h.send_skip(o, vc, seq);
}

// The sender of input i's link gave up on number seq, which the receiver
// still expects: a damaged copy of it at the back of VC v's buffer goes as
// if it had not come (its sender took its credits back), and the next
// number is expected.
template <class H>
void LinkRetry::skip(H& h, uint32_t i, uint8_t v, LinkSeq seq) {
  GoBackNReceiver& rx = rx_[i];
  if (!rx.in_sequence(seq)) {
    h.fail("link-level retry out of step: the sender of the link into router " +
           std::to_string(h.router_id(i)) + " port " + std::to_string(h.port_of(i)) +
           " gave up on number " + std::to_string(seq) + " but its receiver expects " +
           std::to_string(rx.expected));
    return;
  }
  if ((rx.damaged_vcs >> v) & 1) excise(h, i * nv_ + v);
  rx.took();
}

// Packet m, number seq, reaches input channel c (its head at `arrive`).
template <class H>
void LinkRetry::receive(H& h, uint32_t c, rte_mbuf* m, ps_t arrive, LinkSeq seq, bool late) {
  const uint32_t in = c / nv_, v = c % nv_;
  GoBackNReceiver& rx = rx_[in];
  if (!rx.in_sequence(seq)) {
    h.link_stats(h.in(in).stats).retry.seq_discards++;
    rte_pktmbuf_free(m);
    return;
  }
  // The damaged copy of this packet is the last entry of the buffer (what
  // came after it was discarded) and its tail came long ago: excise it.
  if ((rx.damaged_vcs >> v) & 1) excise(h, c);
  if (!(meta(m)->flags & kPktFlippedBits) || link_crc_ok(codec_, m)) {
    rx.took();
  } else {
    h.link_stats(h.in(in).stats).retry.crc_errors++;
    crc_errors++;
    rx.damaged_vcs = static_cast<uint16_t>(rx.damaged_vcs | (1u << v));
  }
  h.enter_input(c, m, arrive, late);
}

// Removes the damaged packet at the back of channel c, as if it had not come.
template <class H>
void LinkRetry::excise(H& h, uint32_t c) {
  const uint32_t in = c / nv_, v = c % nv_;
  rx_[in].damaged_vcs = static_cast<uint16_t>(rx_[in].damaged_vcs & ~(1u << v));
  rte_mbuf* m = h.remove_last(c);
  if (!m) return;
  h.link_stats(h.in(in).stats).retry.excised++;
  rte_pktmbuf_free(m);
}

// Channel c's head is granted (in the tiled router: starts across its row
// bus; either way it leaves the input buffer): if it is a damaged copy,
// either its tail (and with it the CRC failure) has come, and it is excised
// (true: nothing crosses), or it moves on before the failure is known,
// marked transmit error, and its credits are not returned (*withhold).
template <class H>
bool LinkRetry::damaged_head(H& h, uint32_t c, bool* withhold) {
  const uint32_t in = c / nv_, v = c % nv_;
  if (!((rx_[in].damaged_vcs >> v) & 1)) return false;
  auto* head = h.sending_last(c);
  if (!head) return false;
  if (h.now() >= head->arrive + head->units * h.in(in).unit_ps) {
    excise(h, c);
    return true;
  }
  rx_[in].damaged_vcs = static_cast<uint16_t>(rx_[in].damaged_vcs & ~(1u << v));
  h.link_stats(h.in(in).stats).retry.bad_forwarded++;
  bad_out++;
  mark_transmit_error(codec_, head->m);
  *withhold = true;
  return false;
}

}  // namespace fabemu
