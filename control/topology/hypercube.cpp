#include "control/topology/hypercube.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "control/topology/registry.h"

namespace fabemu {

std::string hypercube_size_problem(int64_t n, int64_t c) {
  if (n < 1) return fmt::format("topology.n = {}: a hypercube has at least 1 dimension", n);
  if (c < 1)
    return fmt::format("topology.endpoints_per_router = {}: a router needs an endpoint", c);
  if (c + n > kMaxPorts)
    return fmt::format(
        "a {}-dimensional hypercube with {} endpoints per router needs routers of radix {}, more "
        "than the {} ports a router may have: lower topology.n or topology.endpoints_per_router",
        n, c, c + n, kMaxPorts);
  // c <= 64 and n < 64 here: c 2^n is counted from n > 15 on as "too many"
  // without computing it (it would overflow).
  if (n > 15 || c * (int64_t{1} << n) > kFlatflyMaxEndpoints)
    return fmt::format(
        "a {}-dimensional hypercube with {} endpoint{} per router has {:.0f} endpoints, more "
        "than the {} a YARC head phit can address: lower topology.n or "
        "topology.endpoints_per_router",
        n, c, c == 1 ? "" : "s", std::ldexp(double(c), static_cast<int>(n)), kFlatflyMaxEndpoints);
  return {};
}

GhcShape hypercube_shape(const Spec& spec) {
  return GhcShape{2, spec.topology.n, spec.topology.endpoints_per_router};
}

Fabric build_hypercube(const Spec& spec) {
  const GhcShape shape = hypercube_shape(spec);
  if (const std::string why = hypercube_size_problem(shape.dims, shape.conc); !why.empty())
    throw std::invalid_argument(why);
  return build_ghc(spec, shape,
                   shape.conc == 1 ? fmt::format("hypercube {}-cube", shape.dims)
                                   : fmt::format("hypercube {}-cube x {}", shape.dims, shape.conc),
                   "hypercube");
}

namespace {

const char* kHypercubeSummary =
    "binary hypercube: 2^n routers, router i linked to i ^ 2^d in each dimension d, "
    "topology.endpoints_per_router endpoints per router (1: the flattened butterfly paper's "
    "10-dimensional hypercube of Figure 6)";

std::vector<BisectionCut> hypercube_bisection_cuts(const Spec& spec, const Fabric& fabric) {
  return ghc_bisection_cuts(hypercube_shape(spec), fabric);
}

// Halves of the routers in id order: the cut of the highest dimension,
// 2^(n-1) links one way, which is the minimum (the hypercube is a product
// of complete graphs K2; flatfly_bisection_links); every other dimension's
// cut is one too.
FABEMU_REGISTER_TOPOLOGY(TopologyInfo{
    "hypercube", kHypercubeSummary, build_hypercube, flatfly_bisection_links,
    hypercube_bisection_cuts,
    [](const Spec& s) -> int64_t {
      const int c = s.topology.endpoints_per_router;
      return hypercube_size_problem(s.topology.n, c).empty() ? int64_t{c} << s.topology.n : -1;
    },
    [](const Spec& s) {
      return SpecProblem{{"topology.n", "topology.endpoints_per_router"},
                         hypercube_size_problem(s.topology.n, s.topology.endpoints_per_router)};
    },
    [](const Spec& s) {
      return std::vector<std::pair<std::string, std::vector<int>>>{
          {"n", {s.topology.n}}, {"endpoints_per_router", {s.topology.endpoints_per_router}}};
    },
    nullptr});

}  // namespace
}  // namespace fabemu
