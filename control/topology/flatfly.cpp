#include "control/topology/flatfly.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>

#include "control/topology/fabric_parts.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"

namespace fabemu {

namespace {

// k^e, or -1 once it passes `limit` (no overflow for any k, e the spec allows).
int64_t power_capped(int64_t k, int64_t e, int64_t limit) {
  int64_t v = 1;
  for (int64_t i = 0; i < e; ++i) {
    v *= k;
    if (v > limit) return -1;
  }
  return v;
}

}  // namespace

std::string flatfly_size_problem(int64_t k, int64_t n) {
  if (k < 2) return fmt::format("topology.k = {}: a flattened butterfly needs k >= 2", k);
  if (n < 2)
    return fmt::format(
        "topology.n = {}: a k-ary n-flat needs n >= 2 (n = 1 is a single router with no "
        "inter-router channels)",
        n);
  const int64_t radix = n * (k - 1) + 1;
  if (radix > kMaxPorts)
    return fmt::format(
        "a {}-ary {}-flat needs routers of radix n(k-1)+1 = {}, more than the {} ports a router "
        "may have: lower topology.k or topology.n",
        k, n, radix, kMaxPorts);
  if (power_capped(k, n, kFlatflyMaxEndpoints) < 0)
    return fmt::format(
        "a {}-ary {}-flat has k^n endpoints, more than the {} a YARC head phit can address: "
        "lower topology.k or topology.n",
        k, n, kFlatflyMaxEndpoints);
  return {};
}

int GhcShape::routers() const {
  int r = 1;
  for (int d = 0; d < dims; ++d) r *= k;
  return r;
}

GhcShape flatfly_shape(const Spec& spec) {
  return GhcShape{spec.topology.k, spec.topology.n - 1, spec.topology.k};
}

Fabric build_ghc(const Spec& spec, const GhcShape& shape, std::string name, std::string family) {
  if (spec.vcs.count < 1 || spec.vcs.count > kMaxVcs)
    throw std::invalid_argument(
        fmt::format("vcs.count = {}: must be in 1..{}", spec.vcs.count, kMaxVcs));
  const int k = shape.k;
  const int c = shape.conc;
  const int routers = shape.routers();
  const ps_t unit = unit_ps(spec);
  const ps_t channel = router_unit_ps(spec);
  const ps_t wire = wire_ps(spec);

  Fabric f = fabric_frame(spec, std::move(name), std::move(family));

  f.routers.resize(routers);
  f.endpoints.resize(static_cast<size_t>(routers) * c);
  for (int i = 0; i < routers; ++i) {
    FabricRouter& r = f.routers[i];
    r.id = i;
    r.rank = 0;
    r.ports.resize(shape.radix());
    int stride = 1;  // k^d
    for (int d = 0; d < shape.dims; ++d, stride *= k) {
      const int own = (i / stride) % k;
      if (d < 3) r.coord[d] = own;
      // Equation (1), dimension d + 1: j = i + (m - own) k^d, m != own.
      for (int m = 0; m < k; ++m) {
        if (m == own) continue;
        r.ports[flatfly_port(c, k, d, own, m)] =
            router_link(i + (m - own) * stride, flatfly_port(c, k, d, m, own), channel, wire,
                        static_cast<uint8_t>(d + 1));
      }
    }
    for (int j = 0; j < c; ++j)
      attach_endpoint(f, i * c + j, i, j, unit, wire, kFlatflyEndpointLabel);
  }
  return f;
}

Fabric build_flatfly(const Spec& spec) {
  const int k = spec.topology.k;
  const int n = spec.topology.n;
  if (const std::string why = flatfly_size_problem(k, n); !why.empty())
    throw std::invalid_argument(why);
  return build_ghc(spec, flatfly_shape(spec), fmt::format("flatfly {}-ary {}-flat", k, n),
                   "flatfly");
}

int64_t flatfly_bisection_links(const Spec& /*spec*/, const Fabric& fabric) {
  const int32_t half = static_cast<int32_t>(fabric.routers.size() / 2);
  int64_t links = 0;
  for (int32_t i = 0; i < half; ++i)
    for (const FabricPort& p : fabric.routers[i].ports) links += p.peer_router >= half;
  return links;
}

std::vector<BisectionCut> ghc_bisection_cuts(const GhcShape& shape, const Fabric& fabric) {
  const size_t n = fabric.routers.size();
  std::vector<BisectionCut> cuts;
  if (shape.k % 2) {  // the lower half of the routers in id order
    BisectionCut side(n);
    for (size_t i = 0; i < n; ++i) side[i] = i >= n / 2;
    cuts.push_back(std::move(side));
    return cuts;
  }
  // Every dimension halved (the lower half in id order is the highest one
  // halved at offset 0), at each of its k/2 offsets: for every link some
  // cut has it across.
  const size_t k = size_t(shape.k);
  size_t stride = 1;
  for (int d = 0; d < shape.dims; ++d, stride *= k)
    for (size_t o = 0; o < k / 2; ++o) {
      BisectionCut side(n);
      for (size_t i = 0; i < n; ++i) side[i] = (i / stride % k + k - o) % k >= k / 2;
      cuts.push_back(std::move(side));
    }
  return cuts;
}

std::vector<BisectionCut> flatfly_bisection_cuts(const Spec& spec, const Fabric& fabric) {
  return ghc_bisection_cuts(flatfly_shape(spec), fabric);
}

FlatflyTables program_ghc_tables(const Spec& spec, const Fabric& fabric, const GhcShape& shape,
                                 int vcs_per_class, Allocator allocator) {
  if (fabric.num_vcs < vcs_per_class)
    throw std::invalid_argument(
        fmt::format("routing {} needs {} VCs on the {}, the fabric has {}: set vcs.count to {}",
                    spec.routing, vcs_per_class, fabric.name, fabric.num_vcs, vcs_per_class));
  FlatflyTables t;
  t.allocator = allocator;
  const int k = shape.k;
  const int dims = shape.dims;
  t.k = static_cast<uint8_t>(k);
  t.dims = static_cast<uint8_t>(dims);
  t.conc = static_cast<uint8_t>(shape.conc);
  t.response_vc = static_cast<uint8_t>(fabric.num_vcs >= 2 * vcs_per_class ? vcs_per_class : 0);
  t.vcs = static_cast<uint8_t>(fabric.num_vcs);
  if (spec.vcs.injection == "rotate")  // the class's VCs: responses' start at response_vc
    t.inject_vcs = static_cast<uint8_t>(t.response_vc ? t.response_vc : fabric.num_vcs);
  t.latency_ps = static_cast<ps_t>(std::llround(spec.router.latency_ns * 1000.0));
  const size_t routers = fabric.routers.size();
  t.digit.resize(routers * static_cast<size_t>(dims));
  for (size_t r = 0; r < routers; ++r) {
    size_t rest = r;
    for (int d = 0; d < dims; ++d, rest /= static_cast<size_t>(k))
      t.digit[r * static_cast<size_t>(dims) + static_cast<size_t>(d)] =
          static_cast<uint8_t>(rest % static_cast<size_t>(k));
  }
  t.dest.resize(fabric.endpoints.size());
  for (size_t e = 0; e < fabric.endpoints.size(); ++e)
    t.dest[e] =
        FlatflyDest{fabric.endpoints[e].router, static_cast<uint8_t>(fabric.endpoints[e].port)};
  t.port_dim.fill(kFlatflyNoDim);
  // Every router has the same layout: read the dimension off router 0.
  if (!fabric.routers.empty()) {
    const FabricRouter& r0 = fabric.routers[0];
    for (size_t p = 0; p < r0.ports.size() && p < static_cast<size_t>(kMaxPorts); ++p)
      if (r0.ports[p].peer_router >= 0) t.port_dim[p] = static_cast<uint8_t>(r0.ports[p].label - 1);
  }
  return t;
}

FlatflyTables program_flatfly_tables(const Spec& spec, const Fabric& fabric, int vcs_per_class,
                                     Allocator allocator) {
  return program_ghc_tables(spec, fabric, flatfly_shape(spec), vcs_per_class, allocator);
}

namespace {

const char* kFlatflySummary =
    "flattened butterfly k-ary n-flat: N = k^n endpoints, N/k routers of radix n(k-1)+1 "
    "fully connected in each of n-1 dimensions (equation (1)), k endpoints per router";

FABEMU_REGISTER_TOPOLOGY([] {
  TopologyInfo t{"flatfly", kFlatflySummary, build_flatfly, flatfly_bisection_links,
                 flatfly_bisection_cuts, {}, {}, {}, nullptr};
  set_k_ary_n_size(t, flatfly_size_problem);
  return t;
}());

}  // namespace

}  // namespace fabemu
