// Specs of the seed fabrics built in code, for unit tests and benchmarks that
// program topologies and tables without a YAML file: the T3E torus (the
// Spec defaults are the T3E's) and the BlackWidow folded Clos with the
// paper's link (3 lanes x 6.25 Gb/s, 8b/10b, 24-bit phits), 31.25 ns router
// latency and 256-phit input buffers on 2 VCs.
#pragma once
#include "control/spec/spec.h"

namespace fabemu {

inline Spec t3e_spec(int kx, int ky, int kz, int endpoints_per_router = 1) {
  Spec s;
  s.profile = "t3e";
  s.topology.family = "torus";
  s.topology.dims = {kx, ky, kz};
  s.topology.endpoints_per_router = endpoints_per_router;
  s.routing = "direction_order";
  return s;
}

inline Spec yarc_spec(int rank, int endpoints) {
  Spec s;
  s.profile = "yarc";
  s.topology.family = "clos";
  s.topology.rank = rank;
  s.topology.endpoints = endpoints;
  s.link.lanes = 3;
  s.link.lane_gbps = 6.25;
  s.link.coding = 0.8;
  s.link.phit_bits = 24;
  s.link.phits_per_unit = 1;
  s.link.wire_ns = 10.0;
  s.router.latency_ns = 31.25;
  s.router.radix = 64;
  s.vcs.count = 2;
  s.vcs.buffer_units = 256;
  s.routing = "updown";
  s.packet.header_units = 4;
  return s;
}

}  // namespace fabemu
