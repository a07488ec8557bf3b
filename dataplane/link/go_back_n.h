// The link control block's data-link protocol: a sliding-window go-back-N
// sender with a retransmit buffer of whole packets, and the receiver's
// sequence check (BlackWidow ISCA 2006 §4.3 and §7.7; Spider's LLP, IEEE
// Micro 1997). Every packet on a link gets a sequence number and a place in
// the sender's window until the far end acknowledges it in the reverse
// direction's sideband. The receiver takes only the next number in sequence
// with a good CRC; a bad CRC or a gap leaves it waiting, the sender times
// out and sends the whole unacknowledged window again.
//
// Emulation shortcut: bit errors are drawn when a transmission starts, so
// the sender knows then what the far end will make of it, and with it the
// time the acknowledgement or the time-out comes back. Acknowledgements
// therefore cost no event (an entry retires lazily once its ack time has
// passed); a time-out is the only event of the protocol. The receiver still
// checks every sequence number and every CRC itself.
//
// An entry keeps its packet buffer (a reference, never a copy) while the
// packet may have to be sent again: when it was lost or damaged on the
// link, or sent after such a packet (the receiver discards those). A packet
// the far end takes intact needs no buffer after it left.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "dataplane/core/retry_timing.h"  // the time-out rule the sender is set up with
#include "dataplane/core/rng.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// Sequence numbers travel as 16 bits (the window is far smaller).
using LinkSeq = uint16_t;

struct RetryEntry {
  rte_mbuf* m;    // the packet while it may be sent again, else nullptr
  ps_t acked_at;  // the acknowledgement is back then (kNever: it will not come)
  uint16_t units;
  uint8_t vc;
  uint8_t pad[5];
};
static_assert(sizeof(RetryEntry) == 24);

class GoBackNSender {
 public:
  // window: packets the sender may have unacknowledged (rounded up to a
  // power of two).
  void init(uint32_t window, ps_t timeout_ps) {
    uint32_t cap = 1;
    while (cap < window) cap <<= 1;
    q_.assign(cap, RetryEntry{});
    mask_ = cap - 1;
    window_ = window;
    timeout_ps_ = timeout_ps;
    head_ = tail_ = 0;
    rewind_at_ = kNever;
    oldest_timeouts_ = 0;
  }
  bool enabled() const { return !q_.empty(); }
  // Bits sent under the CRC, resends included (kept here, on the sender's
  // own line, and folded into LinkRetryCounters at the end of the run).
  uint64_t checked_bits = 0;
  ps_t timeout_ps() const { return timeout_ps_; }

  // Entries whose acknowledgement is back by `now` leave the window.
  void retire(ps_t now) {
    while (tail_ != head_ && q_[tail_ & mask_].acked_at <= now) {
      RetryEntry& e = q_[tail_ & mask_];
      if (e.m) rte_pktmbuf_free(e.m);
      tail_++;
    }
  }
  // No room for another packet now; *until: when the oldest entry's
  // acknowledgement is back (kNever: after a time-out's resend).
  bool full(ps_t now, ps_t* until) {
    retire(now);
    if (head_ - tail_ < window_) return false;
    *until = q_[tail_ & mask_].acked_at;
    return true;
  }
  uint32_t outstanding() const { return head_ - tail_; }

  // The receiver will discard what is sent from now until the resend: a
  // packet before it was lost or damaged.
  bool recovering() const { return rewind_at_ != kNever; }
  ps_t rewind_at() const { return rewind_at_; }

