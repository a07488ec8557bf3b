#include "control/topology/mesh_routes.h"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "control/topology/mesh_reach.h"

namespace fabemu {
namespace {

bool turn_ok(const MeshTurns& t, int from, int to) { return from == to || t.allowed[from][to]; }

// Which routers have a live XYZ route to (to_dst) or from `at`: walked
// out from it line by line, Z then Y then X towards a destination, X then
// Y then Z away from a source.
std::vector<uint8_t> xyz_alive(const MeshLinks& links, int at, bool to_dst) {
  const MeshShape& m = links.shape;
  std::vector<uint8_t> ok(size_t(m.routers()), 0);
  ok[size_t(at)] = links.live[size_t(at)];
  const std::array<int, 3> c = m.coord(at);
  // Lines of dimension `dim` through every router fixed so far, out from c.
  const auto spread = [&](int dim) {
    for (int r = 0; r < m.routers(); r++) {
      std::array<int, 3> p = m.coord(r);
      if (p[dim] != c[dim] || !ok[size_t(r)]) continue;
      for (int sign = 0; sign < 2; sign++) {
        const int out = 2 * dim + sign;  // away from c
        int v = r;
        for (;;) {
          const int w = m.neighbour(v, static_cast<MeshDir>(out));
          if (w < 0) break;
          const bool hop = to_dst ? links.next[size_t(w) * 6 + size_t(out ^ 1)] == v
                                  : links.next[size_t(v) * 6 + size_t(out)] == w;
          if (!hop) break;
          ok[size_t(w)] = 1;
          v = w;
        }
      }
    }
  };
  if (to_dst)
    spread(2), spread(1), spread(0);
  else
    spread(0), spread(1), spread(2);
  return ok;
}

// A search in layers of hops over states r * 6 + e: reverse, e is the hop
// r takes next towards the root; forward, the hop r was entered by from
// the root. link[state] is the direction of the neighbouring state on the
// way (-1: the root's neighbour). Each layer keeps, per state, the fewest
// turns among its predecessors in the layer before.
struct Layers {
  std::vector<uint16_t> hops, turns;
  std::vector<int8_t> link;
};

Layers search(const MeshLinks& links, const std::vector<MeshTurns>& at, int root, bool reverse) {
  const size_t states = size_t(links.routers()) * 6;
  Layers l{std::vector<uint16_t>(states, 0), std::vector<uint16_t>(states, 0),
           std::vector<int8_t>(states, -1)};
  std::vector<int> cur, nxt;
  for (int e = 0; e < 6; e++) {
    const int n = links.next[size_t(root) * 6 + size_t(reverse ? e ^ 1 : e)];
    if (n < 0) continue;
    const int s = n * 6 + e;
    l.hops[size_t(s)] = 1;
    cur.push_back(s);
  }
  for (uint16_t h = 1; !cur.empty(); h++) {
    nxt.clear();
    for (int s : cur) {
      const int r = s / 6, e = s % 6;
      for (int e2 = 0; e2 < 6; e2++) {
        // Reverse: a router q entering r by e2 before r leaves by e.
        // Forward: r leaves by e2 for its neighbour.
        const int q = links.next[size_t(r) * 6 + size_t(reverse ? e2 ^ 1 : e2)];
        if (q < 0 || !(reverse ? turn_ok(at[size_t(r)], e2, e) : turn_ok(at[size_t(r)], e, e2)))
          continue;
        const int ns = q * 6 + e2;
        const uint16_t t = uint16_t(l.turns[size_t(s)] + (e2 != e));
        if (l.hops[size_t(ns)] == 0) {
          l.hops[size_t(ns)] = uint16_t(h + 1);
          nxt.push_back(ns);
        } else if (l.hops[size_t(ns)] != h + 1 || t >= l.turns[size_t(ns)]) {
          continue;
        }
        l.turns[size_t(ns)] = t;
        l.link[size_t(ns)] = int8_t(e);
      }
    }
    std::swap(cur, nxt);
  }
  return l;
}

// The best state of router r (fewest hops, then turns, then the lowest
// direction), or -1.
int best_state(const Layers& l, int r) {
  int best = -1;
  for (int e = 0; e < 6; e++) {
    const size_t s = size_t(r) * 6 + size_t(e);
    if (l.hops[s] == 0) continue;
    if (best < 0 || l.hops[s] < l.hops[size_t(best)] ||
        (l.hops[s] == l.hops[size_t(best)] && l.turns[s] < l.turns[size_t(best)]))
      best = int(s);
  }
  return best;
}

MeshException exception_of(const MeshLinks& links, const Layers& l, int src, int dst,
                           bool reverse) {
  MeshException x;
  x.src_router = uint32_t(src);
  x.dst_router = uint32_t(dst);
  int s = best_state(l, reverse ? src : dst);
  if (s < 0) return x;
  std::vector<MeshDir> hops;
  for (;;) {
    const int r = s / 6, e = s % 6;
    hops.push_back(static_cast<MeshDir>(e));
    const int8_t next_e = l.link[size_t(s)];
    if (next_e < 0) break;
    // Reverse: on to the router r leaves for; forward: back to the one r was entered from.
    s = links.next[size_t(r) * 6 + size_t(reverse ? e : e ^ 1)] * 6 + next_e;
  }
  if (!reverse) std::reverse(hops.begin(), hops.end());
  MeshRoute route;
  for (MeshDir d : hops)
    if (!mesh_route_append(&route, d)) return x;
  x.route = route;
  x.routable = true;
  return x;
}

}  // namespace

std::vector<MeshException> mesh_exceptions(const MeshShape& m, const MeshFaults& f,
                                           const std::vector<MeshTurns>& at,
                                           MeshRouteWork* work) {
  const MeshLinks links(m, f);
  const int n = m.routers();
  // The smaller side of each dead hop's box of pairs.
  std::vector<uint8_t> by_src(size_t(n), 0), by_dst(size_t(n), 0);
  for (int r = 0; r < n; r++) {
    if (!links.live[size_t(r)]) continue;
    const std::array<int, 3> c = m.coord(r);
    for (int d = 0; d < 6; d++) {
      if (links.next[size_t(r) * 6 + size_t(d)] >= 0 || m.neighbour(r, MeshDir(d)) < 0) continue;
      const int k = d / 2;
      const bool plus = d % 2 == 0;
      int64_t src_side = plus ? c[k] + 1 : m.k[k] - c[k];
      int64_t dst_side = plus ? m.k[k] - 1 - c[k] : c[k];
      for (int j = 0; j < k; j++) src_side *= m.k[j];
      for (int j = k + 1; j < 3; j++) dst_side *= m.k[j];
      const bool sources = src_side <= dst_side;
      for (int v = 0; v < n; v++) {
        const std::array<int, 3> p = m.coord(v);
        bool in = true;
        for (int j = 0; j < 3 && in; j++) {
          if (j == k)
            in = sources ? (plus ? p[j] <= c[j] : p[j] >= c[j])
                         : (plus ? p[j] > c[j] : p[j] < c[j]);
          else if (sources ? j > k : j < k)
            in = p[j] == c[j];
        }
        if (in) (sources ? by_src : by_dst)[size_t(v)] = 1;
      }
    }
  }
  std::vector<int> roots;  // destinations, then sources
  for (int v = 0; v < n; v++)
    if (by_dst[size_t(v)] && links.live[size_t(v)]) roots.push_back(v);
  const size_t reverse_roots = roots.size();
  for (int v = 0; v < n; v++)
    if (by_src[size_t(v)] && links.live[size_t(v)]) roots.push_back(v);
  if (work) *work = {uint32_t(roots.size() - reverse_roots), uint32_t(reverse_roots)};

  std::vector<std::vector<MeshException>> found(roots.size());
  tbb::parallel_for(size_t(0), roots.size(), [&](size_t i) {
    const bool reverse = i < reverse_roots;
    const int root = roots[i];
    const std::vector<uint8_t> xyz = xyz_alive(links, root, reverse);
    const Layers l = search(links, at, root, reverse);
    for (int v = 0; v < n; v++) {
      if (v == root || xyz[size_t(v)] || !links.live[size_t(v)]) continue;
      if (!reverse && by_dst[size_t(v)]) continue;  // a search back from v has it
      found[i].push_back(reverse ? exception_of(links, l, v, root, true)
                                 : exception_of(links, l, root, v, false));
    }
  });
  std::vector<MeshException> out;
  size_t total = 0;
  for (const auto& v : found) total += v.size();
  out.reserve(total);
  for (auto& v : found) out.insert(out.end(), v.begin(), v.end());
  std::sort(out.begin(), out.end(), [](const MeshException& a, const MeshException& b) {
    return a.src_router != b.src_router ? a.src_router < b.src_router : a.dst_router < b.dst_router;
  });
  return out;
}

}  // namespace fabemu
