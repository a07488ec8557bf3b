// Registers BookSim2's Valiant and UGAL for the flatfly family
// (dataplane/routing/flatfly_booksim.h): valiant_booksim and ugal_booksim,
// beside the paper's val and ugal. Any even number of VCs, the lower half
// for the way to the intermediate router and the upper half for the rest.
#include <stdexcept>

#include <fmt/format.h>

#include "dataplane/routing/flatfly_booksim.h"

#include "control/topology/flatfly_routing.h"

namespace fabemu {
namespace {

FlatflyTables program_booksim_halves(const Spec& spec, const Fabric& fabric) {
  if (fabric.num_vcs % 2)
    throw std::invalid_argument(fmt::format(
        "routing {} splits the VCs into halves, one per leg, and needs an even number (the {} "
        "has {}; with an odd count BookSim's halves share the middle VC, which can deadlock): set "
        "vcs.count to an even number such as {}",
        spec.routing, fabric.name, fabric.num_vcs, fabric.num_vcs + 1));
  FlatflyTables t = program_flatfly_tables(spec, fabric, 2, spec_allocator(spec, Allocator::sequential));
  if (t.routers() > 0x7FFF)
    throw std::invalid_argument(fmt::format(
        "routing {} keeps its intermediate router in 15 bits; the {} has {} routers", spec.routing,
        fabric.name, t.routers()));
  return t;
}

template <class Policy>
RoutingInfo booksim_halves(std::string name, std::string summary) {
  RoutingInfo r = policy_routing<Policy>("flatfly", std::move(name), std::move(summary), kMaxVcs,
                                         2, true, program_booksim_halves);
  r.make_choice_tracer = choice_tracer<Policy>(program_booksim_halves);
  r.injects_on_any_vc = true;
  return r;
}

FABEMU_REGISTER_ROUTING(booksim_halves<FlatflyValiantBooksim>(
    "valiant_booksim",
    "BookSim2's valiant: to a random intermediate router (the source's own included) on the "
    "lower half of the VCs, then to the destination on the upper half; a packet at its "
    "intermediate's or destination's router goes on to the destination (same-router traffic "
    "goes minimally)"));

FABEMU_REGISTER_ROUTING([] {
  RoutingInfo r = booksim_halves<FlatflyUgalBooksim>(
    "ugal_booksim",
    "BookSim2's ugal: decided once at the source router on the credits it holds (minimal "
    "unless hops x downstream occupancy is more than the non-minimal route's plus 2 packets), "
    "the intermediate random only in the dimensions where source and destination differ; VCs "
    "as valiant_booksim");
  // On an idle fabric every decision is minimal; the non-minimal legs take
  // valiant_booksim's VC halves, whose check covers them.
  r.deadlock_scope =
      "minimal routes (an idle fabric's decisions); the non-minimal legs are valiant_booksim's, "
      "checked under that routing";
  return r;
}());

}  // namespace
}  // namespace fabemu
