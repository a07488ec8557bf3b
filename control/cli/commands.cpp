#include "control/cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "control/analysis/analysis.h"
#include "control/barrier/barrier_tree.h"
#include "control/booksim/booksim_import.h"
#include "control/cli/booksim_run.h"
#include "control/cli/cli.h"
#include "control/cli/describe_faults.h"
#include "control/cli/output.h"
#include "control/mpi/job_spec.h"
#include "control/mpi/mpi_ranks.h"
#include "control/mpi/rank_partition.h"
#include "control/run/capture_plan.h"
#include "control/run/control_socket.h"
#include "control/run/fault_plan.h"
#include "control/run/output_file.h"
#include "control/run/run_memory.h"
#include "control/run/runner.h"
#include "control/spec/capture_taps.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"
#include "control/spec/spec_refuse.h"
#include "control/spec/spec_yaml.h"
#include "control/topology/registry.h"
#include "control/topology/slices.h"
#include "dataplane/core/eal.h"
#include "dataplane/core/retry_timing.h"

namespace fabemu {

namespace {

int count_links(const Fabric& f) {
  int n = 0;
  for (const auto& r : f.routers)
    for (const auto& p : r.ports) n += p.peer_router >= 0;
  return n;
}

// What select_capture finds wrong with `taps` and the rest of the spec's
// capture section on the run's (sliced) fabric; nothing without taps (a
// run without them captures nothing).
CaptureProblem capture_problem(const Spec& spec, const std::vector<std::string>& taps,
                               const Fabric& sliced) {
  if (taps.empty()) return {};
  Spec::Capture capture = spec.capture;
  capture.taps = taps;
  std::vector<std::string> port_names;
  for (size_t i = 0; i < spec.ports.size(); i++)
    port_names.push_back(port_binding_name(spec.ports[i], i));
  CaptureSelection unused;
  return select_capture(capture, sliced, port_names, &unused);
}

// The retry time-out against the link with the longest round trip (the
// engine refuses a time-out shorter than any link's).
std::string link_retry_problem(const Spec& spec, const Fabric& sliced) {
  const EngineConfig cfg = make_engine_config(spec, sliced);
  RetryTiming worst;
  int32_t router = -1, port = -1;
  for (size_t r = 0; r < sliced.routers.size(); r++)
    for (size_t p = 0; p < sliced.routers[r].ports.size(); p++) {
      const FabricPort& fp = sliced.routers[r].ports[p];
      if (fp.peer_router < 0 || fp.unit_ps == 0) continue;
      const RetryTiming t =
          retry_timing(fp.wire_ps, fp.unit_ps, cfg.format.max_units, cfg.retry.timeout_ps);
      if (router < 0 || t.round_trip > worst.round_trip)
        worst = t, router = static_cast<int32_t>(r), port = static_cast<int32_t>(p);
    }
  return router < 0 ? std::string() : retry_timeout_problem(worst, router, port);
}

// Loads the spec, from its file or from a BookSim2 configuration (whose
// translation goes to *booksim when given); on failure prints the error and
// returns false. In a job of several ranks every rank returns the same.
bool load_one(const SpecArgs& args, Spec* spec, std::ostream& err, BooksimSpec* booksim);

bool load_job(const SpecArgs& args, Spec* spec, std::ostream& err, BooksimSpec* booksim);

bool load(const SpecArgs& args, Spec* spec, std::ostream& err, BooksimSpec* booksim = nullptr) {
  if (mpi_ranks().size() == 1) return load_job(args, spec, err, booksim);
  if (load_job(args, spec, err, booksim)) return true;
  mpi_ranks().agree_failure();  // (every rank of the job returns false together)
  return false;
}

bool load_job(const SpecArgs& args, Spec* spec, std::ostream& err, BooksimSpec* booksim) {
  if (args.file.empty() == args.booksim.empty()) {
    err << "fabemu: give a spec FILE or --booksim FILE (one of them)\n";
    return false;
  }
  const MpiRanks& job = mpi_ranks();
  if (job.size() > 1) {  // several ranks: rank 0's file, checked on all (control/mpi/job_spec.h)
    if (args.booksim.empty()) {
      if (!load_job_spec(job, args.file, spec_detail::read_spec_file,
                         [&](const std::string& text) { return load_spec_text(text, args.sets, args.file); },
                         spec, err))
        return false;
    } else if (!job.all_ok(load_one(args, spec, err, booksim))) {
      return false;  // (each rank reads its own BookSim file: the spec hashes compare them)
    }
    return check_job_identity(job, *spec, err);
  }
  return load_one(args, spec, err, booksim);
}

bool load_one(const SpecArgs& args, Spec* spec, std::ostream& err, BooksimSpec* booksim) {
  try {
    if (args.booksim.empty()) {
      *spec = load_spec(args.file, args.sets);
      return true;
    }
    BooksimSpec b;
    *spec = load_booksim_spec(args, &b, err);
    if (booksim) *booksim = std::move(b);
    return true;
  } catch (const BooksimConfigError& e) {
    err << e.what() << "\n";
  } catch (const SpecError& e) {
    err << e.what() << "\n";
  } catch (const std::exception& e) {
    // load_spec promises SpecError only; anything else is still a spec that
    // must not start.
    err << (args.booksim.empty() ? args.file : args.booksim) << ": " << e.what() << "\n";
  }
  return false;
}

// What a run over several MPI ranks cannot do yet (empty: nothing of it).
std::string not_across_ranks(const Spec& spec, const RunOptions& opts) {
  if (spec.run.mode == "realtime") return "real time (run.mode: realtime)";
  if (!spec.ports.empty()) return "a port's traffic (ports)";
  if (!spec.faults.empty() || !spec.run.control_socket.empty() || spec.router.forward_progress_ns > 0)
    return "faults (faults, run.control_socket, router.forward_progress_ns)";
  if (spec.link.retry) return "link-level retry (link.retry)";
  if (spec.link.recovery != "none") return "two-hop recovery (link.recovery)";
  if (!spec.capture.taps.empty() || !opts.capture_taps.empty()) return "capture (capture.taps, --capture)";
  if (spec.traffic.phases != "none") return "the barrier/eureka networks (traffic.phases)";
  if (spec.run.check_invariants) return "the credit check at every event (run.check_invariants)";
  if (spec.run.sample_period_ns > 0) return "sample periods (run.sample_period_ns, run --booksim)";
  if (spec.topology.slices > 1) return "network slices (topology.slices)";
  return {};
}

}  // namespace

bool load_command_spec(const SpecArgs& args, Spec* spec, std::ostream& err, BooksimSpec* booksim) {
  return load(args, spec, err, booksim);
}

Fabric build_fabric(const Spec& spec) { return build_spec_fabric(spec); }

Fabric runnable_fabric(const Spec& spec, bool allow_memory_peak, std::string* memory_warning) {
  Fabric f = build_fabric(spec);
  const size_t cpus = allowed_cpus().size();
  if (static_cast<size_t>(spec.run.workers) > cpus)
    refuse_spec(spec, {"run.workers"},
                fmt::format("{} workers need {} CPUs, but this process may use {} (its CPU "
                            "affinity): set run.workers to at most {}{}",
                            spec.run.workers, spec.run.workers, cpus, cpus,
                            mpi_ranks().size() > 1
                                ? " (mpirun binds each rank to one core unless told: `mpirun "
                                  "--map-by slot:PE=N` gives each rank N, `--bind-to none` "
                                  "all)"
                                : ""));
  const Fabric sliced = replicate_slices(f, static_cast<uint32_t>(spec.topology.slices));
  const std::string warning =
      check_run_memory(spec, sliced, available_memory(), allow_memory_peak);
  if (memory_warning) *memory_warning = warning;
  plan_faults(spec, f);  // each fault names a router and link the fabric has
  if (!spec.run.control_socket.empty())
    if (std::string why = control_socket_path_problem(spec.run.control_socket); !why.empty())
      refuse_spec(spec, {"run.control_socket"}, why);
  for (size_t i = 0; i < spec.ports.size(); i++) {  // the runner reads them first thing
    const std::string& replay = spec.ports[i].replay;
    if (!replay.empty() && ::access(replay.c_str(), R_OK) != 0)
      refuse_spec(spec, {fmt::format("ports[{}].replay", i)},
                  fmt::format("cannot read '{}' ({}): give a pcap or pcapng file that exists",
                              printable(replay, 300), std::strerror(errno)));
  }
  if (const CaptureProblem p = capture_problem(spec, spec.capture.taps, sliced))
    refuse_spec(spec, {p.field}, p.message);
  if (spec.link.retry) {
    const std::string why = link_retry_problem(spec, sliced);
    if (!why.empty()) refuse_spec(spec, {"link.retry_timeout_ns"}, why);
  }
  return f;
}

std::string fabric_one_line(const Spec& spec, const Fabric& f) {
  auto n = [](size_t count, const char* what) {
    return fmt::format("{} {}{}", count, what, count == 1 ? "" : "s");
  };
  return fmt::format("{}: {}, {}, {}, routing {}, {}", f.name, n(f.routers.size(), "router"),
                     n(count_links(f), "link"), n(f.endpoints.size(), "endpoint"), spec.routing,
                     n(spec.vcs.count, "VC"));
}

int check_command(const SpecArgs& args, std::ostream& out, std::ostream& err) {
  Spec spec;
  BooksimSpec booksim;
  if (!load(args, &spec, err, &booksim)) return kExitUsage;
  // In a job of several ranks each rank checks that the fabric runs on its
  // server and that its part fits; rank 0 prints the verdict.
  const MpiRanks& job = mpi_ranks();
  Fabric f;
  bool ok = true;
  try {
    f = runnable_fabric(spec);
    if (job.size() > 1) partition_routers(spec, f, job.size());
  } catch (const SpecError& e) {
    err << (job.size() > 1 ? fmt::format("fabemu rank {}: ", job.rank()) : "") << e.what() << "\n";
    ok = false;
  }
  if (!job.all_ok(ok)) {
    if (ok) err << fmt::format("fabemu rank {}: another rank refused the spec (above)\n", job.rank());
    mpi_ranks().agree_failure();
    return kExitUsage;
  }
  if (!job.root()) return kExitOk;
  const std::string& name = args.booksim.empty() ? args.file : args.booksim;
  out << name << ": ok (" << fabric_one_line(spec, f) << ")";
  if (job.size() > 1) out << fmt::format(" on {} MPI ranks, every one running the same build and spec", job.size());
  out << "\n";
  if (!args.booksim.empty()) out << booksim.yaml;  // the spec it runs as
  return kExitOk;
}

int run_spec_command(const SpecArgs& args, const RunOptions& opts, std::ostream& out,
                     std::ostream& err) {
  Spec spec;
  SpecArgs with_control = args;  // --control is --set run.control_socket (checked alike)
  if (!opts.control_socket.empty())
    with_control.sets.push_back("run.control_socket=" + nlohmann::json(opts.control_socket).dump());
  BooksimSpec booksim;
  if (!load(with_control, &spec, err, &booksim)) return kExitUsage;
  RunOptions rank_opts = opts;
  if (MpiRanks& job = mpi_ranks(); job.size() > 1) {
    // What the ranks do not carry between them yet: refused on every rank
    // alike (the same spec), before anything starts.
    if (const std::string what = not_across_ranks(spec, opts); !what.empty()) {
      if (job.root())
        err << fmt::format("fabemu run: over {} MPI ranks, {} is not carried between ranks yet: "
                           "run it as one process (no mpirun, or mpirun -n 1)\n",
                           job.size(), what);
      job.agree_failure();
      return kExitUsage;
    }
    if (!job.root()) {  // rank 0 prints and writes the job's report
      rank_opts.quiet = true;
      rank_opts.json_out.clear();
    }
  }
  spec.overrides = args.sets;  // as given: --control is an option of its own
  (void)out;  // the runner prints its own summary and progress
  for (const std::string& t : opts.capture_taps) {
    CaptureTap tap;
    std::string why;
    if (!parse_capture_tap(t, &tap, &why)) {
      err << "fabemu run: --capture: " << why << "\n";
      return kExitUsage;
    }
  }
  if (!opts.capture_file.empty()) spec.capture.file = opts.capture_file;
  // Where the results go is checked before the run, not found out after it.
  std::vector<std::pair<std::string, std::string>> outputs;  // (what, path)
  if (!opts.json_out.empty()) outputs.emplace_back("--json", opts.json_out);
  if (!spec.capture.taps.empty() || !opts.capture_taps.empty())
    outputs.emplace_back(opts.capture_file.empty() ? "capture.file" : "--capture-file",
                         spec.capture.file);
  for (const auto& [what, path] : outputs)
    if (const std::string problem = output_path_problem(path); !problem.empty()) {
      err << "fabemu run: " << what << " " << problem << "\n";
      return kExitUsage;
    }
  // A capture to standard output is one stream, alone there.
  const bool capture_stdout =
      (!spec.capture.taps.empty() || !opts.capture_taps.empty()) && spec.capture.file == "-";
  if (capture_stdout && opts.json_out == "-") {
    err << "fabemu run: --json - and " << outputs.back().first
        << " - both go to standard output: give one of them a file name\n";
    return kExitUsage;
  }
  if (capture_stdout && spec.capture.file_mb > 0) {
    err << "fabemu run: capture.file_mb: a capture to standard output is one stream and cannot "
           "rotate into files: leave capture.file_mb 0, or give a file name\n";
    return kExitUsage;
  }
  try {
    // Refuses what the fabric or this machine cannot run, the spec's own
    // capture taps included; then the taps of --capture on the same fabric.
    std::string memory_warning;
    const Fabric f = runnable_fabric(spec, opts.allow_memory_peak, &memory_warning);
    const Fabric sliced = replicate_slices(f, static_cast<uint32_t>(spec.topology.slices));
    if (const CaptureProblem p = capture_problem(spec, opts.capture_taps, sliced)) {
      err << "fabemu run: --capture: "
          << (p.field == "capture.taps" ? std::string() : p.field + ": ") << p.message << "\n";
      return kExitUsage;
    }
    spec.capture.taps.insert(spec.capture.taps.end(), opts.capture_taps.begin(),
                             opts.capture_taps.end());
    if (!memory_warning.empty()) err << "fabemu run: WARNING: " << memory_warning << "\n";
    if (args.booksim.empty()) return run_command(spec, rank_opts);
    return run_booksim(spec, rank_opts, booksim, out, err);
  } catch (const SpecError& e) {
    err << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "fabemu run: " << args.file << ": " << e.what() << "\n";
    return kExitRunFailed;
  }
}

std::vector<std::string> split_eal_args(const std::vector<std::string>& values) {
  std::vector<std::string> args;
  for (const auto& v : values) {
    std::istringstream words(v);
    for (std::string w; words >> w;) args.push_back(w);
  }
  return args;
}

int spec_reference_command(std::ostream& out) {
  out << spec_reference_markdown();
  return kExitOk;
}

}  // namespace fabemu
