// The memory a run will take, estimated before it starts from the spec and
// the built fabric with the engine's own sizing functions
// (dataplane/router/router_sizing.h, dataplane/engine/engine_memory.h), and
// compared with what the machine has (MemAvailable, and the cgroup's limit
// when one is set). `check`, `describe` and `run` refuse a run that does not
// fit, with the estimate and its biggest parts, against the field that makes
// them big. Replayed files (ports[].replay) are held in memory and count too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

struct MemoryPart {
  std::string name;                 // "source queues"
  std::string detail;               // "64 endpoints x 2 queues x 256 slots x 8 B"
  uint64_t start_bytes = 0;         // taken before the first packet moves
  uint64_t max_bytes = 0;           // when every buffer and queue is full
  bool dpdk = false;                // DPDK's memory (pools, rings), not the heap
  std::vector<std::string> fields;  // what to lower to shrink it
};

struct MemoryEstimate {
  std::vector<MemoryPart> parts;  // biggest (max_bytes) first
  uint64_t start_bytes = 0;       // sum over the parts
  uint64_t max_bytes = 0;         // sum, DPDK's part capped at its memory size
  uint64_t dpdk_cap_bytes = 0;    // DPDK's memory without hugepages (-m); 0: hugepages
};

MemoryEstimate estimate_run_memory(const Spec& spec, const Fabric& fabric);

struct MemoryBudget {
  uint64_t bytes = 0;
  std::string source;  // "MemAvailable", "the cgroup's memory limit"
};
// What this machine (and this process's cgroup) has available now.
MemoryBudget available_memory();

// Throws SpecError (at the field of the biggest part the user set) when the
// estimate's maximum does not fit the budget. With allow_peak (run
// --allow-memory-peak) a run whose start fits is let through: the returned
// warning says so ("" when it all fits).
std::string check_run_memory(const Spec& spec, const Fabric& fabric, const MemoryBudget& budget,
                             bool allow_peak = false);

// "1.2 GB", "87 MB", "640 kB".
std::string bytes_text(uint64_t bytes);
// The estimate as `describe` prints it: total, then the parts.
std::string memory_text(const MemoryEstimate& m);

}  // namespace fabemu
