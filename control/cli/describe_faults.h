// `fabemu describe` of a spec with faults: which of them the described
// fabric has (by default every one, the state at the end of the fault plan;
// --at TIME those up to an emulated time; --healthy none), the fabric they
// leave, and the rows and JSON that say so. A spec without faults is
// described as before, nothing added.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/spec/faults.h"
#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct DescribedFaults {
  size_t spec_faults = 0;  // the spec's faults (0: described as before)
  bool healthy_asked = false;
  ps_t at = kNever;                     // --at; kNever: after every fault
  std::vector<FaultSpec> applied;       // the faults up to `at`, in time order
  std::vector<std::string> dead_links;  // "r0:p33-r32:p0", lower end first
  std::vector<int32_t> dead_routers;
  Fabric fabric;  // the healthy fabric with those faults

  bool degraded() const { return !applied.empty(); }
};

// Applies the spec's faults up to `at` (kNever: all) to `healthy`, none
// when healthy_asked. Throws SpecError for a fault the fabric does not have.
DescribedFaults describe_faults(const Spec& spec, const Fabric& healthy, ps_t at,
                                bool healthy_asked);

using DescribeRow = std::function<void(const char*, const std::string&)>;

// The rows that open the description: that it is degraded, by which faults,
// and what is dead (nothing when the spec has no faults).
void write_fault_header(const DescribedFaults& d, const DescribeRow& row);

// After the route rows of a degraded fabric: its unroutable pairs and the
// routes the faults changed.
void write_fault_rows(const DescribedFaults& d, const FabricSummary& sum, const DescribeRow& row);

// JSON "faults" (null when the spec has none).
nlohmann::json faults_json(const DescribedFaults& d, const FabricSummary& sum);

}  // namespace fabemu
