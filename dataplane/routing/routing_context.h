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
  // Credits for (out_port, vc) the router knows of at now (in hand or streaming back).
  uint32_t credits(uint32_t out_port, uint32_t vc) const {
    if (queues_) {
      const uint32_t q = queues_[out_port * nv_ + vc];
      return cap_[vc] > q ? cap_[vc] - q : 0;
    }
    if (!vcs_) return cap_[vc];
    return vcs_[out_port * nv_ + vc].credits.held_at(now_);
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
    if (queues_) return queues_[out_port * nv_ + vc];
    return occupancy(out_port, vc) + (pending_ ? pending_[out_port * nv_ + vc] : 0);
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

 private:
  const SenderVc* vcs_;  // this router's outputs: [port * nv + vc]; null: idle
  uint32_t nv_;
  const uint32_t* cap_;           // buffer units per VC
  ps_t now_;
  const uint32_t* pending_ = nullptr;  // [port * nv + vc]; null: none
  const uint32_t* queues_ = nullptr;   // frozen queue lengths; null: live
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
