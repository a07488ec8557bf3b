// What workers publish for the live figures (live_board.h).
#include "dataplane/stats/live_board.h"

#include <algorithm>

namespace fabemu {

void LiveBoard::init(int workers, size_t ports) {
  workers_ = workers;
  ports_ = ports;
  slots_ = std::make_unique<Slot[]>(workers);
  for (int i = 0; i < workers; i++) {
    slots_[i].rx = std::make_unique<std::atomic<uint64_t>[]>(ports + 1);
    slots_[i].tx = std::make_unique<std::atomic<uint64_t>[]>(ports + 1);
    for (size_t b = 0; b <= ports; b++) {
      slots_[i].rx[b].store(0);
      slots_[i].tx[b].store(0);
    }
  }
}

void LiveBoard::publish(int w, const RunStats& st, LatencyHistogram& frame_iv) {
  Slot& s = slots_[w];
  for (size_t b = 0; b < ports_; b++) {
    s.rx[b].store(st.ports[b].rx_frames, std::memory_order_relaxed);
    s.tx[b].store(st.ports[b].tx_frames, std::memory_order_relaxed);
  }
  s.frame_p99.store(frame_iv.count ? frame_iv.percentile(99) : 0, std::memory_order_relaxed);
  s.captured.store(st.captured, std::memory_order_relaxed);
  s.capture_drops.store(st.capture_drops, std::memory_order_relaxed);
  frame_iv = LatencyHistogram{};
}

void LiveBoard::read(LiveStats& live) const {
  live.rx_frames.assign(ports_, 0);
  live.tx_frames.assign(ports_, 0);
  live.frame_latency_p99_ps = 0;
  live.captured = live.capture_drops = 0;
  for (int i = 0; i < workers_; i++) {
    const Slot& s = slots_[i];
    for (size_t b = 0; b < ports_; b++) {
      live.rx_frames[b] += s.rx[b].load(std::memory_order_relaxed);
      live.tx_frames[b] += s.tx[b].load(std::memory_order_relaxed);
    }
    live.frame_latency_p99_ps =
        std::max(live.frame_latency_p99_ps, s.frame_p99.load(std::memory_order_relaxed));
    live.captured += s.captured.load(std::memory_order_relaxed);
    live.capture_drops += s.capture_drops.load(std::memory_order_relaxed);
  }
}

bool LiveBoard::settled() const {
  uint64_t injected = 0, done = 0;
  for (int i = 0; i < workers_; i++) {
    done += slots_[i].done.load(std::memory_order_acquire);
    injected += slots_[i].injected.load(std::memory_order_relaxed);
  }
  return injected == done;
}

}  // namespace fabemu
