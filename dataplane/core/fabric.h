// The fabric as the dataplane sees it: routers, ports, links and endpoints as
// plain data. control/ builds one from a spec (topology builders) and hands it
// to the engine before the workers start; nothing here parses or validates.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

inline constexpr int kMaxVcs = 16;  // BookSim2's default num_vcs
inline constexpr int kMaxPorts = 64;
inline constexpr uint32_t kMaxSlices = 8;  // network slices (Fabric::slices)

// One router port. A port either connects to a peer router's port (a fabric
// link, one direction of it: this port's output drives peer's input) or to an
// endpoint (injection into / ejection from the fabric).
struct FabricPort {
  int32_t peer_router = -1;  // -1: not a router link
  int16_t peer_port = -1;
  int32_t endpoint = -1;     // -1: not an endpoint port
  ps_t unit_ps = 0;          // time one flow-control unit (phit or flit) occupies the link
  ps_t wire_ps = 0;          // SerDes + wire latency of the link leaving this port
  uint8_t label = 0;         // topology-specific port class (torus direction, up/down)
  // A fault (control/run/fault_plan.h): the link at this port is dead, both
  // directions, or (endpoint port) the endpoint's link. Routing tables
  // programmed for a fabric with faults route around what is dead.
  bool dead = false;
  bool connected() const { return peer_router >= 0 || endpoint >= 0; }
};

struct FabricRouter {
  int32_t id = 0;
  std::array<int32_t, 3> coord{0, 0, 0};  // torus/mesh coordinates; clos: (rank, index, 0)
  int32_t rank = 0;
  bool dead = false;  // a fault: the router stopped (its ports are marked dead too)
  std::vector<FabricPort> ports;
  // Its first processor's endpoint, or -1: none attached.
  int32_t first_endpoint() const {
    for (const FabricPort& p : ports)
      if (p.endpoint >= 0) return p.endpoint;
    return -1;
  }
};

struct FabricEndpoint {
  int32_t id = 0;
  int32_t router = 0;
  int16_t port = 0;   // router port the endpoint attaches to
  ps_t unit_ps = 0;   // injection / ejection link unit time
  ps_t wire_ps = 0;   // injection / ejection link latency
};

// Where a logical router of the topology lives when routers are partitioned
// into virtual routers (BlackWidow section 7.4: a YARC split into two
// radix-32 routers by the masks of its routing tables): the physical router
// it is part of and the physical ports it owns; its logical port i is the
// i-th set bit of `ports` (control/topology/virtual_routers.h). Its own
// coord and rank, which the table programming reads.
struct FabricVirtualRouter {
  int32_t router = 0;
  uint64_t ports = 0;
  std::array<int32_t, 3> coord{0, 0, 0};
  int32_t rank = 0;
};

// Everything the engine needs that is not topology-specific routing state.
struct Fabric {
  std::string name;              // e.g. "t3e 4x4x4"
  std::string topology;          // registered topology name
  std::string routing;           // registered routing algorithm name
  std::vector<FabricRouter> routers;
  std::vector<FabricEndpoint> endpoints;
  int num_vcs = 2;
  // Input buffer size per (port, VC), in flow units.
  std::array<uint32_t, kMaxVcs> vc_buffer_units{};
  // Lanes of each router-to-router link direction (link.lanes): its unit
  // time is for all of them; a lane out of service narrows the link
  // (dataplane/link/lanes.h).
  uint32_t lanes = 1;
  // link.credit_delay_ns: credits take this beyond the wire on their way
  // back upstream (BookSim2's credit_delay).
  ps_t credit_delay_ps = 0;
  // link.width_negotiation lower_half: a link runs on all its lanes or on
  // the lower half (dataplane/link/lanes.h usable_lanes).
  bool lanes_lower_half = false;
  // Flow-control unit size in bits (24-bit phit, 70-bit flit) for reports.
  uint32_t unit_bits = 24;
  std::string unit_name = "phit";
  // Per logical router, the physical router and ports it occupies; empty
  // when every router is its own (routers[] are then the logical routers).
  std::vector<FabricVirtualRouter> virtual_routers;
  // Network slices (BlackWidow section 2.2: "each port connecting to a
  // different network slice. Each slice is a completely separate network"):
  // `slices` copies of one network (control/topology/slices.h). Processor p
  // has one injection port in each, endpoint s * P + p of slice s
  // (P = processors()); router r of slice s is router s * R + r
  // (R = slice_routers) and routes by router r's tables, programmed once.
  // Packets carry processor numbers in src and dst.
  // R and P are kept (replicate_slices sets them) so that the per-packet
  // mappings below need no division: at most kMaxSlices - 1 subtractions.
  uint32_t slices = 1;
  uint32_t slice_routers = 0;    // R
  uint32_t slice_endpoints = 0;  // P
  uint32_t processors() const {
    return slices > 1 ? slice_endpoints : static_cast<uint32_t>(endpoints.size());
  }
  // The processor of endpoint e, and the router whose tables router r uses.
  uint32_t processor(uint32_t e) const {
    if (slices > 1)
      while (e >= slice_endpoints) e -= slice_endpoints;
    return e;
  }
  int32_t table_router(int32_t r) const {
    if (slices > 1)
      while (r >= static_cast<int32_t>(slice_routers)) r -= static_cast<int32_t>(slice_routers);
    return r;
  }
  // Processor p's endpoint in slice s (s is 0 without slices).
  uint32_t slice_endpoint(uint32_t p, uint32_t s) const { return s * slice_endpoints + p; }
};

}  // namespace fabemu
