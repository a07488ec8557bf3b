#include "control/topology/mesh_turns.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <stdexcept>
#include <vector>

#include "control/topology/mesh_reach.h"
#include "control/topology/mesh_routes.h"
#include "control/topology/mesh_segments.h"

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

bool mesh_route_append(MeshRoute* r, MeshDir d) {
  if (r->segments > 0) {
    MeshSegment& last = r->seg[r->segments - 1];
    if (last.dir == d && last.hops < kMeshMaxSegmentHops) {
      last.hops++;
      return true;
    }
  }
  return r->add(d, 1);
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
  for (MeshDir d : hops)
    if (!mesh_route_append(&r, d)) return std::nullopt;
  return r;
}

}  // namespace

std::optional<MeshRoute> mesh_source_route(const MeshShape& m, const MeshFaults& f,
                                           const MeshTurns& turns, int src, int dst) {
  return mesh_source_route(m, f, std::vector<MeshTurns>(size_t(m.routers()), turns), src, dst);
}

namespace {

// The shortest route (hops, then turns) whose turns the routers allow;
// with `forbidden` (not null), turns no list allows are taken too, each
// costing more than any route's hops, unless *forbidden has them (bit
// from * 6 + to of the router's word); the route's hops as directions,
// and in *extra the turns it took that way. With no route, *reached (if
// given) marks the routers the search got to.
using Turn = MeshTurn;
using TurnBits = MeshTurnBits;
bool has(const TurnBits& b, int r, int from, int to) { return b[size_t(r)] >> (from * 6 + to) & 1; }

// Costs (missing turns, hops, turns) in lexicographic order, searched as
// Dial's buckets: a step adds one hop and one or no missing turn, so the
// buckets of one count of missing turns are done by hops in order, and
// every state enters its bucket before the bucket is taken.
std::optional<std::vector<MeshDir>> shortest_legal(const MeshLinks& links,
                                                   const std::vector<MeshTurns>& at, int src,
                                                   int dst, const TurnBits* forbidden,
                                                   std::vector<Turn>* extra,
                                                   std::vector<uint8_t>* reached = nullptr) {
  const size_t states = size_t(links.routers()) * 7;
  const auto state = [](int r, int in) { return r * 7 + in; };
  std::vector<uint64_t> key(states, UINT64_MAX);  // missing << 32 | hops, while not done
  std::vector<uint16_t> turns(states, 0);
  std::vector<int> prev(states, -1);
  std::vector<uint8_t> done(states, 0);
  std::vector<std::vector<int>> layer[2];  // by hops: this count of missing turns, the next
  const auto offer = [&](int s, uint64_t k, uint16_t t, int from) {
    if (done[size_t(s)] || k > key[size_t(s)] || (k == key[size_t(s)] && t >= turns[size_t(s)]))
      return;
    const bool queued = k == key[size_t(s)];
    key[size_t(s)] = k, turns[size_t(s)] = t, prev[size_t(s)] = from;
    if (queued) return;
    auto& l = layer[(k >> 32) & 1];
    const size_t h = k & 0xffffffffu;
    if (l.size() <= h) l.resize(h + 1);
    l[h].push_back(s);
  };
  offer(state(src, 6), 0, 0, -1);
  int found = -1;
  for (uint64_t missing = 0; found < 0; missing++) {
    auto& cur = layer[missing & 1];
    if (cur.empty()) break;
    for (size_t h = 0; h < cur.size() && found < 0; h++)
      for (size_t i = 0; i < cur[h].size() && found < 0; i++) {
        const int s = cur[h][i];
        if (done[size_t(s)] || key[size_t(s)] != (missing << 32 | h)) continue;
        done[size_t(s)] = 1;
        const int r = s / 7, in = s % 7;
        if (r == dst) {  // the fewest turns of the bucket's ways in (all are in)
          found = s;
          for (int i2 = 0; i2 < 6; i2++) {
            const int o = state(dst, i2);
            if (key[size_t(o)] == key[size_t(s)] && turns[size_t(o)] < turns[size_t(found)]) found = o;
          }
          break;
        }
        for (int d = 0; d < 6; d++) {
          const int next = links.next[size_t(r) * 6 + size_t(d)];
          if (next < 0) continue;
          uint64_t k = key[size_t(s)] + 1;
          if (!may_leave(at[size_t(r)], in == 6 ? -1 : in, d)) {
            if (!forbidden || d == opposite(in) || has(*forbidden, r, in, d)) continue;
            k += uint64_t{1} << 32;  // a turn the router's list lacks
          }
          offer(state(next, d), k, uint16_t(turns[size_t(s)] + (in != 6 && in != d)), s);
        }
      }
    cur.clear();
  }
  if (found < 0) {
    if (reached) {
      reached->assign(size_t(links.routers()), 0);
      for (size_t s = 0; s < states; s++)
        if (done[s]) (*reached)[s / 7] = 1;
    }
    return std::nullopt;
  }
  std::vector<MeshDir> hops;
  for (int s = found; prev[size_t(s)] >= 0; s = prev[size_t(s)]) {
    const int p = prev[size_t(s)], in = p % 7, d = s % 7;
    if (extra && in != 6 && !may_leave(at[size_t(p / 7)], in, d)) extra->push_back({p / 7, in, d});
    hops.push_back(kDirs[d]);
  }
  return std::vector<MeshDir>(hops.rbegin(), hops.rend());
}

// The routers that reach dst taking any turn but U-turns and *forbidden
// (a search back from dst over (router, next hop) states).
std::vector<uint8_t> reaching(const MeshLinks& links, int dst, const TurnBits& forbidden) {
  const int n = links.routers();
  std::vector<uint8_t> seen(size_t(n) * 6, 0), out(size_t(n), 0);
  std::vector<int> stack;
  for (int e = 0; e < 6; e++) {
    const int p = links.next[size_t(dst) * 6 + size_t(opposite(e))];
    if (p >= 0) seen[size_t(p) * 6 + size_t(e)] = 1, stack.push_back(p * 6 + e);
  }
  while (!stack.empty()) {
    const int s = stack.back(), r = s / 6, e = s % 6;
    stack.pop_back();
    out[size_t(r)] = 1;
    for (int from = 0; from < 6; from++) {
      const int q = links.next[size_t(r) * 6 + size_t(opposite(from))];
      if (q < 0 || from == opposite(e) || seen[size_t(q) * 6 + size_t(from)]) continue;
      if (from != e && has(forbidden, r, from, e)) continue;
      seen[size_t(q) * 6 + size_t(from)] = 1;
      stack.push_back(q * 6 + from);
    }
  }
  return out;
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
  // Otherwise the shortest legal route that fits the header.
  const MeshLinks links(m, f);
  return MeshSegmentSearch(links, at, src, false).route(dst);
}

std::optional<MeshTurns> choose_fault_turns(const MeshShape& m, const MeshFaults& f) {
  // XYZ of more than six segments (sides over 33) fails some pair anyway.
  int xyz_segments = 0;
  for (int k : m.k) xyz_segments += (k - 1 + int(kMeshMaxSegmentHops) - 1) / int(kMeshMaxSegmentHops);
  if (xyz_segments > int(kMeshSegments)) return std::nullopt;
  const MeshLinks links(m, f);
  for (const bool xp : {false, true})
    for (const bool yp : {false, true}) {
      const std::vector<MeshTurns> at(size_t(m.routers()), fault_turns(xp, yp));
      if (MeshReach(links, at).disconnected() > 0) continue;
      const auto routes = mesh_exceptions(m, f, at);
      if (std::all_of(routes.begin(), routes.end(), [](const MeshException& x) { return x.routable; }))
        return at[0];
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

MeshTurnLists program_turn_lists(const MeshShape& m, const MeshFaults& f, const MeshTurns& base,
                                 bool fit_segments) {
  const MeshLinks links(m, f);
  MeshReach reach(links, std::vector<MeshTurns>(size_t(m.routers()), base));
  if (!reach.acyclic()) throw std::invalid_argument("program_turn_lists: the base model deadlocks");
  MeshTurnLists out;
  TurnBits forbidden(size_t(m.routers()), 0);
  // Pairs shown to have no route even with every turn not forbidden stay
  // so (the forbidden turns only grow): per source and per destination.
  std::vector<std::vector<uint8_t>> no_route_to(size_t(m.routers()));
  const size_t words = size_t(reach.words());
  std::vector<uint64_t> row(words), live(words, 0);
  for (int r = 0; r < m.routers(); r++)
    if (links.live[size_t(r)]) live[size_t(r / 64)] |= uint64_t{1} << (r % 64);
  std::vector<uint8_t> reached_from_s;
  for (int s = 0; s < m.routers(); s++) {
    if (!links.live[size_t(s)]) continue;
    reach.reach_from(s, row.data());
    reached_from_s.clear();
    for (int d = 0; d < m.routers(); d++) {
      const uint64_t missing = (live[size_t(d / 64)] & ~row[size_t(d / 64)]) >> (d % 64);
      if (!missing) {
        d |= 63;  // nothing left to do in this word
        continue;
      }
      d += std::countr_zero(missing);
      if (!reached_from_s.empty() && !reached_from_s[size_t(d)]) continue;
      if (!no_route_to[size_t(d)].empty() && !no_route_to[size_t(d)][size_t(s)]) continue;
      for (;;) {
        std::vector<Turn> extra;
        if (!shortest_legal(links, reach.lists(), s, d, &forbidden, &extra, &reached_from_s)) {
          no_route_to[size_t(d)] = reaching(links, d, forbidden);
          break;
        }
        // Admit the route's missing turns one by one: each adds the one
        // dependency (channel into the router) -> (channel out of it).
        bool all = true;
        for (const Turn& t : extra) {
          if (!reach.admit(t.router, t.from, t.to)) {
            forbidden[size_t(t.router)] |= uint64_t{1} << (t.from * 6 + t.to);
            all = false;
            break;
          }
          out.added++;
        }
        if (all) break;
      }
      reach.reach_from(s, row.data());
    }
  }
  // Then the turns that routes of at most six segments need (first, they
  // would close cycles connectivity needs).
  if (fit_segments) out.added += mesh_admit_segment_turns(links, &reach, &forbidden);
  out.unroutable = uint32_t(reach.disconnected());
  out.at = reach.lists();
  return out;
}

}  // namespace fabemu
