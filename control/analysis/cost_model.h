// The flattened butterfly paper's cost and power model (Kim, Dally & Abts,
// ISCA 2007: section 4, Tables 2 and 3; section 5.3, Table 5) applied to
// the four topologies of its Figure 6 (conventional butterfly, folded Clos,
// hypercube, flattened butterfly) at N = 64 to 32K nodes, as
// `fabemu analyze cost` prints it.
//
// Every figure is a sum over the network's routers and channels (one
// direction of a link): a router costs the chip and its share of the
// development; a channel costs its signals (pairs per port) at the price of
// where it runs in the packaging: backplane inside a cabinet, a short cable
// between the two cabinets of a pair, a global cable of the topology's
// average length E/3, E/4 or (E - 1)/log2 E plus the 2 m overhead, E the
// edge sqrt(N/D) of the machine room. The counts come from the topology
// builders (flatfly/hypercube: build_ghc; folded Clos: build_fat_tree);
// the butterfly has no builder and is counted by its formula.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabemu {

// The paper's technology: Tables 2, 3 and 5 and their footnotes.
struct CostTechnology {
  // Table 2, per router: the chip (MPR cost model, TSMC 0.13 um, 17x17 mm)
  // and the $6M development amortized over 20k parts.
  double router_chip = 90;
  double development_total = 6e6;
  double development_parts = 20e3;
  // Table 2, per differential signal at 6 Gb/s: footnote 4's $3000 backplane
  // of 1536 signals, the electrical cable's fitted line, the optical cable
  // (listed; the paper's analysis uses electrical cables with repeaters).
  double backplane_cost = 3000;
  double backplane_signals = 1536;
  double cable_fixed = 3.72;  // $ per signal
  double cable_per_m = 0.81;  // $ per signal per metre
  double optical = 220;
  // Table 3.
  int radix = 64;
  int pairs_per_port = 3;  // differential signals per channel (one direction)
  int nodes_per_cabinet = 128;
  double cabinet_width_m = 0.57, cabinet_depth_m = 1.44;
  double density = 75;          // D, nodes per m^2
  double cable_overhead_m = 2;  // 1 m of vertical run at each end
  double short_cable_m = 2;     // "routers within 2m": the $5.34 cable
  // Table 5, watts: the router's switch, a signal driven by a SerDes that
  // can drive a global cable over a global cable (gg) or a local link
  // (gl), and by a dedicated backplane SerDes (ll).
  double p_switch = 40, p_link_gg = 0.2, p_link_gl = 0.16, p_link_ll = 0.04;

  double router_cost() const { return router_chip + development_total / development_parts; }
  double backplane_signal() const { return backplane_cost / backplane_signals; }
  double cable_signal(double metres) const { return cable_fixed + cable_per_m * metres; }
  // 128 nodes on a footprint with its depth doubled for the aisles.
  double footprint_density() const {
    return nodes_per_cabinet / (cabinet_width_m * 2 * cabinet_depth_m);
  }
};

enum class CostTopology { butterfly, folded_clos, hypercube, flattened_butterfly };
inline constexpr std::array<CostTopology, 4> kCostTopologies = {
    CostTopology::butterfly, CostTopology::folded_clos, CostTopology::hypercube,
    CostTopology::flattened_butterfly};
const char* cost_topology_name(CostTopology t);

// One topology at one size. Channels are one direction of a link.
struct CostNetwork {
  CostTopology topology = CostTopology::butterfly;
  std::string shape;   // "2 stages of 16 routers (64 in, 64 out)", "13-ary 3-flat, 158 routers"
  bool built = false;  // counted on the topology builder's fabric
  double routers = 0;  // router chips (hypercube: its pin-scaled routers)
  double router_scale = 1;         // a router's cost and switch power over the radix-64 chip's
  double signals_per_channel = 0;  // router-to-router channels; terminal channels: pairs_per_port
  double terminal_channels = 0;    // node to router and back, all on the backplane
  double backplane_channels = 0, short_channels = 0, global_channels = 0;
  double global_avg_m = 0;  // L_avg of a global cable, without the overhead (Figure 10(b))
  // Dollars per node.
  double router_cost = 0, terminal_cost = 0, link_cost = 0;
  double power_w = 0;  // watts per node
  double cost() const { return router_cost + terminal_cost + link_cost; }
  // Figure 10(a): links (terminal links included) over the network's cost.
  double link_fraction() const { return (terminal_cost + link_cost) / cost(); }
  double channels_per_node(int nodes) const {
    return (backplane_channels + short_channels + global_channels) / nodes;
  }
};

struct CostRow {
  int nodes = 0;
  int cabinets = 0;
  double edge_m = 0;               // E = sqrt(N / D)
  std::array<CostNetwork, 4> net;  // in kCostTopologies order
  const CostNetwork& of(CostTopology t) const { return net[static_cast<int>(t)]; }
};

struct CostOptions {
  std::vector<int> sizes{256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  CostTechnology tech;
};

// A statement of the paper's text with a figure in it, beside the model's.
struct CostClaim {
  std::string what;                      // "flattened butterfly vs folded Clos, cost, N = 4K"
  std::string where;                     // "section 4.3"
  std::string paper;                     // as the paper says it: "about 53", "35-38", "> 40", "yes"
  double paper_low = 0, paper_high = 0;  // what counts as agreeing with it
  double ours_low = 0, ours_high = 0;    // the model's figure (a range over sizes)
  std::string unit;                      // "%", "$", "$/node", "channels", "yes/no"
  std::string note;                      // why they differ, when they do
  bool matches() const { return ours_low >= paper_low - 1e-9 && ours_high <= paper_high + 1e-9; }
};

// "" when the options are fine, else what is wrong and what to do.
std::string cost_options_problem(const CostOptions& opts);

std::vector<CostRow> run_cost(const CostOptions& opts);

// The paper's statements the rows can be held against (those whose sizes
// are in the rows).
std::vector<CostClaim> cost_claims(const CostOptions& opts, const std::vector<CostRow>& rows);

// The flattened butterfly the model builds for N nodes: n' the smallest
// with floor(radix / (n' + 1))^(n' + 1) >= N (section 5.1.2), k the
// smallest with k^(n' + 1) >= N, k nodes per router.
struct FlatflyCostShape {
  int n_prime = 1, k = 2;
  int routers = 0;  // ceil(N / k): the first routers of the k-ary (n'+1)-flat
};
FlatflyCostShape flatfly_cost_shape(int nodes, int radix);

}  // namespace fabemu
