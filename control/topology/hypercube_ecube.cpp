// Registers routing "ecube" for the hypercube family: e-cube routing (Sullivan
// & Bashkow 1977), the flattened butterfly paper's hypercube routing (its
// Table 1): the differing address bits corrected lowest first. It is the
// flatfly's dimension-order routing on k = 2 (dataplane/routing/flatfly_min.h,
// the same engine instance): one VC is deadlock-free, since every route
// crosses dimensions in rising order; with two, responses use VC 1.
#include "control/topology/hypercube.h"
#include "control/topology/routing_registration.h"
#include "dataplane/routing/flatfly_min.h"

namespace fabemu {
namespace {

FlatflyTables program_ecube(const Spec& spec, const Fabric& fabric) {
  return program_ghc_tables(spec, fabric, hypercube_shape(spec), 1);
}

RoutingInfo ecube_routing() {
  RoutingInfo r = policy_routing<FlatflyMin>(
      "hypercube", "ecube",
      "e-cube: the differing address bits corrected lowest dimension first (Kim et al. 2007, "
      "Table 1); requests VC 0, responses VC 1 when there are 2",
      2, 1, true, program_ecube);
  // FlatflyMin's engine on the iSLIP allocator is offered on the flatfly
  // family only (BookSim2's router, as its configurations use it).
  r.islip = false;
  return r;
}

FABEMU_REGISTER_ROUTING(ecube_routing());

}  // namespace
}  // namespace fabemu
