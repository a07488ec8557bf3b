// `fabemu run`: turn a validated spec into an engine, run it, report.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/run/engine_config.h"
#include "control/run/report.h"
#include "control/spec/spec.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

struct RunOptions {
  std::string json_out;  // write the JSON report here ("-" for stdout)
  bool quiet = false;    // no progress line, no summary
  std::vector<std::string> eal_args;  // --eal from the command line (after run.eal)
  std::vector<std::string> capture_taps;  // --capture: added to the spec's capture.taps
  std::string capture_file;               // --capture-file: replaces capture.file
  std::string control_socket;             // --control: replaces run.control_socket
  bool allow_memory_peak = false;  // run although only the start fits the memory
};

// Writes text to stderr, whatever becomes of it: fmt::print throws when a
// write fails (a closed terminal), which on the engine's or the control
// socket's threads would end the process without its report.
void tell(const std::string& text) noexcept;

// The CPUs each worker may run on: run.cores (one each, checked against the
// CPUs this process may use; throws std::runtime_error naming the first that
// is not) or, without it, every allowed CPU for every worker.
std::vector<std::vector<int>> place_workers(const Spec& spec);

// DPDK memory (MB) the run may use: its packet pools at their limits
// (dataplane/engine/engine_memory.h), ports sized for jumbo frames, plus
// overhead; what the EAL is started with when there are no hugepages.
int dpdk_memory_mb(const Spec& spec, const EngineConfig& cfg, const Fabric& fabric);

struct RunResult {
  Fabric fabric;
  RunStats stats;
  nlohmann::json json;
};

// Builds the fabric, starts DPDK if needed and runs. `tweak` may adjust the
// engine configuration (tests attach delivery hooks). Throws std::runtime_error
// when the run cannot start.
// `eal_args` are added to the spec's run.eal when this call starts DPDK.
// `prepare` is called with the engine and the routing entry before the run
// starts (tests schedule table changes with it; the fault controller will).
// `adjust_fabric` may change the built fabric (slices replicated) before
// anything is sized from it (tests slow some links down).
struct RoutingInfo;
using PrepareEngine = std::function<void(EngineBase&, const RoutingInfo&, const Fabric&)>;
RunResult run_emulation(const Spec& spec, const std::function<void(EngineConfig&)>& tweak = nullptr,
                        const std::vector<std::string>& eal_args = {},
                        const PrepareEngine& prepare = nullptr, bool per_link_json = true,
                        const std::function<void(Fabric&)>& adjust_fabric = nullptr);

// The CLI entry: runs, prints progress and a summary, writes JSON. Returns the
// process exit status (0 ok, 1 run failed or did not drain, 2 bad input).
int run_command(const Spec& spec, const RunOptions& opts);

}  // namespace fabemu
