#include "control/topology/link_timing.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "control/spec/spec_error.h"

namespace fabemu {

double link_gbps(const Spec& spec) {
  const Spec::Link& l = spec.link;
  const double gbps = l.lanes * l.lane_gbps * l.coding;
  if (!(l.lanes > 0 && l.lane_gbps > 0 && l.coding > 0 && l.coding <= 1.0))
    throw FieldError("link.lane_gbps", "lanes and lane_gbps must be > 0 and coding in (0, 1]");
  return gbps;
}

double unit_time_ps(const Spec::Link& l) {
  return double(l.phit_bits) * double(l.phits_per_unit) / (l.lanes * l.lane_gbps * l.coding) *
         1000.0;
}

ps_t unit_ps(const Spec& spec) {
  const Spec::Link& l = spec.link;
  if (l.phit_bits <= 0 || l.phits_per_unit <= 0)
    throw FieldError("link.phit_bits", "phit_bits and phits_per_unit must be > 0");
  link_gbps(spec);  // checks the rate
  const double ps = unit_time_ps(l);
  if (!(ps >= 0.5 && ps <= 1e12))
    throw FieldError("link.lane_gbps", "a flow unit would take 0 ps or more than a second");
  return static_cast<ps_t>(std::llround(ps));
}

ps_t router_unit_ps(const Spec& spec) {
  const ps_t unit = unit_ps(spec);
  const double rate = spec.link.router_rate;
  if (!(rate >= 0.01 && rate <= 1.0))
    throw FieldError("link.router_rate", "must be 0.01 to 1 of the link rate");
  return static_cast<ps_t>(std::llround(double(unit) / rate));
}

ps_t wire_ps(const Spec& spec) {
  if (!(spec.link.wire_ns >= 0 && spec.link.wire_ns <= 1e9))
    throw FieldError("link.wire_ns", "must be 0 to 1e9 ns");
  return static_cast<ps_t>(std::llround(spec.link.wire_ns * 1000.0));
}

}  // namespace fabemu
