// Wormhole flow control at phit granularity inside the YARC (section 7.5:
// the row and column buffers are too small for a whole packet plus the
// credit latency, so the row buses and column channels are wormhole, while
// the external links stay virtual cut-through), modelled per packet with
// phit-counted buffers.
//
// A packet of L phits enters a buffer of `cap` phits when `n = min(L, cap)`
// phits can stream into it one every `every` without stalling (the sender
// holds the buffer's credits); a longer packet's other L - n phits wait
// upstream and enter as its own head phits leave: its tail is left in the
// buffer behind (the paper's "a maximum-length packet can block traffic ...
// by leaving its tail in the row buffer"). The buffer gives the n credits
// back as the packet's last n phits leave it.
//
// How the phits leave a buffer is known a stage at a time: the first
// phits as the next stage takes the packet, the rest only when the stage
// after that does. A PhitRun is one such piece: phits [from, to) leave one
// every `every`, phit j at first + (j - from) * every.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/link/credit_counter.h"
#include "dataplane/router/yarc_transit.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct PhitRun {
  ps_t first = 0;
  ps_t every = 0;
  uint32_t from = 0, to = 0;

  uint32_t count() const { return to - from; }
  ps_t leave(uint32_t j) const { return first + ps_t(j - from) * every; }
  // The last phit of the run has been read out.
  ps_t end() const { return first + ps_t(to - from) * every; }
};

// Credits coming back as a stream: n of them, the first at `first`.
struct CreditRun {
  uint32_t n = 0;
  ps_t first = 0;
  ps_t every = 0;
};

// Phits of an L-phit packet a buffer of `cap` takes at once.
inline uint32_t phits_in(uint32_t units, uint32_t cap) { return units < cap ? units : cap; }

// The credits a run of a packet's phits gives back to a buffer that took
// n = phits_in(L, cap) for it: one as each of the packet's last n phits
// has left (a phit's credit when it has been read out, as on the links).
inline CreditRun credits_of(const PhitRun& r, uint32_t units, uint32_t n) {
  const uint32_t a = std::max(r.from, units - n);
  if (a >= r.to) return {};
  return {r.to - a, r.leave(a) + r.every, r.every};
}

// Phits [from, to) of a packet leave an upstream buffer as fast as `own`
// allows (from `own_first` on) but no faster than their slots downstream
// free up: phit j goes when phit j - lag has left the downstream buffer in
// run `down`. Both constraints as one run (its rate the slower one).
inline PhitRun follow(uint32_t from, uint32_t to, ps_t own_first, ps_t own_every,
                      const PhitRun& down, uint32_t lag) {
  PhitRun r;
  r.from = from;
  r.to = to;
  r.every = std::max(own_every, down.every);
  r.first = std::max(own_first, down.leave(from - lag));
  return r;
}

// When the k-th credit (k >= 1) of cc is there: 0 when in hand, kNever
// when no stream written so far brings it.
inline ps_t credit_time(const CreditCounter& cc, uint32_t k) {
  ps_t t = kNever;
  return cc.available(k, 0, &t) ? 0 : t;
}

// The earliest time from `now` at which n phits can stream into the buffer
// whose credits cc holds, one every `every`, each finding a credit: checked
// at the first and the last phit (exact for credits coming back in one
// stream). kNever: the credits are not on their way yet.
inline ps_t stream_start(const CreditCounter& cc, uint32_t n, ps_t now, ps_t every) {
  const ps_t last = credit_time(cc, n);
  if (last == kNever) return kNever;
  const ps_t lead = ps_t(n - 1) * every;
  ps_t t = std::max(now, credit_time(cc, 1));
  if (last > lead) t = std::max(t, last - lead);
  return t;
}

// One kind of the YARC's small internal buffers (the row buffers, or the
// column buffers) of every router a worker owns: per buffer (and VC) the
// credits its sender holds, the packets whose heads are in it and not yet
// sent on (a FIFO: only the head is switched), when the packet sent on last
// has left it whole (the next may follow only then; kNever until that is
// known), and whether its sender waits for credits not yet on their way.
class WormholeBuffers {
 public:
  void init(size_t n, uint32_t cap, uint32_t min_units) {
    cap_ = cap;
    credits_.assign(n, CreditCounter(cap));
    tail_out_.assign(n, 0);
    deferred_.assign(n, 0);
    waiting_.assign(n, 0);
    fifo_.init(n, fifo_entries(cap, min_units));
  }
  // The packets one buffer may hold: as many as its credits admit.
  static uint32_t fifo_entries(uint32_t cap, uint32_t min_units) {
    return cap / std::max<uint32_t>(1, std::min(min_units, cap)) + 1;
  }
  static size_t bytes(size_t n, uint32_t cap, uint32_t min_units) {
    return n * (sizeof(CreditCounter) + sizeof(ps_t) + sizeof(uint32_t) + 1) +
           TransitFifos::bytes(n, fifo_entries(cap, min_units));
  }
  size_t size() const { return credits_.size(); }
  uint32_t cap() const { return cap_; }

  CreditCounter& credits(size_t b) { return credits_[b]; }
  const CreditCounter& credits(size_t b) const { return credits_[b]; }
  TransitFifos& fifo() { return fifo_; }
  const TransitFifos& fifo() const { return fifo_; }
  ps_t& tail_out(size_t b) { return tail_out_[b]; }

  // A sender found the buffer short of credits none of which are on their
  // way yet: the next credits given back must wake it.
  void set_waiting(size_t b) { waiting_[b] = 1; }
  bool take_waiting(size_t b) {
    const bool w = waiting_[b];
    waiting_[b] = 0;
    return w;
  }

  // Credits given back as a stream. False: the counter's stream queue is
  // full, and the caller hands the stream back at its first credit
  // (resume), when the older ones have arrived.
  bool give_back(size_t b, const CreditRun& r, ps_t now) {
    CreditCounter& cc = credits_[b];
    cc.settle(now);
    if (cc.add_stream(r.n, r.first, r.every)) return true;
    deferred_[b] += r.n;
    return false;
  }
  void resume(size_t b, const CreditRun& r) {
    credits_[b].add_resumed(r.n, r.first, r.every);
    deferred_[b] -= r.n;
  }
  // Credits handed back and not yet in the counter (conservation check).
  uint32_t deferred(size_t b) const { return deferred_[b]; }

 private:
  uint32_t cap_ = 0;
  std::vector<CreditCounter> credits_;
  std::vector<ps_t> tail_out_;
  std::vector<uint32_t> deferred_;
  std::vector<uint8_t> waiting_;
  TransitFifos fifo_;
};

}  // namespace fabemu
