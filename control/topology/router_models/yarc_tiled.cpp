// router.model yarc_tiled: the YARC's 8x8 tiles (dataplane/router/
// yarc_tiled.h), for the routings of the YARC's tables
// (FABEMU_ENGINES(..., yarc_tiled) beside them).
#include <fmt/format.h>

#include "control/topology/router_models.h"
#include "dataplane/router/yarc_tile_geometry.h"

namespace fabemu {

namespace {

SpecProblem yarc_tiled_needs(const Spec& s, const WrittenFn& written) {
  if (SpecProblem p = speedup_problem(
          s, "router.model",
          "the YARC tiled router has no switch speedup to set (its row buffers, subswitches and "
          "column buffers are the switch)",
          "router.model: input_queued");
      !p.message.empty())
    return p;
  if (written("router.allocator") && s.router.allocator != "default")
    return {{"router.allocator", "router.model"},
            fmt::format("router.allocator is {}, but the YARC tiled router makes adaptive "
                        "choices in its own two stages (the column by its row buffers' space, "
                        "then the exit row by its column buffers'), not by an allocator: remove "
                        "router.allocator, or set router.model: input_queued",
                        s.router.allocator)};
  if (s.router.latency_ns * 1000 < TileStages::kTotal)
    return {{"router.latency_ns", "router.model"},
            fmt::format("router.latency_ns {:g} is too short for the YARC tiled router's {} "
                        "pipeline stages (at least 1 ps each): give at least {:g}, or set "
                        "router.model: input_queued",
                        s.router.latency_ns, TileStages::kTotal, TileStages::kTotal / 1000.0)};
  return {};
}

}  // namespace

FABEMU_REGISTER_NAMED(RouterModelInfo) {
  i.name = "yarc_tiled";
  i.summary =
      "the YARC's 64 ports as tiles: input buffers, row buses into 16-phit row buffers, "
      "p x p subswitches onto column channels into 10-phit column buffers, two "
      "arbitration stages, wormhole inside; clos family only";
  i.reference = "[BW] §3 (YARC: 8x8 tiles), §7.5 (wormhole inside), §7.6 (subswitch degree)";
  i.own_keys = {"router.subswitch_degree", "router.row_buffer_units", "router.column_buffer_units"};
  i.available = [](const RoutingInfo& r) { return has_router_model(r, "yarc_tiled"); };
  i.where = "yarc_tiled models the YARC's radix-64 router, the clos family's";
  i.check = yarc_tiled_needs;
}

}  // namespace fabemu
