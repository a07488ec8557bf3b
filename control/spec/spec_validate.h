// Cross-field validation of a loaded spec: what needs the whole spec
// (routing against family, VC counts, packet against buffer sizes, ports and
// endpoints, link rates, traffic that a run can generate, packets the codec
// can encode). A problem is refused at the line or --set of the first field
// involved that the user wrote (spec_refuse.h).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

struct RoutingInfo;       // control/topology/registry.h
struct RouterChoiceInfo;  // control/topology/router_models.h
template <class Info>
class NamedRegistry;  // control/topology/named_registry.h

class SpecValidator {
 public:
  SpecValidator(const std::string& file, const std::map<std::string, SpecOrigin>& origins)
      : file_(file), origins_(origins) {}
  // Throws SpecError on the first problem; fills what validation derives.
  void validate(Spec& s) const;

 private:
  [[noreturn]] void blame(const std::vector<std::string>& paths, const std::string& msg) const;
  void require_packet_fits(const Spec& s, const char* field, int units, const char* what) const;
  void validate_link_rate(const Spec& s) const;
  void validate_lanes(const Spec& s) const;
  void validate_families(const Spec& s) const;
  bool written(const std::string& path) const;
  void validate_router_model(Spec& s, const RoutingInfo& routing) const;
  void validate_switch_allocator(const Spec& s, const RoutingInfo& routing) const;
  void validate_injection_vc(const Spec& s, const RoutingInfo& routing) const;
  void validate_sample_periods(const Spec& s) const;
  void check_choice(const Spec& s, const RouterChoiceInfo& choice) const;
  template <class Info>
  std::pair<const Info*, const std::string*> foreign_key(const NamedRegistry<Info>& choices,
                                                         const std::string& chosen) const;
  void validate_ports(const Spec& s, int64_t endpoints) const;
  void validate_with_fabric(const Spec& s, int64_t endpoints) const;
  void validate_generation(const Spec& s, const Fabric& f) const;
  void validate_packets(const Spec& s, const Fabric& f) const;
  void validate_t3e_traffic(const Spec& s, int64_t endpoints) const;

  const std::string& file_;
  const std::map<std::string, SpecOrigin>& origins_;
};

}  // namespace fabemu
