#include "control/topology/mesh_turns.h"

#include <functional>
#include <queue>
#include <vector>

namespace fabemu {
namespace {

constexpr MeshDir kDirs[6] = {MeshDir::xp, MeshDir::xm, MeshDir::yp,
                              MeshDir::ym, MeshDir::zp, MeshDir::zm};

int opposite(int d) { return d ^ 1; }

MeshTurns turns_where(const std::function<bool(int, int)>& ok) {
  MeshTurns t;
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++) t.allowed[a][b] = a != b && b != opposite(a) && ok(a, b);
  return t;
}

bool may_leave(const MeshTurns& t, int from, int to) {
  return from < 0 || from == to || t.allowed[from][to];  // from < 0: the source
}

}  // namespace

MeshTurns xyz_turns() {
  return turns_where([](int a, int b) { return b / 2 > a / 2; });
}

MeshTurns fault_turns(bool x_plus, bool y_plus) {
  const int x = static_cast<int>(x_plus ? MeshDir::xp : MeshDir::xm);
  const int y = static_cast<int>(y_plus ? MeshDir::yp : MeshDir::ym);
  return turns_where([x, y](int a, int b) {
    if (b == x) return false;  // that X direction first
    if (b == y && a / 2 == 2) return false;  // Z never turns into it
    return true;
  });
}

MeshTurns all_turns() {
  return turns_where([](int, int) { return true; });
}

bool turns_contain(const MeshTurns& big, const MeshTurns& small) {
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++)
      if (small.allowed[a][b] && !big.allowed[a][b]) return false;
  return true;
}

int MeshShape::neighbour(int r, MeshDir d) const {
  std::array<int, 3> c = coord(r);
  const int dim = static_cast<int>(mesh_dimension(d));
  c[dim] += mesh_plus(d) ? 1 : -1;
  if (c[dim] < 0 || c[dim] >= k[dim]) return -1;
  return id(c[0], c[1], c[2]);
}

void MeshFaults::kill_link(const MeshShape& m, int r, MeshDir d) {
  const int n = m.neighbour(r, d);
  if (n < 0) return;
  links.insert({r, static_cast<int>(d)});
  links.insert({n, opposite(static_cast<int>(d))});
}

namespace {

bool hop_alive(const MeshShape& m, const MeshFaults& f, int r, MeshDir d, int* next) {
  const int n = m.neighbour(r, d);
  if (n < 0 || f.link_dead(r, d) || f.routers.count(n)) return false;
  *next = n;
  return true;
}

// Consecutive hops of one direction as segments of at most 16.
std::optional<MeshRoute> segments_of(const std::vector<MeshDir>& hops) {
  MeshRoute r;
  for (size_t i = 0; i < hops.size();) {
    size_t j = i;
    while (j < hops.size() && hops[j] == hops[i] && j - i < kMeshMaxSegmentHops) j++;
    if (!r.add(hops[i], static_cast<uint32_t>(j - i))) return std::nullopt;
    i = j;
  }
  return r;
}

}  // namespace

