// Credits of one (output, VC): flow units the downstream input buffer can
// still accept.
//
// Downstream frees a packet's units one at a time as they stream out of its
// buffer, so credits come back as a stream: n units, the first at `start`,
// then one every `unit` ps (the downstream output's unit time). A stream is
// written into the counter when downstream grants the packet, before its
// first credit is due (no event per credit, none per packet): "are there k
// credits at time t" is a walk over at most kStreams streams, each a multiply
// and a compare. Streams from one downstream FIFO never overlap in time (it
// reads one packet at a time), so they queue in time order.
//
// Layout: what a grant reads and writes (credits in hand, the units taken,
// the three oldest streams) is one cache line; the fourth stream and the
// initial credits are in the next. Streams are kept oldest first (a pop
// shifts them down), so that the walk starts at the front of that line.
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

namespace fabemu {

class CreditCounter {
 public:
  static constexpr uint32_t kStreams = 4;

  CreditCounter() = default;
  explicit CreditCounter(uint32_t initial) : settled_(initial), initial_(initial) {}

  // Credits held for the conservation check: in hand plus every stream.
  uint32_t held() const {
    uint32_t h = settled_;
    for (uint32_t i = 0; i < count_; i++) h += q_[i].n;
    return h;
  }
  // Units ever taken (sent downstream) and ever returned (streams written,
  // deferred ones once resumed): the link's side of credit conservation.
  // (Credits are neither made nor lost here, so what came back is what is
  // held now and was taken, less what the counter started with.)
  uint64_t taken() const { return taken_; }
  uint64_t returned() const { return uint64_t(held()) + taken_ - initial_; }
  // Credits in hand or in a stream that has begun by `now` (what the sender
  // would know of at `now`): the adaptive selection's view.
  uint32_t held_at(ps_t now) const {
    uint32_t h = settled_;
    for (uint32_t i = 0; i < count_; i++) {
      const Stream& s = q_[i];
      // take() moves a begun head stream's start to its next credit: it has
      // begun all the same.
      if (s.start > now && !(i == 0 && head_begun_)) break;
      h += s.n;
    }
    return h;
  }
  uint32_t pending_streams() const { return count_; }
  // The credits it started with: the downstream buffer's size.
  uint32_t initial() const { return initial_; }
  // Credits that have arrived by `now`, exactly: in hand, and of each
  // stream those due by then (the YARC's adaptive choices read a buffer's
  // depth as its size less these; a division per begun stream).
  uint32_t arrived_by(ps_t now) const {
    uint32_t h = settled_;
    for (uint32_t i = 0; i < count_; i++) {
      const Stream& s = q_[i];
      if (s.start > now) break;
      const ps_t due = s.unit ? (now - s.start) / s.unit + 1 : s.n;
      h += due < s.n ? static_cast<uint32_t>(due) : s.n;
    }
    return h;
  }

  // Are `units` credits available at `now`? If not, *when is lowered to the
  // time they will be (left alone if only more streams can provide them).
  bool available(uint32_t units, ps_t now, ps_t* when) const {
    if (settled_ >= units) return true;
    uint32_t k = units - settled_;
    for (uint32_t i = 0; i < count_; i++) {
      const Stream& s = q_[i];
      if (k <= s.n) {
        const ps_t t = s.start + ps_t(k - 1) * s.unit;
        if (now >= t) return true;
        if (t < *when) *when = t;
        return false;
      }
      k -= s.n;
    }
    return false;
  }

  // Takes `units` credits (after available() said yes): those in hand, then
  // the fronts of the streams.
  void take(uint32_t units) {
    taken_ += units;
    if (settled_ >= units) {
      settled_ -= units;
      return;
    }
    uint32_t k = units - settled_;
    settled_ = 0;
    while (k) {
      Stream& s = q_[0];
      if (k < s.n) {
        s.start += ps_t(k) * s.unit;
        s.n -= k;
        head_begun_ = true;
        return;
      }
      k -= s.n;
      pop();
    }
  }

  // A stream written ahead of time. Returns false when kStreams are already
  // pending (or an earlier stream is still deferred): the caller delivers it
  // again at `first`, after resume(first), when the older streams have
  // arrived; streams thus stay in time order.
  bool add_stream(uint32_t units, ps_t first, ps_t every) {
    if (count_ == kStreams || deferred_ > 0) {
      deferred_++;
      return false;
    }
    q_[count_] = Stream{first, static_cast<uint32_t>(every), units};
    count_++;
    return true;
  }

  // A deferred stream comes back at its `first`: the streams before it have
  // all arrived by then, so it finds room. Except in real time, where a late
  // stream starts when it is taken and may overlap the ones after it: then
  // its credits join the last stream's, after it and at its pace (later
  // than due, never earlier, and none lost or made twice).
  void add_resumed(uint32_t units, ps_t first, ps_t every) {
    settle(first);
    deferred_--;
    if (count_ == kStreams) [[unlikely]] {
      q_[count_ - 1].n += units;
      return;
    }
    q_[count_] = Stream{first, static_cast<uint32_t>(every), units};
    count_++;
  }

  // Streams whose last credit has arrived by `now` move into hand.
  void settle(ps_t now) {
    while (count_) {
      const Stream& s = q_[0];
      if (s.start + ps_t(s.n - 1) * s.unit > now) return;
      settled_ += s.n;
      pop();
    }
  }

  // Units taken for a packet the far buffer will never hold (a link's
  // retransmit buffer, lost when the link died): as if never taken.
  void untake(uint32_t units) {
    taken_ -= units;
    settled_ += units;
  }
  // Credits that arrive all at once (tests).
  void add(uint32_t units) { settled_ += units; }

 private:
  struct Stream {
    ps_t start;
    uint32_t unit;
    uint32_t n;
  };
  void pop() {
    for (uint32_t i = 1; i < count_; i++) q_[i - 1] = q_[i];
    count_--;
    head_begun_ = false;
  }
  uint32_t settled_ = 0;
  uint16_t deferred_ = 0;  // streams handed back to the caller, not yet resumed
  uint8_t count_ = 0;
  bool head_begun_ = false;  // the head stream was partly taken (so it has begun)
  uint64_t taken_ = 0;
  Stream q_[kStreams] = {};  // oldest first
  uint32_t initial_ = 0;     // credits at the start (returned())
};

}  // namespace fabemu
