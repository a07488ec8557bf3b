// The engine for T3E direction-order routing.
#include "dataplane/engine/engine.h"
#include "dataplane/routing/t3e_direction_order.h"

namespace fabemu {
template std::unique_ptr<EngineBase> make_engine<T3eDirectionOrder>(T3eTables, const Fabric&,
                                                                    const EngineConfig&);
}  // namespace fabemu
