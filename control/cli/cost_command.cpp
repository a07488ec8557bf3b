// `fabemu analyze cost`: the flattened butterfly paper's cost (section 4,
// Tables 2 and 3) and power (section 5.3, Table 5) of its Figure 6
// topologies, the paper's stated figures beside the model's, and every
// assumption (control/analysis/cost_model.h).
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "control/analysis/cost_model.h"
#include "control/cli/analyze_command.h"
#include "control/cli/cli.h"
#include "control/cli/output.h"

namespace fabemu {

namespace {

constexpr const char* kPaper =
    "Kim, Dally & Abts, \"Flattened Butterfly: A Cost-Efficient Topology for High-Radix "
    "Networks\", ISCA 2007";

std::vector<std::string> cost_assumptions(const CostTechnology& t) {
  return {
      fmt::format(
          "Prices (Table 2): a router ${:.0f} = ${:.0f} chip + ${:.0f}M development over {:.0f}k "
          "parts; a signal ${:.2f} on a backplane (${:.0f} for {:.0f} signals) and ${:.2f} + "
          "${:.2f}/m on an electrical cable, linear at every length (Figure 7(b): repeaters past "
          "6 m are in the line); optical cables (${:.0f}) unused, as in the paper's analysis.",
          t.router_cost(), t.router_chip, t.development_total / 1e6, t.development_parts / 1e3,
          t.backplane_signal(), t.backplane_cost, t.backplane_signals, t.cable_fixed, t.cable_per_m,
          t.optical),
      fmt::format("Channels: one direction of a link, {} differential signals (Table 3: pairs per "
                  "port), priced per signal; a link is two channels, as section 4.3 counts the "
                  "1K folded Clos's 2048.",
                  t.pairs_per_port),
      "Random bisection bandwidth held constant (uniform random traffic at full injection "
      "bandwidth in each): full-width channels, except the hypercube's at half width (N/2 "
      "cross its bisection where N/4 cross the flattened butterfly's); the folded Clos is a "
      "full fat tree (32 up, 32 down).",
      "Processor links: every node has one link (2 channels) to its router, on the backplane "
      "of its cabinet, in every topology.",
      fmt::format(
          "Packaging (Table 3, section 4.2): {} nodes per cabinet, node i in cabinet i/{}; "
          "E = sqrt(N/D), D = {:.0f} nodes/m2. Channels between routers in one cabinet are on "
          "its backplane (every channel when N <= {}); the flattened butterfly's between the two "
          "cabinets of a pair (2j, 2j+1) are {:.0f} m cables (its dimension-1 subsystem of two "
          "cabinets, Figure 8); every other channel is a global cable of L_avg + {:.0f} m: E/3 "
          "(butterfly, flattened butterfly), E/4 (folded Clos, central router cabinet), "
          "(E-1)/log2 E (hypercube). Cost is linear in length, so L_avg prices every cable.",
          t.nodes_per_cabinet, t.nodes_per_cabinet, t.density, t.nodes_per_cabinet, t.short_cable_m,
          t.cable_overhead_m),
      fmt::format(
          "Butterfly (no fabemu builder, counted by formula): ceil(log{} N) stages of "
          "ceil(N/{}) routers, {} in and {} out each; its inter-stage channels are all global. "
          "Figure 6's 1K butterfly of 2 x 32 radix-32 routers packs into the same 32 chips and "
          "1024 channels.",
          t.radix, t.radix, t.radix, t.radix),
      fmt::format("Folded Clos: fabemu's radix-{} fat tree (fat_tree_model.h; rank 2 up to 1K, "
                  "rank 3 above: the paper's extra stage from 1K to 2K); its virtual routers "
                  "packed into chips, ceil(ports/{}) per rank.",
                  t.radix, t.radix),
      fmt::format("Hypercube: fabemu's hypercube builder, one router per node, priced and "
                  "powered by its pins (footnote 10): ({} + {:.1f} n)/{} of a radix-{} router.",
                  t.pairs_per_port, t.pairs_per_port / 2.0, t.radix * t.pairs_per_port, t.radix),
      fmt::format(
          "Flattened butterfly: n' the smallest with floor({}/(n'+1))^(n'+1) >= N (section "
          "5.1.2), k the smallest with k^(n'+1) >= N, k nodes per router; the routers are the "
          "first ceil(N/k) of fabemu's k-ary (n'+1)-flat (build_ghc): the flatfly builder's own "
          "when N = k^(n'+1), partly populated otherwise (Figure 14(b)), without redundant "
          "channels.",
          t.radix),
      fmt::format(
          "Power (Table 5): {:.0f} W per router chip (pin-scaled for the hypercube); one SerDes "
          "per signal: {:.0f} mW on a global cable, {:.0f} mW on a short cable or on a local "
          "link of an indirect network (butterfly, folded Clos: their SerDes must drive global "
          "cables), {:.0f} mW on the backplane for the dedicated local SerDes of the direct "
          "ones (hypercube, flattened butterfly); processor links included.",
          t.p_switch, t.p_link_gg * 1e3, t.p_link_gl * 1e3, t.p_link_ll * 1e3),
      "The paper's Figures 10, 11, 13 and 15 are captions only in our copy: compared are the "
      "figures its text states.",
  };
}

double saving_percent(double a, double b) { return 100 * (1 - a / b); }

std::string size_text(int n) {
  return n % 1024 ? fmt::format("{}", n) : fmt::format("{}K", n / 1024);
}

void write_by_topology(const std::vector<CostRow>& rows, std::ostream& out, const char* title,
                       const char* fmt_cell, double (*fig)(const CostNetwork&),
                       double (*extra)(const CostRow&), const char* extra_head) {
  out << "\n" << title << "\n";
  out << fmt::format("  {:>6} {:>9} {:>12} {:>10} {:>11}  {}\n", "nodes", "butterfly",
                     "folded Clos", "hypercube", "flat. bfly", extra_head);
  for (const CostRow& r : rows) {
    std::string line = fmt::format("  {:>6}", size_text(r.nodes));
    const int widths[] = {9, 12, 10, 11};
    for (int i = 0; i < 4; ++i)
      line += fmt::format(" {:>{}}", fmt::format(fmt::runtime(fmt_cell), fig(r.net[i])), widths[i]);
    out << line << fmt::format("  {:>8.1f}%\n", extra(r));
  }
}

void write_networks(const std::vector<CostRow>& rows, std::ostream& out) {
  out << "\nNetworks: router chips; channels per node on backplane / short cable / global cable; "
         "L_avg of a global cable without the 2 m overhead\n";
  for (const CostRow& r : rows) {
    out << fmt::format("  {:>6}  {} cabinet{}, E = {:.2f} m\n", size_text(r.nodes), r.cabinets,
                       r.cabinets == 1 ? "" : "s", r.edge_m);
    for (const CostNetwork& n : r.net)
      out << fmt::format("          {:<20} {:>7.0f} {:>5.2f} / {:.2f} / {:.2f}  {:>5.2f} m  {}\n",
                         cost_topology_name(n.topology), n.routers, n.backplane_channels / r.nodes,
                         n.short_channels / r.nodes, n.global_channels / r.nodes, n.global_avg_m,
                         n.shape);
  }
}

std::string figure_text(double lo, double hi, const std::string& unit) {
  if (unit == "yes/no") return lo == hi ? (lo > 0 ? "yes" : "no") : "mixed";
  const int digits = unit == "$" && lo < 10 ? 3 : 1;
  return lo == hi ? fmt::format("{:.{}f}", lo, digits)
                  : fmt::format("{:.{}f}-{:.{}f}", lo, digits, hi, digits);
}

void write_claims(const std::vector<CostClaim>& claims, std::ostream& out) {
  out << "\nThe paper's figures beside the model's\n";
  out << fmt::format("  {:<62} {:<26} {:>9} {:>11} {:<8} {}\n", "", "where", "paper", "fabemu",
                     "unit", "");
  int differ = 0;
  for (const CostClaim& c : claims) {
    const bool ok = c.matches();
    differ += !ok;
    out << fmt::format("  {:<62} {:<26} {:>9} {:>11} {:<8} {}\n", c.what, c.where, c.paper,
                       figure_text(c.ours_low, c.ours_high, c.unit), c.unit,
                       ok ? "agrees" : "DIFFERS");
    if (!ok && !c.note.empty()) out << fmt::format("      why: {}\n", c.note);
  }
  out << fmt::format("  {} of {} agree.\n", claims.size() - differ, claims.size());
}

nlohmann::json network_json(const CostNetwork& n) {
  return {{"topology", cost_topology_name(n.topology)},
          {"shape", n.shape},
          {"built", n.built},
          {"routers", n.routers},
          {"router_scale", n.router_scale},
          {"signals_per_channel", n.signals_per_channel},
          {"terminal_channels", n.terminal_channels},
          {"backplane_channels", n.backplane_channels},
          {"short_channels", n.short_channels},
          {"global_channels", n.global_channels},
          {"global_avg_m", n.global_avg_m},
          {"router_cost_per_node", n.router_cost},
          {"terminal_cost_per_node", n.terminal_cost},
          {"link_cost_per_node", n.link_cost},
          {"cost_per_node", n.cost()},
          {"link_fraction", n.link_fraction()},
          {"power_w_per_node", n.power_w}};
}

nlohmann::json cost_json(const CostOptions& o, const std::vector<CostRow>& rows,
                         const std::vector<CostClaim>& claims, double seconds) {
  nlohmann::json j = {{"analysis", "cost"},
                      {"paper", kPaper},
                      {"seconds", seconds},
                      {"assumptions", cost_assumptions(o.tech)}};
  nlohmann::json rs = nlohmann::json::array();
  for (const CostRow& r : rows) {
    nlohmann::json nets = nlohmann::json::array();
    for (const CostNetwork& n : r.net) nets.push_back(network_json(n));
    rs.push_back(
        {{"nodes", r.nodes}, {"cabinets", r.cabinets}, {"edge_m", r.edge_m}, {"networks", nets}});
  }
  j["rows"] = rs;
  nlohmann::json cs = nlohmann::json::array();
  for (const CostClaim& c : claims)
    cs.push_back({{"what", c.what},
                  {"where", c.where},
                  {"paper", c.paper},
                  {"paper_low", c.paper_low},
                  {"paper_high", c.paper_high},
                  {"ours_low", c.ours_low},
                  {"ours_high", c.ours_high},
                  {"unit", c.unit},
                  {"agrees", c.matches()},
                  {"note", c.note}});
  j["claims"] = cs;
  return j;
}

}  // namespace

int analyze_cost_command(const CostOptions& o, const AnalyzeRun& run, std::ostream& out,
                         std::ostream& err) {
  if (const std::string why = run_problem(run, cost_options_problem(o)); !why.empty()) {
    err << "fabemu analyze cost: " << why << "\n";
    return kExitUsage;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<CostRow> rows;
  try {
    rows = run_cost(o);
  } catch (const std::exception& e) {
    err << "fabemu analyze cost: " << e.what() << "\n";
    return kExitRunFailed;
  }
  const std::vector<CostClaim> claims = cost_claims(o, rows);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::ostream& human = text_stream(run.json_out, out, err);
  human << fmt::format("fabemu analyze cost: sections 4 and 5.3 (Tables 2, 3, 5) of {}\n", kPaper);
  human << "The four topologies of Figure 6 with radix-64 routers at equal random bisection "
           "bandwidth, priced and powered per node\n";
  write_by_topology(
      rows, human, "Cost per node, $ (Figure 11)", "{:.1f}",
      [](const CostNetwork& n) { return n.cost(); },
      [](const CostRow& r) {
        return saving_percent(r.of(CostTopology::flattened_butterfly).cost(),
                              r.of(CostTopology::folded_clos).cost());
      },
      "flat. bfly saves over Clos");
  write_by_topology(
      rows, human, "Power per node, W (Figure 15)", "{:.3f}",
      [](const CostNetwork& n) { return n.power_w; },
      [](const CostRow& r) {
        return saving_percent(r.of(CostTopology::flattened_butterfly).power_w,
                              r.of(CostTopology::folded_clos).power_w);
      },
      "flat. bfly saves over Clos");
  write_by_topology(
      rows, human, "Links' share of the cost, % (Figure 10(a))", "{:.1f}",
      [](const CostNetwork& n) { return 100 * n.link_fraction(); },
      [](const CostRow& r) {
        return 100 * r.of(CostTopology::flattened_butterfly).terminal_cost /
               r.of(CostTopology::flattened_butterfly).cost();
      },
      "processor links' share of flat. bfly");
  write_networks(rows, human);
  write_claims(claims, human);
  AnalyzeRun one_thread = run;  // the model is a few sums: it runs on the calling thread
  one_thread.threads = 1;
  write_footer(human, cost_assumptions(o.tech), seconds, one_thread);
  if (!run.json_out.empty() &&
      !write_json(cost_json(o, rows, claims, seconds), run.json_out, out, err))
    return kExitRunFailed;
  return kExitOk;
}

}  // namespace fabemu
