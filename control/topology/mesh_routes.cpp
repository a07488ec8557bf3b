#include "control/topology/mesh_routes.h"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "control/topology/mesh_segments.h"

namespace fabemu {
namespace {

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

}  // namespace

MeshRerouteRoots mesh_reroute_roots(const MeshLinks& links) {
  const MeshShape& m = links.shape;
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
  MeshRerouteRoots out;
  for (int v = 0; v < n; v++)
    if (by_dst[size_t(v)] && links.live[size_t(v)]) out.roots.push_back(v);
  out.reverse = out.roots.size();
  for (int v = 0; v < n; v++)
    if (by_src[size_t(v)] && links.live[size_t(v)]) out.roots.push_back(v);
  out.by_dst = std::move(by_dst);
  return out;
}

std::vector<int> mesh_rerouted_pairs(const MeshLinks& links, const MeshRerouteRoots& roots,
                                     size_t i) {
  const bool reverse = roots.reversed(i);
  const int root = roots.roots[i];
  const std::vector<uint8_t> xyz = xyz_alive(links, root, reverse);
  std::vector<int> out;
  for (int v = 0; v < links.routers(); v++) {
    if (v == root || xyz[size_t(v)] || !links.live[size_t(v)]) continue;
    if (!reverse && roots.by_dst[size_t(v)]) continue;  // a search back from v has it
    out.push_back(v);
  }
  return out;
}

std::vector<MeshException> mesh_exceptions(const MeshShape& m, const MeshFaults& f,
                                           const std::vector<MeshTurns>& at,
                                           MeshRouteWork* work) {
  const MeshLinks links(m, f);
  const MeshRerouteRoots roots = mesh_reroute_roots(links);
  if (work) *work = {uint32_t(roots.roots.size() - roots.reverse), uint32_t(roots.reverse)};
  std::vector<std::vector<MeshException>> found(roots.roots.size());
  tbb::parallel_for(size_t(0), roots.roots.size(), [&](size_t i) {
    const bool reverse = roots.reversed(i);
    const int root = roots.roots[i];
    const MeshSegmentSearch search(links, at, root, reverse);
    for (int v : mesh_rerouted_pairs(links, roots, i)) {
      MeshException x;
      x.src_router = uint32_t(reverse ? v : root);
      x.dst_router = uint32_t(reverse ? root : v);
      if (const auto r = search.route(v)) x.route = *r, x.routable = true;
      found[i].push_back(x);
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
