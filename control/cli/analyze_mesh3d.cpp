// fabemu analyze mesh3d-reliability: the petaflops 3D-mesh proposal's
// reliability standard over random fault patterns
// (control/analysis/mesh_reliability.h), then the assumptions.
#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "control/analysis/mesh_reliability.h"
#include "control/cli/analyze_command.h"
#include "control/cli/cli.h"
#include "control/cli/output.h"

namespace fabemu {

namespace {

std::vector<std::string> mesh_assumptions(const MeshReliabilityOptions& o) {
  std::vector<std::string> a = {
      fmt::format("Patterns: {} per kind and count, pattern i of each drawn from (seed {}, kind, "
                  "count, i) alone: the same figures on any number of cores. Dead links are "
                  "distinct links of the mesh, dead routers distinct routers, uniformly.",
                  o.patterns, o.seed),
      fmt::format("Lists: every router starts from {} and turns are admitted where a pair needs "
                  "them and the one channel dependency each adds closes no cycle "
                  "(program_turn_lists); 'deadlock free' re-checks the lists' channel "
                  "dependencies for a cycle.",
                  o.xyz_base ? "XYZ's turns" : "the 3-D west-first model fault_turns()"),
      "Connected: every ordered pair of surviving routers has a legal route (each turn allowed "
      "at the router it is taken in, straight always, no U-turn). Pairs with a dead router as "
      "source or destination are not counted (the proposal: an application with state on the "
      "failing chip aborts).",
      "The standard: 'same as above for 99% of failure patterns' for up to 10 dead chips or "
      "links; one dead link must leave every pair connected.",
  };
  if (o.routes)
    a.push_back(
        "Routes: for every pair whose XYZ route meets a fault, the shortest legal route (hops, "
        "then turns) that fits the header's six segments of at most 16 hops; the lists admit "
        "turns for such routes too. A connected pair with none counts as 'too long', and a "
        "pattern meets the standard only with none of those either.");
  else
    a.push_back(
        "Routes are not computed (--routes does): a legal route may still need more than the "
        "header's six segments, and the lists admit only the turns connectivity needs (a run "
        "admits those six-segment routes need too, which is much slower on large meshes).");
  return a;
}

nlohmann::json mesh_json(const MeshReliabilityOptions& o, const std::vector<MeshReliabilityRow>& rows,
                         double seconds, int threads) {
  nlohmann::json j = {{"analysis", "mesh3d-reliability"},
                      {"dims", o.dims},
                      {"patterns", o.patterns},
                      {"seed", o.seed},
                      {"base", o.xyz_base ? "xyz" : "fault"},
                      {"routes", o.routes},
                      {"standard", kMeshReliabilityStandard},
                      {"seconds", seconds},
                      {"threads", threads},
                      {"assumptions", mesh_assumptions(o)}};
  nlohmann::json out = nlohmann::json::array();
  for (const MeshReliabilityRow& r : rows) {
    nlohmann::json row = {{"kind", r.kind},
                          {"faults", r.faults},
                          {"patterns", r.patterns},
                          {"connected", r.connected},
                          {"share", r.share()},
                          {"meets_standard", r.share() >= kMeshReliabilityStandard},
                          {"disconnected_mean", r.disconnected_mean},
                          {"disconnected_max", r.disconnected_max},
                          {"added_mean", r.added_mean},
                          {"added_max", r.added_max},
                          {"deadlock_free", r.deadlock_free},
                          {"seconds_mean", r.seconds_mean},
                          {"seconds_max", r.seconds_max}};
    if (o.routes) {
      row["rerouted_mean"] = r.rerouted_mean;
      row["too_long_mean"] = r.too_long_mean;
      row["too_long_max"] = r.too_long_max;
      row["routable"] = r.routable;
    }
    out.push_back(row);
  }
  j["rows"] = out;
  return j;
}

void write_rows(const MeshReliabilityOptions& o, const std::vector<MeshReliabilityRow>& rows,
                std::ostream& out) {
  out << fmt::format("  {:<7} {:>6} {:>8}  {:>9} {:>7} {:>8}  {:>11} {:>9}  {:>7} {:>5}  {:>8}",
                     "dead", "count", "patterns", "connected", "share", "standard",
                     "disc. mean", "disc. max", "turns", "max", "no cycle");
  if (o.routes)
    out << fmt::format("  {:>9} {:>10} {:>8} {:>8}", "rerouted", "too long", "max", "routable");
  out << fmt::format("  {:>8}\n", "s/pattern");
  for (const MeshReliabilityRow& r : rows) {
    out << fmt::format(
        "  {:<7} {:>6} {:>8}  {:>9} {:>6.1f}% {:>8}  {:>11.1f} {:>9}  {:>7.1f} {:>5}  {:>8}",
        r.kind, r.faults, r.patterns, r.connected, 100 * r.share(),
        r.share() >= kMeshReliabilityStandard ? "met" : "missed", r.disconnected_mean,
        r.disconnected_max, r.added_mean, r.added_max,
        r.deadlock_free == r.patterns ? "all" : fmt::format("{}", r.deadlock_free));
    if (o.routes)
      out << fmt::format("  {:>9} {:>10.1f} {:>8} {:>7.1f}%", count_text(r.rerouted_mean),
                         r.too_long_mean, r.too_long_max, 100 * double(r.routable) / r.patterns);
    out << fmt::format("  {:>8.3f}\n", r.seconds_mean);
  }
  out << "  (connected: patterns leaving every pair of survivors a legal route; standard: 99% "
         "of patterns" << (o.routes ? ", counting routes too long as failures" : "")
      << "; disc.: pairs without one; turns: admitted beyond the base; no cycle: patterns whose "
         "lists are deadlock free)\n";
}

}  // namespace

int analyze_mesh3d_reliability_command(const MeshReliabilityOptions& given, const AnalyzeRun& run,
                                       std::ostream& out, std::ostream& err) {
  MeshReliabilityOptions o = given;
  std::string problem;
  for (int k : o.dims)
    if (k < 1 || k > 255) problem = "--dims: each side must be 1 to 255, e.g. 27,16,24";
  if (problem.empty() && o.dims[0] * o.dims[1] * o.dims[2] < 2)
    problem = "--dims: a mesh of one router has no pairs to connect";
  if (problem.empty() && o.patterns < 1) problem = "--patterns: give at least 1";
  for (int c : o.counts)
    if (problem.empty() && (c < 1 || (c > o.dead_links && c > o.dead_routers)))
      problem = fmt::format("--counts {}: each count must be 1 to the --dead-links or "
                            "--dead-routers maximum", c);
  if (const std::string why = run_problem(run, problem); !why.empty()) {
    err << "fabemu analyze mesh3d-reliability: " << why << "\n";
    return kExitUsage;
  }
  if (!o.progress)
    o.progress = progress_line(err, "fabemu analyze mesh3d-reliability", "patterns");
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<MeshReliabilityRow> rows;
  tbb::task_arena arena(run.threads > 0 ? run.threads : tbb::task_arena::automatic);
  try {
    arena.execute([&] { rows = run_mesh_reliability(o); });
  } catch (const std::exception& e) {
    err << "fabemu analyze mesh3d-reliability: " << e.what() << "\n";
    return kExitRunFailed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ostream& human = text_stream(run.json_out, out, err);
  human << fmt::format(
      "fabemu analyze mesh3d-reliability: the petaflops 3D-mesh proposal's reliability standard "
      "on a {}x{}x{} mesh, per-router turn lists programmed around random faults\n\n",
      o.dims[0], o.dims[1], o.dims[2]);
  write_rows(o, rows, human);
  write_footer(human, mesh_assumptions(o), seconds, run);
  if (!run.json_out.empty() &&
      !write_json(mesh_json(o, rows, seconds, threads_used(run)), run.json_out, out, err))
    return kExitRunFailed;
  return kExitOk;
}

}  // namespace fabemu
