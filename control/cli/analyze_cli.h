// The command line of `fabemu analyze table4|table2|table1|cost|t3e|mesh3d-reliability` (CLI11): its options,
// their help, and turning them into the analyses' options
// (analyze_command.h), so that cli.cpp only adds it to the app.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "control/analysis/table2.h"
#include "control/analysis/table4.h"
#include "control/cli/analyze_command.h"

namespace CLI {
class App;
}

namespace fabemu {

class AnalyzeCli {
 public:
  // Adds `analyze` and its subcommands to app.
  explicit AnalyzeCli(CLI::App& app);
  // After parsing: true when `analyze ...` was given.
  bool chosen() const;
  // Runs the chosen table; the exit status (cli.h).
  int run(std::ostream& out, std::ostream& err);
  // Before parsing `fabemu analyze [TABLE]`: with no table, or one that is
  // not known, says which there are on err and returns false (CLI11 would
  // only say that a subcommand is required).
  bool table_named(int argc, char** argv, std::ostream& err) const;

 private:
  CLI::App* table4_ = nullptr;
  CLI::App* table2_ = nullptr;
  Table4Options t4_;
  std::vector<std::string> t4_sizes_, t4_networks_;
  AnalyzeRun t4_run_;
  Table2Options t2_;
  std::vector<std::string> t2_sizes_, t2_dims_;
  AnalyzeRun t2_run_;
  bool t2_exact_ = false;
  CLI::App* table1_ = nullptr;
  std::vector<int> t1_rings_{4, 8, 16, 32};
  AnalyzeRun t1_run_;
  CLI::App* t3e_ = nullptr;
  std::vector<std::string> t3e_dims_;
  AnalyzeRun t3e_run_;
  CLI::App* mesh3d_ = nullptr;
  MeshReliabilityOptions mesh_;
  std::vector<int> mesh_dims_;
  std::string mesh_base_ = "xyz";
  AnalyzeRun mesh_run_;
  CLI::App* cost_ = nullptr;
  CostOptions cost_opts_;
  std::vector<std::string> cost_sizes_;
  AnalyzeRun cost_run_;
};

}  // namespace fabemu
