// Two-hop error detection and recovery (the petaflops 3D-mesh proposal,
// "Error Detection and Recovery", Figure 21; link.recovery: two_hop): every
// router output to another router keeps a copy of what it sent in its
// recovery memory "until the message has been successfully received two
// hops away": an "ack2" from the neighbour's neighbour, routed one hop
// upstream, releases it; a message the neighbour consumes (its processor is
// the destination) or discards is released by the neighbour's own "ack".
// Data is stored "just before it is put on an output wire".
//
// When the link or the router beyond it dies, what the memory still holds
// is sent again from this router along a new route, after the tables are
// reprogrammed (the proposal's recovery step 4, "in-transit messages move
// from the recovery RAM to output queues"); a message whose original also
// survived arrives twice and its destination drops the second
// (DuplicateFilter below: "may need to identify duplicated messages").
//
// Emulation: the neighbour sends the ack when the message leaves its input
// buffer, carrying the time the ack (or ack2) reaches this router, computed
// from the links it crosses (the ack2's path is the message's two links
// back); the entry retires lazily once that time has passed, so that the
// memory's occupancy at any instant is what the hardware's would hold. An
// entry keeps a copy of the packet (its own buffer: the original travels on
// and is changed and freed downstream).
//
// RecoveryMemory owns the memories of one worker's outputs: a copy kept at
// each send to a router (keep), acks applied (ack: from this worker's
// routers directly, from another worker's by the link's channel), what is
// held taken at a link's death (take_held). two_hop_recovery.h drives it.
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

struct RecoveryEntry {
  uint64_t id;       // PacketMeta::id
  ps_t release;      // the ack or ack2 is back then (kNever: not yet acknowledged)
  rte_mbuf* copy;    // what was sent
  uint32_t words;    // its length in flow units
};

// The counters of one worker's recovery memories (folded into RunStats).
struct RecoveryCounters {
  uint64_t kept = 0;        // copies stored
  uint64_t acks = 0;        // acks and ack2s applied
  uint64_t overflows = 0;   // stores that took a memory past its sizing
  uint64_t max_words = 0;   // the highest occupancy of any one memory
  uint64_t resent = 0;      // copies sent again after a link or router died
  uint64_t resent_lost = 0;  // of them, lost on the way (not as duplicates)
  uint64_t freed_dead = 0;  // copies lost with their own router (or with no route left)
};

class RecoveryMemory {
 public:
  bool enabled() const { return !mem_.empty(); }
  // `outputs` memories, each sized `size_words` (the proposal's 6 Bi + 5 Bo
  // + 12 x the link's delay line).
  void init(size_t outputs, uint64_t size_words) {
    mem_.assign(outputs, {});
    occupancy_.assign(outputs, 0);
    peak_.assign(outputs, 0);
    size_words_ = size_words;
  }
  uint64_t size_words() const { return size_words_; }
  uint64_t occupancy(uint32_t o) const { return occupancy_[o]; }
  uint64_t peak(uint32_t o) const { return peak_[o]; }
  size_t held(uint32_t o) const { return mem_[o].size(); }
  RecoveryCounters& counters() { return n_; }
  const RecoveryCounters& counters() const { return n_; }

