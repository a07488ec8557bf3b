#include "control/cli/analyze_command.h"

#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "control/analysis/fat_tree_model.h"
#include "control/cli/cli.h"
#include "control/cli/output.h"
#include "control/spec/spec_error.h"

namespace fabemu {

namespace {

constexpr int kMaxThreads = 1024;
constexpr const char* kPaper =
    "Scott, Abts, Kim & Dally, \"The BlackWidow High-Radix Clos Network\", ISCA 2006";

// "+1.6%": how far fabemu's figure is from the paper's.
std::string diff_text(double ours, double paper) {
  return fmt::format("{:+.1f}%", 100.0 * (ours / paper - 1.0));
}

// A progress line per stage ("torus 32x32x32", "fat tree 32768").
std::function<void(const std::string&, const SweepProgress&)> stage_progress(std::ostream& err,
                                                                             std::string command,
                                                                             std::string noun) {
  auto state = std::make_shared<std::pair<std::string, SweepProgressFn>>();
  return [state, &err, command = std::move(command), noun = std::move(noun)](
             const std::string& what, const SweepProgress& p) {
    if (state->first != what || !state->second) {
      state->first = what;
      state->second = progress_line(err, fmt::format("fabemu analyze {}: {}", command, what), noun);
    }
    state->second(p);
  };
}

}  // namespace

int threads_used(const AnalyzeRun& run) {
  return run.threads > 0 ? run.threads : static_cast<int>(tbb::this_task_arena::max_concurrency());
}

// The options' problem (problem), else the run's (threads, a --json file
// that could not be written at the end); "" when none.
std::string run_problem(const AnalyzeRun& run, std::string problem) {
  if (!problem.empty()) return problem;
  if (run.threads < 0 || run.threads > kMaxThreads)
    return fmt::format(
        "--threads {} is out of range: give 1 to {}, or leave it out for one per core", run.threads,
        kMaxThreads);
  return json_path_problem(run.json_out);
}

namespace {

// What both tables do before they print: refuse bad options (false, said
// on err: nothing is computed), else compute the rows in an arena of
// run.threads threads with a progress line on err, and time it.
template <typename Options, typename Row>
bool compute_rows(const char* table, const char* noun, const std::string& problem,
                  std::vector<Row> (*compute)(const Options&), const AnalyzeRun& run, Options& o,
                  std::ostream& err, std::vector<Row>* rows, double* seconds) {
  if (const std::string why = run_problem(run, problem); !why.empty()) {
    err << "fabemu analyze " << table << ": " << why << "\n";
    return false;
  }
  if (!o.progress) o.progress = stage_progress(err, table, noun);
  const auto t0 = std::chrono::steady_clock::now();
  tbb::task_arena arena(run.threads > 0 ? run.threads : tbb::task_arena::automatic);
  arena.execute([&] { *rows = compute(o); });
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

}  // namespace

void write_footer(std::ostream& out, const std::vector<std::string>& assumptions, double seconds,
                  const AnalyzeRun& run) {
  out << "\nAssumptions:\n";
  for (size_t i = 0; i < assumptions.size(); ++i)
    out << fmt::format("  {}. {}\n", i + 1, assumptions[i]);
  const int n = threads_used(run);
  out << fmt::format("\nTotal time {} on {} thread{} ({} cores on this machine).\n",
                     duration_text(seconds), n, n == 1 ? "" : "s",
                     std::thread::hardware_concurrency());
}

namespace {

// ---- Table 4 ---------------------------------------------------------------

std::vector<std::string> table4_assumptions(const Table4Options& o) {
  std::vector<std::string> a = {
      fmt::format("Permutations: {} random derangements (every endpoint sends one block "
                  "transfer to another endpoint and receives one), permutation p drawn from "
                  "stream p of seed {}: the same figures on any number of cores.",
                  o.permutations, o.seed),
      "Link traffic is in units of the injection bandwidth, on router-to-router links, one "
      "direction each; a permutation's worst case is its busiest link (endpoint links carry "
      "exactly 1 and are left out). Routes are traced through the programmed routing tables.",
  };
  if (o.torus)
    a.push_back(
        "Torus: the t3e family, one endpoint per router, as close to a cube as the size allows; "
        "routing dimension_order: minimal, X then Y then Z, a tie at k/2 goes + (the T3E's own "
        "direction order, every + before any -, loads the busiest links 6-8% more). "
        "'avg link' is what the permutations put on the links: k/8 x N/(N-1), since a "
        "derangement leaves out the transfer to itself that the paper's k/8 (global traffic) "
        "counts; for a non-cube k/8 reads (kx+ky+kz)/24.");
  if (o.fat_tree) {
    a.push_back(
        "Fat tree: radix-64 folded Clos with full bisection (32 uplinks per router below the "
        "top), YARC deterministic up routing hashed on the input port, the destination and the "
        "hash phit, exact modulo over the uplinks; down routes from the destination bits.");
    a.push_back(
        "Fat tree up to 1024 endpoints: the clos builder (rank 2). Above: a rank-3 tree the "
        "builder cannot make yet (issue 9 item 3 adds BlackWidow's R2.5/R3 packaging): subtrees "
        "of 1024 wired as the builder's rank 2 with whole-YARC rank-2 routers, joined by 1024 "
        "radix-32 rank-3 routers (control/analysis/fat_tree_model.h), programmed and routed by "
        "the same clos tables.");
    a.push_back(
        "Path diversity d: a transfer is split evenly over d streams, each 1/d of it, whose hash "
        "phits are b XOR 0x21*i (i < d, b the block's random address bits): the bits rank 1 "
        "hashes on (0..4) and rank 2 hashes on (5..9) both step through i, so the d streams "
        "leave every rank-1 and rank-2 router on d different uplinks: d unique paths.");
  }
  a.push_back(
      "The paper's values: the body of Table 4 is missing from our copy of the paper; compared "
      "are the figures its text gives: torus average link traffic k/8, a degrade factor of "
      "4-5, and at 32K endpoints a fat-tree worst case 'up to 7.6' with one path and 1.6 with "
      "32.");
  return a;
}

void write_torus_rows(const std::vector<Table4Row>& rows, std::ostream& out) {
  out << "\n3-D torus, dimension-order routing\n";
  out << fmt::format("  {:>9}  {:<10} {:>8} {:>9} {:>7} {:>9} {:>8}  {:<7} {:>8}\n", "endpoints",
                     "shape", "avg link", "paper k/8", "diff", "avg worst", "degrade", "paper",
                     "time");
  for (const Table4Row& r : rows) {
    if (!r.has_torus) continue;
    const double k8 = r.torus_k_over_8(), degrade = r.degrade_factor();
    const std::string in_range = degrade < kPaperDegradeLow    ? "below"
                                 : degrade > kPaperDegradeHigh ? "above"
                                                               : "within";
    out << fmt::format(
        "  {:>9}  {:<10} {:>8.3f} {:>9.3f} {:>7} {:>9.3f} {:>8.2f}  4-5 {:<6} {:>5}\n", r.endpoints,
        fmt::format("{}x{}x{}", r.dims[0], r.dims[1], r.dims[2]), r.torus.mean_link[0], k8,
        diff_text(r.torus.mean_link[0], k8), r.torus.mean_worst[0], degrade, in_range,
        duration_text(r.torus.seconds + r.torus_tables_seconds));
  }
}

void write_fat_tree_rows(const std::vector<Table4Row>& rows, const std::vector<int>& paths,
                         std::ostream& out) {
  out << "\nRadix-64 fat tree, YARC hashed up routing: average worst-case link traffic by path "
         "diversity (paths per transfer)\n";
  std::string head = fmt::format("  {:>9} ", "endpoints");
  for (int d : paths) head += fmt::format(" {:>7}", d);
  out << head << fmt::format("  {:>8} {:>8}\n", "avg link", "time");
  for (const Table4Row& r : rows) {
    if (!r.has_fat_tree) continue;
    const PermutationLoad& ft = r.fat_tree;
    std::string line = fmt::format("  {:>9} ", r.endpoints);
    std::string paper = fmt::format("  {:>9} ", "paper"), diff = fmt::format("  {:>9} ", "diff");
    bool any = false;
    for (size_t i = 0; i < ft.diversities.size(); ++i) {
      line += fmt::format(" {:>7.3f}", ft.mean_worst[i]);
      const std::optional<double> p = paper_fat_tree_worst(r.endpoints, ft.diversities[i]);
      paper += p ? fmt::format(" {:>7.1f}", *p) : fmt::format(" {:>7}", "-");
      diff += p ? fmt::format(" {:>7}", diff_text(ft.mean_worst[i], *p)) : std::string(8, ' ');
      any = any || p;
    }
    out << line
        << fmt::format("  {:>8.3f} {:>8}\n", ft.mean_link[0],
                       duration_text(ft.seconds + r.fat_tree_tables_seconds));
    if (any) out << paper << "\n" << diff << "\n";
  }
  out << "\n  Trees:\n";
  for (const Table4Row& r : rows)
    if (r.has_fat_tree) out << fmt::format("  {:>9}  {}\n", r.endpoints, r.fat_tree_model);
}

nlohmann::json load_json(const PermutationLoad& l, size_t i) {
  const double n = std::max<uint32_t>(1, l.permutations);
  return {{"avg_worst", l.mean_worst[i]},
          {"worst_sd", l.worst_sd[i]},
          {"avg_worst_se", l.worst_sd[i] / std::sqrt(n)},
          {"max_worst", l.max_worst[i]},
          {"avg_link", l.mean_link[i]}};
}

nlohmann::json table4_json(const Table4Options& o, const std::vector<Table4Row>& rows,
                           double seconds, int threads) {
  nlohmann::json j = {{"analysis", "table4"},
                      {"paper", kPaper},
                      {"permutations", o.permutations},
                      {"seed", o.seed},
                      {"diversities", o.diversities},
                      {"seconds", seconds},
                      {"threads", threads},
                      {"assumptions", table4_assumptions(o)}};
  nlohmann::json out_rows = nlohmann::json::array();
  for (const Table4Row& r : rows) {
    nlohmann::json row = {{"endpoints", r.endpoints}};
    if (r.has_torus) {
      nlohmann::json t = load_json(r.torus, 0);
      t["dims"] = r.dims;
      t["paper_avg_link"] = r.torus_k_over_8();
      t["degrade_factor"] = r.degrade_factor();
      t["paper_degrade_factor"] = {kPaperDegradeLow, kPaperDegradeHigh};
      t["links"] = r.torus.links;
      t["streams_traced"] = r.torus.streams_traced;
      t["unroutable"] = r.torus.unroutable;
      t["seconds"] = r.torus.seconds + r.torus_tables_seconds;
      row["torus"] = t;
    }
    if (r.has_fat_tree) {
      nlohmann::json by_d = nlohmann::json::array();
      for (size_t i = 0; i < r.fat_tree.diversities.size(); ++i) {
        nlohmann::json d = load_json(r.fat_tree, i);
        d["paths"] = r.fat_tree.diversities[i];
        const std::optional<double> p = paper_fat_tree_worst(r.endpoints, d["paths"]);
        d["paper_avg_worst"] = p ? nlohmann::json(*p) : nlohmann::json(nullptr);
        by_d.push_back(d);
      }
      row["fat_tree"] = {{"model", r.fat_tree_model},
                         {"analysis_model", fat_tree_is_model(r.endpoints)},
                         {"links", r.fat_tree.links},
                         {"streams_traced", r.fat_tree.streams_traced},
                         {"unroutable", r.fat_tree.unroutable},
                         {"seconds", r.fat_tree.seconds + r.fat_tree_tables_seconds},
                         {"by_diversity", by_d}};
    }
    out_rows.push_back(row);
  }
  j["rows"] = out_rows;
  return j;
}

// ---- Table 2 ---------------------------------------------------------------

std::vector<std::string> table2_assumptions(const Table2Options& o) {
  return {
      fmt::format("Router delay tr = {} ns at every router crossed, both topologies (the "
                  "paper's footnote 3 estimate for YARC; as built YARC takes 31.25 ns: "
                  "--router-ns 31.25).",
                  o.router_ns),
      fmt::format("Packet L = {} bits (footnote 3: the average over read and write requests "
                  "and responses), serialized once (virtual cut-through), at the slowest link "
                  "of the path.",
                  o.packet_bits),
      fmt::format("Clos ports at {} Gb/s per direction (3 lanes x 6.25 Gb/s, the signalling "
                  "rate the paper's B = 2.4 Tb/s counts): L/b = {:.2f} ns.",
                  o.port_gbps, o.packet_bits / o.port_gbps),
      fmt::format("Port bandwidth held constant: the torus router has the YARC's {} x {} Gb/s "
                  "per direction over its {} ports (6 torus links and the processor's), {:.1f} "
                  "Gb/s each: L/b = {:.2f} ns.",
                  o.yarc_ports, o.port_gbps, o.torus_ports, table2_torus_port_gbps(o),
                  o.packet_bits / table2_torus_port_gbps(o)),
      fmt::format("Wires and cables: {} ns per link (the paper's figures include none: its "
                  "Clos column is exactly 2 tr log64(N) + L/b).",
                  o.wire_ns),
      fmt::format("Hop counts: every route between distinct endpoints (uniform random traffic) "
                  "traced through the programmed tables; above 2896 endpoints (unless --exact) "
                  "the full rows of a sample of sources drawn from seed {} (marked *, with a 95% "
                  "interval).",
                  o.sample_seed),
      "Clos: the fat tree of `analyze table4` (clos builder up to 1024 endpoints, the rank-3 "
      "analysis model above; not BlackWidow's R2.5 with sidelinks, which crosses 4 routers "
      "between R2 subtrees where this tree crosses 5).",
      "Torus: the XT3 configurations the paper used are not given; fabemu takes the shape "
      "closest to a cube (--torus-dims N=KXxKYxKZ to choose), one processor per router, T3E "
      "direction-order routes.",
  };
}

std::string latency_text(const Table2Network& n) {
  return fmt::format("{:.4f}{}", n.latency_us, n.exact ? " " : "*");
}

void write_table2(const std::vector<Table2Row>& rows, std::ostream& out) {
  out << fmt::format("\n  {:>9}  {:-^44}  {:-^47}\n", "", " folded Clos (radix 64) ",
                     " 3-D torus ");
  out << fmt::format("  {:>9}  {:>7} {:>8} {:>6} {:>7} {:>12}  {:<11} {:>7} {:>8} {:>6} {:>7}\n",
                     "endpoints", "routers", "fabemu", "paper", "diff", "paper model", "shape",
                     "routers", "fabemu", "paper", "diff");
  bool sampled = false;
  for (const Table2Row& r : rows) {
    auto paper = [](const std::optional<double>& p) {
      return p ? fmt::format("{:.3f}", *p) : std::string("-");
    };
    auto diff = [](const Table2Network& n, const std::optional<double>& p) {
      return p ? diff_text(n.latency_us, *p) : std::string("");
    };
    out << fmt::format(
        "  {:>9}  {:>7.3f} {:>8} {:>6} {:>7} {:>12.4f}  {:<11} {:>7.3f} {:>8} {:>6} {:>7}\n",
        r.endpoints, r.clos.avg_routers, latency_text(r.clos), paper(r.paper_clos_us),
        diff(r.clos, r.paper_clos_us), r.clos_formula_us, r.torus.shape, r.torus.avg_routers,
        latency_text(r.torus), paper(r.paper_torus_us), diff(r.torus, r.paper_torus_us));
    sampled = sampled || !r.clos.exact || !r.torus.exact;
  }
  out << "\n  Latencies in microseconds; routers: mean routers crossed. 'paper model' is the "
         "paper's Clos formula 2 tr log64(N) + L/b.\n";
  if (sampled) {
    std::string ci;
    for (const Table2Row& r : rows)
      for (const auto& [name, n] : {std::pair{"Clos", &r.clos}, std::pair{"torus", &r.torus}})
        if (!n->exact)
          ci += fmt::format("{}{} {} ±{:.1f} ps", ci.empty() ? "" : ", ", name, r.endpoints,
                            n->latency_ci95_us * 1e6);
    out << "  * the mean over a sample of sources (every destination of each); 95% intervals: "
        << ci << "\n";
  }
  out << "\n  Clos trees:\n";
  for (const Table2Row& r : rows) out << fmt::format("  {:>9}  {}\n", r.endpoints, r.clos.shape);
}

nlohmann::json network_json(const Table2Network& n, const std::optional<double>& paper) {
  return {{"shape", n.shape},
          {"avg_routers", n.avg_routers},
          {"latency_us", n.latency_us},
          {"latency_ci95_us", n.latency_ci95_us},
          {"exact", n.exact},
          {"paper_latency_us", paper ? nlohmann::json(*paper) : nlohmann::json(nullptr)},
          {"seconds", n.seconds}};
}

}  // namespace

bool parse_sizes(const std::vector<std::string>& items, std::vector<int>* sizes, std::string* why) {
  sizes->clear();
  for (const std::string& item : items) {
    size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used && used + 1 == item.size() && std::toupper(item[used]) == 'K') {
      n *= 1024;
      ++used;
    }
    if (!used || used != item.size() || n <= 0 || n > (1 << 30)) {
      *why = fmt::format("--sizes: '{}' is not a size: give endpoint counts such as 512 or 32K",
                         printable(item));
      return false;
    }
    sizes->push_back(static_cast<int>(n));
  }
  return true;
}

bool parse_torus_dims(const std::vector<std::string>& items,
                      std::map<int, std::array<int, 3>>* dims, std::string* why) {
  for (const std::string& item : items) {
    std::array<int, 3> d{};
    char x1 = 0, x2 = 0;
    int used = 0;
    const size_t eq = item.find('=');
    std::vector<int> size;
    if (eq == std::string::npos || !parse_sizes({item.substr(0, eq)}, &size, why) ||
        std::sscanf(item.c_str() + eq + 1, "%d%c%d%c%d%n", &d[0], &x1, &d[1], &x2, &d[2], &used) !=
            5 ||
        std::tolower(x1) != 'x' || std::tolower(x2) != 'x' ||
        static_cast<size_t>(used) != item.size() - eq - 1) {
      *why = fmt::format("--torus-dims: '{}' is not SIZE=KXxKYxKZ: give for example 576=8x8x9",
                         printable(item));
      return false;
    }
    (*dims)[size[0]] = d;
  }
  return true;
}

int analyze_table4_command(const Table4Options& given, const AnalyzeRun& run, std::ostream& out,
                           std::ostream& err) {
  Table4Options o = given;
  std::vector<Table4Row> rows;
  double seconds = 0;
  if (!compute_rows("table4", "streams", table4_options_problem(o), run_table4, run, o, err, &rows,
                    &seconds))
    return kExitUsage;

  std::ostream& human = text_stream(run.json_out, out, err);
  human << fmt::format("fabemu analyze table4: Table 4 of {}\n", kPaper);
  human << fmt::format(
      "Average worst-case link utilisation over {} random permutations (seed {}), in units of "
      "the injection bandwidth\n",
      o.permutations, o.seed);
  if (o.torus) write_torus_rows(rows, human);
  if (o.fat_tree) write_fat_tree_rows(rows, rows.front().fat_tree.diversities, human);
  write_footer(human, table4_assumptions(o), seconds, run);

  uint64_t unroutable = 0;
  for (const Table4Row& r : rows) unroutable += r.torus.unroutable + r.fat_tree.unroutable;
  if (unroutable) err << "fabemu analyze table4: " << unroutable << " streams were unroutable\n";
  if (!run.json_out.empty() &&
      !write_json(table4_json(o, rows, seconds, threads_used(run)), run.json_out, out, err))
    return kExitRunFailed;
  return unroutable ? kExitRunFailed : kExitOk;
}

int analyze_table2_command(const Table2Options& given, const AnalyzeRun& run, std::ostream& out,
                           std::ostream& err) {
  Table2Options o = given;
  std::vector<Table2Row> rows;
  double seconds = 0;
  if (!compute_rows("table2", "routes", table2_options_problem(o), run_table2, run, o, err, &rows,
                    &seconds))
    return kExitUsage;

  std::ostream& human = text_stream(run.json_out, out, err);
  human << fmt::format("fabemu analyze table2: Table 2 of {}\n", kPaper);
  human << "Zero-load latency under uniform random traffic, folded Clos vs 3-D torus, BlackWidow "
           "technology, router bandwidth held constant\n";
  write_table2(rows, human);
  const std::vector<std::string> assumptions = table2_assumptions(o);
  write_footer(human, assumptions, seconds, run);

  if (run.json_out.empty()) return kExitOk;
  nlohmann::json j = {{"analysis", "table2"},
                      {"paper", kPaper},
                      {"router_ns", o.router_ns},
                      {"packet_bits", o.packet_bits},
                      {"clos_port_gbps", o.port_gbps},
                      {"torus_port_gbps", table2_torus_port_gbps(o)},
                      {"wire_ns", o.wire_ns},
                      {"sample_seed", o.sample_seed},
                      {"seconds", seconds},
                      {"threads", threads_used(run)},
                      {"assumptions", assumptions}};
  nlohmann::json out_rows = nlohmann::json::array();
  for (const Table2Row& r : rows) {
    nlohmann::json c = network_json(r.clos, r.paper_clos_us);
    c["paper_formula_us"] = r.clos_formula_us;
    out_rows.push_back({{"endpoints", r.endpoints},
                        {"clos", c},
                        {"torus", network_json(r.torus, r.paper_torus_us)}});
  }
  j["rows"] = out_rows;
  return write_json(j, run.json_out, out, err) ? kExitOk : kExitRunFailed;
}

}  // namespace fabemu
