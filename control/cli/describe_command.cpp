// `fabemu describe` (commands.h): the fabric's figures from its traced
// routes, its degraded state under faults, and the partition over ranks.
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
  if (!load_command_spec(args, &spec, err)) return kExitUsage;
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

}  // namespace fabemu
