// The engine for adaptive sequential routing of a folded Clos on YARC tables.
#include "dataplane/routing/yarc_adaptive.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(YarcAdaptive);
}  // namespace fabemu
