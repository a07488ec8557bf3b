// The engine for YARC up/down routing of a folded Clos on the YARC tiled
// router (router.model yarc_tiled).
#include "dataplane/engine/engine.h"
#include "dataplane/engine/router_model.h"
#include "dataplane/routing/yarc_updown.h"

namespace fabemu {
using YarcUpDownTiled = OnYarcTiles<YarcUpDown>;
FABEMU_ENGINE_INSTANCE(YarcUpDownTiled);
}  // namespace fabemu
