// The engine for UGAL and UGAL-S routing (one policy; the allocator is in its tables) of a
// flattened butterfly.
#include "dataplane/routing/flatfly_ugal.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(FlatflyUgal);
}  // namespace fabemu
