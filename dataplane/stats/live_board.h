// Real time: what each worker publishes, while the run goes on, for worker
// 0's drain and the live figures (LiveStats). One slot per worker, written
// by that worker only; worker 0 reads them all.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "dataplane/stats/stats.h"

namespace fabemu {

class LiveBoard {
 public:
  void init(int workers, size_t ports);
  // Worker w at housekeeping: its packets injected and done (delivered, or
  // lost to faults: the drain does not wait for those).
  void publish_counts(int w, uint64_t injected, uint64_t done) {
    Slot& s = slots_[w];
    s.injected.store(injected, std::memory_order_relaxed);
    s.done.store(done, std::memory_order_release);
  }
  // Worker w, each live period: its ports' frames, the p99 of the frames it
  // delivered in the period (frame_iv, cleared here) and its capture counts.
  void publish(int w, const RunStats& st, LatencyHistogram& frame_iv);
  // Worker 0: every worker's figures into live (frames, frame p99, capture).
  void read(LiveStats& live) const;
  // Worker 0: every injected packet is done.
  bool settled() const;

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> injected{0}, done{0};
    std::atomic<uint64_t> frame_p99{0};
    std::atomic<uint64_t> captured{0}, capture_drops{0};
    std::unique_ptr<std::atomic<uint64_t>[]> rx, tx;  // per port-bound endpoint
  };
  std::unique_ptr<Slot[]> slots_;
  int workers_ = 0;
  size_t ports_ = 0;
};

}  // namespace fabemu
