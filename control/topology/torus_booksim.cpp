// BookSim2's dimension-order routing on the torus family (routing dim_order,
// dataplane/routing/torus_booksim_dor.h): its tables and registration.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "control/topology/registry.h"
#include "control/topology/routing_registration.h"
#include "control/topology/torus.h"
#include "dataplane/routing/torus_booksim_dor.h"

namespace fabemu {

namespace {

TorusBooksimTables program_booksim_dor_tables(const Spec& spec, const Fabric& fabric) {
  if (spec.topology.wrap && fabric.num_vcs < 2)
    throw std::invalid_argument(fmt::format(
        "routing dim_order needs at least 2 VCs on a torus (a dateline class each), have {}",
        fabric.num_vcs));
  TorusBooksimTables t;
  t.mesh = !spec.topology.wrap;
  t.vcs = static_cast<uint8_t>(fabric.num_vcs);
  t.coord.resize(fabric.routers.size());
  for (size_t r = 0; r < fabric.routers.size(); ++r)
    for (int d = 0; d < 3; ++d) {
      t.coord[r][d] = static_cast<uint8_t>(fabric.routers[r].coord[d]);
      t.k[d] = std::max<uint8_t>(t.k[d], static_cast<uint8_t>(fabric.routers[r].coord[d] + 1));
    }
  for (int d = 0; d < 3; ++d) t.draws = t.draws || (!t.mesh && t.k[d] > 1 && t.k[d] % 2 == 0);
  t.dest = torus_dests(fabric, t.coord);
  set_torus_fall_through(spec, fabric, t.straight_ps, t.turn_ps, t.endpoint_ps);
  return t;
}

FABEMU_REGISTER_ROUTING([] {
  RoutingInfo r = policy_routing<TorusBooksimDor>(
    "torus", "dim_order",
    "BookSim2's dim_order: X, then Y, then Z, each the shorter way round (ties at random); "
    "a packet entering a dimension above its destination's ordinate uses the upper half of the "
    "VCs for that dimension, else the lower half; any VC into the endpoint; on a mesh "
    "(topology.wrap false) the one way there is, on any VC",
    kMaxVcs, 2, true, program_booksim_dor_tables,
    [](const Fabric& f) {
      return f.routers.size() * 3 + f.endpoints.size() * sizeof(T3eDest) +
             sizeof(TorusBooksimTables);
    });
  r.injects_on_any_vc = true;
  r.routes_mesh = true;
  // A mesh has no ring to break: one VC will do.
  r.needed_vcs = [](const Spec& s) { return s.topology.wrap ? 2 : 1; };
  return r;
}());

}  // namespace

}  // namespace fabemu