  // Output o sends a packet at `now`: its copy is kept until acknowledged.
  void keep(uint32_t o, rte_mbuf* copy, uint64_t id, uint32_t words, ps_t now) {
    retire(o, now);
    mem_[o].push_back(RecoveryEntry{id, kNever, copy, words});
    occupancy_[o] += words;
    n_.kept++;
    if (occupancy_[o] > peak_[o]) {
      peak_[o] = occupancy_[o];
      n_.max_words = std::max(n_.max_words, peak_[o]);
    }
    if (occupancy_[o] > size_words_) n_.overflows++;
  }
  // The ack of packet `id` sent on output o reaches it at `release`. (An
  // ack for a packet no longer held, after the link died, is ignored.)
  void ack(uint32_t o, uint64_t id, ps_t release) {
    for (RecoveryEntry& e : mem_[o])
      if (e.id == id && e.release == kNever) {
        e.release = release;
        n_.acks++;
        return;
      }
  }
  // Entries whose acknowledgement is back by `now` leave the memory.
  void retire(uint32_t o, ps_t now) {
    std::vector<RecoveryEntry>& m = mem_[o];
    size_t k = 0;
    for (size_t i = 0; i < m.size(); i++) {
      if (m[i].release <= now) {
        occupancy_[o] -= m[i].words;
        rte_pktmbuf_free(m[i].copy);
      } else {
        m[k++] = m[i];
      }
    }
    m.resize(k);
  }
  // Output o's link died at `now`: what its memory holds is handed to
  // f(copy), oldest first (the caller sends it again or frees it), and the
  // memory is empty.
  template <class F>
  void take_held(uint32_t o, ps_t now, F&& f) {
    retire(o, now);
    std::vector<RecoveryEntry> held;
    held.swap(mem_[o]);
    occupancy_[o] = 0;
    for (const RecoveryEntry& e : held) f(e.copy);
  }
  // Copies whose ack never came (end of run).
  uint64_t unacknowledged() const {
    uint64_t n = 0;
    for (const auto& m : mem_)
      for (const RecoveryEntry& e : m) n += e.release == kNever;
    return n;
  }
  void release_all() {
    for (size_t o = 0; o < mem_.size(); o++) {
      for (const RecoveryEntry& e : mem_[o]) rte_pktmbuf_free(e.copy);
      mem_[o].clear();
      occupancy_[o] = 0;
    }
  }

 private:
  std::vector<std::vector<RecoveryEntry>> mem_;  // [output], in send order
  std::vector<uint64_t> occupancy_, peak_;       // [output], words
  uint64_t size_words_ = 0;
  RecoveryCounters n_;
};

// The destinations' side: a message sent again after a fault may arrive
// twice (its original had got past the dead link or router after all). Only
// messages in flight at a fault can be duplicated, so a destination
// remembers, from the first fault on, the ids of what it delivers that was
// generated before the latest fault, and drops a second arrival. Deliveries just before a fault are remembered
// too: a copy is held upstream until the ack2 is back, up to `keep_ps`
// after its original reached the router two hops on.
class DuplicateFilter {
 public:
  void init(ps_t keep_ps) {
    keep_ps_ = keep_ps;
    on_ = true;
  }
  bool on() const { return on_; }
  // A fault at `at` may make copies of what is in flight then.
  void fault_at(ps_t at) {
    if (!on_) return;
    for (size_t i = head_; i < recent_.size(); i++)
      if (recent_[i].t + keep_ps_ > at) seen_.insert(recent_[i].id);
    before_ps_ = std::max(before_ps_, at);
    faulted_ = true;
  }
  bool faulted() const { return faulted_; }
  // Packet `id` (generated at gen_ps: a copy sent again keeps its
  // original's) is delivered at t: true when it is a second arrival (drop
  // it).
  bool duplicate(uint64_t id, ps_t gen_ps, ps_t t) {
    // The last keep_ps of deliveries, for the next fault.
    while (head_ < recent_.size() && recent_[head_].t + keep_ps_ <= t) head_++;
    if (head_ > 1024 && head_ * 2 > recent_.size()) {
      recent_.erase(recent_.begin(), recent_.begin() + static_cast<ptrdiff_t>(head_));
      head_ = 0;
    }
    recent_.push_back(Recent{id, t});
    if (!faulted_ || gen_ps >= before_ps_) return false;
    return !seen_.insert(id).second;
  }
  size_t remembered() const { return seen_.size(); }

 private:
  struct Recent {
    uint64_t id;
    ps_t t;
  };
  bool on_ = false, faulted_ = false;
  ps_t keep_ps_ = 0;
  ps_t before_ps_ = 0;  // the latest fault
  std::vector<Recent> recent_;
  size_t head_ = 0;
  std::unordered_set<uint64_t> seen_;
};

}  // namespace fabemu
