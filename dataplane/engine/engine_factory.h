// What control/ needs to start an engine: every engine instance by routing
// policy and router model. The engine itself (engine.h) is compiled once
// for each in an instance the build makes (FABEMU_ENGINES beside each
// routing, CMakeLists.txt), never inside a control/ topology file; the
// build lists them all in one table (engine_instances()).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

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

// Both, for one instance: OnRouter<Policy, Model>, or Policy on its own model.
#define FABEMU_ENGINE_INSTANCE(Instance)                                                      \
  template std::unique_ptr<EngineBase> make_engine<Instance>(Instance::Tables, const Fabric&, \
                                                             const EngineConfig&);            \
  template bool replace_tables<Instance>(EngineBase&, Instance::Tables, ps_t)

// One engine instance: its routing policy, its router model's name
// (router/router_models.cmake) and its two functions, their types erased
// (as_make<Policy>, as_replace<Policy> give them back).
struct EngineInstance {
  using Erased = void (*)();
  const std::type_info* policy;
  const char* model;
  Erased make;
  Erased replace;

  template <class Policy>
  using MakeFn = std::unique_ptr<EngineBase> (*)(typename Policy::Tables, const Fabric&,
                                                 const EngineConfig&);
  template <class Policy>
  using ReplaceFn = bool (*)(EngineBase&, typename Policy::Tables, ps_t);
  template <class Policy>
  MakeFn<Policy> as_make() const {
    return reinterpret_cast<MakeFn<Policy>>(make);
  }
  template <class Policy>
  ReplaceFn<Policy> as_replace() const {
    return reinterpret_cast<ReplaceFn<Policy>>(replace);
  }
};

// Every instance the build made (a table it writes, CMakeLists.txt).
const std::vector<EngineInstance>& engine_instances();
// The instance of `policy` on router model `model`; nullptr when none was made.
const EngineInstance* find_engine_instance(const std::type_info& policy, std::string_view model);
// The router models `policy` has an engine instance for, in the order built.
std::vector<std::string> engine_models(const std::type_info& policy);

}  // namespace fabemu
