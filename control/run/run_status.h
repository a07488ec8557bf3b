// The exit status of a run that was reported (docs/commands.md, "Exit
// status"), with what it says to stderr: the first of a broken emulation,
// an incomplete capture, an overload stop (3), a signal (128 + it), a stall,
// and packets left in flight, named with their cause.
#pragma once
#include "control/spec/spec.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// json_report: a JSON report was written (the message points at its key);
// stop_signal: the signal that interrupted the run, if it was.
int run_status(const Spec& spec, bool json_report, const RunStats& st, int stop_signal);

}  // namespace fabemu
