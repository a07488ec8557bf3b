#include "control/cli/cli.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "control/cli/analyze_cli.h"
#include "control/cli/commands.h"
#include "control/cli/fault_command.h"
#include "control/cli/tool_command.h"
#include "control/mpi/mpi_ranks.h"
#include "control/run/runner.h"
#include "control/spec/faults.h"
#include "control/spec/spec_context.h"
#include "control/spec/spec_error.h"
#include "control/version.h"

namespace fabemu {
namespace {

// "did you mean" for each unexpected argument of `a` that looks like a long
// option: the closest of a's own long options, two edits at most.
std::string option_suggestions(const CLI::App& top) {
  // (The error is the top app's; the options are the subcommand's it ran.)
  const std::vector<CLI::App*> subs = top.get_subcommands();  // those parsed
  const CLI::App& a = subs.empty() ? top : *subs.front();
  std::string out;
  for (const std::string& arg : top.remaining(true)) {
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) continue;
    const std::string name =
        arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
    std::string best;
    size_t best_d = 3;
    for (const CLI::Option* o : a.get_options())
      for (const std::string& l : o->get_lnames())
        if (const size_t d = spec_detail::distance(name, l); d < best_d) best_d = d, best = l;
    if (!best.empty())
      out += "--" + printable(name, 100) + " is not an option of " + a.get_name() +
             ": did you mean --" + best + "?\n";
  }
  return out;
}

// What a command printed that could not reach standard output (a full
// disk, a closed descriptor) is an output not written: exit 1, as run does
// for its summary. (A reader that went away ends the command by SIGPIPE.)
int stdout_written(int status, const std::string& command) {
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout) return status;
  std::cerr << command << ": cannot write to standard output"
            << (errno ? std::string(": ") + std::strerror(errno) : std::string()) << "\n";
  return status == kExitOk ? kExitRunFailed : status;
}

}  // namespace

std::string version_line() {
  return std::string("fabemu " FABEMU_VERSION " (commit ") + fabemu_commit() + ")";
}

