// The engine for BookSim2-style ran_min routing of a flattened butterfly.
#include "dataplane/engine/engine.h"
#include "dataplane/routing/flatfly_min.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(FlatflyRanMin);
}  // namespace fabemu
