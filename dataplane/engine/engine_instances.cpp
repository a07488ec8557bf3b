#include <algorithm>

#include "dataplane/engine/engine_factory.h"

namespace fabemu {

const EngineInstance* find_engine_instance(const std::type_info& policy, std::string_view model) {
  for (const EngineInstance& e : engine_instances())
    if (*e.policy == policy && model == e.model) return &e;
  return nullptr;
}

std::vector<std::string> engine_models(const std::type_info& policy) {
  std::vector<std::string> models;
  for (const EngineInstance& e : engine_instances())
    if (*e.policy == policy) models.emplace_back(e.model);
  return models;
}

}  // namespace fabemu
