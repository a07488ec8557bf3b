// The JSON report of a finished run (control/run/report.cpp).
#pragma once
#include <nlohmann/json.hpp>

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

// A latency histogram in ns: count, mean, min, p50, p99, p999, max.
nlohmann::json histogram_ns(const LatencyHistogram& h);

}  // namespace fabemu
