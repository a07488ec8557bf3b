#include "control/topology/router_models.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "control/topology/registry.h"

namespace fabemu {

bool has_router_model(const RoutingInfo& routing, const std::string& model) {
  return std::find(routing.router_models.begin(), routing.router_models.end(), model) !=
         routing.router_models.end();
}

std::string routings_where(const std::function<bool(const RoutingInfo&)>& available) {
  std::map<std::string, std::vector<std::string>> by_family;
  for (const RoutingInfo& r : Registry::get().routings())
    if (available(r)) by_family[r.family].push_back(r.name);
  std::string s;
  for (auto& [family, names] : by_family) {
    std::sort(names.begin(), names.end());
    if (!s.empty()) s += "; ";
    s += family + " ";
    for (size_t i = 0; i < names.size(); i++)
      s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return s;
}

std::string choice_where(const RouterChoiceInfo& c) {
  if (!c.where.empty() || !c.available) return c.where;
  return c.name + " is for " + routings_where(c.available);
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
