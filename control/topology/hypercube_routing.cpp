// Registers the hypercube family's routings, both on the flatfly's tables
// for k = 2 (dataplane/routing/flatfly_tables.h) and its engine instances:
// - "ecube": e-cube routing (Sullivan & Bashkow 1977), the flattened
//   butterfly paper's hypercube routing (its Table 1): the differing
//   address bits corrected lowest first. It is the flatfly's dimension-order
//   routing on k = 2 (dataplane/routing/flatfly_min.h): one VC is
//   deadlock-free, since every route crosses dimensions in rising order;
//   with two, responses use VC 1.
// - "dim_order": BookSim2's dim_order_mesh on its mesh of k = 2 (booksim2
//   routefunc.cpp), which is a binary n-cube: e-cube's path on any VC at
//   every hop, as BookSim's routing functions give VCs. It is the flatfly's
//   ran_min on k = 2, so it runs on BookSim's iSLIP router too
//   (router.switch_allocator islip).
#include "control/topology/hypercube.h"
#include "control/topology/routing_registration.h"
#include "dataplane/routing/flatfly_min.h"

namespace fabemu {
namespace {

FlatflyTables program_hypercube(const Spec& spec, const Fabric& fabric) {
  return program_ghc_tables(spec, fabric, hypercube_shape(spec), 1);
}

RoutingInfo ecube_routing() {
  RoutingInfo r = policy_routing<FlatflyMin>(
      "hypercube", "ecube",
      "e-cube: the differing address bits corrected lowest dimension first (Kim et al. 2007, "
      "Table 1); requests VC 0, responses VC 1 when there are 2",
      2, 1, true, program_hypercube);
  // FlatflyMin's engine on the iSLIP allocator is for BookSim's routings;
  // on the hypercube that is dim_order.
  r.islip = false;
  return r;
}

FABEMU_REGISTER_ROUTING(ecube_routing());

FABEMU_REGISTER_ROUTING(booksim_any_vc_routing<FlatflyRanMin>(
    "hypercube", "dim_order",
    "BookSim2's dim_order on its mesh of k = 2: the differing address bits corrected lowest "
    "first, on any VC at every hop; the router picks the VC (by credits, or the free one under "
    "router.switch_allocator islip)",
    program_hypercube));

}  // namespace
}  // namespace fabemu
