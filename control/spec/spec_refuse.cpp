#include "control/spec/spec_refuse.h"

#include <fmt/format.h>

#include <exception>

#include "control/spec/spec_error.h"
#include "control/topology/registry.h"

namespace fabemu {

void refuse_spec(const std::string& file, const std::map<std::string, SpecOrigin>& origins,
                 const std::vector<std::string>& paths, const std::string& msg) {
  std::string chosen = paths.empty() ? std::string() : paths.front();
  for (const auto& p : paths) {
    auto it = origins.find(p);
    if (it != origins.end() && it->second.kind != SpecOrigin::Kind::profile) {
      chosen = p;
      break;
    }
  }
  auto it = origins.find(chosen);
  if (it == origins.end())  // a key the profile leaves at spec.h's value
    throw SpecError(file, 0, 0, chosen, msg + " (the value is fabemu's built-in default)");
  const SpecOrigin& o = it->second;
  switch (o.kind) {
    case SpecOrigin::Kind::file:
      throw SpecError(file, o.line, o.column, chosen, msg);
    case SpecOrigin::Kind::set:
      throw SpecError(file, 0, 0, chosen, msg, o.set_arg);
    case SpecOrigin::Kind::profile:
      break;
  }
  throw SpecError(file, 0, 0, chosen,
                  msg + fmt::format(" (the value is the default of profile '{}')", o.profile));
}

std::string origin_text(const std::map<std::string, SpecOrigin>& origins, const std::string& path) {
  auto it = origins.find(path);
  if (it == origins.end()) return "fabemu's built-in default";
  const SpecOrigin& o = it->second;
  switch (o.kind) {
    case SpecOrigin::Kind::file:
      return fmt::format("line {}", o.line);
    case SpecOrigin::Kind::set:
      return fmt::format("--set '{}'", printable(o.set_arg, 80));
    case SpecOrigin::Kind::profile:
      break;
  }
  return fmt::format("the default of profile '{}'", o.profile);
}

Fabric build_spec_fabric(const Spec& s) {
  const TopologyInfo* topo = Registry::get().topology(s.topology.family);
  if (!topo || !topo->build)
    refuse_spec(s, {"topology.family"},
                fmt::format("no builder for topology family '{}'", printable(s.topology.family)));
  try {
    return topo->build(s);
  } catch (const FieldError& e) {
    refuse_spec(s, {e.field(), "topology.family"}, e.message());
  } catch (const SpecError&) {
    throw;
  } catch (const std::exception& e) {
    refuse_spec(s, {"topology.family"},
                fmt::format("the {} builder refused this spec: {}", s.topology.family, e.what()));
  }
}

}  // namespace fabemu
