// The engine for torus dimension-order routing.
#include "dataplane/routing/torus_dimension_order.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(TorusDimensionOrder);
}  // namespace fabemu
