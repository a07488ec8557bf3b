// Registers routings "ugal" and "ugal_s" for the flatfly family: UGAL
// (dataplane/routing/flatfly_ugal.h) with the paper's greedy allocator, and
// UGAL-S, the same algorithm with a sequential allocator. n' + 1 VCs per
// traffic class.
#include "dataplane/routing/flatfly_ugal.h"

#include "control/topology/flatfly_routing.h"

namespace fabemu {
namespace {

int ugal_vcs(int dims) { return dims + 1; }

FABEMU_REGISTER_ROUTING(flatfly_routing<FlatflyUgal>(
    "ugal",
    "UGAL: per packet at the source, MIN AD or VAL through a random intermediate router, "
    "whichever has the smaller queue x hops; greedy allocator (Kim et al. 2007, section 3.1); "
    "VC 0 for VAL's first phase, VCs 1..n' by hops left (n'+1 VCs, 2 on a 2-flat)",
    ugal_vcs, Allocator::greedy));

FABEMU_REGISTER_ROUTING(flatfly_routing<FlatflyUgal>(
    "ugal_s",
    "UGAL-S: UGAL with a sequential allocator, each decision counting for the next at once "
    "(Kim et al. 2007, section 3.1); n'+1 VCs",
    ugal_vcs, Allocator::sequential));

}  // namespace
}  // namespace fabemu
