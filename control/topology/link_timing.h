// Link timing from the spec's link parameters: how long one flow-control
// unit occupies a link and how long the link takes end to end.
//   unit_ps = round(phit_bits * phits_per_unit / (lanes * lane_gbps * coding) * 1000)
//     T3E:  70 bits / 5.25 Gb/s              = 13333 ps per flit
//     YARC: 24 bits / (3 * 6.25 Gb/s * 0.8)  =  1600 ps per phit
//   wire_ps = round(wire_ns * 1000)
#pragma once
#include "control/spec/spec.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// Throw FieldError (spec_error.h) when the link parameters give no time the
// engine's picosecond clock can count.
ps_t unit_ps(const Spec& spec);
// The same on a router-to-router link, which runs at link.router_rate of
// the endpoint links' rate.
ps_t router_unit_ps(const Spec& spec);
// The same before rounding to the clock's picoseconds (no checks).
double unit_time_ps(const Spec::Link& link);
ps_t wire_ps(const Spec& spec);
// Data rate of one link direction after coding, in Gb/s.
double link_gbps(const Spec& spec);

}  // namespace fabemu
