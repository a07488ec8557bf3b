// The fabemu subcommands, callable without the command-line parser (tests
// call them directly). Each returns the process exit status (cli.h) and
// writes results to `out`, problems to `err`.
#pragma once
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/route_sample.h"
#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct RunOptions;   // control/run/runner.h
struct BooksimSpec;  // control/booksim/booksim_import.h

// A spec file and the --set overrides that go with it.
struct SpecArgs {
  SpecArgs() = default;
  SpecArgs(std::string spec_file, std::vector<std::string> spec_sets)
      : file(std::move(spec_file)), sets(std::move(spec_sets)) {}
  std::string file;
  std::vector<std::string> sets;
  // --booksim FILE: a BookSim2 configuration instead of a spec file
  // (control/booksim/booksim_import.h), and its KEY=VALUE overrides.
  std::string booksim;
  std::vector<std::string> booksim_sets;
};

// The spec of a command, from its file or a BookSim2 configuration (whose
// translation goes to *booksim when given); on failure prints the error and
// returns false (in a job of several ranks, on every rank alike).
bool load_command_spec(const SpecArgs& args, Spec* spec, std::ostream& err,
                       BooksimSpec* booksim = nullptr);

// Prints "FILE: ok (<summary>)"; on a bad spec "FILE:LINE:COL: field 'a.b':
// message" to err and returns 2.
int check_command(const SpecArgs& args, std::ostream& out, std::ostream& err);

struct DescribeOptions {
  std::string json_out;  // also write the figures as JSON here ("-": stdout); empty: no JSON
  // Trace every route of a fabric with at most max_routes (0: always), a
  // sample of about min(sample_routes, max_routes) above
  // (control/analysis/route_sample.h).
  uint64_t max_routes = SampleOptions::kDefaultMaxRoutes;
  uint64_t sample_routes = SampleOptions::kDefaultSampleRoutes;
  // The spec's faults described: those up to emulated time `at` (kNever:
  // all of them), none with `healthy` (control/cli/describe_faults.h).
  ps_t at = kNever;
  bool healthy = false;
  // The partition over this many MPI ranks (0: the job's, 1 without mpirun).
  int ranks = 0;
};

// Prints the fabric's size, diameter, average hops, bisection, zero-load
// latencies and deadlock check, and whether they are exact or from a sample;
// with opts.json_out, also writes them as JSON. A progress line goes to err
// while the routes take more than a second to trace. A spec with faults is
// described degraded: the fabric they leave, its tables programmed around
// them, compared with the healthy fabric.
int describe_command(const SpecArgs& args, const DescribeOptions& opts, std::ostream& out,
                     std::ostream& err);

// Loads the spec (exit 2 on any problem, nothing starts) and hands it with
// `opts` (JSON output, quiet, --eal arguments) to the runner
// (control/run/runner.h).
int run_spec_command(const SpecArgs& args, const RunOptions& opts, std::ostream& out,
                     std::ostream& err);

// The EAL arguments of `fabemu run --eal ARGS ...`: each ARGS split on white
// space, in order ("--vdev=net_null0 -l 0-1" is three arguments).
std::vector<std::string> split_eal_args(const std::vector<std::string>& values);

// Prints the spec reference table (markdown) that docs/spec-reference.md carries.
int spec_reference_command(std::ostream& out);

// Builds the fabric of a validated spec through the Registry. Throws
// SpecError on the field the builder names when it refuses the spec.
Fabric build_fabric(const Spec& spec);

// build_fabric, then what this machine has: a CPU for each worker and the
// memory the run needs (control/run/run_memory.h). What check, describe and
// run start from. Throws SpecError. allow_memory_peak (run
// --allow-memory-peak): a run whose start fits but whose maximum does not
// is let through, *memory_warning saying so.
Fabric runnable_fabric(const Spec& spec, bool allow_memory_peak = false,
                       std::string* memory_warning = nullptr);

// "t3e 4x4x4: 64 routers, 384 links, 64 endpoints, routing direction_order, 5 VCs"
std::string fabric_one_line(const Spec& spec, const Fabric& fabric);

}  // namespace fabemu
