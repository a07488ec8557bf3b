// The link checks of a loaded spec (spec_validate.h): link.router_rate and
// the lanes of a link against the clock and the packet sizes.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "control/spec/spec_context.h"
#include "control/spec/spec_validate.h"
#include "control/topology/link_timing.h"
#include "dataplane/link/lanes.h"

namespace fabemu {

using namespace spec_detail;

// The time one flow unit occupies a link (link_timing.h) must be a number
// of picoseconds the engine's clock can count: at least one (below, it
// rounds to 0 and the link has no rate), at most a millisecond.
void SpecValidator::validate_link_rate(const Spec& s) const {
  const Spec::Link& l = s.link;
  const double bits = double(l.phit_bits) * l.phits_per_unit;
  const double unit_ps = unit_time_ps(l);
  const std::string link =
      fmt::format("a {:g}-bit flow unit on {} lane{} of {:g} Gb/s (coding {:g})", bits, l.lanes,
                  l.lanes == 1 ? "" : "s", l.lane_gbps, l.coding);
  if (unit_ps < 0.5)
    blame({"link.lane_gbps", "link.lanes", "link.phit_bits", "link.phits_per_unit", "link.coding"},
          fmt::format("{} takes {:.3g} ps, less than the engine's clock tick of 1 ps: lower "
                      "link.lanes or link.lane_gbps, or raise link.phit_bits",
                      link, unit_ps));
  if (unit_ps > 1e9)
    blame({"link.lane_gbps", "link.lanes", "link.phit_bits", "link.phits_per_unit", "link.coding"},
          fmt::format("{} takes {:.3g} ms, more than the 1 ms a link may take per unit: raise "
                      "link.lane_gbps or link.lanes, or lower link.phit_bits",
                      link, unit_ps / 1e9));
  if (unit_ps / l.router_rate > 1e9)
    blame({"link.router_rate", "link.lane_gbps", "link.lanes"},
          fmt::format("{} takes {:.3g} ms on a router-to-router link at link.router_rate {:g}, "
                      "more than the 1 ms a link may take per unit: raise link.router_rate, "
                      "link.lane_gbps or link.lanes",
                      link, unit_ps / l.router_rate / 1e9, l.router_rate));
}

// Lane degrade and the retry limit act on link-level retries: without
// retry they would silently do nothing. Lane masks are 64 bits wide
// (dataplane/link/lanes.h).
void SpecValidator::validate_lanes(const Spec& s) const {
  const Spec::Link& l = s.link;
  if (l.retry_limit > 0 && !l.retry)
    blame({"link.retry_limit", "link.retry"},
          fmt::format("a retry limit of {} bounds link-level retries, which are off: set "
                      "link.retry: true, or leave link.retry_limit out",
                      l.retry_limit));
  for (const char* key : {"link.lane_retry_threshold", "link.lane_retry_window_ns"}) {
    if (!written(key)) continue;
    if (!l.retry)
      blame({key, "link.retry"},
            fmt::format("{} counts the link-level retries attributed to a lane, and link-level "
                        "retry is off: set link.retry: true and link.lane_degrade: true, or "
                        "leave {} out",
                        key, key));
    if (!l.lane_degrade)
      blame({key, "link.lane_degrade"},
            fmt::format("{} shapes lane degrade, which is off: set link.lane_degrade: true, or "
                        "leave {} out",
                        key, key));
  }
  if (l.lane_degrade && !l.retry)
    blame({"link.lane_degrade", "link.retry"},
          "lane degrade drops a lane for the link-level retries attributed to it, and link-level "
          "retry is off (no lane would ever be dropped): set link.retry: true, or leave "
          "link.lane_degrade out");
  if (l.width_negotiation == "lower_half" && (l.lanes < 2 || l.lanes % 2))
    blame({"link.width_negotiation", "link.lanes"},
          fmt::format("lower_half runs a link on the lower half of its lanes, and link.lanes is "
                      "{}: give an even number of lanes (Spider: 20), or set "
                      "link.width_negotiation: any",
                      l.lanes));
  if (l.lane_degrade && l.lanes > int(kMaxLanes))
    blame({"link.lane_degrade", "link.lanes"},
          fmt::format("lane degrade is modelled on links of at most {} lanes, and link.lanes is "
                      "{}: lower link.lanes or leave link.lane_degrade out",
                      kMaxLanes, l.lanes));
  // Two-hop recovery acknowledges a packet where it leaves an input FIFO of
  // the input-queued routers (the only ones the mesh3d family has), straight
  // onto its output link.
  if (l.recovery == "two_hop") {
    if (s.router.output_speedup > 1)
      blame({"link.recovery", "router.output_speedup"},
            fmt::format("two-hop recovery acknowledges a packet when it leaves its input for "
                        "the output link, and router.output_speedup {} queues it at the output "
                        "first: set router.output_speedup: 1, or link.recovery: none",
                        s.router.output_speedup));
  }
}

}  // namespace fabemu
