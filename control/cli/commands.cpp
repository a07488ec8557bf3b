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

// ", of which N YARCs each split into virtual routers (M logical routers)".
std::string virtual_router_text(const Fabric& f) {
  if (f.virtual_routers.empty()) return "";
  std::vector<int> per_chip(f.routers.size(), 0);
  for (const FabricVirtualRouter& v : f.virtual_routers) per_chip[size_t(v.router)]++;
  const auto shared = std::count_if(per_chip.begin(), per_chip.end(), [](int n) { return n > 1; });
  return fmt::format(" ({} logical: {} chips each split into virtual routers by port masks)",
                     f.virtual_routers.size(), shared);
}

// Time one flow unit occupies a router-to-router link (the first one found:
// every link of a profile runs at the same rate).
ps_t router_link_unit_ps(const Fabric& f) {
  for (const auto& r : f.routers)
    for (const auto& p : r.ports)
      if (p.peer_router >= 0) return p.unit_ps;
  return f.endpoints.empty() ? 0 : f.endpoints[0].unit_ps;
}

std::string time_text(ps_t ps) {
  if (ps == kNever) return "unroutable";
  if (ps >= 10'000'000) return fmt::format("{:.3f} us", static_cast<double>(ps) / 1e6);
  return fmt::format("{:.1f} ns", static_cast<double>(ps) / 1e3);
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

namespace {

// The describe rows that depend on how the routes were traced (exact or
// sampled, FabricSummary): how, and the hop counts (write_hop_rows); the
// latencies, deadlock check and route counts (write_route_rows). row(name,
// text) prints one row, wrapped.
void write_hop_rows(const FabricSummary& sum, const DescribeOptions& opts,
                    const std::function<void(const char*, const std::string&)>& row) {
  const bool degraded = sum.faults.degraded;
  const std::string healthy_diameter =
      degraded ? fmt::format("; healthy {}", sum.faults.healthy_diameter) : "";
  std::string healthy_hops;
  if (degraded)
    healthy_hops = sum.exact ? fmt::format("; healthy {:.3f}", sum.faults.healthy_avg_hops)
                             : fmt::format("; healthy {:.3f} ± {:.3f}", sum.faults.healthy_avg_hops,
                                           sum.faults.healthy_avg_hops_ci95);
  const char* between =
      degraded ? "between distinct routable endpoints" : "between distinct endpoints";
  const std::string every =
      fmt::format("--exact traces every route (about {} here)",
                  duration_text(sum.trace_seconds * double(sum.routes_all) /
                                double(std::max<uint64_t>(1, sum.routes_traced))));
  if (sum.exact)
    row("analysis", "exact: every route traced");
  else
    row("analysis",
        fmt::format("SAMPLED: {} routes, more than --max-routes {}; traced {}, both "
                    "classes: every destination of {} random sources, and {} pairs from "
                    "sources spread over all endpoints to random destinations (seed {}); {}",
                    count_text(double(sum.routes_all)), opts.max_routes,
                    count_text(double(sum.routes_traced)), sum.sampled_sources,
                    count_text(double(sum.random_pairs)), sum.seed, every));
  row("diameter",
      fmt::format("{} hops{}{}", sum.diameter, degraded ? " over routable pairs" : "",
                  sum.exact ? healthy_diameter
                            : " (at least: the longest sampled route" + healthy_diameter + ")"));
  if (sum.exact)
    row("average hops", fmt::format("{:.3f} {} ({:.3f} with self){}", sum.avg_hops, between,
                                    sum.avg_hops_with_self, healthy_hops));
  else
    row("average hops",
        fmt::format("{:.3f} ± {:.3f} {} ({:.3f} ± {:.3f} with self){}, "
                    "estimates with 95% intervals over {} sampled sources",
                    sum.avg_hops, sum.avg_hops_ci95, between, sum.avg_hops_with_self,
                    sum.avg_hops_with_self_ci95, healthy_hops, sum.sampled_sources));
}

void write_route_rows(const FabricSummary& sum, const std::string& unit_name,
                      const std::function<void(const char*, const std::string&)>& row) {
  row("zero-load latency",
      sum.exact ? fmt::format("typical {}, farthest pair {} ({}-{} packet)",
                              time_text(sum.zero_load_ps_typical), time_text(sum.zero_load_ps_max),
                              sum.packet_units, unit_name)
                : fmt::format("typical {} ± {}, farthest pair at least {} ({}-{} packet)",
                              time_text(sum.zero_load_ps_typical),
                              time_text(static_cast<ps_t>(sum.zero_load_ps_typical_ci95 + 0.5)),
                              time_text(sum.zero_load_ps_max), sum.packet_units, unit_name));
  if (!sum.deadlock_free)
    row("deadlock check",
        fmt::format("CYCLE {}{}", sum.deadlock_cycle,
                    sum.exact ? "" : " (found among sampled routes: a real cycle)"));
  else if (sum.exact)
    row("deadlock check",
        fmt::format("acyclic ({} channels, {} dependencies{})", sum.channels, sum.dependencies,
                    sum.deadlock_scope.empty() ? "" : "; " + sum.deadlock_scope));
  else if (!sum.deadlock_proof.empty())
    row("deadlock check",
        fmt::format("acyclic, proven from the tables: {}; no cycle among the {} dependencies "
                    "the sampled routes reached",
                    sum.deadlock_proof, sum.dependencies));
  else
    row("deadlock check",
        fmt::format("NOT PROVEN: no cycle among the {} dependencies ({} channels) the "
                    "sampled routes reached; {}: a sample is not a proof; --exact checks "
                    "every route",
                    sum.dependencies, sum.channels,
                    sum.dependencies_seen_once
                        ? fmt::format("{} of those between router links were reached "
                                      "by one route only, so some are likely not reached at all",
                                      sum.dependencies_seen_once)
                        : std::string("every one between router links was reached by more "
                                      "than one route (the sample likely found them all)")));
  row("routes",
      fmt::format("{} traced{}, {} unroutable{}", sum.routes_traced,
                  sum.exact ? "" : fmt::format(" (a sample of {})", sum.routes_all), sum.unroutable,
                  sum.unroutable ? " (first: " + sum.first_unroutable + ")" : ""));
}

// JSON "analysis": how the figures were obtained, and what each one is:
// "exact", "estimate" (a mean over sampled sources, 95% interval in "ci95"),
// "lower_bound" (a maximum or count over the sample), "upper_bound" (a
// degraded fabric's bisection: the best cut found) or, for deadlock_free,
// "sample" (no cycle among the sampled routes: not a proof).
nlohmann::json analysis_json(const FabricSummary& sum, const DescribeOptions& opts) {
  nlohmann::json a = {{"exact", sum.exact},
                      {"routes_all", sum.routes_all},
                      {"routes_traced", sum.routes_traced},
                      {"max_routes", opts.max_routes},
                      {"sample_routes", opts.sample_routes}};
  nlohmann::json figures;
  for (const char* f : {"routers", "links", "endpoints"}) figures[f] = "exact";
  // A degraded fabric's bisection is the best cut found (control/analysis/bisection.h).
  for (const char* f : {"bisection_links", "bisection_bound"})
    figures[f] = sum.faults.degraded ? "upper_bound" : "exact";
  for (const char* f : {"avg_hops", "avg_hops_with_self", "zero_load_ps_typical"})
    figures[f] = sum.exact ? "exact" : "estimate";
  for (const char* f : {"diameter", "zero_load_ps_max", "channels", "dependencies"})
    figures[f] = sum.exact ? "exact" : "lower_bound";
  figures["deadlock_free"] = sum.deadlock_verdict_certain() ? "exact" : "sample";
  a["figures"] = figures;
  if (!sum.exact) {
    a["sampled_sources"] = sum.sampled_sources;
    a["random_pairs"] = sum.random_pairs;
    a["seed"] = sum.seed;
    a["ci95"] = {{"avg_hops", sum.avg_hops_ci95},
                 {"avg_hops_with_self", sum.avg_hops_with_self_ci95},
                 {"zero_load_ps_typical", sum.zero_load_ps_typical_ci95}};
    a["dependencies_seen_once"] = sum.dependencies_seen_once;
  }
  return a;
}

}  // namespace

int describe_command(const SpecArgs& args, const DescribeOptions& opts, std::ostream& out,
                     std::ostream& err) {
  Spec spec;
  if (!load(args, &spec, err)) return kExitUsage;
  if (!mpi_ranks().root()) return kExitOk;  // rank 0 describes the job's fabric
  std::ostream& human = text_stream(opts.json_out, out, err);
  if (const std::string problem = json_path_problem(opts.json_out); !problem.empty()) {
    err << "fabemu describe: " << problem << "\n";  // before the routes are traced
    return kExitUsage;
  }
  Fabric f;
  DescribedFaults faults;
  RankPartition partition;
  try {
    f = runnable_fabric(spec);
    faults = describe_faults(spec, f, opts.at, opts.healthy);
    partition = partition_routers(spec, f, opts.ranks > 0 ? opts.ranks : mpi_ranks().size());
  } catch (const SpecError& e) {
    err << e.what() << "\n";
    return kExitUsage;
  }
  FabricSummary sum;
  try {
    SampleOptions sample;
    sample.max_routes = opts.max_routes;
    sample.sample_routes = opts.sample_routes;
    sample.progress = progress_line(err, "fabemu describe", "routes");
    sum = faults.degraded() ? summarize_degraded(spec, f, faults.fabric, sample)
                            : summarize(spec, f, sample);
  } catch (const std::exception& e) {
    err << args.file << ": analysis failed: " << e.what() << "\n";
    return kExitRunFailed;
  }
  const RoutingInfo* routing = Registry::get().routing(spec.topology.family, spec.routing);
  const bool claims_deadlock_free = routing && routing->deadlock_free;

  std::string buffers;
  for (int v = 0; v < f.num_vcs && v < kMaxVcs; ++v)
    buffers += fmt::format("{}{}", v ? " " : "", f.vc_buffer_units[v]);
  const ps_t unit_ps = router_link_unit_ps(f);

  // One row: the name, then the text wrapped at 100 columns under itself.
  auto row = [&](const char* name, const std::string& value) {
    constexpr size_t kIndent = 22, kWidth = 100 - kIndent;
    std::string text;
    size_t line = 0;
    std::istringstream words(value);
    for (std::string w; words >> w; line += w.size() + 1) {
      if (line && line + 1 + w.size() > kWidth) {
        text += "\n" + std::string(kIndent, ' ');
        line = 0;
      } else if (line) {
        text += ' ';
      }
      text += w;
    }
    human << fmt::format("  {:<19} {}\n", name, text);
  };
  human << fmt::format("{}: {} (profile {}, {} routing)\n", args.file, f.name, spec.profile,
                       spec.routing);
  write_fault_header(faults, row);
  row("routers", fmt::format("{}{}", sum.routers, virtual_router_text(f)));
  row("links", fmt::format("{} (router to router, one direction each)", sum.links));
  row("endpoints", fmt::format("{}", sum.endpoints));
  if (spec.topology.slices > 1)  // the analysis is of one slice; every slice is alike
    row("slices",
        fmt::format("{} network slices, each a separate copy of this network: {} routers, {} "
                    "injection ports (one per processor per slice), {} bisection links in all; "
                    "the figures here are one slice's",
                    spec.topology.slices, sum.routers * spec.topology.slices,
                    sum.endpoints * spec.topology.slices,
                    sum.bisection_links * spec.topology.slices));
  write_hop_rows(sum, opts, row);
  const bool degraded = sum.faults.degraded;
  row("bisection",
      fmt::format("{} {}links one way{}; uniform load bound {:.2f}", sum.bisection_links,
                  degraded ? "live " : "",
                  degraded ? fmt::format(" (healthy {}; the fewest found across its minimum "
                                         "cuts, with routers at the faults moved across)",
                                         sum.faults.healthy_bisection_links)
                           : "",
                  sum.bisection_bound));
  row("capacity",
      fmt::format("2B/N = {:.3f} of injection bandwidth (uniform random; B both ways){}",
                  sum.capacity,
                  degraded ? fmt::format("; healthy {:.3f}", sum.faults.healthy_capacity) : ""));
  row("virtual channels", fmt::format("{} (buffers {} {}s)", f.num_vcs, buffers, f.unit_name));
  row("flow unit",
      fmt::format("{}-bit {}, {} per link", f.unit_bits, f.unit_name, time_text(unit_ps)));
  write_route_rows(sum, f.unit_name, row);
  // The tables and rows of the fabric described: the faults' when degraded.
  const Fabric& described = faults.degraded() ? faults.fabric : f;
  if (routing && routing->tables_text) row("routing tables", routing->tables_text(spec, described));
  std::vector<std::pair<std::string, std::string>> family_rows;
  if (const auto& rows = Registry::get().topology(spec.topology.family)->describe_rows)
    family_rows = rows(spec, described);
  for (const auto& [name, text] : family_rows) row(name.c_str(), text);
  // The barrier/eureka networks (T3E section 6), the T3E's or a run's with phases.
  BarrierTree btree;
  bool has_btree = false;
  if (spec.profile == "t3e" || spec.traffic.phases != "none") {
    std::string why;
    has_btree = build_barrier_tree(f, spec.barrier.root, &btree, &why);
    if (has_btree)
      row("barrier network",
          fmt::format("{} BSUs per node, each a spanning tree from router {} ({} routers, depth "
                      "{}); zero-load barrier {} (2 x {} shell-to-register + 2 x {} hops x {})",
                      spec.barrier.units, btree.root, btree.routers, btree.depth,
                      time_text(zero_load_barrier_ps(btree, ns_to_ps(spec.barrier.hop_ns),
                                                     ns_to_ps(spec.barrier.endpoint_ns))),
                      time_text(ns_to_ps(spec.barrier.endpoint_ns)), btree.depth,
                      time_text(ns_to_ps(spec.barrier.hop_ns))));
    else
      row("barrier network", "none: " + why);
  }
  write_fault_rows(faults, sum, row);
  {
    const std::vector<std::string> lines = partition_lines(partition);
    for (size_t i = 0; i < lines.size(); i++) row(i ? "" : "partition", lines[i]);
  }
  // The memory estimate: a summary row, then a line per part (not wrapped).
  const MemoryEstimate mem =
      estimate_run_memory(spec, replicate_slices(f, static_cast<uint32_t>(spec.topology.slices)));
  const std::string mem_text = memory_text(mem);
  const size_t mem_nl = mem_text.find('\n');
  row("run memory", mem_text.substr(0, mem_nl));
  if (mem_nl != std::string::npos) human << mem_text.substr(mem_nl + 1) << "\n";

  if (!opts.json_out.empty()) {
    nlohmann::json j = {
        {"file", args.file},
        {"name", f.name},
        {"profile", spec.profile},
        {"topology", spec.topology.family},
        {"routing", spec.routing},
        {"routers", sum.routers},
        {"logical_routers", std::max(f.routers.size(), f.virtual_routers.size())},
        {"links", sum.links},
        {"endpoints", sum.endpoints},
        {"slices", spec.topology.slices},
        {"diameter", sum.diameter},
        {"avg_hops", sum.avg_hops},
        {"avg_hops_with_self", sum.avg_hops_with_self},
        {"bisection_links", sum.bisection_links},
        {"bisection_bound", sum.bisection_bound},
        {"capacity", sum.capacity},
        {"vcs", f.num_vcs},
        {"unit_bits", f.unit_bits},
        {"unit_name", f.unit_name},
        {"unit_ps", unit_ps},
        {"packet_units", sum.packet_units},
        {"zero_load_ps_typical", sum.zero_load_ps_typical},
        {"barrier_tree",
         has_btree ? nlohmann::json{{"root", btree.root},
                                    {"depth", btree.depth},
                                    {"zero_load_barrier_ps",
                                     zero_load_barrier_ps(btree, ns_to_ps(spec.barrier.hop_ns),
                                                          ns_to_ps(spec.barrier.endpoint_ns))}}
                   : nlohmann::json(nullptr)},
        {"zero_load_ps_max", sum.zero_load_ps_max},
        {"deadlock_cycle", sum.deadlock_cycle},
        {"deadlock_proof", sum.deadlock_proof},
        {"channels", sum.channels},
        {"dependencies", sum.dependencies},
        {"routes_traced", sum.routes_traced},
        {"unroutable", sum.unroutable},
        {"analysis", analysis_json(sum, opts)},
        {"memory_start_bytes", mem.start_bytes},
        {"memory_max_bytes", mem.max_bytes},
    };
    // true: proven acyclic; false: a cycle (proven either way); null: no
    // cycle among sampled routes, which proves nothing.
    j["deadlock_free"] = sum.deadlock_verdict_certain() ? nlohmann::json(sum.deadlock_free)
                                                        : nlohmann::json(nullptr);
    for (const auto& [name, text] : family_rows) j["topology_rows"][name] = text;
    std::vector<uint32_t> buf(f.vc_buffer_units.begin(),
                              f.vc_buffer_units.begin() + std::min(f.num_vcs, kMaxVcs));
    j["vc_buffer_units"] = buf;
    if (const auto& size_keys = Registry::get().topology(spec.topology.family)->size_keys)
      for (const auto& [key, values] : size_keys(spec))
        j[key] = values.size() == 1 ? nlohmann::json(values[0]) : nlohmann::json(values);
    // Where each endpoint attaches: scripts pick hosts by router position.
    nlohmann::json eps = nlohmann::json::array();
    for (const auto& e : f.endpoints)
      eps.push_back({{"id", e.id},
                     {"router", e.router},
                     {"port", e.port},
                     {"coord", f.routers[e.router].coord}});
    j["endpoint_list"] = eps;
    if (!spec.faults.empty()) j["faults"] = faults_json(faults, sum);
    auto wire_ns = [](ps_t ps) {
      return ps == kNever ? nlohmann::json(nullptr) : nlohmann::json(static_cast<double>(ps) / kPsPerNs);
    };
    j["partition"] = {{"ranks", partition.ranks},
                      {"workers_per_rank", partition.workers},
                      {"routers", partition.routers},
                      {"endpoints", partition.endpoints},
                      {"rank_cut_links", partition.rank_cut},
                      {"rank_cut_links_out", partition.rank_cut_of},
                      {"worker_cut_links", partition.worker_cut},
                      {"rank_cut_wire_min_ns", wire_ns(partition.rank_wire_min)},
                      {"worker_cut_wire_min_ns", wire_ns(partition.worker_wire_min)}};
    if (!write_json(j, opts.json_out, out, err)) return kExitRunFailed;
  }
  // Broken tables or a cycle where the algorithm promises none: the fabric
  // would not run as specified, which a script calling describe must see.
  // (Pairs the faults leave unroutable are what a degraded fabric is.)
  if ((sum.unroutable && !faults.degraded()) || (claims_deadlock_free && !sum.deadlock_free))
    return kExitRunFailed;
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
