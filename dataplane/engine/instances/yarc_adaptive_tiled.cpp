// The engine for adaptive routing of a folded Clos on the YARC tiled router
// (router.model yarc_tiled).
#include "dataplane/engine/engine.h"
#include "dataplane/engine/router_model.h"
#include "dataplane/routing/yarc_adaptive.h"

namespace fabemu {
using YarcAdaptiveTiled = OnYarcTiles<YarcAdaptive>;
FABEMU_ENGINE_INSTANCE(YarcAdaptiveTiled);
}  // namespace fabemu
