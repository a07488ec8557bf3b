// What control/ needs to start an engine: one factory per routing policy
// and router model. The engine itself (engine.h) is compiled once for each
// in an instance the build makes (FABEMU_ENGINES beside each routing,
// CMakeLists.txt), never inside a control/ topology file.
#pragma once
#include <memory>

#include "dataplane/core/fabric.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/sim/time.h"

namespace fabemu {

template <class R>
std::unique_ptr<EngineBase> make_engine(typename R::Tables tables, const Fabric& fabric,
                                        const EngineConfig& cfg);

// New routing tables for an engine make_engine<R> made (routing/table_slot.h):
// with at == kNever from any thread while it runs (each worker adopts them at
// its next window edge), otherwise before run() for emulated time `at`
// (false, nothing changed, when the run has already begun).
template <class R>
bool replace_tables(EngineBase& engine, typename R::Tables tables, ps_t at);

// Both, for one policy (OnRouter<Policy, Model> for another router model).
#define FABEMU_ENGINE_INSTANCE(Policy)                                                        \
  template std::unique_ptr<EngineBase> make_engine<Policy>(Policy::Tables, const Fabric&,     \
                                                           const EngineConfig&);              \
  template bool replace_tables<Policy>(EngineBase&, Policy::Tables, ps_t)

}  // namespace fabemu
