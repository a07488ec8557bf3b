// Topology family "fat_hypercube": SGI Spider's hierarchical fat hypercube
// (Galles, "Spider: A High-Speed Network Interconnect", IEEE Micro 1997,
// "Topologies"): a plain hypercube of chips up to 32 endpoints, and above it
// domains of 16 endpoints (a local hypercube each) joined by metahypercubes,
// "a full hypercube connecting each vertex of every local hypercube": for
// each of the 2^n vertex positions a hypercube of 2^meta_n meta chips, meta
// chip j linked to the chip at that position in domain j. Endpoints per
// chip above 1 are the paper's bristling.
//
// Keys: topology.n (local dimensions), topology.meta_n, topology.
// endpoints_per_router (c) and topology.diagonal (local chips i and i ^ 3
// linked: fabemu's fit of Table 1's 8-endpoint row, see spec_fields.cpp).
//
// Routers: local chip r = domain * 2^n + position, then the meta chips,
// 2^n * 2^meta_n + position * 2^meta_n + domain. Endpoint e = r * c + j on
// port j of local chip r, so that e's upper 5 bits are its domain when a
// domain holds 16 endpoints (the 9-bit destination's meta address).
//
// Port layout (every chip has at most Spider's 6 ports):
//   local chip   0 .. c-1   endpoints                       label 0
//                c + d      local dimension d (0 .. n-1)    label 1
//                c + n      diagonal, to chip i ^ 3         label 2
//                next       up, to the meta chip            label 3
//   meta chip    0          down, to its domain's chip      label 4
//                1 + j      meta dimension j                label 5
#pragma once
#include <cstdint>
#include <string>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/spider_header.h"

namespace fabemu {

inline constexpr int kSpiderPorts = 6;           // a Spider chip's ports
inline constexpr int kSpiderLocalEntries = 16;   // the local table: 4 address bits
inline constexpr int kSpiderMetaEntries = 32;    // the meta table: 5 address bits

enum FatHypercubeLabel : uint8_t {
  kFhcEndpoint = 0,
  kFhcLocal = 1,
  kFhcDiagonal = 2,
  kFhcUp = 3,
  kFhcDown = 4,
  kFhcMeta = 5,
};

struct FatHypercubeShape {
  int n = 4;       // local dimensions
  int meta_n = 0;  // metahypercube dimensions
  int conc = 1;    // endpoints per chip
  bool diagonal = false;

  int positions() const { return 1 << n; }
  int domains() const { return 1 << meta_n; }
  int local_chips() const { return domains() << n; }
  int meta_chips() const { return meta_n ? domains() << n : 0; }
  int endpoints() const { return local_chips() * conc; }
  int local_port(int d) const { return conc + d; }
  int diagonal_port() const { return conc + n; }
  int up_port() const { return conc + n + (diagonal ? 1 : 0); }
  int local_radix() const { return up_port() + (meta_n ? 1 : 0); }
  int meta_chip(int position, int domain) const {
    return local_chips() + (position << meta_n) + domain;
  }
};

FatHypercubeShape fat_hypercube_shape(const Spec& spec);

// Empty when the shape can be built with Spider chips (6 ports, 512
// endpoints, a domain of 16 endpoints under metahypercubes so that the
// destination's upper 5 bits name it); otherwise what is wrong and what to do.
std::string fat_hypercube_size_problem(const FatHypercubeShape& s);

// Throws std::invalid_argument with fat_hypercube_size_problem()'s message.
Fabric build_fat_hypercube(const Spec& spec);

}  // namespace fabemu