namespace {

constexpr const char* kSetHelp =
    "override one spec field after the file: KEY is a dotted path, VALUE a YAML value, e.g. "
    "--set traffic.load=0.5 --set 'topology.dims=[8,8,8]' (repeatable; applied in order)";

void add_set_option(CLI::App* cmd, SpecArgs* args);

// FILE plus any number of --set on a subcommand.
void add_spec_args(CLI::App* cmd, SpecArgs* args) {
  cmd->add_option("FILE", args->file, "fabric spec (YAML); see topologies/")->required();
  add_set_option(cmd, args);
}

// A spec FILE or --booksim FILE (a BookSim2 configuration), with --set and
// --booksim-set (check and run).
void add_spec_or_booksim_args(CLI::App* cmd, SpecArgs* args) {
  cmd->add_option("FILE", args->file, "fabric spec (YAML); see topologies/");
  cmd->add_option("--booksim", args->booksim,
                  "read a BookSim2 configuration file instead of a spec (key = value; lines; "
                  "what fabemu models of BookSim's iq router, every other key refused with "
                  "its line: docs/fabrics/booksim.md); run prints BookSim's result lines")
      ->type_name("FILE");
  cmd->add_option("--booksim-set", args->booksim_sets,
                  "override one key of the BookSim configuration, as BookSim's own command "
                  "line does, e.g. --booksim-set injection_rate=0.3 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  add_set_option(cmd, args);
}

void add_set_option(CLI::App* cmd, SpecArgs* args) {
  // One value per --set, so that `--set a=1 FILE` never swallows FILE.
  cmd->add_option("--set,-s", args->sets, kSetHelp)
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
}

}  // namespace

int fabemu_main(int argc, char** argv) {
  CLI::App app{
      "fabemu: emulate multiprocessor interconnection fabrics (Cray T3E torus, Cray BlackWidow "
      "folded Clos, ...) on DPDK, from a YAML fabric spec.",
      "fabemu"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());
  app.footer(
      "Exit status: 0 ok; 1 the run or the analysis failed, or an output was not written; 2 bad "
      "command line or bad spec (nothing started); 3 a real-time run stopped for overload; "
      "128 + the signal for a run, sweep or pcap stopped by SIGHUP, SIGINT or SIGTERM "
      "(docs/commands.md has each command's).\nRun `fabemu SUBCOMMAND --help` for each subcommand; "
      "docs/spec-reference.md has the spec reference, docs/commands.md every command.");

  SpecArgs check_args;
  CLI::App* check = app.add_subcommand(
      "check", "Validate a spec and print a one-line summary of the fabric it builds");
  add_spec_or_booksim_args(check, &check_args);
  check->footer(
      "Prints 'FILE: ok (summary)' and exits 0, or prints 'FILE:LINE:COL: field 'a.b': what is "
      "wrong and what to do' to stderr and exits 2.");

  SpecArgs describe_args;
  DescribeOptions describe_opts;
  bool describe_exact = false;
  CLI::App* describe = app.add_subcommand(
      "describe",
      "Print routers, links, endpoints, diameter, average hops, bisection and zero-load latency "
      "of a spec's fabric under its routing tables");
  add_spec_args(describe, &describe_args);
  describe
      ->add_option("--json", describe_opts.json_out,
                   "also write the figures as JSON to OUT ('-': stdout)")
      ->type_name("OUT");
  CLI::Option* max_routes =
      describe
          ->add_option(
              "--max-routes", describe_opts.max_routes,
              "trace every (src, dst, class) route of a fabric that has at most N; above, a "
              "random sample (the output says which figures are then estimates)")
          ->type_name("N")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
  CLI::Option* sample_routes =
      describe
          ->add_option("--sample-routes", describe_opts.sample_routes,
                       "routes the sample traces above --max-routes (at most that many)")
          ->type_name("N")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
  describe
      ->add_flag("--exact", describe_exact,
                 "trace every route however many there are (minutes on the largest fabrics): "
                 "every figure exact and the deadlock check a proof")
      ->excludes(max_routes)
      ->excludes(sample_routes);
  std::string describe_at;
  CLI::Option* at =
      describe
          ->add_option("--at", describe_at,
                       "describe the fabric as the spec's faults leave it at this emulated time "
                       "(20us, 1500ns, 2ms) instead of after all of them")
          ->type_name("TIME");
  describe
      ->add_flag("--healthy", describe_opts.healthy,
                 "describe the fabric without the spec's faults")
      ->excludes(at);
  describe
      ->add_option("--ranks", describe_opts.ranks,
                   "print the partition of the routers over R MPI ranks (of run.workers "
                   "workers each) that `mpirun -n R fabemu run` would use: routers per rank and "
                   "worker, the links cut between them, and the synchronisation rate their "
                   "latency allows (default: the job's ranks under mpirun, else 1)")
      ->type_name("R")
      ->check(CLI::Range(1, 4096));
  describe->footer(
      "A spec with faults is described DEGRADED: as its faults leave the fabric (all of them, "
      "or those up to --at), routes traced through the tables programmed around them, with "
      "unroutable pairs, changed routes, live bisection and the healthy figures beside. "
      "Exits 1 when the programmed tables of a healthy fabric leave a pair unroutable or the "
      "channel dependency graph has a cycle the routing algorithm promises not to have. Above "
      "--max-routes the figures come from a sample: means with 95% intervals, maxima as lower "
      "bounds, and a deadlock check that is not a proof (--exact makes one).");

  SpecArgs run_args;
  RunOptions run_opts;
  std::vector<std::string> run_eal;
  CLI::App* run = app.add_subcommand(
      "run", "Emulate the fabric under its traffic plan and print a summary of the statistics");
  add_spec_or_booksim_args(run, &run_args);
  run->add_option("--json", run_opts.json_out,
                  "write the full statistics as JSON to OUT ('-': stdout)")
      ->type_name("OUT");
  run->add_flag("--quiet,-q", run_opts.quiet, "no progress line and no terminal summary");
  run->add_option("--eal", run_eal,
                  "extra DPDK EAL arguments, split on white space, passed after the spec's "
                  "run.eal (repeatable), e.g. --eal '--vdev=net_null0 --no-huge'")
      ->type_name("ARGS")
      ->allow_extra_args(false);
  run->add_option("--capture", run_opts.capture_taps,
                  "capture packets and frames into pcapng (repeatable, added to the spec's "
                  "capture.taps): all, link=rR:pP[:in|:out] (router R's port P, both ways or "
                  "one), link=NAME (r3.p2>r7.p5), router=R (its every link), endpoint=E (its "
                  "injection and ejection links), port=NAME (a port's Ethernet frames); filters, "
                  "snapshot length and a ring of files with --set capture.vcs|src|dst|types|"
                  "snaplen|file_mb|files; read them with `fabemu pcap` or tshark and "
                  "pcap-tools/fabemu.lua (format: pcap-tools/FORMAT.md)")
      ->type_name("TAP")
      ->allow_extra_args(false);
  run->add_option("--capture-file", run_opts.capture_file,
                  "the capture's pcapng file (capture.file; default fabemu-capture.pcapng); "
                  "- is standard output, written as the run goes (`| wireshark -k -i -`), "
                  "the run's own text then on standard error")
      ->type_name("FILE");
  run->add_option("--control", run_opts.control_socket,
                  "serve a control socket at PATH for faults while running (`fabemu fault "
                  "--control PATH ...`; run.control_socket)")
      ->type_name("PATH");
  run->add_flag("--allow-memory-peak", run_opts.allow_memory_peak,
                "run even though the memory estimate with every buffer full exceeds what this "
                "machine (or cgroup) has, as long as its start fits; says so, and the kernel may "
                "kill the run if its buffers fill that far");
  run->footer("The spec is validated first: a bad spec exits 2 and nothing starts.");

  std::string fault_socket;
  std::vector<std::string> fault_requests;
  CLI::App* fault = app.add_subcommand(
      "fault", "Give a running emulation a fault (or ask its status) over its control socket");
  fault->add_option("--control,-c", fault_socket, "the run's control socket (run --control PATH)")
      ->type_name("PATH")
      ->required();
  fault
      ->add_option("REQUEST", fault_requests,
                   "what to send, one request each: a fault now (link=rR:pP down|up|ber=X, "
                   "router=R down|up), status, help; - reads one per line from standard input")
      ->required();
  fault->footer(
      "Each reply is printed; exit 0 when every one is ok, 1 otherwise. The run takes a fault at "
      "its next window edge (virtual time) or housekeeping pass (real time), reprograms the "
      "routing tables around dead links and routers, and lists every fault in its JSON report. "
      "Scripts may talk to the socket directly: one request per line, one reply line each.");

  AnalyzeCli analyze(app);

  // Listed for --help only: `fabemu pcap ...` goes to the analyzer as it
  // is (below), so that the analyzer's own options and --help apply.
  app.add_subcommand("pcap",
                     "Analyse capture files (pcapng from run --capture): utilisation, VCs, "
                     "paths and per-hop latency, retries, CRC errors, out-of-order deliveries, "
                     "ports; text, --json, --plot. `fabemu pcap --help` for its options");
  app.add_subcommand("sweep",
                     "Latency-load sweep of one or more specs: runs each at each offered load "
                     "(and each value of --vary keys), points in parallel (--jobs), tables "
                     "accepted load and latency, finds saturation; --json, --csv, --plot. "
                     "`fabemu sweep --help` for its options");

  // Hidden (empty group): prints docs/spec-reference.md's table from the table
  // the loader reads, so the two cannot drift apart.
  CLI::App* reference =
      app.add_subcommand("spec-reference", "Print the spec reference table (markdown)");
  reference->group("");

  // CLI11 reports a mistyped subcommand as "A subcommand is required"; name
  // it and the known ones instead.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      if (!sub->get_group().empty()) names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "fabemu: unknown subcommand '" << printable(argv[1]) << "'; known: " << names
                << "\nRun with --help for more information.\n";
      return kExitUsage;
    }
  }
  for (const PythonTool& tool : {kPcapTool, kSweepTool})
    if (argc > 1 && std::string_view(argv[1]) == tool.command)
      return tool_command(tool, std::vector<std::string>(argv + 2, argv + argc), std::cerr);
  if (argc == 1) {
    std::cerr << app.help() << "\nfabemu: a subcommand is required\n";
    return kExitUsage;
  }
  if (!analyze.table_named(argc, argv, std::cerr)) return kExitUsage;

  // CLI11 quotes an unexpected argument whole: each line of its message is
  // cut as the spec's errors cut a long value.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string out;
    std::istringstream lines(CLI::FailureMessage::simple(a, e));
    for (std::string line; std::getline(lines, line);) out += printable(line, 300) + "\n";
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) out += option_suggestions(*a);
    return out;
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, version or the parse error
    return code == 0 ? stdout_written(kExitOk, "fabemu") : kExitUsage;
  }

  // Under mpirun with several ranks: join the job (control/mpi/mpi_ranks.h).
  struct LeaveJob {
    ~LeaveJob() { mpi_ranks().leave(); }
  } leave_job;
  if (MpiRanks::launched_size() > 1) {
    if (!*check && !*describe && !*run) {
      std::cerr << "fabemu: only run, check and describe take part in an MPI job; start this "
                   "command without mpirun\n";
      return kExitUsage;
    }
    if (std::string why; !mpi_ranks().join(&why)) {
      std::cerr << "fabemu rank " << MpiRanks::launched_rank() << ": " << why << "\n";
      return kExitUsage;
    }
  }
  const int status = [&]() -> int {
    try {
      if (*check)
        return stdout_written(check_command(check_args, std::cout, std::cerr), "fabemu check");
      if (*describe) {
        if (describe_exact) describe_opts.max_routes = 0;
        if (!describe_at.empty() && !parse_emulated_time(describe_at, &describe_opts.at)) {
          std::cerr << "fabemu describe: --at '" << printable(describe_at)
                    << "' is not an emulated time: give one such as 20us, 1500ns or 2ms\n";
          return kExitUsage;
        }
        return stdout_written(describe_command(describe_args, describe_opts, std::cout, std::cerr),
                              "fabemu describe");
      }
      if (*run) {
        run_opts.eal_args = split_eal_args(run_eal);
        return run_spec_command(run_args, run_opts, std::cout, std::cerr);
      }
      if (*reference)
        return stdout_written(spec_reference_command(std::cout), "fabemu spec-reference");
      if (*fault)
        return stdout_written(
            fault_command(fault_socket, fault_requests, std::cin, std::cout, std::cerr),
            "fabemu fault");
      if (analyze.chosen())
        return stdout_written(analyze.run(std::cout, std::cerr), "fabemu analyze");
    } catch (const std::exception& e) {
      std::cerr << "fabemu: " << e.what() << "\n";
      return kExitRunFailed;
    }
    return kExitUsage;
  }();
  // A rank that failed alone ends the job: no other rank waits for it.
  MpiRanks& job = mpi_ranks();
  if (status != kExitOk && job.joined() && !job.failure_agreed()) {
    std::cerr.flush();
    job.abort_all(status);
  }
  return status;
}

}  // namespace fabemu
