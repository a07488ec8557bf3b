#include "control/topology/router_models.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "control/topology/registry.h"

namespace fabemu {

bool has_router_model(const RoutingInfo& routing, const std::string& model) {
  return std::find(routing.router_models.begin(), routing.router_models.end(), model) !=
         routing.router_models.end();
}

SpecProblem speedup_problem(const Spec& s, const char* with, const char* why, const char* instead) {
  for (const auto& [key, speedup] : {std::pair{"router.input_speedup", s.router.input_speedup},
                                     std::pair{"router.output_speedup", s.router.output_speedup}})
    if (speedup > 1)
      return {
          {key, with},
          fmt::format("{} is {}, but {}: remove {}, or set {}", key, speedup, why, key, instead)};
  return {};
}

}  // namespace fabemu
