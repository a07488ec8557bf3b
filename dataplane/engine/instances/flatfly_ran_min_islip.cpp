// The engine for BookSim2-style ran_min routing of a flattened butterfly on the input-queued router
// with the cycle-synchronous iSLIP allocator (router.switch_allocator islip).
#include "dataplane/engine/engine.h"
#include "dataplane/engine/router_model.h"
#include "dataplane/routing/flatfly_min.h"

namespace fabemu {
using FlatflyRanMinIslip = OnIslip<FlatflyRanMin>;
FABEMU_ENGINE_INSTANCE(FlatflyRanMinIslip);
}  // namespace fabemu
