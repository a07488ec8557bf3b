#include "control/topology/mesh_segments.h"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "control/topology/mesh_routes.h"

namespace fabemu {

namespace {

bool has(const MeshTurnBits& b, int r, int from, int to) {
  return b[size_t(r)] >> (from * 6 + to) & 1;
}

}  // namespace

MeshSegmentSearch::MeshSegmentSearch(const MeshLinks& links, const std::vector<MeshTurns>& at,
                                     int root, bool reverse, int32_t missing_cost,
                                     const MeshTurnBits* forbidden, const MeshReach* reach)
    : links_(&links), root_(root), reverse_(reverse) {
  const int n = links.routers();
  const size_t states = size_t(n) * 6;
  run_.assign(kMeshSegments * states, 0);
  arg_.assign(kMeshSegments * states, -1);
  best_.assign(size_t(n), kUnreached);
  best_at_.assign(size_t(n), 0);
  if (!links.live[size_t(root)]) return;
  best_[size_t(root)] = 0;
  // prev, cur: layers s - 1 and s; fewer: each state's best in any layer.
  std::vector<int32_t> prev(states, kUnreached), cur(states), val(states),
      fewer(states, kUnreached);
  std::vector<size_t> window(
      size_t(std::max({links.shape.k[0], links.shape.k[1], links.shape.k[2]})));
  for (uint32_t s = 0; s < kMeshSegments; s++) {
    int8_t* arg = arg_.data() + s * states;
    uint8_t* run = run_.data() + s * states;
    // val: the cost before a segment of direction `dir` leaves q.
    std::fill(val.begin(), val.end(), kUnreached);
    if (s == 0) {
      for (int dir = 0; dir < 6; dir++) val[size_t(root) * 6 + size_t(dir)] = 0;
    } else {
      for (int q = 0; q < n; q++) {
        const int32_t* c = &prev[size_t(q) * 6];
        if (std::all_of(c, c + 6, [](int32_t v) { return v == kUnreached; })) continue;
        const MeshTurns& t = at[size_t(q)];
        for (int dir = 0; dir < 6; dir++) {
          int32_t v = kUnreached;
          int8_t a = -1;
          for (int o = 0; o < 6; o++) {
            if (c[o] == kUnreached || o == (dir ^ 1)) continue;
            int32_t cost = c[o];
            if (o != dir) {
              // Forward the turn at q is o -> dir; reverse, dir -> o.
              const int from = reverse ? dir : o, to = reverse ? o : dir;
              cost += kTurn;
              if (!t.allowed[from][to]) {
                if (missing_cost <= 0 || (forbidden && has(*forbidden, q, from, to))) continue;
                cost += reach && reach->may_close_cycle(q, from, to)
                            ? missing_cost * kMeshRiskyTurns
                            : missing_cost;
              }
            }
            if (cost < v) v = cost, a = int8_t(o);
          }
          val[size_t(q) * 6 + size_t(dir)] = v;
          arg[size_t(q) * 6 + size_t(dir)] = a;
        }
      }
    }
    // cur(p, dir): the best val 1..16 hops behind p on a run of live hops,
    // plus the hops; forward the runs go dir, reverse they come back.
    std::fill(cur.begin(), cur.end(), kUnreached);
    for (int dir = 0; dir < 6; dir++) {
      const std::vector<int32_t>& line = links.lines[size_t(reverse ? dir ^ 1 : dir)];
      // A monotone queue of positions on the run, keyed by val - hops
      // from the run's first router.
      size_t first = 0, head = 0, tail = 0;
      const auto key = [&](size_t j) {
        return int64_t(val[size_t(line[j]) * 6 + size_t(dir)]) - int64_t(j - first) * kHop;
      };
      for (size_t i = 0; i < line.size(); i++) {
        if (line[i] < 0) {
          first = i + 1, head = tail = 0;
          continue;
        }
        if (i > first && val[size_t(line[i - 1]) * 6 + size_t(dir)] != kUnreached) {
          while (tail > head && key(window[tail - 1]) >= key(i - 1)) tail--;
          window[tail++] = i - 1;
        }
        while (tail > head && window[head] + kMeshMaxSegmentHops < i) head++;
        if (tail == head) continue;
        const size_t st = size_t(line[i]) * 6 + size_t(dir);
        cur[st] = int32_t(key(window[head]) + int64_t(i - first) * kHop);
        run[st] = uint8_t(i - window[head]);
      }
    }
    // A state no cheaper than with fewer segments leads nowhere better:
    // dropped, so later layers touch only the states that improve.
    for (int p = 0; p < n; p++)
      for (int dir = 0; dir < 6; dir++) {
        const size_t st = size_t(p) * 6 + size_t(dir);
        if (cur[st] >= fewer[st]) {
          cur[st] = kUnreached;
          continue;
        }
        fewer[st] = cur[st];
        if (cur[st] < best_[size_t(p)])
          best_[size_t(p)] = cur[st], best_at_[size_t(p)] = uint8_t(s * 6 + dir);
      }
    std::swap(prev, cur);
  }
}

std::optional<MeshRoute> MeshSegmentSearch::route(int v, std::vector<MeshTurn>* turns) const {
  if (!reached(v)) return std::nullopt;
  if (turns) turns->clear();
  MeshRoute out;
  if (v == root_) return out;
  const size_t states = size_t(links_->routers()) * 6;
  std::vector<MeshSegment> segs;
  int s = best_at_[size_t(v)] / 6, dir = best_at_[size_t(v)] % 6, p = v;
  for (;;) {
    const int k = run_[size_t(s) * states + size_t(p) * 6 + size_t(dir)];
    segs.push_back({static_cast<MeshDir>(dir), uint8_t(k)});
    // Back along the segment to the router it starts from (forward), or
    // on along it to where it ends (reverse).
    const int step = reverse_ ? dir : dir ^ 1;
    int q = p;
    for (int h = 0; h < k; h++) q = links_->next[size_t(q) * 6 + size_t(step)];
    if (s == 0) break;
    const int o = arg_[size_t(s) * states + size_t(q) * 6 + size_t(dir)];
    if (turns && o != dir) turns->push_back({q, reverse_ ? dir : o, reverse_ ? o : dir});
    p = q, dir = o, s--;
  }
  if (!reverse_) {
    std::reverse(segs.begin(), segs.end());
    if (turns) std::reverse(turns->begin(), turns->end());
  }
  for (const MeshSegment& g : segs) out.add(g.dir, g.hops);
  return out;
}

uint32_t mesh_admit_segment_turns(const MeshLinks& links, MeshReach* reach,
                                  MeshTurnBits* forbidden) {
  const MeshRerouteRoots roots = mesh_reroute_roots(links);
  const size_t count = roots.roots.size();
  // The lists only grow, so a root whose pairs all have a route of at
  // most six segments now keeps them: the others are found in parallel.
  std::vector<uint8_t> short_of(count, 0);
  tbb::parallel_for(size_t(0), count, [&](size_t i) {
    const MeshSegmentSearch legal(links, reach->lists(), roots.roots[i], roots.reversed(i));
    for (int v : mesh_rerouted_pairs(links, roots, i))
      if (!legal.reached(v)) {
        short_of[i] = 1;
        break;
      }
  });
  uint32_t added = 0;
  std::vector<MeshTurn> turns;
  const auto forbid = [&](const MeshTurn& t) {
    (*forbidden)[size_t(t.router)] |= uint64_t{1} << (t.from * 6 + t.to);
  };
  for (size_t i = 0; i < count; i++) {
    if (!short_of[i]) continue;
    const int root = roots.roots[i];
    const bool reverse = roots.reversed(i);
    std::vector<int> pairs = mesh_rerouted_pairs(links, roots, i);
    // Missing turns are priced before hops, so a pair's best priced route
    // takes none exactly when it has a legal one. One pair's turns a
    // round: the next search lets the others share them. A round with
    // none admitted has forbidden every cyclic turn its routes took;
    // after kMeshStaleRounds of those the root's other pairs stay long.
    for (uint32_t stale = 0; !pairs.empty() && stale < kMeshStaleRounds;) {
      const MeshSegmentSearch priced(links, reach->lists(), root, reverse, kMeshTurnPenalty,
                                     forbidden, reach);
      // Pairs with a legal route leave; so do those beyond six segments
      // even with every turn not forbidden (the forbidden only grow).
      std::erase_if(pairs,
                    [&](int v) { return !priced.reached(v) || priced.cost(v) < kMeshTurnPenalty; });
      bool fixed = false;
      for (int v : pairs) {
        priced.route(v, &turns);
        bool ok = true;
        for (const MeshTurn& t : turns) {
          const bool allowed = reach->lists()[size_t(t.router)].allowed[t.from][t.to];
          if (allowed || has(*forbidden, t.router, t.from, t.to)) {
            ok &= allowed;
          } else if (!ok) {  // only learn which turns are cyclic
            if (reach->closes_cycle(t.router, t.from, t.to)) forbid(t);
          } else if (reach->admit(t.router, t.from, t.to)) {
            added++;
          } else {
            forbid(t);
            ok = false;
          }
        }
        if ((fixed = ok)) break;
      }
      stale = fixed ? 0 : stale + 1;
    }
  }
  return added;
}

}  // namespace fabemu
