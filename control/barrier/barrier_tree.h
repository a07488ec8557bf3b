// The spanning tree of the T3E's barrier/eureka networks (section 6: each
// router's BSU register names "which of the six network directions plus the
// local processor are children in the tree, and which direction (if any)
// is the parent"), programmed from the topology: breadth first from the
// root over the live router links, so a router's depth is its distance from
// the root and the tree is as shallow as any rooted there. The paper does
// not say how the T3E's trees were laid out; this is fabemu's choice.
#pragma once
#include <cstdint>
#include <string>

#include "dataplane/barrier/barrier_network.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

struct BarrierTree {
  BarrierConfig config;    // children and parent per router (units and times left 0)
  int32_t root = 0;
  uint32_t depth = 0;      // the deepest router's distance from the root
  uint32_t routers = 0;    // routers in the tree (live and reachable from the root)
};

// The tree of fabric f rooted at router `root` (-1: a live router of least
// eccentricity, the lowest-numbered; fabrics of more than 4096 routers
// take router 0 rather than search). False with *err when the root is not a
// live router, a router has more ports than a register can name, or some
// live router with an endpoint is out of the root's reach.
bool build_barrier_tree(const Fabric& f, int32_t root, BarrierTree* out, std::string* err);

// A barrier at zero load, every processor joining at once: up from the
// deepest processor to the root and down again, plus the shell's hop at
// either end: 2 x endpoint + 2 x depth x hop.
inline ps_t zero_load_barrier_ps(const BarrierTree& t, ps_t hop_ps, ps_t endpoint_ps) {
  return 2 * endpoint_ps + 2 * ps_t(t.depth) * hop_ps;
}

}  // namespace fabemu
