// fabemu analyze t3e: the Cray T3E paper's Table 4 and Figures 7 and 8
// (control/analysis/t3e_figures.h), fabemu's figure beside the paper's where
// its text gives one, then the assumptions.
#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "control/analysis/t3e_figures.h"
#include "control/cli/analyze_command.h"
#include "control/cli/cli.h"
#include "control/cli/output.h"

namespace fabemu {

namespace {

constexpr const char* kT3ePaper =
    "Scott & Thorson, \"The Cray T3E Network: Adaptive Routing in a High Performance 3D Torus\", "
    "Hot Interconnects IV, 1996";

std::string pct(double ours, double paper) {
  return paper > 0 ? fmt::format("{:+.1f}%", 100.0 * (ours / paper - 1.0)) : std::string("-");
}

std::vector<std::string> t3e_assumptions(const T3eFigures& f) {
  return {
      fmt::format("Link peak {:.0f} MB/s: one 64-bit word per flit time ({:.2f} ns: 70 bits at "
                  "14 x 375 Mb/s), the profile's link; the paper's 600 MB/s.",
                  f.link_peak_mbps, f.flit_ns),
      "Table 4: one-way, a link carries only the packets holding the words (a Get's responses, "
      "a Put's requests; the other packets use the reverse link); symmetrical, requests and "
      "responses share it. Lengths from Table 3 (dataplane/codec/t3e_packets.h). "
      "tests/system/t3e_table4.sh measures the same by runs at saturation.",
      "Figure 7: round trip = twice the delay from the input of the source node's router to "
      "the input of the destination's control chip: the sum of Table 2's fall-through of every "
      "router crossed (end-point 133 ns at the source and destination routers, 40 ns straight, "
      "80 ns turning), routes traced through the direction-order tables for every ordered pair "
      "of distinct nodes (uniform random destinations); no serialization, memory or PE time.",
      "Figure 8: per-processor global bandwidth = min(2 x bisection bandwidth / N, the port's "
      "peak x N / (N-1)): twice the bisection divided by the nodes (the paper's rule), and the "
      "processor port, which (N-1)/N of a PE's packets cross. Bisection: the narrowest cut of "
      "the torus (both wrap-around halves), both directions, at the link peak.",
      "Sizes: powers of two from 8 to 2048 nodes with X and Z at most 8 and Y up to 32 (the "
      "machine's packaging; the paper names 8x32x8 as the limit, its smaller shapes are "
      "fabemu's choice: 2x2x2, 2x4x2, 4x4x2, 4x4x4, 4x8x4, 8x8x4, 8x8x8, 8x16x8, 8x32x8).",
      "The paper's values: Table 4 as printed; Figures 7 and 8 are plots whose points our copy "
      "of the text does not give: compared are the statements of its text (the bisection "
      "bandwidth fixed at 153.6 GB/s from 512 nodes up, the port the bottleneck up to 64 nodes, "
      "port and links equally used from 128 to 512, the Y dimension beyond).",
  };
}

nlohmann::json t3e_json(const T3eFigures& f, double seconds, int threads) {
  nlohmann::json j = {{"analysis", "t3e"},
                      {"paper", kT3ePaper},
                      {"link_peak_mbps", f.link_peak_mbps},
                      {"flit_ns", f.flit_ns},
                      {"seconds", seconds},
                      {"threads", threads},
                      {"assumptions", t3e_assumptions(f)}};
  nlohmann::json t4 = nlohmann::json::array();
  for (const T3eTable4Row& r : f.table4)
    t4.push_back({{"type", r.type},
                  {"paper_name", r.paper_name},
                  {"request_flits", r.request_flits},
                  {"response_flits", r.response_flits},
                  {"payload_words", r.payload_words},
                  {"one_way_mbps", r.one_way_mbps},
                  {"one_way_efficiency", r.one_way_efficiency},
                  {"paper_one_way_mbps", r.paper_one_way_mbps},
                  {"symmetrical_mbps", r.symmetrical_mbps},
                  {"symmetrical_efficiency", r.symmetrical_efficiency},
                  {"paper_symmetrical_mbps", r.paper_symmetrical_mbps}});
  j["table4"] = t4;
  nlohmann::json sizes = nlohmann::json::array();
  for (const T3eSizeRow& r : f.sizes)
    sizes.push_back(
        {{"nodes", r.nodes},
         {"dims", r.dims},
         {"avg_hops", r.avg_hops},
         {"avg_round_trip_ns", r.avg_round_trip_ns},
         {"max_round_trip_ns", r.max_round_trip_ns},
         {"bisection_links", r.bisection_links},
         {"bisection_gbps", r.bisection_gbps},
         {"paper_bisection_gbps",
          r.nodes >= 512 ? nlohmann::json(kT3ePaperMaxBisectionGbps) : nlohmann::json(nullptr)},
         {"network_limit_mbps", r.network_limit_mbps},
         {"port_limit_mbps", r.port_limit_mbps},
         {"per_processor_mbps", r.per_processor_mbps},
         {"bottleneck", r.bottleneck}});
  j["sizes"] = sizes;
  return j;
}

void write_t3e(const T3eFigures& f, std::ostream& out) {
  out << "\nTable 4. Payload bandwidth (MB/s), payload efficiency in parentheses\n";
  out << fmt::format("  {:<17} {:>5} {:>5}  {:>12} {:>12} {:>6}  {:>12} {:>12} {:>6}\n", "type",
                     "req", "resp", "one-way", "paper", "diff", "symmetrical", "paper", "diff");
  for (const T3eTable4Row& r : f.table4)
    out << fmt::format(
        "  {:<17} {:>5} {:>5}  {:>5.0f} ({:>3.0f}%) {:>5.0f} ({:>3.0f}%) {:>6}  "
        "{:>5.0f} ({:>3.0f}%) {:>5.0f} ({:>3.0f}%) {:>6}\n",
        r.paper_name, r.request_flits, r.response_flits, r.one_way_mbps, 100 * r.one_way_efficiency,
        r.paper_one_way_mbps, 100 * r.paper_one_way_mbps / kT3ePaperLinkPeakMbps,
        pct(r.one_way_mbps, r.paper_one_way_mbps), r.symmetrical_mbps,
        100 * r.symmetrical_efficiency, r.paper_symmetrical_mbps,
        100 * r.paper_symmetrical_mbps / kT3ePaperLinkPeakMbps,
        pct(r.symmetrical_mbps, r.paper_symmetrical_mbps));
  out << "  (req, resp: Table 3's lengths in flits)\n";
  if (f.sizes.empty()) return;
  out << "\nFigure 7. Round-trip network latency (ns), uniformly random destinations\n";
  out << fmt::format("  {:>5}  {:<8} {:>8} {:>10} {:>10}\n", "nodes", "shape", "avg hops",
                     "average", "maximum");
  for (const T3eSizeRow& r : f.sizes)
    out << fmt::format("  {:>5}  {:<8} {:>8.3f} {:>10.1f} {:>10.1f}\n", r.nodes,
                       fmt::format("{}x{}x{}", r.dims[0], r.dims[1], r.dims[2]), r.avg_hops,
                       r.avg_round_trip_ns, r.max_round_trip_ns);
  out << "\nFigure 8. Per-processor global bandwidth (MB/s)\n";
  out << fmt::format("  {:>5}  {:<8} {:>9} {:>10} {:>7}  {:>9} {:>8} {:>9}  {:<10}\n", "nodes",
                     "shape", "bisection", "paper", "diff", "2B/N", "port", "per PE", "bottleneck");
  for (const T3eSizeRow& r : f.sizes) {
    const bool stated = r.nodes >= 512;
    out << fmt::format(
        "  {:>5}  {:<8} {:>5.1f} GB/s {:>10} {:>7}  {:>9.1f} {:>8.1f} {:>9.1f}  {:<10}\n", r.nodes,
        fmt::format("{}x{}x{}", r.dims[0], r.dims[1], r.dims[2]), r.bisection_gbps,
        stated ? fmt::format("{:.1f} GB/s", kT3ePaperMaxBisectionGbps) : std::string("-"),
        stated ? pct(r.bisection_gbps, kT3ePaperMaxBisectionGbps) : std::string(""),
        r.network_limit_mbps, r.port_limit_mbps, r.per_processor_mbps, r.bottleneck);
  }
  out << "  (bisection both directions; 2B/N: twice the bisection over the nodes; port: the\n"
         "   processor port's peak over the (N-1)/N of packets that cross it)\n";
}

}  // namespace

int analyze_t3e_command(const std::vector<std::array<int, 3>>& dims, const AnalyzeRun& run,
                        std::ostream& out, std::ostream& err) {
  for (const auto& d : dims)
    if (int64_t(d[0]) * d[1] * d[2] < 2) {
      err << fmt::format(
          "fabemu analyze t3e: --dims {}x{}x{} is one node, which has no routes: "
          "give a shape of at least 2 nodes\n",
          d[0], d[1], d[2]);
      return kExitUsage;
    }
  if (const std::string why = run_problem(run, ""); !why.empty()) {
    err << "fabemu analyze t3e: " << why << "\n";
    return kExitUsage;
  }
  const auto t0 = std::chrono::steady_clock::now();
  T3eFigures f;
  tbb::task_arena arena(run.threads > 0 ? run.threads : tbb::task_arena::automatic);
  try {
    arena.execute([&] { f = run_t3e_figures(dims); });
  } catch (const std::exception& e) {
    err << "fabemu analyze t3e: " << e.what() << "\n";
    return kExitRunFailed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ostream& human = text_stream(run.json_out, out, err);
  human << fmt::format("fabemu analyze t3e: Table 4 and Figures 7-8 of {}\n", kT3ePaper);
  write_t3e(f, human);
  write_footer(human, t3e_assumptions(f), seconds, run);
  if (!run.json_out.empty() &&
      !write_json(t3e_json(f, seconds, threads_used(run)), run.json_out, out, err))
    return kExitRunFailed;
  return kExitOk;
}

}  // namespace fabemu
