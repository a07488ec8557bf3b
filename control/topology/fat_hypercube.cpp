#include "control/topology/fat_hypercube.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "control/topology/fabric_parts.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"

namespace fabemu {

FatHypercubeShape fat_hypercube_shape(const Spec& spec) {
  return FatHypercubeShape{spec.topology.n, spec.topology.meta_n,
                           spec.topology.endpoints_per_router, spec.topology.diagonal};
}

std::string fat_hypercube_size_problem(const FatHypercubeShape& s) {
  if (s.n < 2 || s.n > kSpiderPorts - 1)
    return fmt::format("topology.n = {}: a local hypercube has 2 to {} dimensions", s.n,
                       kSpiderPorts - 1);
  if (s.meta_n < 0 || s.meta_n > kSpiderPorts - 1)
    return fmt::format(
        "topology.meta_n = {}: a metahypercube has 0 to {} dimensions (a meta chip "
        "has one port down and one per dimension)",
        s.meta_n, kSpiderPorts - 1);
  if (s.conc < 1)
    return fmt::format("topology.endpoints_per_router = {}: a chip needs an endpoint", s.conc);
  if (s.conc & (s.conc - 1))
    return fmt::format(
        "topology.endpoints_per_router = {}: give a power of two (1, 2 or 4), so that a chip's "
        "endpoints share one meta address (the destination's upper 5 bits)",
        s.conc);
  if (s.local_radix() > kSpiderPorts)
    return fmt::format(
        "a local chip with {} endpoint{}, {} local dimensions{}{} needs {} ports, more than a "
        "Spider chip's {}: lower topology.endpoints_per_router or topology.n{}",
        s.conc, s.conc == 1 ? "" : "s", s.n, s.diagonal ? ", a diagonal" : "",
        s.meta_n ? " and an up-link" : "", s.local_radix(), kSpiderPorts,
        s.diagonal ? ", or set topology.diagonal: false" : "");
  if (s.n > 9 || s.endpoints() > int(kSpiderMaxEndpoints))
    return fmt::format(
        "the fat hypercube has {} endpoints, more than the {} a 9-bit Spider destination "
        "addresses: lower topology.meta_n, topology.n or topology.endpoints_per_router",
        s.endpoints(), kSpiderMaxEndpoints);
  if (s.meta_n && s.conc * s.positions() != kSpiderLocalEntries)
    return fmt::format(
        "under metahypercubes a domain holds {} endpoints (the local table's reach, the "
        "destination's lower 4 bits), this one {} ({} chips x {}): set topology.n and "
        "topology.endpoints_per_router so that endpoints_per_router x 2^n = 16",
        kSpiderLocalEntries, s.conc * s.positions(), s.positions(), s.conc);
  return {};
}

Fabric build_fat_hypercube(const Spec& spec) {
  const FatHypercubeShape s = fat_hypercube_shape(spec);
  if (const std::string why = fat_hypercube_size_problem(s); !why.empty())
    throw std::invalid_argument(why);
  const ps_t unit = unit_ps(spec);
  const ps_t channel = router_unit_ps(spec);
  const ps_t wire = wire_ps(spec);
  std::string name = fmt::format("fat hypercube {}-cube", s.n);
  if (s.diagonal) name += " with diagonals";
  if (s.meta_n) name += fmt::format(" x {}-cube meta", s.meta_n);
  if (s.conc > 1) name += fmt::format(", {} endpoints per chip", s.conc);
  Fabric f = fabric_frame(spec, std::move(name), "fat_hypercube");
  f.routers.resize(size_t(s.local_chips() + s.meta_chips()));
  f.endpoints.resize(size_t(s.endpoints()));
  const int pos_mask = s.positions() - 1;
  for (int r = 0; r < s.local_chips(); ++r) {
    FabricRouter& chip = f.routers[size_t(r)];
    chip.id = r;
    const int position = r & pos_mask;
    const int domain = r >> s.n;
    chip.coord = {position, domain, 0};
    chip.ports.resize(size_t(s.local_radix()));
    for (int d = 0; d < s.n; ++d)
      chip.ports[size_t(s.local_port(d))] =
          router_link(r ^ (1 << d), s.local_port(d), channel, wire, kFhcLocal);
    if (s.diagonal)
      chip.ports[size_t(s.diagonal_port())] =
          router_link(r ^ 3, s.diagonal_port(), channel, wire, kFhcDiagonal);
    if (s.meta_n)
      chip.ports[size_t(s.up_port())] =
          router_link(s.meta_chip(position, domain), 0, channel, wire, kFhcUp);
    for (int j = 0; j < s.conc; ++j)
      attach_endpoint(f, r * s.conc + j, r, j, unit, wire, kFhcEndpoint);
  }
  for (int position = 0; position < s.meta_chips() >> s.meta_n; ++position)
    for (int domain = 0; domain < s.domains(); ++domain) {
      const int r = s.meta_chip(position, domain);
      FabricRouter& chip = f.routers[size_t(r)];
      chip.id = r;
      chip.rank = 1;
      chip.coord = {position, domain, 1};
      chip.ports.resize(size_t(1 + s.meta_n));
      chip.ports[0] = router_link((domain << s.n) + position, s.up_port(), channel, wire, kFhcDown);
      for (int j = 0; j < s.meta_n; ++j)
        chip.ports[size_t(1 + j)] =
            router_link(s.meta_chip(position, domain ^ (1 << j)), 1 + j, channel, wire, kFhcMeta);
    }
  return f;
}

namespace {

const char* kFatHypercubeSummary =
    "Spider's hierarchical fat hypercube: 2^meta_n domains of a local n-cube of chips, each "
    "vertex position joined across the domains by a metahypercube of meta chips; "
    "topology.endpoints_per_router endpoints per chip (above 1: bristled); 6 ports per chip, "
    "512 endpoints at most";

// Halving every local and every meta dimension: a local cut keeps each meta
// chip with its position, a meta cut with its domain, so that the cut of
// dimension d crosses only d's links (2^(n-1) per domain, or 2^(meta_n-1)
// per position) and the diagonals of dimensions 0 and 1.
std::vector<BisectionCut> fat_hypercube_cuts(const Spec& spec, const Fabric& fabric) {
  const FatHypercubeShape s = fat_hypercube_shape(spec);
  std::vector<BisectionCut> cuts;
  const size_t routers = fabric.routers.size();
  for (int d = 0; d < s.n + s.meta_n; ++d) {
    BisectionCut side(routers);
    for (size_t r = 0; r < routers; ++r) {
      const std::array<int32_t, 3>& c = fabric.routers[r].coord;  // position, domain, meta
      side[r] = d < s.n ? (c[0] >> d) & 1 : (c[1] >> (d - s.n)) & 1;
    }
    cuts.push_back(std::move(side));
  }
  return cuts;
}

int64_t fat_hypercube_bisection_links(const Spec& spec, const Fabric& fabric) {
  int64_t best = std::numeric_limits<int64_t>::max();
  for (const BisectionCut& side : fat_hypercube_cuts(spec, fabric)) {
    int64_t across = 0;  // one way: from side 0
    for (size_t r = 0; r < fabric.routers.size(); ++r)
      if (!side[r])
        for (const FabricPort& p : fabric.routers[r].ports)
          across += p.peer_router >= 0 && side[size_t(p.peer_router)];
    best = std::min(best, across);
  }
  return best;
}

FABEMU_REGISTER_TOPOLOGY(TopologyInfo{
    "fat_hypercube", kFatHypercubeSummary, build_fat_hypercube, fat_hypercube_bisection_links,
    fat_hypercube_cuts,
    [](const Spec& s) -> int64_t {
      const FatHypercubeShape shape = fat_hypercube_shape(s);
      return fat_hypercube_size_problem(shape).empty() ? shape.endpoints() : -1;
    },
    [](const Spec& s) {
      return SpecProblem{
          {"topology.n", "topology.meta_n", "topology.endpoints_per_router", "topology.diagonal"},
          fat_hypercube_size_problem(fat_hypercube_shape(s))};
    },
    [](const Spec& s) {
      return std::vector<std::pair<std::string, std::vector<int>>>{
          {"n", {s.topology.n}},
          {"meta_n", {s.topology.meta_n}},
          {"endpoints_per_router", {s.topology.endpoints_per_router}},
          {"diagonal", {s.topology.diagonal ? 1 : 0}}};
    },
    nullptr});

}  // namespace
}  // namespace fabemu
