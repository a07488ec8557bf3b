// Registers routing "clos_ad" for the flatfly family: adaptive Clos routing
// (dataplane/routing/flatfly_clos_ad.h) with the paper's sequential
// allocator and n' + 1 VCs per traffic class (2 on a 2-flat, its Table 1).
#include "dataplane/routing/flatfly_clos_ad.h"

#include "control/topology/flatfly_routing.h"

namespace fabemu {
namespace {

FABEMU_REGISTER_ROUTING(flatfly_routing<FlatflyClosAd>(
    "clos_ad",
    "CLOS AD: per packet minimal or non-minimal by queue x hops; a non-minimal packet climbs to "
    "its intermediate router dimension by dimension on the shortest queue, staying being one "
    "choice, among the closest common ancestors; sequential allocator (Kim et al. 2007, "
    "section 3.1); n'+1 VCs",
    [](int dims) { return dims + 1; }, Allocator::sequential));

}  // namespace
}  // namespace fabemu
