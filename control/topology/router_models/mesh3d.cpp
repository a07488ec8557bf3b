// router.model mesh3d: the low-latency 3D mesh's router (dataplane/router/
// mesh3d_router.h), for the routings that list it in FABEMU_ENGINES beside
// them (the mesh's source routes).
#include <fmt/format.h>

#include "control/topology/router_models.h"

namespace fabemu {

namespace {

SpecProblem mesh3d_needs(const Spec& s, const WrittenFn&) {
  if (SpecProblem p = speedup_problem(
          s, "router.model",
          "the 3D mesh router's input feeds one path at a time (the cut-through block or the turn "
          "logic), with no switch speedup",
          "router.model: input_queued");
      !p.message.empty())
    return p;
  if (s.topology.family != "mesh3d")
    return {{"topology.family", "router.model"},
            fmt::format("the 3D mesh router has one port per mesh direction and its routing lanes "
                        "for turns; topology family {} is not a mesh: set topology.family: mesh3d, "
                        "or router.model: input_queued",
                        s.topology.family)};
  return {};
}

}  // namespace

FABEMU_REGISTER_NAMED(RouterModelInfo) {
  i.name = "mesh3d";
  i.summary =
      "the low-latency 3D mesh's router: a packet going straight on into an idle output cuts "
      "through (router.straight_ns), every other one goes through the turn and queuing logic "
      "(router.turn_ns), a turn on one of router.routing_lanes shared lanes";
  i.reference =
      "petaflops 3D-mesh proposal, Router Chip Architecture (Figures 13-16)";
  i.own_keys = {"router.routing_lanes"};
  i.available = [](const RoutingInfo& r) { return has_router_model(r, "mesh3d"); };
  i.where = "mesh3d has an engine for mesh3d source_route";
  i.check = mesh3d_needs;
}

}  // namespace fabemu
