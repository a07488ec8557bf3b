// What a routing decision may look at besides the tables and the packet:
// the endpoint's or router's random stream (VAL, UGAL choose intermediate
// nodes) and a read-only view of the router's outputs: credits per
// (output, VC) and the occupancy the sender believes downstream has.
// Selection among candidates (routing/selection.h) reads the same view.
#pragma once
#include <cstdint>

#include "dataplane/core/rng.h"
#include "dataplane/link/link.h"
#include "dataplane/sim/time.h"

namespace fabemu {

class QueueView {
 public:
  // pending: [out_port * nv + vc] units routed to that output VC and not yet
  // granted (this router's decisions the credits do not show yet); null:
  // none counted.
  QueueView(const SenderVc* vcs, uint32_t nv, const uint32_t* capacity, ps_t now,
            const uint32_t* pending = nullptr)
      : vcs_(vcs), nv_(nv), cap_(capacity), now_(now), pending_(pending) {}
  // A view of an idle fabric (every downstream buffer empty): what analysis
  // and zero-load route tracing see.
  static QueueView idle(uint32_t nv, const uint32_t* capacity) {
    return QueueView(nullptr, nv, capacity, 0);
  }
  // A view frozen at given queue lengths ([out_port * nv + vc] units): a
  // greedy allocator's per-cycle snapshot, or a test's crafted state.
  static QueueView of_queues(const uint32_t* queues, uint32_t nv, const uint32_t* capacity,
                             ps_t now = 0) {
    QueueView v(nullptr, nv, capacity, now);
    v.queues_ = queues;
    return v;
  }
  // A greedy allocator's snapshot taken lazily: the live state as it was at
  // `at` (the cycle's first decision), except where an entry has changed
  // since; its value at `at` was kept then in saved[i], marked by
  // stamp[i] == gen. Equal to a copy of every queue at `at`, without the
  // copy (the radix-63 router's decisions read a few of its 126 queues).
  static QueueView snapshot(const SenderVc* vcs, uint32_t nv, const uint32_t* capacity, ps_t now,
                            const uint32_t* pending, ps_t at, const uint32_t* saved,
                            const uint64_t* stamp, uint64_t gen) {
    QueueView v(vcs, nv, capacity, now, pending);
    v.at_ = at;
    v.saved_ = saved;
    v.stamp_ = stamp;
    v.gen_ = gen;
    return v;
  }
  // Credits for (out_port, vc) the router knows of at now (in hand or streaming back).
  uint32_t credits(uint32_t out_port, uint32_t vc) const {
    if (queues_ || stamp_) {  // a snapshot holds queues: the credits they leave
      const uint32_t q = queue(out_port, vc);
      return cap_[vc] > q ? cap_[vc] - q : 0;
    }
    return live_credits(out_port, vc);
  }
  // Units the downstream buffer holds or has been promised, as credits tell.
  uint32_t occupancy(uint32_t out_port, uint32_t vc) const {
    const uint32_t c = credits(out_port, vc);
    return cap_[vc] > c ? cap_[vc] - c : 0;
  }
  // The output queue length the paper's adaptive algorithms compare
  // (Kim, Dally & Abts 2007, section 3.1): the downstream occupancy the
  // credits show plus what this router has routed to (out_port, vc) and not
  // yet sent, so that a decision counts for the next one at once.
  uint32_t queue(uint32_t out_port, uint32_t vc) const {
    const uint32_t i = out_port * nv_ + vc;
    if (queues_) return queues_[i];
    if (stamp_ && stamp_[i] == gen_) return saved_[i];
    return live_queue(out_port, vc);
  }
  // The whole output channel's queue: every VC's. The packets of all VCs
  // share the link, so a packet's wait for an output depends on all of them;
  // a VC's own queue alone makes a rarely used VC (UGAL's non-minimal VC 0)
  // look empty on a busy channel.
  uint32_t channel_queue(uint32_t out_port) const {
    uint32_t q = 0;
    for (uint32_t v = 0; v < nv_; v++) q += queue(out_port, v);
    return q;
  }
  uint32_t vcs() const { return nv_; }
  ps_t now() const { return now_; }
  // The queue as the live state gives it (at the snapshot's time, if one).
  uint32_t live_queue(uint32_t out_port, uint32_t vc) const {
    const uint32_t c = live_credits(out_port, vc);
    return (cap_[vc] > c ? cap_[vc] - c : 0) + (pending_ ? pending_[out_port * nv_ + vc] : 0);
  }

 private:
  uint32_t live_credits(uint32_t out_port, uint32_t vc) const {
    if (!vcs_) return cap_[vc];
    return vcs_[out_port * nv_ + vc].credits.held_at(stamp_ ? at_ : now_);
  }
  const SenderVc* vcs_;  // this router's outputs: [port * nv + vc]; null: idle
  uint32_t nv_;
  const uint32_t* cap_;           // buffer units per VC
  ps_t now_;
  const uint32_t* pending_ = nullptr;  // [port * nv + vc]; null: none
  const uint32_t* queues_ = nullptr;   // frozen queue lengths; null: live
  // snapshot(): its time, and the values kept where the state has changed.
  ps_t at_ = 0;
  const uint32_t* saved_ = nullptr;
  const uint64_t* stamp_ = nullptr;
  uint64_t gen_ = 0;
};

// Handed to a routing function with each packet: the router's own random
// stream (one per router, so a run does not depend on how routers are
// placed on cores) and the view of its outputs at the moment of routing.
struct RoutingContext {
  Rng* rng;
  QueueView view;
};

// Routing outside a run (analysis, route tracing, tests, benchmarks): an
// idle fabric's view and a fixed random stream.
struct OfflineRouting {
  static constexpr uint32_t kVcs = 16;
  explicit OfflineRouting(uint64_t stream = 0) : rng(0x7472616365ull, stream) {
    for (uint32_t& c : cap) c = 0xFFFF;
  }
  RoutingContext ctx() { return RoutingContext{&rng, QueueView::idle(kVcs, cap)}; }
  uint32_t cap[kVcs];
  Rng rng;
};

}  // namespace fabemu
