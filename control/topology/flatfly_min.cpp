// Registers routing "min" for the flatfly family: minimal dimension-order
// routing (dataplane/routing/flatfly_min.h), and BookSim2's ran_min. One VC
// is deadlock-free (dimension order); with two, min gives responses VC 1;
// ran_min takes any of up to kMaxVcs (16) VCs.
#include "dataplane/routing/flatfly_min.h"

#include "control/topology/flatfly_routing.h"

namespace fabemu {
namespace {

FABEMU_REGISTER_ROUTING(flatfly_routing<FlatflyMin>(
    "min",
    "minimal dimension-order routing: one hop per differing router digit, lowest dimension "
    "first (Kim et al. 2007, section 2.2); requests VC 0, responses VC 1 when there are 2",
    1));

// Any VC count, as BookSim's ran_min: every VC is a candidate at every hop.
FABEMU_REGISTER_ROUTING([] {
  RoutingInfo r = flatfly_routing<FlatflyRanMin>(
      "ran_min",
      "BookSim2's ran_min: the min path (dimension order) on any VC at every hop, requests and "
      "responses alike; the router picks the VC (by credits, or the free one under "
      "router.switch_allocator islip)",
      1);
  r.max_vcs = kMaxVcs;
  r.injects_on_any_vc = true;
  return r;
}());

}  // namespace
}  // namespace fabemu
