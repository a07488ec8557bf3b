// The engine for adaptive Clos (CLOS AD) routing of a flattened butterfly.
#include "dataplane/routing/flatfly_clos_ad.h"

#include "dataplane/engine/engine.h"

namespace fabemu {
FABEMU_ENGINE_INSTANCE(FlatflyClosAd);
}  // namespace fabemu
