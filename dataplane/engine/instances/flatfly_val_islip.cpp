// The engine for FlatflyVal on the input-queued router with the cycle-synchronous
// iSLIP allocator (router.switch_allocator islip).
#include "dataplane/engine/engine.h"
#include "dataplane/engine/router_model.h"
#include "dataplane/routing/flatfly_val.h"

namespace fabemu {
using FlatflyValIslip = OnIslip<FlatflyVal>;
FABEMU_ENGINE_INSTANCE(FlatflyValIslip);
}  // namespace fabemu
