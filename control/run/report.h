// The JSON report of a finished run (control/run/report.cpp).
#pragma once
#include <nlohmann/json.hpp>

#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The report's schema_version (docs/report.schema.json says when it moves).
inline constexpr int kReportSchemaVersion = 1;

// `per_link`: with the "links" array (one entry per link and VC: most of the
// report's size and of the time it takes to build).
nlohmann::json report_json(const Spec& spec, const Fabric& fabric, const EngineConfig& cfg,
                           const RunStats& st, bool per_link = true);

// Past saturation: the accepted load is below this fraction of the offered
// load (the rule of `fabemu sweep`, scripts/fabemu-sweep SATURATED, and of
// BookSim2's "unstable"). The report's "saturation" says which side a run
// is on.
inline constexpr double kSaturatedFraction = 0.95;

// A real-time run that went more than run.overload_bound_ns behind the wall
// clock: the host, not the fabric, limited what it carried, so its accepted
// load says nothing of saturation and what it left undrained nothing of a
// deadlock.
inline bool host_fell_behind(const RunStats& st) { return st.realtime && st.overload_episodes > 0; }

// A real-time run kept the fabric's timing when no more than this share of
// its events, and of the frames it handed to ports, ran later than
// run.lateness_bound_ns (a host takes a core away now and then, whatever
// the engine's speed: build/fabemu_host_stalls measures how often).
inline constexpr double kFaithfulLateFraction = 0.01;

// How well a real-time run kept the wall clock, and what it could carry.
struct RealtimeTiming {
  double late_events = 0;  // share of events later than the bound
  double late_frames = 0;  // share of frames handed to ports later than it
  uint64_t frames = 0;     // handed to ports
  uint64_t frames_over_bound = 0;
  uint64_t frame_bytes = 0;
  LatencyHistogram frame_lateness_ps;  // every port's
  std::vector<double> worker_busy;  // each worker's share of the wall time in rounds with events
  double busiest = 0;               // the largest of them
  // What the run carried per wall second, and that over `busiest`: about
  // what its cores could carry at this time scale (frames or, with no
  // ports, messages), when they are the limit.
  double frames_per_s = 0, frame_capacity_per_s = 0;
  double messages_per_s = 0, message_capacity_per_s = 0;
  bool faithful = true;
};
RealtimeTiming realtime_timing(const RunStats& st);

// A latency histogram in ns: count, mean, min, p50, p99, p999, max.
nlohmann::json histogram_ns(const LatencyHistogram& h);

}  // namespace fabemu
