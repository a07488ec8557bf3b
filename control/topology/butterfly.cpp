#include "control/topology/butterfly.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "control/topology/fabric_parts.h"
#include "control/topology/flatfly.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"
#include "control/topology/routing_registration.h"
#include "dataplane/routing/butterfly_dest.h"

namespace fabemu {

namespace {

// The rows of a k-ary n-fly, as a generalized hypercube's routers (same
// digits, same endpoint placement): what the flatfly tables need.
GhcShape butterfly_rows(const Spec& spec) {
  return GhcShape{spec.topology.k, spec.topology.n - 1, spec.topology.k};
}

}  // namespace

std::string butterfly_size_problem(int64_t k, int64_t n) {
  if (k < 2) return fmt::format("topology.k = {}: a butterfly needs k >= 2", k);
  if (n < 2)
    return fmt::format(
        "topology.n = {}: a k-ary n-fly needs n >= 2 stages (n = 1 is a single router)", n);
  if (n * k > kMaxPorts)
    return fmt::format(
        "a {}-ary {}-fly is modelled as rows of its {} stages, routers of radix n k = {}, more "
        "than the {} ports a router may have: lower topology.k or topology.n",
        k, n, n, n * k, kMaxPorts);
  if (std::pow(double(k), double(n)) > double(kFlatflyMaxEndpoints))
    return fmt::format(
        "a {}-ary {}-fly has k^n endpoints, more than the {} a YARC head phit can address: "
        "lower topology.k or topology.n",
        k, n, kFlatflyMaxEndpoints);
  return {};
}

Fabric build_butterfly(const Spec& spec) {
  const int k = spec.topology.k;
  const int n = spec.topology.n;
  if (const std::string why = butterfly_size_problem(k, n); !why.empty())
    throw std::invalid_argument(why);
  if (spec.vcs.count < 1 || spec.vcs.count > kMaxVcs)
    throw std::invalid_argument(
        fmt::format("vcs.count = {}: must be in 1..{}", spec.vcs.count, kMaxVcs));
  const GhcShape rows = butterfly_rows(spec);
  const ps_t unit = unit_ps(spec);
  const ps_t channel = router_unit_ps(spec);
  const ps_t wire = wire_ps(spec);

  Fabric f = fabric_frame(spec, fmt::format("butterfly {}-ary {}-fly", k, n), "butterfly");
  const int routers = rows.routers();
  f.routers.resize(routers);
  f.endpoints.resize(static_cast<size_t>(routers) * k);
  for (int i = 0; i < routers; ++i) {
    FabricRouter& r = f.routers[i];
    r.id = i;
    r.rank = 0;
    r.ports.resize(static_cast<size_t>(k) * n);
    int stride = 1;  // k^d
    for (int d = 0; d < rows.dims; ++d, stride *= k) {
      const int own = (i / stride) % k;
      if (d < 3) r.coord[d] = own;
      for (int m = 0; m < k; ++m) {
        r.ports[butterfly_port(k, k, d, m)] =
            router_link(i + (m - own) * stride, butterfly_port(k, k, d, own), channel, wire,
                        static_cast<uint8_t>(d + 1));
      }
    }
    for (int j = 0; j < k; ++j)
      attach_endpoint(f, i * k + j, i, j, unit, wire, kFlatflyEndpointLabel);
  }
  return f;
}

namespace {

const char* kButterflySummary =
    "conventional butterfly k-ary n-fly: N = k^n endpoints through n stages of k^(n-1) "
    "radix-k routers, one path per pair (the flattened butterfly paper's Figure 6 baseline); "
    "each row's n stages are one router of radix n k, its stage-to-stage channel a loop";

std::vector<BisectionCut> butterfly_bisection_cuts(const Spec& spec, const Fabric& fabric) {
  return ghc_bisection_cuts(butterfly_rows(spec), fabric);
}

// The lower half of the rows against the upper half: for even k, k^n / 4
// channels one way (32-ary 2-fly: 256, the flatfly's); the loops never cross.
FABEMU_REGISTER_TOPOLOGY([] {
  TopologyInfo t{"butterfly",
                 kButterflySummary,
                 build_butterfly,
                 flatfly_bisection_links,
                 butterfly_bisection_cuts,
                 {},
                 {},
                 {},
                 nullptr};
  set_k_ary_n_size(t, butterfly_size_problem);
  return t;
}());

FlatflyTables program_butterfly(const Spec& spec, const Fabric& fabric) {
  return program_ghc_tables(spec, fabric, butterfly_rows(spec), 1);
}

FABEMU_REGISTER_ROUTING(policy_routing<ButterflyDest>(
    "butterfly", "dest",
    "destination routing: stage s takes the output named by digit s of the destination's row, "
    "one path per pair (Kim et al. 2007, section 3.3); requests VC 0, responses VC 1 when there "
    "are 2",
    2, 1, true, program_butterfly));

// BookSim2's dest_tag_fly: the one path on any VC; with router.switch_allocator
// islip, BookSim's router on its KNFly.
FABEMU_REGISTER_ROUTING(booksim_any_vc_routing<ButterflyDestTag>(
    "butterfly", "dest_tag",
    "BookSim2's dest_tag_fly: the one path of dest, on any VC at every stage, requests and "
    "responses alike; the router picks the VC (by credits, or the free one under "
    "router.switch_allocator islip)",
    program_butterfly));

}  // namespace
}  // namespace fabemu
