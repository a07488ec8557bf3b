// `fabemu analyze`: the seed papers' analytical tables, computed from the
// routes fabemu's routing tables give (control/analysis/table2.h, table4.h),
// the flattened butterfly paper's cost model (cost_model.h) and the T3E
// paper's VC balance (t3e_vc_balance.h).
// Each prints the table with the paper's value and the difference beside
// fabemu's, then every assumption it made; progress goes to err.
#pragma once
#include <array>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "control/analysis/cost_model.h"
#include "control/analysis/mesh_reliability.h"
#include "control/analysis/table2.h"
#include "control/analysis/table4.h"

namespace fabemu {

// How a table is run and written, apart from what it computes.
struct AnalyzeRun {
  std::string json_out;  // also write the figures as JSON there ("-": stdout; "": none)
  int threads = 0;       // worker threads (a TBB arena of this many); 0: one per core
};

// BlackWidow Table 4: worst-case link utilisation over random permutations.
// Returns kExitOk, kExitUsage on bad options (nothing computed), or
// kExitRunFailed when a route is unroutable or the JSON cannot be written.
int analyze_table4_command(const Table4Options& opts, const AnalyzeRun& run, std::ostream& out,
                           std::ostream& err);

// BlackWidow Table 2: zero-load latency of the folded Clos and the torus.
int analyze_table2_command(const Table2Options& opts, const AnalyzeRun& run, std::ostream& out,
                           std::ostream& err);

// fabemu analyze cost: section 4's cost and section 5.3's power of the four
// topologies of Figure 6 (control/analysis/cost_model.h).
int analyze_cost_command(const CostOptions& opts, const AnalyzeRun& run, std::ostream& out,
                         std::ostream& err);

// The T3E paper's Table 1: VC balance of the dateline VC assignments of
// rings of the given sizes (control/analysis/t3e_vc_balance.h).
int analyze_table1_command(const std::vector<int>& rings, const AnalyzeRun& run, std::ostream& out,
                           std::ostream& err);
// "" when every ring size is one fabemu builds (2..255), else what to give.
std::string table1_rings_problem(const std::vector<int>& rings);
// The Cray T3E paper's Table 4 and Figures 7 and 8 (control/analysis/
// t3e_figures.h) for the shapes `dims` (empty: the T3E's sizes, 8 to 2048
// nodes). kExitUsage on a shape of one node; kExitRunFailed when a route
// is unroutable or the JSON cannot be written.
int analyze_t3e_command(const std::vector<std::array<int, 3>>& dims, const AnalyzeRun& run,
                        std::ostream& out, std::ostream& err);

// The petaflops 3D-mesh proposal's reliability standard over random fault
// patterns (control/analysis/mesh_reliability.h). kExitUsage on bad
// options; kExitRunFailed when the JSON cannot be written.
int analyze_mesh3d_reliability_command(const MeshReliabilityOptions& opts, const AnalyzeRun& run,
                                       std::ostream& out, std::ostream& err);

// What every table shares: the threads a run uses; the options' problem
// (`problem`), else the run's (threads, an unwritable --json), "" when none;
// the numbered assumptions and the time the table took.
int threads_used(const AnalyzeRun& run);
std::string run_problem(const AnalyzeRun& run, std::string problem);
void write_footer(std::ostream& out, const std::vector<std::string>& assumptions, double seconds,
                  const AnalyzeRun& run);

// "512", "4K", "32k" -> endpoint counts; false with *why naming the bad item.
bool parse_sizes(const std::vector<std::string>& items, std::vector<int>* sizes, std::string* why);

// "576=8x8x9" items -> torus shapes by size; false with *why.
bool parse_torus_dims(const std::vector<std::string>& items,
                      std::map<int, std::array<int, 3>>* dims, std::string* why);

}  // namespace fabemu
