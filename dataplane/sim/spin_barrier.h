// Sense-reversing spin barrier for the worker cores of a conservative window
// (no locks, no syscalls while the peers keep up).
#pragma once
#include <rte_pause.h>
#include <sched.h>

#include <atomic>
#include <cstdint>

namespace fabemu {

class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n) {}
  // Waits for the other workers, calling poll() while it spins (to keep
  // draining rings a peer may be blocked on).
  template <class WhileWaiting>
  void wait(WhileWaiting&& poll) {
    const int sense = sense_.load(std::memory_order_relaxed);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      count_.store(0, std::memory_order_relaxed);
      sense_.store(sense ^ 1, std::memory_order_release);
      return;
    }
    // Spin (the peer core normally arrives within microseconds); yield when
    // the cores are oversubscribed so the peer can run at all.
    for (uint32_t spins = 0; sense_.load(std::memory_order_acquire) == sense; spins++) {
      poll();
      if (spins < 4096)
        rte_pause();
      else
        sched_yield();
    }
  }
  void wait() {
    wait([] {});
  }

 private:
  const int n_;
  alignas(64) std::atomic<int> count_{0};
  alignas(64) std::atomic<int> sense_{0};
};

}  // namespace fabemu
