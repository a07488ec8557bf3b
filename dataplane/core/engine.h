// Engine<R>: the per-core event engine instantiated for one routing policy.
// (Placeholder declaration; the implementation lands with the engine.)
#pragma once
#include <memory>

#include "dataplane/core/engine_base.h"
#include "dataplane/core/routing_policy.h"

namespace fabemu {

template <class R>
std::unique_ptr<EngineBase> make_engine(typename R::Tables tables, const Fabric& fabric,
                                        const EngineConfig& cfg) {
  (void)tables;
  (void)fabric;
  (void)cfg;
  return nullptr;
}

}  // namespace fabemu
