// The faults given while a run goes on (the control socket; EngineBase::
// inject_faults), from any thread, to every worker: appended under a lock,
// their count published for the workers, who take what is new at their
// next window edge (link/link_faults.h) and, worker 0, note when each took
// effect (EngineBase::injected_applied_at). Cold: a worker looks only with
// faults armed, once a window.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "dataplane/link/fault.h"
#include "dataplane/sim/time.h"

namespace fabemu {

class FaultInbox {
 public:
  // Appends changes; the index of the first among all given so far in
  // *first (for applied_at).
  void post(const std::vector<FabricFault>& changes, size_t* first);
  // How many have been given so far.
  uint32_t count() const { return n_.load(std::memory_order_acquire); }
  // Faults [from, to) (to <= count()), for a worker to apply; `record`
  // (worker 0): they take effect at `now`.
  std::vector<FabricFault> take(uint32_t from, uint32_t to, bool record, ps_t now);
  // When each took effect, kNever for one not applied (yet).
  std::vector<ps_t> applied_at() const;

  // Worker 0, publishing its window: how many faults were given and the
  // routing tables' generation() (called between the two reads of `epoch`),
  // read only while no change is half made (EngineBase::change_while_running:
  // the epoch is even and stays so). A change caught half made leaves
  // *faults and *tables as they were (it waits for the next window).
  template <class Generation>
  void snapshot(const std::atomic<uint32_t>& epoch, Generation&& generation, uint32_t* faults,
                uint64_t* tables) const {
    const uint32_t e = epoch.load(std::memory_order_acquire);
    if (e & 1) return;
    const uint32_t n = count();
    const uint64_t g = generation();
    if (epoch.load(std::memory_order_acquire) != e) return;
    *faults = n;
    *tables = g;
  }

 private:
  mutable std::mutex mu_;
  std::vector<FabricFault> faults_;
  std::vector<ps_t> applied_at_;  // [index in faults_], by worker 0
  std::atomic<uint32_t> n_{0};    // faults_.size(), published
};

}  // namespace fabemu
