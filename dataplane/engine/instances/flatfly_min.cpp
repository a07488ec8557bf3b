// The engine for minimal dimension-order routing of a flattened butterfly.
#include "dataplane/routing/flatfly_min.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(FlatflyMin);
}  // namespace fabemu
