// The real-time kernel. Emulated time follows the TSC: now = (TSC - tsc0) /
// time_scale. A worker runs every event whose emulated time has come, then
// its host takes what its ports received and injects it at the current
// emulated time, so events run in time order on each core. An event that
// runs after its emulated time is late; lateness is recorded per worker
// (the fabric's timing is no longer what the spec says beyond the bound).
// Cores exchange events through the same rings as in virtual time but
// without barriers: an event that arrives after its time runs at once, late.
//
// Worker 0 steers the run: it watches how far the cores are behind and
// applies run.overload, and decides when the run stops (a signal, the
// overload policy, run.duration) and when the fabric has drained.
#pragma once
#include <rte_cycles.h>

#include <atomic>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>

#include "dataplane/sim/event.h"
#include "dataplane/sim/kernel_worker.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The host of one worker's real-time loop.
template <class H>
concept RealtimeHost = requires(H& h, const H& ch, const Event& ev, Event& rev, bool running,
                                uint64_t tsc, void (&catch_up)()) {
  h.dispatch(ev);                // one event of this worker
  h.apply_remote(rev);           // one event from another worker (late: at now)
  h.draining();                  // the run drains: the sources stop
  h.receive(running, catch_up);  // poll the ports (only while running), calling catch_up()
                                 // (the due events) before injecting each burst, at least once
  h.keep_house(tsc);             // every half millisecond: changes, counters for the others
  h.publish_live();              // every progress period: its live figures
  h.show_live(tsc);              // worker 0, after publishing: every worker's
  { ch.settled() } -> std::same_as<bool>;  // worker 0, draining: every packet arrived
  h.finish();                              // the loop ended
};

class RealtimeKernel {
 public:
  struct Config {
    int workers = 1;
    double time_scale = 1.0;  // wall ps per emulated ps
    double duration_s = 0;    // wall seconds; 0: until *stop
    double progress_s = 0;    // live publication period, wall seconds (0: none)
    ps_t drain_ps = 0;        // after the stop, at most this long for packets in flight
    ps_t lateness_bound_ps = 0;
    ps_t overload_bound_ps = kNever;               // a worker this far behind is overloaded
    bool shed_when_overloaded = false;             // run.overload: shed (new work refused)
    bool stop_when_overloaded = false;             // run.overload: stop
    const std::atomic<bool>* stop = nullptr;       // set by a signal handler
    std::function<void(ps_t behind)> on_overload;  // worker 0, at each overload episode
  };

  void init(const Config& c);
  // Emulated time 0 is now (before the workers start).
  void start_clock();
  ps_t emulated(uint64_t tsc) const {
    return static_cast<ps_t>(double(tsc - tsc0_) * ps_per_cycle_);
  }
  ps_t emulated_span(uint64_t cycles) const {
    return static_cast<ps_t>(double(cycles) * ps_per_cycle_);
  }
  uint64_t tsc0() const { return tsc0_; }
  // Worker 0: every worker's lateness figures of the last progress period.
  void read_live(LiveStats& live) const;

  // Runs worker k until the run ends; returns its emulated time then.
  template <class H>
  requires RealtimeHost<H> ps_t run(H& h, KernelWorker& k);

 private:
  enum Phase : int { kRunning, kDraining, kDone };
  template <class H>
  bool run_due_events(H& h, KernelWorker& k, ps_t until, uint64_t tsc_limit);
  // After a round of events: a core that caught up moves its clock to the
  // wall clock's emulated time; one that did not stays at its last event
  // (frames it receives meanwhile enter then) and is as far behind as its
  // oldest due event.
  void note_behind(KernelWorker& k, ps_t now, bool caught_up) const {
    if (caught_up) {
      if (now > k.now) k.now = now;
      k.behind = 0;
    } else {
      const ps_t oldest = k.wheel.next_time();
      k.behind = now > oldest ? now - oldest : 0;
      if (k.behind > k.max_behind_ps) k.max_behind_ps = k.behind;
    }
    k.shedding = cfg_.shed_when_overloaded && k.behind > cfg_.overload_bound_ps;
  }
  void publish_live(KernelWorker& k, uint64_t tick);
  void steer(KernelWorker& k, uint64_t tsc, int phase, bool settled);

