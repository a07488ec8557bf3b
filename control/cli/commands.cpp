#include "control/cli/commands.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "control/analysis/analysis.h"
#include "control/cli/cli.h"
#include "control/run/run_memory.h"
#include "control/run/runner.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"
#include "control/spec/spec_refuse.h"
#include "control/topology/registry.h"
#include "dataplane/core/eal.h"

namespace fabemu {

namespace {

int count_links(const Fabric& f) {
  int n = 0;
  for (const auto& r : f.routers)
    for (const auto& p : r.ports) n += p.peer_router >= 0;
  return n;
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

// Loads the spec; on failure prints the SpecError and returns false.
bool load(const SpecArgs& args, Spec* spec, std::ostream& err) {
  try {
    *spec = load_spec(args.file, args.sets);
    return true;
  } catch (const SpecError& e) {
    err << e.what() << "\n";
  } catch (const std::exception& e) {
    // load_spec promises SpecError only; anything else is still a spec that
    // must not start.
    err << args.file << ": " << e.what() << "\n";
  }
  return false;
}

bool write_json(const nlohmann::json& j, const std::string& path, std::ostream& out,
                std::ostream& err) {
  if (path == "-") {
    out << j.dump(2) << "\n";
    return true;
  }
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) {
    err << "fabemu: cannot write " << path << ": check the directory exists and is writable\n";
    return false;
  }
  return true;
}

}  // namespace

Fabric build_fabric(const Spec& spec) { return build_spec_fabric(spec); }

Fabric runnable_fabric(const Spec& spec) {
  Fabric f = build_fabric(spec);
  const size_t cpus = eal_usable_cpus().size();
  if (static_cast<size_t>(spec.run.workers) > cpus)
    refuse_spec(spec, {"run.workers"},
                fmt::format("{} workers need {} CPUs, but this process may use {} (its CPU "
                            "affinity): set run.workers to at most {}",
                            spec.run.workers, spec.run.workers, cpus, cpus));
  check_run_memory(spec, f, available_memory());
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
  if (!load(args, &spec, err)) return kExitUsage;
  try {
    const Fabric f = runnable_fabric(spec);
    out << args.file << ": ok (" << fabric_one_line(spec, f) << ")\n";
    return kExitOk;
  } catch (const SpecError& e) {
    err << e.what() << "\n";
    return kExitUsage;
  }
}

int describe_command(const SpecArgs& args, const std::string& json_out, std::ostream& out,
                     std::ostream& err) {
  Spec spec;
  if (!load(args, &spec, err)) return kExitUsage;
  Fabric f;
  try {
    f = runnable_fabric(spec);
  } catch (const SpecError& e) {
    err << e.what() << "\n";
    return kExitUsage;
  }
  FabricSummary sum;
  try {
    sum = summarize(spec, f);
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

  auto row = [&](const char* name, const std::string& value) {
    out << fmt::format("  {:<19} {}\n", name, value);
  };
  out << fmt::format("{}: {} (profile {}, {} routing)\n", args.file, f.name, spec.profile,
                     spec.routing);
  row("routers", fmt::format("{}", sum.routers));
  row("links", fmt::format("{} (router to router, one direction each)", sum.links));
  row("endpoints", fmt::format("{}", sum.endpoints));
  row("diameter", fmt::format("{} hops", sum.diameter));
  row("average hops", fmt::format("{:.3f} between distinct endpoints ({:.3f} with self)",
                                  sum.avg_hops, sum.avg_hops_with_self));
  row("bisection", fmt::format("{} links one way; uniform load bound {:.2f}", sum.bisection_links,
                               sum.bisection_bound));
  row("virtual channels", fmt::format("{} (buffers {} {}s)", f.num_vcs, buffers, f.unit_name));
  row("flow unit",
      fmt::format("{}-bit {}, {} per link", f.unit_bits, f.unit_name, time_text(unit_ps)));
  row("zero-load latency",
      fmt::format("typical {}, farthest pair {} ({}-{} packet)",
                  time_text(sum.zero_load_ps_typical), time_text(sum.zero_load_ps_max),
                  sum.packet_units, f.unit_name));
  row("deadlock check", sum.deadlock_free ? fmt::format("acyclic ({} channels, {} dependencies)",
                                                        sum.channels, sum.dependencies)
                                          : fmt::format("CYCLE {}", sum.deadlock_cycle));
  row("routes", fmt::format("{} traced, {} unroutable{}", sum.routes_traced, sum.unroutable,
                            sum.unroutable ? " (first: " + sum.first_unroutable + ")" : ""));
  const MemoryEstimate mem = estimate_run_memory(spec, f);
  row("run memory", memory_text(mem));

  if (!json_out.empty()) {
    nlohmann::json j = {
        {"file", args.file},
        {"name", f.name},
        {"profile", spec.profile},
        {"topology", spec.topology.family},
        {"routing", spec.routing},
        {"routers", sum.routers},
        {"links", sum.links},
        {"endpoints", sum.endpoints},
        {"diameter", sum.diameter},
        {"avg_hops", sum.avg_hops},
        {"avg_hops_with_self", sum.avg_hops_with_self},
        {"bisection_links", sum.bisection_links},
        {"bisection_bound", sum.bisection_bound},
        {"vcs", f.num_vcs},
        {"unit_bits", f.unit_bits},
        {"unit_name", f.unit_name},
        {"unit_ps", unit_ps},
        {"packet_units", sum.packet_units},
        {"zero_load_ps_typical", sum.zero_load_ps_typical},
        {"zero_load_ps_max", sum.zero_load_ps_max},
        {"deadlock_free", sum.deadlock_free},
        {"deadlock_cycle", sum.deadlock_cycle},
        {"channels", sum.channels},
        {"dependencies", sum.dependencies},
        {"routes_traced", sum.routes_traced},
        {"unroutable", sum.unroutable},
        {"memory_start_bytes", mem.start_bytes},
        {"memory_max_bytes", mem.max_bytes},
    };
    std::vector<uint32_t> buf(f.vc_buffer_units.begin(),
                              f.vc_buffer_units.begin() + std::min(f.num_vcs, kMaxVcs));
    j["vc_buffer_units"] = buf;
    if (spec.topology.family == "torus") j["dims"] = spec.topology.dims;
    // Where each endpoint attaches: scripts pick hosts by router position.
    nlohmann::json eps = nlohmann::json::array();
    for (const auto& e : f.endpoints)
      eps.push_back({{"id", e.id},
                     {"router", e.router},
                     {"port", e.port},
                     {"coord", f.routers[e.router].coord}});
    j["endpoint_list"] = eps;
    if (!write_json(j, json_out, out, err)) return kExitRunFailed;
  }
  // Broken tables or a cycle where the algorithm promises none: the fabric
  // would not run as specified, which a script calling describe must see.
  if (sum.unroutable || (claims_deadlock_free && !sum.deadlock_free)) return kExitRunFailed;
  return kExitOk;
}

int run_spec_command(const SpecArgs& args, const RunOptions& opts, std::ostream& out,
                     std::ostream& err) {
  Spec spec;
  if (!load(args, &spec, err)) return kExitUsage;
  (void)out;  // the runner prints its own summary and progress
  try {
    runnable_fabric(spec);  // refuses what the fabric or this machine cannot run
    return run_command(spec, opts);
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
