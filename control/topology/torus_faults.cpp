// The T3E system software's answer to a dead link or router (Scott &
// Thorson, Hot Interconnects 1996, sections 2.1 and 9): the source table
// entry of every (source, destination) pair whose deterministic path meets
// the fault is rewritten to another direction-ordered path, one of the 8
// (the sign of travel in each dimension) that does not (shortest first), and
// adaptivity is disabled in it ("used to disable adaptivity in the event of
// a faulty link in one of the minimal paths"). Every route stays in
// direction order, so the VC tables and datelines keep it deadlock free
// (a direction's dateline is crossed at most once whatever its length).
// A pair with no such path, or whose end is a dead router, is marked
// unroutable: its packets are discarded at their first router and counted.
// Initial and final hops (section 2.2) are not used for this.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>

#include "control/topology/torus.h"

namespace fabemu {
namespace {

// Follows path bits `path` from router s in direction order; true when it
// reaches router d without a dead port or router on the way.
bool path_alive(const T3eTables& t, const Fabric& f, int s, int d, uint8_t path) {
  const std::array<uint8_t, 3>& dst = t.coord[size_t(d)];
  int r = s;
  for (int hop = 0; hop < 3 * 256; hop++) {
    if (r == d) return true;
    const std::array<uint8_t, 3>& c = t.coord[size_t(r)];
    const unsigned differ = (c[0] != dst[0] ? 0x09u : 0u) | (c[1] != dst[1] ? 0x12u : 0u) |
                            (c[2] != dst[2] ? 0x24u : 0u);
    const unsigned pending = differ & path & 0x3Fu;
    if (!pending) return false;
    const int dir = __builtin_ctz(pending);
    const FabricPort& p = f.routers[size_t(r)].ports[size_t(dir)];
    if (p.dead || p.peer_router < 0) return false;
    r = p.peer_router;
    if (f.routers[size_t(r)].dead) return false;
  }
  return false;
}

int path_hops(const T3eTables& t, int s, int d, uint8_t path) {
  int hops = 0;
  for (int dim = 0; dim < 3; dim++) {
    const int k = t.k[dim], a = t.coord[size_t(s)][dim], b = t.coord[size_t(d)][dim];
    if (a == b) continue;
    hops += (path >> dim) & 1u ? (b - a + k) % k : (a - b + k) % k;
  }
  return hops;
}

}  // namespace

void t3e_route_around_faults(T3eTables& t, const Fabric& f) {
  bool any = false;
  for (const FabricRouter& r : f.routers) {
    any = any || r.dead;
    for (const FabricPort& p : r.ports) any = any || p.dead;
  }
  if (!any) return;
  const int nr = t.num_routers;
  tbb::parallel_for(tbb::blocked_range<int>(0, nr), [&](const tbb::blocked_range<int>& rg) {
    for (int s = rg.begin(); s != rg.end(); ++s) {
      uint8_t* row = t.path.data() + size_t(s) * size_t(nr);
      for (int d = 0; d < nr; ++d) {
        if (s == d) continue;
        if (f.routers[size_t(s)].dead || f.routers[size_t(d)].dead) {
          row[d] = kT3eUnroutable;
          continue;
        }
        if (path_alive(t, f, s, d, row[d])) continue;
        // The dimensions to cross, each in either sign: shortest alive path.
        int best = -1, best_hops = 1 << 30;
        for (unsigned signs = 0; signs < 8; signs++) {
          uint8_t path = 0;
          for (int dim = 0; dim < 3; dim++)
            if (t.coord[size_t(s)][dim] != t.coord[size_t(d)][dim])
              path |= uint8_t(1u << ((signs >> dim) & 1u ? dim + 3 : dim));
          const int hops = path_hops(t, s, d, path);
          if (hops < best_hops && path_alive(t, f, s, d, path)) best = path, best_hops = hops;
        }
        row[d] = best < 0 ? kT3eUnroutable : uint8_t(best);  // adaptivity off
      }
    }
  });
}

}  // namespace fabemu
