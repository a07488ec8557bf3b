// The engine for FlatflyUgal on the input-queued router with the cycle-synchronous
// iSLIP allocator (router.switch_allocator islip).
#include "dataplane/engine/engine.h"
#include "dataplane/engine/router_model.h"
#include "dataplane/routing/flatfly_ugal.h"

namespace fabemu {
using FlatflyUgalIslip = OnIslip<FlatflyUgal>;
FABEMU_ENGINE_INSTANCE(FlatflyUgalIslip);
}  // namespace fabemu