  struct alignas(64) LivePub {
    std::atomic<uint64_t> tick{0};
    std::atomic<uint64_t> behind{0};  // KernelWorker::behind, for worker 0's overload policy
    std::atomic<uint64_t> lateness_p99{0}, lateness_max{0}, over_bound{0};
  };
  Config cfg_;
  std::unique_ptr<LivePub[]> live_;
  std::atomic<int> phase_{kRunning};
  uint64_t tsc0_ = 0;
  double ps_per_cycle_ = 0;
  uint64_t hz_ = 1, house_cycles_ = 1, progress_cycles_ = 0, duration_cycles_ = 0;
  // Worker 0's.
  ps_t drain_deadline_ = kNever;
  bool overloaded_ = false;  // behind by more than the bound, this episode
  uint32_t quiet_checks_ = 0;
};

// Runs the events due by `until`. It gives up at tsc_limit with events still
// due and returns false (this core is behind the wall clock), so that the
// loop still polls its ports, keeps house and sees a stop or a signal however
// large the backlog.
template <class H>
bool RealtimeKernel::run_due_events(H& h, KernelWorker& k, ps_t until, uint64_t tsc_limit) {
  while (k.wheel.next_time() <= until) {
    Event ev = k.wheel.pop();
    const uint64_t tsc = rte_rdtsc();
    const ps_t real = emulated(tsc);
    const ps_t late = real > ev.t ? real - ev.t : 0;
    k.lateness_ps.add(late);
    k.lateness_iv.add(late);
    if (late > cfg_.lateness_bound_ps) {
      k.events_over_bound++;
      k.over_bound_iv++;
    }
    k.now = ev.t;
    h.dispatch(ev);
    k.events++;
    if (k.failed) return true;
    if (tsc >= tsc_limit) return k.wheel.next_time() > until;
  }
  return true;
}

template <class H>
requires RealtimeHost<H> ps_t RealtimeKernel::run(H& h, KernelWorker& k) {
  uint64_t next_house = tsc0_ + house_cycles_;
  uint64_t next_progress = progress_cycles_ ? tsc0_ + progress_cycles_ : ~uint64_t{0};
  uint64_t tick = 0;
  for (;;) {
    const int phase = phase_.load(std::memory_order_acquire);
    if (k.failed) phase_.store(kDone, std::memory_order_release);  // the others stop too
    if (phase == kDone || k.failed) break;
    if (phase == kDraining) h.draining();
    // An iteration that ran events counts as busy (sim/kernel_worker.h).
    const uint64_t top = rte_rdtsc();
    const uint64_t events_before = k.events;
    bool took_remote = false;

    // Events that came from other cores: they cannot run before what this
    // core has already run, so a late one runs now (and counts as late).
    if (cfg_.workers > 1) {
      k.drain_inbox();
      took_remote = !k.inbox.empty();
      k.take_inbox(h, true);
    }
    // Catch up to now before what the ports received enters at now: the
    // frames arrived by now, so they enter no earlier than they came.
    const uint64_t tsc_limit = top + house_cycles_;
    auto catch_up = [&] {
      const ps_t now = emulated(rte_rdtsc());
      note_behind(k, now, run_due_events(h, k, now, tsc_limit));
    };
    h.receive(phase == kRunning, catch_up);
    if (cfg_.workers > 1) k.flush_outbox();

    const uint64_t tsc = rte_rdtsc();
    if (k.events != events_before || took_remote) k.busy_tsc += tsc - top;
    if (tsc < next_house) continue;
    next_house = tsc + house_cycles_;
    h.keep_house(tsc);
    live_[k.id].behind.store(k.behind, std::memory_order_relaxed);
    if (tsc >= next_progress) {
      tick++;
      next_progress += progress_cycles_;
      h.publish_live();
      publish_live(k, tick);
      if (k.id == 0) h.show_live(tsc);
    }
    if (k.id == 0) steer(k, tsc, phase, phase == kDraining && h.settled());
  }
  h.finish();
  return k.now;
}

}  // namespace fabemu
