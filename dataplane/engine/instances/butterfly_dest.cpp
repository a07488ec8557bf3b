// The engine for destination routing of a conventional butterfly.
#include "dataplane/routing/butterfly_dest.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(ButterflyDest);
}  // namespace fabemu
