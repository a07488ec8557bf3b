// Output queues: what an input-queued router with switch speedup adds. The
// flattened butterfly paper (Kim, Dally & Abts 2007, section 3.2) simulates
// "input-queued routers but provide[s] sufficient switch speedup ... [so]
// that routers do not become the bottleneck of the network". With
// router.output_speedup S > 1 an output accepts up to S packets through the
// switch at a time, each into the queue of its output VC, and the output
// link takes them from there one at a time when the downstream buffer has
// credits for all of a packet (virtual cut-through). A head-of-line packet
// thus leaves its input FIFO as soon as the switch has room for it, which
// removes the input-queued switch's head-of-line limit (about 0.59 under
// uniform traffic).
//
// A packet leaves its input buffer when it crosses the switch, as fast as
// it arrived (the switch is not the bottleneck, whatever the output link's
// rate), so its credits go back upstream from then (as in BookSim's
// input-queued router with speedup); its output queue then holds it until
// the link sends it.
// Each queue has a capacity in flow units (router.output_queue_units); a
// packet whose queue is full waits at the head of its input FIFO. Entries
// come from one pool that grows to the most packets ever queued at once.
//
// Flat state over the outputs one worker owns (output o as in
// InputQueuedRouter, queue q = o * nv + vc); input channels c as there.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/router/crossing_slots.h"
#include "dataplane/sim/time.h"

struct rte_mbuf;

namespace fabemu {

struct OqEntry {
  rte_mbuf* m;
  uint32_t next;  // the next entry of its queue, or of the free list
  uint16_t units;
  uint8_t stalled;  // counted as a credit stall at this hop already
  uint8_t pad;
};

class OutputQueues {
 public:
  static constexpr uint32_t kNil = ~0u;

  // speedup <= 1: no output queues (the link takes packets straight from the
  // input FIFOs). cap_units[v]: the capacity of each queue of VC v.
  void init(uint32_t outputs, uint32_t nv, const std::vector<uint32_t>& cap_units,
            uint32_t speedup) {
    speedup_ = speedup;
    if (speedup_ <= 1) return;
    nv_ = nv;
    q_.assign(size_t(outputs) * nv, Queue{});
    for (size_t i = 0; i < q_.size(); i++) q_[i].free = cap_units[i % nv];
    out_.assign(outputs, Output{});
    busy_.assign(size_t(outputs) * speedup_, 0);
    pool_.clear();
    free_ = kNil;
  }
  // Bytes init() allocates (the entry pool grows with use: `entries` more).
  static size_t state_bytes(uint32_t outputs, uint32_t nv, uint32_t speedup, size_t entries) {
    if (speedup <= 1) return 0;
    return size_t(outputs) * (nv * sizeof(Queue) + sizeof(Output) + speedup * sizeof(ps_t)) +
           entries * sizeof(OqEntry);
  }

  bool enabled() const { return speedup_ > 1; }

  // ---- the queues ------------------------------------------------------------
  uint32_t len(uint32_t o, uint32_t v) const { return q_[size_t(o) * nv_ + v].len; }
  uint32_t space(uint32_t o, uint32_t v) const { return q_[size_t(o) * nv_ + v].free; }
  // VCs of output o whose queue holds a packet (bit v).
  uint32_t nonempty(uint32_t o) const { return out_[o].nonempty; }
  // The caller has checked space().
  void push(uint32_t o, uint32_t v, rte_mbuf* m, uint16_t units) {
    uint32_t n = free_;
    if (n == kNil) {  // grows to the most packets ever queued, then reuses
      n = static_cast<uint32_t>(pool_.size());
      pool_.push_back(OqEntry{});
    } else {
      free_ = pool_[n].next;
    }
    pool_[n] = OqEntry{m, kNil, units, 0, 0};
    Queue& q = q_[size_t(o) * nv_ + v];
    if (q.len++ == 0)
      q.head = n;
    else
      pool_[q.tail].next = n;
    q.tail = n;
    q.free -= units;
    out_[o].nonempty |= 1u << v;
  }
  OqEntry& head(uint32_t o, uint32_t v) { return pool_[q_[size_t(o) * nv_ + v].head]; }
  OqEntry pop(uint32_t o, uint32_t v) {
    Queue& q = q_[size_t(o) * nv_ + v];
    const uint32_t n = q.head;
    const OqEntry e = pool_[n];
    q.head = e.next;
    pool_[n].next = free_;
    free_ = n;
    q.free += e.units;
    if (--q.len == 0) out_[o].nonempty &= ~(1u << v);
    return e;
  }
  // Every queued packet (end-of-run accounting).
  template <class F>
  void for_each(F&& f) const {
    for (const Queue& q : q_)
      for (uint32_t n = q.len ? q.head : kNil, i = 0; i < q.len; i++, n = pool_[n].next)
        f(pool_[n]);
  }

  // ---- the output's side of the switch: at most `speedup` packets cross
  // into its queues at a time ------------------------------------------------
  ps_t output_free_at(uint32_t o) const {
    return crossing_free_at(&busy_[size_t(o) * speedup_], speedup_);
  }
  void occupy_output(uint32_t o, ps_t until) {
    occupy_crossing(&busy_[size_t(o) * speedup_], speedup_, until);
  }

  // ---- the link's round robin over the output's VC queues -------------------
  uint8_t& rr(uint32_t o) { return out_[o].rr; }
  // One pending link wake-up per output.
  ps_t& link_wake(uint32_t o) { return out_[o].link_wake; }

 private:
  struct Queue {
    uint32_t head = kNil, tail = kNil, len = 0;
    uint32_t free = 0;  // units it can still take
  };
  struct Output {
    ps_t link_wake = kNever;
    uint32_t nonempty = 0;
    uint8_t rr = 0;
  };
  uint32_t speedup_ = 1, nv_ = 1;
  std::vector<Queue> q_;     // [o * nv + v]
  std::vector<Output> out_;  // [o]
  std::vector<ps_t> busy_;   // [o * speedup + k]: crossing k busy until
  std::vector<OqEntry> pool_;
  uint32_t free_ = kNil;
};

}  // namespace fabemu
