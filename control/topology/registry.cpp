#include "control/topology/registry.h"

#include <algorithm>

namespace fabemu {

Registry& Registry::get() {
  static Registry r;
  return r;
}

void Registry::add_topology(TopologyInfo t) { topologies_.push_back(std::move(t)); }
void Registry::add_routing(RoutingInfo r) { routings_.push_back(std::move(r)); }

const TopologyInfo* Registry::topology(const std::string& family) const {
  for (const auto& t : topologies_)
    if (t.family == family) return &t;
  return nullptr;
}

const RoutingInfo* Registry::routing(const std::string& family, const std::string& name) const {
  for (const auto& r : routings_)
    if (r.family == family && r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> Registry::topology_names() const {
  std::vector<std::string> v;
  for (const auto& t : topologies_) v.push_back(t.family);
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> Registry::routing_names(const std::string& family) const {
  std::vector<std::string> v;
  for (const auto& r : routings_)
    if (r.family == family) v.push_back(r.name);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace fabemu
