// How a flatfly routing file registers its policy: the tables are the same
// for every flatfly policy (control/topology/flatfly.h), sized by the VCs
// the policy needs per traffic class, which is also its min_vcs.
#pragma once
#include <string>
#include <utility>

#include "control/topology/flatfly.h"
#include "control/topology/registry.h"
#include "control/topology/routing_registration.h"

namespace fabemu {

template <class Policy>
RoutingInfo flatfly_routing(std::string name, std::string summary, int vcs_per_class) {
  return policy_routing<Policy>("flatfly", std::move(name), std::move(summary), 2 * vcs_per_class,
                                vcs_per_class, true,
                                [vcs_per_class](const Spec& spec, const Fabric& fabric) {
                                  return program_flatfly_tables(spec, fabric, vcs_per_class);
                                });
}

}  // namespace fabemu
