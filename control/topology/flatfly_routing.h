// How a flatfly routing file registers its policy: the tables are the same
// for every flatfly policy (control/topology/flatfly.h), sized by the VCs
// the policy needs per traffic class on the spec's k-ary n-flat (its
// needed_vcs), with the allocator the paper gives the algorithm unless
// router.allocator says otherwise.
#pragma once
#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "control/topology/flatfly.h"
#include "control/topology/registry.h"
#include "control/topology/routing_registration.h"

namespace fabemu {

// vcs_per_class(n'): VCs per traffic class on a flat of n' dimensions.
template <class Policy>
RoutingInfo flatfly_routing(std::string name, std::string summary,
                            std::function<int(int dims)> vcs_per_class,
                            Allocator allocator = Allocator::sequential) {
  // The most any size may use: two classes at the most dimensions a flat
  // has (2-ary 15-flat), within what a port carries.
  const int max_vcs = std::min(kMaxVcs, 2 * vcs_per_class(14));
  auto program = [vcs_per_class, allocator](const Spec& spec, const Fabric& fabric) {
    return program_flatfly_tables(spec, fabric, vcs_per_class(spec.topology.n - 1),
                                  spec_allocator(spec, allocator));
  };
  RoutingInfo r = policy_routing<Policy>("flatfly", std::move(name), std::move(summary), max_vcs,
                                         vcs_per_class(1), true, program);
  r.needed_vcs = [vcs_per_class](const Spec& spec) { return vcs_per_class(spec.topology.n - 1); };
  // Adaptive choices: the deadlock check follows every one.
  r.make_choice_tracer = choice_tracer<Policy>(program);
  return r;
}

template <class Policy>
RoutingInfo flatfly_routing(std::string name, std::string summary, int vcs_per_class) {
  return flatfly_routing<Policy>(std::move(name), std::move(summary),
                                         [vcs_per_class](int) { return vcs_per_class; });
}

}  // namespace fabemu
