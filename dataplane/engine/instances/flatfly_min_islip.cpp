// The engine for FlatflyMin on the input-queued router with the cycle-synchronous
// iSLIP allocator (router.switch_allocator islip).
#include "dataplane/engine/engine.h"
#include "dataplane/engine/router_model.h"
#include "dataplane/routing/flatfly_min.h"

namespace fabemu {
using FlatflyMinIslip = OnIslip<FlatflyMin>;
FABEMU_ENGINE_INSTANCE(FlatflyMinIslip);
}  // namespace fabemu
