#include "control/topology/mesh_turns.h"

#include <functional>
#include <tuple>
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
  return mesh_source_route(m, f, std::vector<MeshTurns>(size_t(m.routers()), turns), src, dst);
}

namespace {

// The shortest route (hops, then turns) whose turns the routers allow;
// with `extra` (not null), turns no list allows are taken too, each at a
// cost above any route's hops, unless *forbidden has them; the route's
// hops as directions, and in *extra the turns it took that way.
struct Turn {
  int router, from, to;
  bool operator<(const Turn& o) const {
    return std::tie(router, from, to) < std::tie(o.router, o.from, o.to);
  }
};

std::optional<std::vector<MeshDir>> shortest_legal(const MeshShape& m, const MeshFaults& f,
                                                   const std::vector<MeshTurns>& at, int src,
                                                   int dst, const std::set<Turn>* forbidden,
                                                   std::vector<Turn>* extra) {
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
      uint64_t step = uint64_t{1} << 20;
      if (!may_leave(at[size_t(r)], in == 6 ? -1 : in, d)) {
        if (!extra || d == opposite(in) || forbidden->count({r, in, d})) continue;
        step += uint64_t{1} << 40;  // a turn the router's list lacks
      }
      int next;
      if (!hop_alive(m, f, r, kDirs[d], &next)) continue;
      const uint64_t nc = c + step + (in != 6 && in != d ? 1 : 0);
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
  for (int s = found; prev[size_t(s)] >= 0; s = prev[size_t(s)]) {
    const int p = prev[size_t(s)], in = p % 7, d = s % 7;
    if (extra && in != 6 && !may_leave(at[size_t(p / 7)], in, d)) extra->push_back({p / 7, in, d});
    hops.push_back(kDirs[d]);
  }
  return std::vector<MeshDir>(hops.rbegin(), hops.rend());
}

}  // namespace

std::optional<MeshRoute> mesh_source_route(const MeshShape& m, const MeshFaults& f,
                                           const std::vector<MeshTurns>& at, int src, int dst) {
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
  // Otherwise the shortest legal route.
  const auto hops = shortest_legal(m, f, at, src, dst, nullptr, nullptr);
  if (!hops) return std::nullopt;
  return segments_of(*hops);
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

namespace {

// Channel c = (router, direction): the live link leaving the router that
// way; the channels a packet on c may ask for next under the lists.
bool channel_alive(const MeshShape& m, const MeshFaults& f, int c) {
  int next;
  return !f.routers.count(c / 6) && hop_alive(m, f, c / 6, kDirs[c % 6], &next);
}

template <class F>
void each_next(const MeshShape& m, const MeshFaults& f, const std::vector<MeshTurns>& at, int c,
               F&& fn) {
  const int from = c % 6, y = m.neighbour(c / 6, kDirs[from]);
  for (int d = 0; d < 6; d++)
    if (may_leave(at[size_t(y)], from, d) && channel_alive(m, f, y * 6 + d)) fn(y * 6 + d);
}

// Whether channel `to` can be reached from channel `from`.
bool reaches(const MeshShape& m, const MeshFaults& f, const std::vector<MeshTurns>& at, int from,
             int to) {
  std::vector<uint8_t> seen(size_t(m.routers()) * 6, 0);
  std::vector<int> stack{from};
  seen[size_t(from)] = 1;
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    if (c == to) return true;
    each_next(m, f, at, c, [&](int n) {
      if (!seen[size_t(n)]) seen[size_t(n)] = 1, stack.push_back(n);
    });
  }
  return false;
}

}  // namespace

bool mesh_turns_deadlock_free(const MeshShape& m, const MeshTurns& turns) {
  return mesh_turns_deadlock_free(m, MeshFaults{}, std::vector<MeshTurns>(size_t(m.routers()), turns));
}

bool mesh_turns_deadlock_free(const MeshShape& m, const MeshFaults& f,
                              const std::vector<MeshTurns>& at) {
  // Iterative DFS over the live channels for a cycle.
  const int n = m.routers();
  std::vector<uint8_t> mark(size_t(n) * 6, 0);  // 0 new, 1 on the stack, 2 done
  for (int start = 0; start < n * 6; start++) {
    if (mark[size_t(start)] || !channel_alive(m, f, start)) continue;
    std::vector<std::pair<int, std::vector<int>>> stack;
    auto push = [&](int c) {
      std::vector<int> next;
      each_next(m, f, at, c, [&](int x) { next.push_back(x); });
      mark[size_t(c)] = 1;
      stack.push_back({c, std::move(next)});
    };
    push(start);
    while (!stack.empty()) {
      auto& top = stack.back();
      if (top.second.empty()) {
        mark[size_t(top.first)] = 2;
        stack.pop_back();
        continue;
      }
      const int to = top.second.back();
      top.second.pop_back();
      if (mark[size_t(to)] == 1) return false;
      if (mark[size_t(to)] == 0) push(to);
    }
  }
  return true;
}

MeshTurnLists program_turn_lists(const MeshShape& m, const MeshFaults& f, const MeshTurns& base) {
  MeshTurnLists out;
  out.at.assign(size_t(m.routers()), base);
  std::set<Turn> forbidden;
  for (int s = 0; s < m.routers(); s++)
    for (int d = 0; d < m.routers(); d++) {
      if (s == d || f.routers.count(s) || f.routers.count(d)) continue;
      for (;;) {
        if (mesh_source_route(m, f, out.at, s, d)) break;
        std::vector<Turn> extra;
        if (!shortest_legal(m, f, out.at, s, d, &forbidden, &extra) || extra.empty()) {
          out.unroutable++;
          break;
        }
        // Admit the route's missing turns one by one: each adds the one
        // dependency (channel into the router) -> (channel out of it), so
        // it closes a cycle exactly when the second already reaches the first.
        for (const Turn& t : extra) {
          const int in = m.neighbour(t.router, kDirs[opposite(t.from)]) * 6 + t.from;
          const int out_c = t.router * 6 + t.to;
          if (reaches(m, f, out.at, out_c, in)) {
            forbidden.insert(t);
            break;
          }
          out.at[size_t(t.router)].allowed[t.from][t.to] = true;
          out.added++;
        }
      }
    }
  return out;
}


}  // namespace fabemu
