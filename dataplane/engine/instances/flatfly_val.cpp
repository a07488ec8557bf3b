// The engine for Valiant's routing of a flattened butterfly.
#include "dataplane/routing/flatfly_val.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(FlatflyVal);
}  // namespace fabemu
