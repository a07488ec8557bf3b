// Registers routing "min_ad" for the flatfly family: minimal adaptive
// routing (dataplane/routing/flatfly_min_ad.h) with the paper's n' VCs per
// traffic class and its greedy allocator.
#include "dataplane/routing/flatfly_min_ad.h"

#include <algorithm>

#include "control/topology/flatfly_routing.h"

namespace fabemu {
namespace {

FABEMU_REGISTER_ROUTING(flatfly_routing<FlatflyMinAd>(
    "min_ad",
    "minimal adaptive (MIN AD): the productive channel with the shortest queue, on VC n' - r "
    "with r hops left (n' VCs, greedy allocator; Kim et al. 2007, section 3.1); responses on "
    "their own n' VCs when there are 2n'",
    [](int dims) { return std::max(1, dims); }, Allocator::greedy));

}  // namespace
}  // namespace fabemu
