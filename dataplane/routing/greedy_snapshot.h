// A greedy allocator's view of a router's output queues (Kim, Dally & Abts
// 2007, section 3.1: with greedy allocation every input decides in parallel
// on the same state, updated en masse at the end of the cycle): the queues
// as they were at the cycle's first decision.
//
// Taken lazily: a decision reads the live state, evaluated at the time of
// the cycle's first decision, except for the (output, VC) entries that have
// changed since; each of those had its value at that time kept just before
// it first changed (keep()). The same values as a copy of all the router's
// queues at the first decision, without the copy: the flattened butterfly's
// radix-63 router copied 126 queues for decisions that read a few.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

class GreedySnapshot {
 public:
  // After kLazyDecisions decisions in one cycle (begin()) the rest of the
  // router's queues are kept too: each decision then reads kept values
  // only. On the iSLIP router (32-ary 2-flat, UGAL, callgrind against a
  // plain copy at the first decision) lazy reads cost less than the copy
  // at any load: keeping the rest at the 8th decision, -14% instructions
  // at uniform load 0.1 and +8% at 0.5; at the 16th, +3.3% at 0.5; at the
  // 64th, -14%, +3.0% and +3.2% at 0.1, 0.5, 0.9 (what is left is the keeps).
  // The paper's router with switch speedup decides for many packets a
  // cycle; lazily, or with everything kept at the first decision, it ran 8%
  // and 3% slower than with a plain copy (load 0.5), so it takes the copy:
  // begin_copy().
  static constexpr uint32_t kLazyDecisions = 64;

  // lazy: begin()/keep() will be used; else only the plain copy (no stamps).
  void init(size_t routers, size_t entries, bool lazy) {
    decisions_.assign(routers, 0);
    until_.assign(routers, 0);
    at_.assign(routers, 0);
    gen_.assign(routers, 1);
    saved_.assign(entries, 0);
    stamp_.assign(lazy ? entries : 0, 0);
  }
  static size_t bytes(size_t routers, size_t entries) {
    return routers * (2 * sizeof(ps_t) + sizeof(uint64_t) + sizeof(uint32_t)) +
           entries * (sizeof(uint32_t) + sizeof(uint64_t));
  }
  // A decision of local router lr at `now`, in an allocation cycle that
  // ends at `cycle_end`: the cycle's first one begins the snapshot. True
  // when the caller is to keep every entry not kept yet (kept(), put()):
  // at the kLazyDecisions-th decision of a cycle.
  bool begin(uint32_t lr, ps_t now, ps_t cycle_end) {
    if (now >= until_[lr]) {
      until_[lr] = cycle_end;
      at_[lr] = now;
      gen_[lr]++;  // what was kept for the last cycle no longer counts
      decisions_[lr] = 0;
    }
    return ++decisions_[lr] == kLazyDecisions;
  }
  // Entry q ([output * nv + vc]) of router lr is about to change at `now`:
  // while a snapshot is being decided on, its value then is kept, once.
  // value_at(t): the entry's queue from the live state at time t.
  template <class ValueAt>
  void keep(uint32_t lr, size_t q, ps_t now, ValueAt&& value_at) {
    if (now >= until_[lr] || stamp_[q] == gen_[lr]) return;
    saved_[q] = value_at(at_[lr]);
    stamp_[q] = gen_[lr];
  }
  bool kept(uint32_t lr, size_t q) const { return stamp_[q] == gen_[lr]; }
  void put(uint32_t lr, size_t q, uint32_t value) {
    saved_[q] = value;
    stamp_[q] = gen_[lr];
  }
  // The plain copy: a decision of router lr at `now` whose cycle's first
  // it is returns true, and the caller writes every queue of the router
  // into copy(q0). (No keep() is then needed.)
  bool begin_copy(uint32_t lr, ps_t now, ps_t cycle_end) {
    if (now < until_[lr]) return false;
    until_[lr] = cycle_end;
    return true;
  }
  uint32_t* copy(size_t q0) { return &saved_[q0]; }
  ps_t at(uint32_t lr) const { return at_[lr]; }
  uint64_t gen(uint32_t lr) const { return gen_[lr]; }
  const uint32_t* saved(size_t q0) const { return &saved_[q0]; }
  const uint64_t* stamps(size_t q0) const { return &stamp_[q0]; }

 private:
  std::vector<uint32_t> decisions_;  // [local router]: made on its snapshot
  std::vector<ps_t> until_;       // [local router]: the snapshot's cycle ends then
  std::vector<ps_t> at_;          // [local router]: the cycle's first decision
  std::vector<uint64_t> gen_;     // [local router]: the snapshot's number
  std::vector<uint32_t> saved_;   // [output * nv + vc]: the value at at_, where
  std::vector<uint64_t> stamp_;   // stamp_ == the router's gen_
};

}  // namespace fabemu
