// The virtual-time kernel: conservative parallel discrete-event simulation
// in windows. Each worker runs the events of one window [start, start +
// lookahead), hands what crosses cores to the rings, meets the others at
// one barrier, takes what they sent and moves on to the next window with an
// event anywhere. No event sent to another core can matter there sooner
// than the lookahead, so a run is deterministic for a given seed and
// placement.
//
// What the events mean, and what else changes at a window edge, is the
// host's (WindowHost below: the engine, for one worker; every call
// inlines). At each edge every worker publishes the kernel's part (its next
// event, failure, a stop) and the host's Report (totals for the drain and
// progress); all read all after the barrier. Two sets of publications, by
// window parity, so one barrier per window suffices.
#pragma once
#include <rte_cycles.h>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <memory>
#include <vector>

#include "dataplane/sim/event.h"
#include "dataplane/sim/kernel_worker.h"
#include "dataplane/sim/rank_link.h"
#include "dataplane/sim/spin_barrier.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// What each worker publishes at a window edge.
template <class Report>
struct alignas(64) WindowPublication {
  ps_t next_time;  // its next event, or the earliest it sent to another core
  bool failed;
  bool stop;      // worker 0's reading of the stop flag, so that every worker stops in one window
  Report report;  // the host's
};

// How a worker's windows ended (none of these: a worker failed).
struct WindowsEnd {
  ps_t end_ps = 0;
  bool interrupted = false;  // the stop flag
  bool drained = false;      // sources done and every packet arrived
  bool stalled = false;      // packets remain and nothing will ever move them
};

// The host of one worker's windows.
template <class H>
concept WindowHost = requires(H& h, const H& ch, const Event& ev, Event& rev, ps_t t, bool edge,
                              typename H::Report& r,
                              const WindowPublication<typename H::Report>* pubs, int n,
                              WindowPublication<typename H::Report>* all, uint8_t parity) {
  h.begin_window(t);                           // a window starts at t: changes due take effect
  { ch.next_change() } -> std::same_as<ps_t>;  // the next scheduled change: a window ends there
  { ch.next_edge() } -> std::same_as<ps_t>;    // a window edge falls there, events or not
  h.dispatch(ev);                              // one event of this worker
  h.apply_remote(rev);                         // one event from another worker
  h.check_invariants(t, edge);  // run.check_invariants at t, after an event or at an edge
  h.report(r, t);               // its publication for the edge at t (every event before t has run)
  // Several ranks (rank_link.h): on this rank's first worker, after its
  // workers published, the publications and staged events of every rank's
  // workers exchanged (pubs indexed by worker of the job); false: broken.
  { h.exchange_ranks(all, parity) } -> std::same_as<bool>;
  h.end_window(pubs, n, t);     // every worker's, after the edge at t
  { ch.all_arrived(pubs, n) } -> std::same_as<bool>;  // no packet left in flight
};

template <class Report>
class WindowKernel {
 public:
  struct Config {
    int workers = 1;       // every worker of the job (of every rank)
    // This process's workers: ids first_local .. first_local + local - 1
    // (local 0: all of them); with other ranks, their link.
    int first_local = 0;
    int local = 0;
    RankLink* ranks = nullptr;
    ps_t window = 0;       // the lookahead: nothing sent to another core matters there sooner
    ps_t sources_end = 0;  // the sources stop generating
    ps_t drain_end = 0;    // the run ends here, drained or not
    bool check_invariants = false;
    const std::atomic<bool>* stop = nullptr;  // set (by a signal) to end the run at an edge
  };

  void init(const Config& c) {
    cfg_ = c;
    pub_[0].assign(c.workers, Pub{});
    pub_[1].assign(c.workers, Pub{});
    if (cfg_.local <= 0) cfg_.local = c.workers;
    barrier_ = std::make_unique<SpinBarrier>(cfg_.local);
  }

  template <class H>
  requires WindowHost<H> WindowsEnd run(H& h, KernelWorker& k);

