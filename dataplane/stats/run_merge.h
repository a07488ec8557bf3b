// The end of a run: every worker's counters, and the kernel's, into one
// report. The engine fills in what the run as a whole knows (its links,
// ports and measurement window) and hands each worker's part here.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/sim/kernel_worker.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// What a worker ran and counted.
struct WorkerResult {
  const KernelWorker* kernel;
  const RunStats* st;
  uint64_t fault_lost;  // packets lost to faults (counted under their reasons)
  ps_t gen_stop_ps;     // when its sources stopped (real time)
  uint64_t resent = 0;  // copies two-hop recovery sent again (in flight as packets are)
};

// Adds the workers' counters into `out` (which holds the run's links,
// ports and measurement window), ends the links still down at the end of
// the run, and in real time measures up to where the sources got. Packets
// neither delivered nor lost to faults are counted undelivered_at_end.
void merge_workers(RunStats& out, const std::vector<WorkerResult>& workers);

}  // namespace fabemu
