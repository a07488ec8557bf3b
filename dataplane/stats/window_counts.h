// What each worker publishes at a window edge beside the kernel's own
// (sim/window_kernel.h): its counts of packets, which tell when a run has
// drained, and those the progress line shows; worker 0 adds the changes
// made while running that every worker adopts at the next edge.
#pragma once
#include <cstdint>

namespace fabemu {

struct WindowCounts {
  uint64_t injected, delivered;
  // Link-level retry: damaged packets moved on, not yet discarded at their
  // destination (the drain waits for them); counts for the progress line.
  int64_t marked_in_flight;
  uint64_t crc_errors, retries, lanes_dropped, given_up;
  uint64_t lost;  // packets lost to faults (counted; the drain does not wait for them)
  // Worker 0's reading of the changes made while running (complete ones
  // only, EngineBase::change_while_running): every worker adopts up to
  // these at the next window edge.
  uint32_t rt_faults;
  uint64_t tables_generation;

  // The workers' counts added up (Pub: the kernel's publication, .report).
  template <class Pub>
  static WindowCounts sum(const Pub* pubs, int n) {
    WindowCounts t{};
    for (int i = 0; i < n; i++) {
      const WindowCounts& r = pubs[i].report;
      t.injected += r.injected;
      t.delivered += r.delivered;
      t.marked_in_flight += r.marked_in_flight;
      t.crc_errors += r.crc_errors;
      t.retries += r.retries;
      t.lanes_dropped += r.lanes_dropped;
      t.given_up += r.given_up;
      t.lost += r.lost;
    }
    return t;
  }
  // (Of a sum.) Every packet injected has arrived or was lost to a fault,
  // and no damaged copy is still on its way to be discarded.
  bool all_arrived() const { return injected == delivered + lost && marked_in_flight == 0; }
};

}  // namespace fabemu
