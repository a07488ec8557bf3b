#include "control/analysis/bisection.h"

#include <algorithm>
#include <vector>

namespace fabemu {
namespace {

// Live links from side 0 to side 1 (out) and back (in).
struct Crossing {
  int64_t out = 0, in = 0;
  int64_t fewer() const { return std::min(out, in); }
};

bool live(const Fabric& f, const FabricRouter& r, const FabricPort& p) {
  return p.peer_router >= 0 && !p.dead && !r.dead && !f.routers[size_t(p.peer_router)].dead;
}

void add_link(Crossing& c, uint8_t from, uint8_t to, int64_t n) {
  if (from != to) (from == 0 ? c.out : c.in) += n;
}

// What moving router r to the other side does to the crossing links.
Crossing move_delta(const Fabric& f, const BisectionCut& side, size_t r) {
  Crossing d;
  const FabricRouter& fr = f.routers[r];
  const uint8_t s = side[r], moved = uint8_t(1 - s);
  for (const FabricPort& p : fr.ports) {
    if (p.peer_router < 0 || size_t(p.peer_router) == r) continue;
    const uint8_t t = side[size_t(p.peer_router)];
    if (live(f, fr, p)) add_link(d, s, t, -1), add_link(d, moved, t, 1);
    const FabricRouter& peer = f.routers[size_t(p.peer_router)];
    if (live(f, peer, peer.ports[size_t(p.peer_port)]))
      add_link(d, t, s, -1), add_link(d, t, moved, 1);
  }
  return d;
}

Crossing crossing(const Fabric& f, const BisectionCut& side) {
  Crossing c;
  for (size_t r = 0; r < f.routers.size(); ++r)
    for (const FabricPort& p : f.routers[r].ports)
      if (live(f, f.routers[r], p)) add_link(c, side[r], side[size_t(p.peer_router)], 1);
  return c;
}

// The routers a fault touches: dead, or at one end of a dead link.
std::vector<size_t> routers_at_faults(const Fabric& f) {
  std::vector<size_t> at;
  for (size_t r = 0; r < f.routers.size(); ++r) {
    bool touched = f.routers[r].dead;
    for (const FabricPort& p : f.routers[r].ports)
      touched = touched || (p.dead && p.peer_router >= 0);
    if (touched) at.push_back(r);
  }
  return at;
}

}  // namespace

bool has_dead_parts(const Fabric& fabric) {
  for (const FabricRouter& r : fabric.routers) {
    if (r.dead) return true;
    for (const FabricPort& p : r.ports)
      if (p.dead) return true;
  }
  return false;
}

int64_t live_links_across(const Fabric& fabric, const BisectionCut& side) {
  return crossing(fabric, side).fewer();
}

int64_t live_bisection_links(const Spec& spec, const Fabric& fabric, int64_t healthy) {
  const std::string& family = spec.topology.family.empty() ? fabric.topology : spec.topology.family;
  const TopologyInfo* topo = Registry::get().topology(family);
  if (!topo || !topo->bisection_cuts) return healthy;
  std::vector<BisectionCut> cuts = topo->bisection_cuts(spec, fabric);
  if (cuts.empty()) return healthy;
  size_t best = 0;
  Crossing c = crossing(fabric, cuts[0]);
  for (size_t i = 1; i < cuts.size(); ++i)
    if (const Crossing ci = crossing(fabric, cuts[i]); ci.fewer() < c.fewer()) best = i, c = ci;
  BisectionCut& side = cuts[best];

  // Each side keeps its endpoints: a router at a fault moves across alone
  // if it has none, or trades places with one that has as many.
  std::vector<int> endpoints(fabric.routers.size());
  for (const FabricEndpoint& e : fabric.endpoints) endpoints[size_t(e.router)]++;
  const std::vector<size_t> at = routers_at_faults(fabric);
  constexpr size_t kAlone = ~size_t{0};
  for (size_t pass = 0; pass <= at.size(); ++pass) {
    bool improved = false;
    for (const size_t u : at) {
      const Crossing du = move_delta(fabric, side, u);
      side[u] ^= 1;
      size_t best_v = u;  // u: stay
      Crossing best_c = c;
      if (const Crossing alone{c.out + du.out, c.in + du.in};
          endpoints[u] == 0 && alone.fewer() < best_c.fewer())
        best_v = kAlone, best_c = alone;
      for (size_t v = 0; v < fabric.routers.size(); ++v) {
        // v is on the side u moved to, and goes to the side u left.
        if (v == u || side[v] != side[u] || endpoints[v] != endpoints[u]) continue;
        const Crossing dv = move_delta(fabric, side, v);
        const Crossing after{c.out + du.out + dv.out, c.in + du.in + dv.in};
        if (after.fewer() < best_c.fewer()) best_v = v, best_c = after;
      }
      if (best_v == u) {
        side[u] ^= 1;
        continue;
      }
      if (best_v != kAlone) side[best_v] ^= 1;
      c = best_c;
      improved = true;
    }
    if (!improved) break;
  }
  return c.fewer();
}

}  // namespace fabemu
