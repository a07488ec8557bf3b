// The engine for minimal adaptive (MIN AD) routing of a flattened butterfly.
#include "dataplane/routing/flatfly_min_ad.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(FlatflyMinAd);
}  // namespace fabemu
