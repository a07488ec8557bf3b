// The engine for YARC up/down routing of a folded Clos.
#include "dataplane/engine/engine.h"
#include "dataplane/routing/yarc_updown.h"

namespace fabemu {
template std::unique_ptr<EngineBase> make_engine<YarcUpDown>(YarcTables, const Fabric&,
                                                             const EngineConfig&);
}  // namespace fabemu
