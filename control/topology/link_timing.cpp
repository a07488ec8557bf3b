#include "control/topology/link_timing.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace fabemu {

double link_gbps(const Spec& spec) {
  const Spec::Link& l = spec.link;
  const double gbps = l.lanes * l.lane_gbps * l.coding;
  if (!(l.lanes > 0 && l.lane_gbps > 0 && l.coding > 0 && l.coding <= 1.0))
    throw std::invalid_argument("link: lanes, lane_gbps must be > 0 and coding in (0, 1]");
  return gbps;
}

ps_t unit_ps(const Spec& spec) {
  const Spec::Link& l = spec.link;
  if (l.phit_bits <= 0 || l.phits_per_unit <= 0)
    throw std::invalid_argument("link: phit_bits and phits_per_unit must be > 0");
  const double bits = double(l.phit_bits) * double(l.phits_per_unit);
  return static_cast<ps_t>(std::llround(bits / link_gbps(spec) * 1000.0));
}

ps_t wire_ps(const Spec& spec) {
  if (!(spec.link.wire_ns >= 0)) throw std::invalid_argument("link: wire_ns must be >= 0");
  return static_cast<ps_t>(std::llround(spec.link.wire_ns * 1000.0));
}

}  // namespace fabemu
