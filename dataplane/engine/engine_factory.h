// What control/ needs to start an engine: one factory per routing policy.
// The engine itself (engine.h) is compiled once per policy in
// dataplane/engine/instances/, never inside a control/ topology file.
#pragma once
#include <memory>

#include "dataplane/core/fabric.h"
#include "dataplane/engine/engine_base.h"

namespace fabemu {

template <class R>
std::unique_ptr<EngineBase> make_engine(typename R::Tables tables, const Fabric& fabric,
                                        const EngineConfig& cfg);

}  // namespace fabemu
