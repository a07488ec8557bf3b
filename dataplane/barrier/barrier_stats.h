// What a run's barrier/eureka networks did (barrier_network.h), per worker
// and merged into the run's report.
#pragma once
#include <cstdint>

#include "dataplane/stats/latency_histogram.h"

namespace fabemu {

struct BarrierStats {
  uint64_t signals = 0;       // barrier/eureka packets sent, every hop (whole run)
  uint64_t signals_lost = 0;  // sent into a dead link or router: that barrier never completes
  uint64_t barriers = 0;      // barriers completed at their tree's root (whole run)
  uint64_t eurekas = 0;       // eurekas that reached their tree's root (whole run)
  // Measured at each processor's notification in the measurement window:
  // from the moment the last processor joined the barrier (its OP_BAR) to
  // this one's completion; from its own OP_BAR to it (what the processor
  // waits); from the OP_EUR to this processor's eureka notification.
  LatencyHistogram latency_ps, wait_ps, eureka_ps;
  void merge(const BarrierStats& o) {
    signals += o.signals;
    signals_lost += o.signals_lost;
    barriers += o.barriers;
    eurekas += o.eurekas;
    latency_ps.merge(o.latency_ps);
    wait_ps.merge(o.wait_ps);
    eureka_ps.merge(o.eureka_ps);
  }
};

}  // namespace fabemu
