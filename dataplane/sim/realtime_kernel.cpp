#include "dataplane/sim/realtime_kernel.h"

#include <algorithm>

namespace fabemu {

void RealtimeKernel::init(const Config& c) {
  cfg_ = c;
  live_ = std::make_unique<LivePub[]>(c.workers);
  phase_.store(kRunning, std::memory_order_relaxed);
  drain_deadline_ = kNever;
  overloaded_ = false;
  quiet_checks_ = 0;
}

void RealtimeKernel::start_clock() {
  hz_ = rte_get_tsc_hz();
  house_cycles_ = std::max<uint64_t>(1, hz_ / 2000);  // every 0.5 ms
  progress_cycles_ = cfg_.progress_s > 0 ? static_cast<uint64_t>(cfg_.progress_s * double(hz_)) : 0;
  duration_cycles_ = static_cast<uint64_t>(cfg_.duration_s * double(hz_));
  ps_per_cycle_ = 1e12 / double(hz_) / cfg_.time_scale;
  tsc0_ = rte_rdtsc();
}

// Every progress period each core publishes the p99s of the period (its
// host its own figures); worker 0 shows them.
void RealtimeKernel::publish_live(KernelWorker& k, uint64_t tick) {
  LivePub& lp = live_[k.id];
  lp.lateness_p99.store(k.lateness_iv.count ? k.lateness_iv.percentile(99) : 0,
                        std::memory_order_relaxed);
  lp.lateness_max.store(k.lateness_iv.count ? k.lateness_iv.max : 0, std::memory_order_relaxed);
  lp.over_bound.store(k.over_bound_iv, std::memory_order_relaxed);
  lp.tick.store(tick, std::memory_order_release);
  k.lateness_iv = LatencyHistogram{};
  k.over_bound_iv = 0;
}

void RealtimeKernel::read_live(LiveStats& live) const {
  live.lateness_p99_ps = live.lateness_max_ps = 0;
  live.events_over_bound = 0;
  for (int i = 0; i < cfg_.workers; i++) {
    const LivePub& lp = live_[i];
    lp.tick.load(std::memory_order_acquire);
    live.lateness_p99_ps =
        std::max(live.lateness_p99_ps, lp.lateness_p99.load(std::memory_order_relaxed));
    live.lateness_max_ps =
        std::max(live.lateness_max_ps, lp.lateness_max.load(std::memory_order_relaxed));
    live.events_over_bound += lp.over_bound.load(std::memory_order_relaxed);
  }
}

// Worker 0, at housekeeping: the overload policy, then the phase. Running:
// a signal, the overload policy or run.duration starts the drain. Draining:
// done when every packet arrived (two quiet looks in a row: a packet
// crossing between cores is counted injected on one side before it is
// delivered on the other) or at the drain's deadline.
void RealtimeKernel::steer(KernelWorker& k, uint64_t tsc, int phase, bool settled) {
  ps_t behind = 0;
  for (int i = 0; i < cfg_.workers; i++)
    behind = std::max<ps_t>(behind, live_[i].behind.load(std::memory_order_relaxed));
  if (behind > cfg_.overload_bound_ps) {
    if (!overloaded_) {
      overloaded_ = true;
      k.overload_episodes++;
      if (cfg_.on_overload) cfg_.on_overload(behind);
    }
  } else if (behind <= cfg_.overload_bound_ps / 2) {
    overloaded_ = false;  // caught up well inside the bound: a new episode may start
  }
  if (phase == kRunning) {
    const bool signalled = cfg_.stop && cfg_.stop->load(std::memory_order_relaxed);
    const bool overload_stop = overloaded_ && cfg_.stop_when_overloaded;
    if (signalled || overload_stop || (duration_cycles_ && tsc - tsc0_ >= duration_cycles_)) {
      drain_deadline_ = emulated(tsc) + cfg_.drain_ps;
      // A user (or the overload policy) who stops the run gets it back
      // within a second of wall time, whatever is still in flight.
      if (signalled || overload_stop)
        drain_deadline_ = std::min(drain_deadline_, emulated(tsc + hz_));
      k.overload_stopped = overload_stop && !signalled;
      phase_.store(kDraining, std::memory_order_release);
    }
    return;
  }
  quiet_checks_ = settled ? quiet_checks_ + 1 : 0;
  if (quiet_checks_ >= 2 || emulated(tsc) >= drain_deadline_)
    phase_.store(kDone, std::memory_order_release);
}

}  // namespace fabemu
