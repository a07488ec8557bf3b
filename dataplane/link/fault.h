// A fault: one change of a fabric's state (a link's, a lane's, a router's
// or an endpoint's). control/run/fault_plan.h expands a spec's or the
// control socket's fault into these; each worker applies them at a window
// edge (link/link_faults.h).
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

namespace fabemu {

// One change of a fabric's state: scheduled ones apply at emulated time
// `at`; those given while running (link/fault_inbox.h) at each worker's
// next window edge.
struct FabricFault {
  enum class Op : uint8_t {
    port_down,     // router R's port P: its output discards what it is granted, and what
                   // was on the wire towards the far input (router link) or from the
                   // endpoint (endpoint port) is lost
    port_up,       // the port carries traffic again
    router_flush,  // router R died: what its input buffers and output queues hold is lost
    ber,           // bit errors at rate `ber` on the link leaving router R's port P
    sink_stop,     // the endpoint at router R's port P stops accepting packets (they wait
                   // in its receive buffer, whose credits do not come back)
    sink_start,    // it accepts again: what waited is delivered, its credits come back
    // Lane `lane` of the link leaving router R's port P (dataplane/link/lanes.h):
    lane_down,  // out of service: the link runs narrower (no lane left: see link_alive)
    lane_up,    // back in service
    lane_ber,   // bit errors at rate `ber` on the bits that cross it
  };
  ps_t at = 0;
  int32_t router = -1;
  int16_t port = -1;
  Op op = Op::port_down;
  double ber = 0;
  int16_t lane = -1;
  // lane_up: the faults leave the link up (a link that died of its lanes
  // comes back with one; one a fault keeps down comes back with that
  // fault's port_up).
  bool link_alive = true;
};

}  // namespace fabemu