  // A new packet enters the window; returns its sequence number. m: the
  // buffer to keep (nullptr when the far end takes the packet intact).
  LinkSeq push(rte_mbuf* m, uint32_t units, uint8_t vc, ps_t acked_at) {
    RetryEntry& e = q_[head_ & mask_];
    e.m = m;
    e.acked_at = acked_at;
    e.units = static_cast<uint16_t>(units);
    e.vc = vc;
    return static_cast<LinkSeq>(head_++);
  }
  // The transmission that started at `sent` will not be acknowledged: the
  // sender times out then and goes back (the first such time stands).
  void expect_timeout(ps_t sent) {
    if (rewind_at_ == kNever) rewind_at_ = sent + timeout_ps_;
  }
  // The time-out has fired: the whole window is to be sent again, from the
  // oldest unacknowledged entry. Returns how many entries that is.
  uint32_t go_back(ps_t now) {
    retire(now);
    rewind_at_ = kNever;
    if (head_ != tail_) {  // the time-outs the oldest entry has caused in a row
      if (oldest_timeouts_ && tail_ == oldest_seq_) {
        oldest_timeouts_++;
      } else {
        oldest_seq_ = tail_;
        oldest_timeouts_ = 1;
      }
    }
    return head_ - tail_;
  }
  // Time-outs in a row with the same oldest entry, this one's included
  // (link.retry_limit bounds them).
  uint32_t timeouts_of_oldest() const { return oldest_timeouts_; }
  // Gives up on the oldest entry (after go_back, before its resend): it
  // leaves the window unacknowledged, handed to on_lost(units, vc, m),
  // buffer and all. Returns its number, which the receiver must skip: it
  // still expects it (the engine tells it, in order with the link's
  // packets).
  template <class F>
  LinkSeq give_up_oldest(F&& on_lost) {
    RetryEntry& e = q_[tail_ & mask_];
    on_lost(e.units, e.vc, e.m);
    e.m = nullptr;
    oldest_timeouts_ = 0;
    return static_cast<LinkSeq>(tail_++);
  }
  // The link's width changed (dataplane/link/lanes.h): a time-out chosen
  // per link follows its round trip.
  void set_timeout(ps_t timeout_ps) { timeout_ps_ = timeout_ps; }
  // The i-th entry from the oldest (0 <= i < outstanding()) and its number.
  RetryEntry& entry(uint32_t i) { return q_[(tail_ + i) & mask_]; }
  LinkSeq seq_of(uint32_t i) const { return static_cast<LinkSeq>(tail_ + i); }

  // Buffers still held (end of run).
  template <class F>
  void for_each_held(F&& f) {
    for (uint32_t s = tail_; s != head_; s++)
      if (q_[s & mask_].m) f(q_[s & mask_].m);
  }
  // The link died: the packets the window still holds are lost (each
  // handed to on_lost(units, vc, m), buffer and all: the far end never took
  // them, so their credits are the sender's again; returns how many) and
  // numbering starts again when it comes back.
  template <class F>
  uint32_t reset(F&& on_lost) {
    uint32_t n = 0;
    for (uint32_t s = tail_; s != head_; s++)
      if (RetryEntry& e = q_[s & mask_]; e.m) {
        on_lost(e.units, e.vc, e.m);
        e.m = nullptr;
        n++;
      }
    head_ = tail_ = 0;
    rewind_at_ = kNever;
    oldest_timeouts_ = 0;
    return n;
  }
  void release_all() {
    for (uint32_t s = tail_; s != head_; s++)
      if (q_[s & mask_].m) rte_pktmbuf_free(q_[s & mask_].m);
    tail_ = head_;
  }

 private:
  std::vector<RetryEntry> q_;
  uint32_t mask_ = 0;
  uint32_t window_ = 0;
  uint32_t head_ = 0, tail_ = 0;  // free-running; head_ is the next sequence number
  ps_t timeout_ps_ = 0;
  ps_t rewind_at_ = kNever;
  uint32_t oldest_seq_ = 0, oldest_timeouts_ = 0;  // (go_back)
};

// The receiving end's half: the next sequence number it will take.
struct GoBackNReceiver {
  LinkSeq expected = 0;
  // VCs whose input buffer has a damaged packet as its last entry (its CRC
  // failed; it leaves when its good copy arrives, or moves on marked).
  uint16_t damaged_vcs = 0;
  // What arrives with number `seq`: in sequence (take it if its CRC is
  // good, then expect the next) or not (discard: a duplicate, or sent after
  // a packet that was lost or damaged).
  bool in_sequence(LinkSeq seq) const { return seq == expected; }
  void took() { expected++; }
};

// Bit errors at a bit error rate: the number of good bits before the next
// bad one is geometric, drawn once per error, so error-free transmissions
// cost a subtraction.
class BitErrors {
 public:
  void init(double ber, uint64_t seed, uint64_t stream) {
    ber_ = ber;
    rng_ = Rng(seed, stream);
    gap_ = ber > 0 ? draw() : ~uint64_t{0};
  }
  double ber() const { return ber_; }
  // A transmission of `bits` checked bits: writes the positions of its bad
  // bits (in increasing order, at most max) and returns how many there are.
  uint32_t next(uint64_t bits, uint32_t* pos, uint32_t max) {
    if (gap_ >= bits) {
      if (gap_ != ~uint64_t{0}) gap_ -= bits;
      return 0;
    }
    uint32_t n = 0;
    uint64_t at = gap_;
    while (at < bits) {
      if (n < max) pos[n++] = static_cast<uint32_t>(at);
      at += 1 + draw();
    }
    gap_ = at - bits;
    return n;
  }

 private:
  // Good bits before the next bad one.
  uint64_t draw() { return ber_ >= 1.0 ? 0 : rng_.geometric(ber_) - 1; }
  double ber_ = 0;
  uint64_t gap_ = ~uint64_t{0};
  Rng rng_;
};

}  // namespace fabemu
