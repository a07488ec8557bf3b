// A worker's counters as bytes, for the end of a run over several ranks
// (sim/rank_link.h): each rank sends its workers' to rank 0, which puts
// them into its stand-ins for those workers and merges every worker as one
// process does (run_merge.h). What is sent is what merge_workers reads of a
// worker (keep the two in step: tests/system/mpi_ranks.sh compares the
// report of a run over ranks with one process's, section by section).
#pragma once
#include <string>

#include "dataplane/core/wire.h"
#include "dataplane/sim/kernel_worker.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The kernel's counters of a worker (events, edge waits, lateness, ...).
void put_kernel_counters(WireWriter& w, const KernelWorker& k);
void get_kernel_counters(WireReader& r, KernelWorker* k);

// A worker's statistics: its totals, histograms, drops and every link's
// counters. Sample periods and port statistics are not carried (a run over
// ranks refuses run.sample_period_ns and ports): false from put when they
// are there.
bool put_worker_stats(WireWriter& w, const RunStats& s);
void get_worker_stats(WireReader& r, RunStats* s);

// The router models' own totals (RouterModel::add_counters), which merge
// adds from the models of the process's workers.
void put_model_counters(WireWriter& w, const RunStats& s);
void add_model_counters(WireReader& r, RunStats* s);
void add_model_counters(const RunStats& from, RunStats* to);

}  // namespace fabemu
