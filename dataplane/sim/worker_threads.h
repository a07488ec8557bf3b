// The threads of a run's workers: worker 0 runs on the calling thread (the
// main lcore), the others on the next enabled DPDK lcores. While it runs,
// each thread is placed on the CPUs the run gave its worker; afterwards it
// gets its old CPUs back.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "dataplane/sim/kernel_worker.h"

namespace fabemu {

// Gives every worker its lcore; false (err) when DPDK has too few.
bool assign_lcores(const std::vector<KernelWorker*>& workers, std::string* err);

// Runs body(worker, placement_error) for every worker on its thread and
// waits for them all. placement_error says why the thread could not be
// placed on placement[worker] (empty: it was, or there was nothing to
// place; a missing or empty entry leaves the thread where DPDK put it); the
// body runs either way, so that its loop tells the others it failed and
// none waits for it. Notes each worker's CPUs and preemptions. False (err)
// when a worker cannot be launched.
bool run_worker_threads(const std::vector<KernelWorker*>& workers,
                        const std::vector<std::vector<int>>& placement,
                        const std::function<void(KernelWorker&, const std::string&)>& body,
                        std::string* err);

}  // namespace fabemu
