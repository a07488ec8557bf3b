// One worker's part of the kernel: its pending events, its emulated time,
// the events it exchanges with the other workers and its counters. The
// engine's Worker extends it with the components' state.
//
// Workers exchange events over a pair of SPSC rte_rings per ordered pair of
// workers: what a worker sends is staged per destination (outbox) and
// handed to the rings at the end of its window (or real-time round); what
// it receives is collected (inbox) and applied by the host.
#pragma once
#include <rte_ring.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"
#include "dataplane/sim/timing_wheel.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

inline constexpr uint32_t kCrossCoreRingEvents = 1 << 16;  // per ordered pair of workers
inline constexpr uint32_t kStagedEvents = 4096;            // outbox per peer, and inbox

struct KernelWorker {
  int id = 0;
  // Its thread (sim/worker_threads.h): the DPDK lcore, the CPUs it was
  // allowed during the run, involuntary context switches during the run.
  unsigned lcore = 0;
  std::vector<int> cpus;
  uint64_t preempted = 0;

  TimingWheel wheel;
  ps_t now = 0;
  bool failed = false;  // the run stops at the next window edge (or round)

  // Cross-core events (ring pairs; nullptr for itself and for the workers
  // of other ranks).
  std::vector<rte_ring*> tx;               // to worker w
  std::vector<rte_ring*> rx;               // from worker w
  std::vector<std::vector<Event>> outbox;  // staged per destination worker
  ps_t outbox_min = kNever;                // earliest event staged this window
  std::vector<Event> inbox;
  uint8_t window_parity = 0;  // of the virtual-time window being run

  // Real time: how far its oldest due event is behind the wall clock (0
  // when it has caught up), and whether it sheds new work (run.overload:
  // shed) because that is over the bound.
  ps_t behind = 0;
  bool shedding = false;

  // Counters, folded into the run's statistics at the end.
  uint64_t events = 0;
  uint64_t windows = 0;        // virtual time: the windows it ran (edges it met the others at)
  uint64_t edge_wait_tsc = 0;  // TSC cycles spent at window edges waiting for the others
  uint64_t events_over_bound = 0;
  // Real time: TSC cycles of the loop's rounds that ran events (what ran
  // them, polled the ports and injected what came); the rest was idle
  // polling. A core busy nearly all the time is the fabric's limit.
  uint64_t busy_tsc = 0;
  ps_t max_behind_ps = 0;
  uint64_t overload_episodes = 0;  // worker 0
  bool overload_stopped = false;   // worker 0
  LatencyHistogram lateness_ps;    // real time: how late each event ran
  // Since the last live publication (RealtimeKernel).
  LatencyHistogram lateness_iv;
  uint64_t over_bound_iv = 0;

  // Event ev for worker `dest`, handed over at the end of this window.
  void send_remote(const Event& ev, uint32_t dest) {
    outbox[dest].push_back(ev);
    outbox[dest].back().window = window_parity;
    if (ev.t < outbox_min) outbox_min = ev.t;
  }
  void flush_outbox();
  void drain_inbox();
  // Applies what other cores sent (host.apply_remote), in the order each
  // sent it. late_ok (real time): an event whose time has passed here runs
  // now, late. In virtual time only what was sent in the window just ended
  // is taken: a core that left the barrier first may already have sent the
  // next window's, which wait for the next edge (so runs do not depend on
  // which core was faster).
  template <class H>
  void take_inbox(H& h, bool late_ok) {
    size_t kept = 0;
    for (Event& ev : inbox) {
      if (late_ok) {
        if (ev.t < now) ev.t = now;
      } else if (ev.window != window_parity) {
        inbox[kept++] = ev;
        continue;
      }
      h.apply_remote(ev);
    }
    inbox.resize(kept);
  }
};

// The rings between every ordered pair of workers (names unique per
// `instance`), each on the receiver's socket; with `local`, only between
// workers of this process (local[w]): the others are other ranks', whose
// events stay in the outbox for the ranks' exchange (sim/rank_link.h).
bool connect_workers(const std::vector<KernelWorker*>& workers, const std::vector<unsigned>& lcores,
                     int instance, std::string* err, const std::vector<bool>* local = nullptr);
// Frees the rings (after the workers have stopped).
void disconnect_workers(const std::vector<KernelWorker*>& workers);

}  // namespace fabemu
