#include "control/analysis/cost_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "control/analysis/fat_tree_model.h"
#include "control/spec/spec_loader.h"
#include "control/topology/flatfly.h"
#include "control/topology/hypercube.h"

namespace fabemu {

namespace {

constexpr int kMinNodes = 64;
constexpr int kMaxNodes = 32768;  // the builders' reach (15-bit destinations)
// The hypercube's channels carry half a port's signals: N/2 of them cross
// its bisection one way where N/4 cross the flattened butterfly's, and the
// paper holds the random bisection bandwidth constant (hypercube-10.yaml
// runs them at half rate for the same reason).
constexpr double kHypercubeChannelWidth = 0.5;

bool direct(CostTopology t) {
  return t == CostTopology::hypercube || t == CostTopology::flattened_butterfly;
}

int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

// Section 4.2: the average global cable, without the overhead.
double global_avg_m(CostTopology t, double edge) {
  switch (t) {
    case CostTopology::folded_clos:
      return edge / 4;  // to a central router cabinet: L_max = E/2, L_avg = L_max/2
    case CostTopology::hypercube:
      return edge > 1 ? (edge - 1) / std::log2(edge) : 0;  // E/2, E/4, ...: geometric
    default:
      return edge / 3;  // butterfly and flattened butterfly: L_max = E, L_avg = E/3
  }
}

// Router-to-router channels of routers [0, used) of f, by packaging: node of
// router r is r * conc; the same cabinet is backplane, the other cabinet of
// its pair a short cable (when `pairs`), anything else a global cable.
void package_channels(const Fabric& f, int used, int conc, int per_cabinet, bool pairs,
                      CostNetwork* n) {
  for (int r = 0; r < used; ++r)
    for (const FabricPort& p : f.routers[r].ports) {
      if (p.peer_router < 0 || p.peer_router >= used) continue;
      const int a = r * conc / per_cabinet, b = p.peer_router * conc / per_cabinet;
      if (a == b)
        n->backplane_channels += 1;
      else if (pairs && a / 2 == b / 2)
        n->short_channels += 1;
      else
        n->global_channels += 1;
    }
}

void butterfly(int nodes, const CostTechnology& t, CostNetwork* n) {
  int stages = 1;
  for (int64_t reach = t.radix; reach < nodes; reach *= t.radix) ++stages;
  const int per_stage = ceil_div(nodes, t.radix);
  n->routers = double(stages) * per_stage;
  n->global_channels = double(stages - 1) * nodes;
  n->shape = fmt::format("{}-stage butterfly, {} routers per stage ({} in, {} out)", stages,
                         per_stage, t.radix, t.radix);
}

void folded_clos(int nodes, const CostTechnology& t, CostNetwork* n) {
  const Fabric f = build_fat_tree(fat_tree_spec(profile_defaults("yarc"), nodes), nodes);
  // Ports by rank; the rank-2 and rank-3 routers of the builder are virtual
  // routers (half a YARC): chips are the ports a rank uses over the radix.
  std::vector<int64_t> ports;
  for (const FabricRouter& r : f.routers) {
    if (static_cast<size_t>(r.rank) >= ports.size()) ports.resize(r.rank + 1, 0);
    for (const FabricPort& p : r.ports) {
      ports[r.rank] += p.connected();
      n->global_channels += p.peer_router >= 0;
    }
  }
  for (int64_t p : ports) n->routers += ceil_div(p, t.radix);
  n->built = true;
  n->shape = fat_tree_description(nodes);
}

void hypercube(int nodes, const CostTechnology& t, CostNetwork* n) {
  Spec spec = profile_defaults("flatfly");
  spec.topology.n = static_cast<int>(std::lround(std::log2(nodes)));
  spec.topology.endpoints_per_router = 1;
  const Fabric f = build_hypercube(spec);
  package_channels(f, nodes, 1, t.nodes_per_cabinet, false, n);
  n->routers = nodes;
  n->router_scale =
      (t.pairs_per_port + t.pairs_per_port * kHypercubeChannelWidth * spec.topology.n) /
      double(t.radix * t.pairs_per_port);
  n->built = true;
  n->shape =
      fmt::format("{}-cube, {} routers of radix {}", spec.topology.n, nodes, spec.topology.n + 1);
}

void flattened_butterfly(int nodes, const CostTechnology& t, CostNetwork* n) {
  const FlatflyCostShape s = flatfly_cost_shape(nodes, t.radix);
  const GhcShape ghc{s.k, s.n_prime, s.k};
  const Fabric f = build_ghc(profile_defaults("flatfly"), ghc, "cost", "flatfly");
  package_channels(f, s.routers, s.k, t.nodes_per_cabinet, true, n);
  n->routers = s.routers;
  n->built = true;
  n->shape = fmt::format("{}-ary {}-flat, {} of {} routers of radix {}", s.k, s.n_prime + 1,
                         s.routers, ghc.routers(), ghc.radix());
}

// Prices and watts of the counted network, per node.
void price(int nodes, int cabinets, double edge, const CostTechnology& t, CostNetwork* n) {
  if (cabinets == 1) {  // one cabinet: every channel is on its backplane
    n->backplane_channels += n->short_channels + n->global_channels;
    n->short_channels = n->global_channels = 0;
  }
  n->global_avg_m = global_avg_m(n->topology, edge);
  n->signals_per_channel =
      t.pairs_per_port * (n->topology == CostTopology::hypercube ? kHypercubeChannelWidth : 1);
  n->terminal_channels = 2.0 * nodes;
  const double spc = n->signals_per_channel, bp = t.backplane_signal();
  n->router_cost = n->routers * n->router_scale * t.router_cost() / nodes;
  n->terminal_cost = n->terminal_channels * t.pairs_per_port * bp / nodes;
  n->link_cost = spc *
                 (n->backplane_channels * bp + n->short_channels * t.cable_signal(t.short_cable_m) +
                  n->global_channels * t.cable_signal(n->global_avg_m + t.cable_overhead_m)) /
                 nodes;
  // Section 5.3: indirect networks' SerDes must each be able to drive a
  // global cable; direct ones have dedicated backplane SerDes.
  const double local = direct(n->topology) ? t.p_link_ll : t.p_link_gl;
  n->power_w =
      (n->routers * n->router_scale * t.p_switch + n->terminal_channels * t.pairs_per_port * local +
       spc * (n->backplane_channels * local + n->short_channels * t.p_link_gl +
              n->global_channels * t.p_link_gg)) /
      nodes;
}

}  // namespace

const char* cost_topology_name(CostTopology t) {
  switch (t) {
    case CostTopology::butterfly:
      return "butterfly";
    case CostTopology::folded_clos:
      return "folded Clos";
    case CostTopology::hypercube:
      return "hypercube";
    case CostTopology::flattened_butterfly:
      return "flattened butterfly";
  }
  return "?";
}

FlatflyCostShape flatfly_cost_shape(int nodes, int radix) {
  FlatflyCostShape s;
  auto reach = [](int64_t k, int digits) {
    int64_t r = 1;
    for (int i = 0; i < digits; ++i) r *= k;
    return r;
  };
  while (reach(radix / (s.n_prime + 1), s.n_prime + 1) < nodes) ++s.n_prime;
  while (reach(s.k, s.n_prime + 1) < nodes) ++s.k;
  s.routers = ceil_div(nodes, s.k);
  return s;
}

std::string cost_options_problem(const CostOptions& o) {
  if (o.sizes.empty()) return "--sizes is empty: give at least one size, e.g. --sizes 1K";
  for (int n : o.sizes)
    if (n < kMinNodes || n > kMaxNodes || (n & (n - 1)))
      return fmt::format(
          "size {} is not a power of two from {} to {}: the hypercube needs a power of two; give "
          "for example --sizes 1K,4K",
          n, kMinNodes, kMaxNodes);
  const CostTechnology& t = o.tech;
  if (t.radix < 8 || t.radix > kMaxPorts)
    return fmt::format("the radix must be 8 to {}", kMaxPorts);
  if (t.pairs_per_port < 1) return "the pairs per port must be at least 1";
  if (t.nodes_per_cabinet < 1 || !(t.density > 0))
    return "the nodes per cabinet and the density must be above 0";
  return "";
}

std::vector<CostRow> run_cost(const CostOptions& o) {
  std::vector<CostRow> rows;
  const CostTechnology& t = o.tech;
  for (int nodes : o.sizes) {
    CostRow row;
    row.nodes = nodes;
    row.cabinets = ceil_div(nodes, t.nodes_per_cabinet);
    row.edge_m = std::sqrt(nodes / t.density);
    for (CostTopology topo : kCostTopologies) {
      CostNetwork& n = row.net[static_cast<int>(topo)];
      n.topology = topo;
      switch (topo) {
        case CostTopology::butterfly:
          butterfly(nodes, t, &n);
          break;
        case CostTopology::folded_clos:
          folded_clos(nodes, t, &n);
          break;
        case CostTopology::hypercube:
          hypercube(nodes, t, &n);
          break;
        case CostTopology::flattened_butterfly:
          flattened_butterfly(nodes, t, &n);
          break;
      }
      price(nodes, row.cabinets, row.edge_m, t, &n);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace fabemu