std::optional<MeshRoute> mesh_source_route(const MeshShape& m, const MeshFaults& f,
                                           const MeshTurns& turns, int src, int dst) {
  if (f.routers.count(src) || f.routers.count(dst)) return std::nullopt;
  // XYZ, if every link of it is alive.
  {
    std::vector<MeshDir> hops;
    const std::array<int, 3> a = m.coord(src), b = m.coord(dst);
    int r = src;
    bool alive = true;
    for (int dim = 0; dim < 3 && alive; dim++)
      for (int c = a[dim]; c != b[dim] && alive; c += b[dim] > a[dim] ? 1 : -1) {
        const MeshDir d = kDirs[2 * dim + (b[dim] > a[dim] ? 0 : 1)];
        alive = hop_alive(m, f, r, d, &r);
        hops.push_back(d);
      }
    if (alive) return segments_of(hops);
  }
  // Otherwise the shortest legal route: states (router, direction it came
  // in, 6 at the source), cost hops then turns.
  const int n = m.routers();
  const auto state = [](int r, int in) { return r * 7 + in; };
  std::vector<uint64_t> cost(size_t(n) * 7, UINT64_MAX);
  std::vector<int> prev(size_t(n) * 7, -1);
  using Item = std::pair<uint64_t, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  cost[size_t(state(src, 6))] = 0;
  q.push({0, state(src, 6)});
  int found = -1;
  while (!q.empty()) {
    const auto [c, s] = q.top();
    q.pop();
    if (c != cost[size_t(s)]) continue;
    const int r = s / 7, in = s % 7;
    if (r == dst) {
      found = s;
      break;
    }
    for (int d = 0; d < 6; d++) {
      if (!may_leave(turns, in == 6 ? -1 : in, d)) continue;
      int next;
      if (!hop_alive(m, f, r, kDirs[d], &next)) continue;
      const uint64_t nc = c + (uint64_t{1} << 20) + (in != 6 && in != d ? 1 : 0);
      const int ns = state(next, d);
      if (nc < cost[size_t(ns)]) {
        cost[size_t(ns)] = nc;
        prev[size_t(ns)] = s;
        q.push({nc, ns});
      }
    }
  }
  if (found < 0) return std::nullopt;
  std::vector<MeshDir> hops;
  for (int s = found; prev[size_t(s)] >= 0; s = prev[size_t(s)]) hops.push_back(kDirs[s % 7]);
  return segments_of({hops.rbegin(), hops.rend()});
}

std::optional<MeshTurns> choose_fault_turns(const MeshShape& m, const MeshFaults& f) {
  for (const bool xp : {false, true})
    for (const bool yp : {false, true}) {
      const MeshTurns t = fault_turns(xp, yp);
      bool all = true;
      for (int s = 0; s < m.routers() && all; s++)
        for (int d = 0; d < m.routers() && all; d++)
          if (s != d && !f.routers.count(s) && !f.routers.count(d))
            all = mesh_source_route(m, f, t, s, d).has_value();
      if (all) return t;
    }
  return std::nullopt;
}

std::optional<std::vector<int>> mesh_walk(const MeshShape& m, int src, const MeshRoute& r) {
  std::vector<int> out{src};
  int at = src;
  for (uint32_t i = 0; i < r.segments; i++)
    for (uint32_t h = 0; h < r.seg[i].hops; h++) {
      at = m.neighbour(at, r.seg[i].dir);
      if (at < 0) return std::nullopt;
      out.push_back(at);
    }
  return out;
}

bool mesh_turns_deadlock_free(const MeshShape& m, const MeshTurns& turns) {
  // Channel (r, d): the link leaving r going d. Iterative DFS for a cycle.
  const int n = m.routers();
  std::vector<uint8_t> mark(size_t(n) * 6, 0);  // 0 new, 1 on the stack, 2 done
  for (int start = 0; start < n * 6; start++) {
    if (mark[size_t(start)] || m.neighbour(start / 6, kDirs[start % 6]) < 0) continue;
    std::vector<std::pair<int, int>> stack{{start, 0}};  // channel, next direction to try
    mark[size_t(start)] = 1;
    while (!stack.empty()) {
      auto& [c, next_d] = stack.back();
      if (next_d == 6) {
        mark[size_t(c)] = 2;
        stack.pop_back();
        continue;
      }
      const int d = next_d++;
      const int from = c % 6, at = m.neighbour(c / 6, kDirs[from]);
      if (!may_leave(turns, from, d) || m.neighbour(at, kDirs[d]) < 0) continue;
      const int to = at * 6 + d;
      if (mark[size_t(to)] == 1) return false;
      if (mark[size_t(to)] == 0) {
        mark[size_t(to)] = 1;
        stack.push_back({to, 0});
      }
    }
  }
  return true;
}

}  // namespace fabemu