 private:
  using Pub = WindowPublication<Report>;
  Config cfg_;
  std::unique_ptr<SpinBarrier> barrier_;
  std::vector<Pub> pub_[2];
};

template <class Report>
template <class H>
requires WindowHost<H> WindowsEnd WindowKernel<Report>::run(H& h, KernelWorker& k) {
  const int nw = cfg_.workers, nl = cfg_.local;
  const bool check_each_event = cfg_.check_invariants && nw == 1;
  WindowsEnd end;
  ps_t wstart = 0;
  for (int parity = 0;; parity ^= 1) {
    k.window_parity = static_cast<uint8_t>(parity);
    k.windows++;
    h.begin_window(wstart);
    // A scheduled change ends the window before it.
    const ps_t wend = std::min(wstart + cfg_.window, std::max(wstart + 1, h.next_change()));
    // Every event of this window.
    for (;;) {
      const ps_t t = k.wheel.next_time();
      if (t >= wend) break;
      const Event ev = k.wheel.pop();
      k.now = ev.t;
      h.dispatch(ev);
      k.events++;
      if (check_each_event) h.check_invariants(k.now, false);
      if (k.failed) break;
    }
    // What this worker sent counts towards the next event anywhere.
    const ps_t sent_min = k.outbox_min;
    if (nw > 1) k.flush_outbox();
    Pub& mine = pub_[parity][k.id];
    mine.next_time = std::min(k.wheel.next_time(), sent_min);
    mine.failed = k.failed;
    mine.stop = k.id == 0 && cfg_.stop && cfg_.stop->load(std::memory_order_relaxed);
    h.report(mine.report, wend);
    if (nw > 1) {
      const uint64_t t0 = rte_rdtsc();
      if (nl > 1) barrier_->wait([&] { k.drain_inbox(); });
      if (cfg_.ranks) {  // then the other ranks' publications and events
        if (k.id == cfg_.first_local && !h.exchange_ranks(pub_[parity].data(), parity)) {
          k.failed = true;
          mine.failed = true;
        }
        if (nl > 1) barrier_->wait();
      }
      k.edge_wait_tsc += rte_rdtsc() - t0;
      k.drain_inbox();
      k.take_inbox(h, false);
    }
    if (cfg_.check_invariants && nw > 1) {
      barrier_->wait();  // every worker has taken its inbox
      if (k.id == 0) {
        h.check_invariants(wend, true);
        mine.failed = k.failed;
      }
      barrier_->wait();
    }
    const Pub* pubs = pub_[parity].data();
    ps_t gnext = kNever;
    bool any_failed = false;
    for (int i = 0; i < nw; i++) {
      gnext = std::min(gnext, pubs[i].next_time);
      any_failed |= pubs[i].failed;
    }
    h.end_window(pubs, nw, wend);
    if (any_failed) break;
    if (pubs[0].stop) {  // a signal: stop here, report what was measured
      end.interrupted = true;
      end.end_ps = wend;
      break;
    }
    // Drained: the sources are done (their time is over, or nothing is left
    // to happen anywhere, as after a single batch) and every packet arrived.
    const bool arrived = h.all_arrived(pubs, nw);
    if ((wend >= cfg_.sources_end || gnext == kNever) && arrived) {
      end.drained = true;
      end.end_ps = wend;
      break;
    }
    // No event anywhere: only a scheduled change (a sink that starts again,
    // a link back up) may still move what remains.
    const ps_t scheduled = gnext == kNever ? h.next_change() : kNever;
    if (wend >= cfg_.drain_end || (gnext == kNever && scheduled >= cfg_.drain_end)) {
      // Packets remain and nothing will ever move them.
      end.stalled = gnext == kNever && !arrived;
      end.end_ps = wend;
      break;
    }
    wstart = std::max(wend, std::min(gnext, scheduled));
    // A window edge falls on every fault's instant, events or not (what was
    // on the wire then is judged then).
    wstart = std::min(wstart, std::max(wend, h.next_edge()));
  }
  return end;
}

}  // namespace fabemu
