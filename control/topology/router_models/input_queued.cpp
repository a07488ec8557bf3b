// router.model input_queued: dataplane/router/input_queued.h, the model
// every routing has an engine for.
#include "control/topology/router_models.h"

namespace fabemu {

FABEMU_REGISTER_NAMED(RouterModelInfo) {
  i.name = "input_queued";
  i.summary = "virtual cut-through input FIFOs, one arbitration at the outputs";
  i.reference = "fabemu default";
  i.baseline = true;
}

}  // namespace fabemu
