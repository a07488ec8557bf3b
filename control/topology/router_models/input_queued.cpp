// router.model input_queued: dataplane/router/input_queued.h, the model
// every routing is expected to have an engine for (FABEMU_ENGINES beside the
// policy lists it; where a line leaves it out, the spec check says so).
#include "control/topology/router_models.h"

namespace fabemu {

FABEMU_REGISTER_NAMED(RouterModelInfo) {
  i.name = "input_queued";
  i.summary = "virtual cut-through input FIFOs, one arbitration at the outputs";
  i.reference = "fabemu default";
  i.baseline = true;
  i.available = [](const RoutingInfo& r) { return has_router_model(r, "input_queued"); };
}

}  // namespace fabemu
