#include "control/run/run_status.h"

#include <fmt/format.h>

#include <csignal>

#include "control/run/report.h"
#include "control/run/run_summary.h"
#include "control/run/runner.h"

namespace fabemu {
namespace {

const char* signal_name(int sig) {
  return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGINT";
}

}  // namespace

int run_status(const Spec& spec, bool json_report, const RunStats& st, int stop_signal) {
  if (!st.error.empty()) {
    tell(fmt::format("fabemu run: the emulation broke down: {}\n", st.error));
    return 1;
  }
  // A reader that closed the pipe (`tshark -c N`) chose to stop reading:
  // the capture ended there (said when it happened), the run did not fail.
  if (!st.capture_error.empty() && !st.capture_reader_gone) {
    tell(fmt::format("fabemu run: the capture is incomplete: {}\n", st.capture_error));
    return 1;
  }
  if (st.overload_stopped) {
    tell(fmt::format(
        "fabemu run: stopped because the run fell {} behind the wall clock (more than "
        "run.overload_bound_ns, run.overload: stop); what was measured until then is reported{}\n",
        ns_text(st.max_behind_ps),
        !json_report ? "" : " (the JSON report says \"overload\": {\"stopped\": true})"));
    return 3;
  }
  if (st.interrupted) {
    const int sig = stop_signal;
    tell(fmt::format(
        "fabemu run: interrupted by {} at {:.1f} us of emulated time; what was measured so far "
        "is reported{}\n",
        signal_name(sig), double(st.end_ps) / 1e6,
        !json_report ? "" : " (the JSON report says \"interrupted\": true)"));
    return 128 + sig;
  }
  // Dropped packets have left the fabric: only those still in it count.
  const uint64_t left = st.drops[static_cast<int>(DropReason::undelivered_at_end)];
  if (st.stalled) {
    tell(fmt::format(
        "fabemu run: the fabric stalled at {:.3f} us of emulated time: no event was left to move "
        "what remains in it ({} packets, and any damaged copies still marked in flight: a credit "
        "deadlock, or a wake-up the engine lost); {}\n",
        double(st.end_ps) / 1e6, left, st.stranded));
    return 1;
  }
  if (!st.drained && host_fell_behind(st)) {
    tell(fmt::format(
        "fabemu run: {} packets were still in flight when the run ended, because the host could "
        "not keep real time: the run fell up to {} behind the wall clock (run.overload_bound_ns "
        "{}), so the emulation had not reached them; this says nothing of the fabric's "
        "saturation or of a deadlock. Raise run.time_scale, lower the load, or add workers\n",
        left, ns_text(st.max_behind_ps), ns_text(ns_to_ps(spec.run.overload_bound_ns))));
    return 1;
  }
  if (!st.drained) {
    tell(fmt::format(
        "fabemu run: the fabric did not drain within run.drain_ns ({} packets still in flight): "
        "saturated far beyond capacity, or deadlocked\n",
        left));
    return 1;
  }
  return 0;
}

}  // namespace fabemu
