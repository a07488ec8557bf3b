// Registers routing "val" for the flatfly family: Valiant's algorithm through
// a random intermediate router (dataplane/routing/flatfly_val.h). The
// paper's two VCs, one per phase, are deadlock-free; with four, responses get
// VCs 2 and 3.
#include "dataplane/routing/flatfly_val.h"

#include "control/topology/flatfly_routing.h"

namespace fabemu {
namespace {

FABEMU_REGISTER_ROUTING(flatfly_routing<FlatflyVal>(
    "val",
    "Valiant: dimension order to a uniformly random intermediate router on VC 0, then "
    "dimension order to the destination on VC 1 (Kim et al. 2007, section 3.1); responses "
    "VCs 2 and 3 when there are 4",
    2));

}  // namespace
}  // namespace fabemu
