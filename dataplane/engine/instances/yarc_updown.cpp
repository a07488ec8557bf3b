// The engine for YARC up/down routing of a folded Clos.
#include "dataplane/engine/engine.h"
#include "dataplane/routing/yarc_updown.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(YarcUpDown);
}  // namespace fabemu
