// The engine for T3E direction-order routing.
#include "dataplane/engine/engine.h"
#include "dataplane/routing/t3e_direction_order.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(T3eDirectionOrder);
}  // namespace fabemu
