#include "control/topology/mesh_reach.h"

#include <bit>

namespace fabemu {

MeshLinks::MeshLinks(const MeshShape& m, const MeshFaults& f)
    : shape(m), next(size_t(m.routers()) * 6, -1), live(size_t(m.routers()), 1) {
  for (int r : f.routers)
    if (r >= 0 && r < m.routers()) live[size_t(r)] = 0;
  for (int r = 0; r < m.routers(); r++) {
    if (!live[size_t(r)]) continue;
    for (int d = 0; d < 6; d++) {
      const int n = m.neighbour(r, static_cast<MeshDir>(d));
      if (n >= 0 && live[size_t(n)] && !f.link_dead(r, static_cast<MeshDir>(d)))
        next[size_t(r) * 6 + size_t(d)] = n;
    }
  }
  for (int d = 0; d < 6; d++)
    for (int r = 0; r < m.routers(); r++) {
      if (!live[size_t(r)] || next[size_t(r) * 6 + size_t(d ^ 1)] >= 0) continue;  // not a first
      for (int v = r; v >= 0; v = next[size_t(v) * 6 + size_t(d)]) lines[size_t(d)].push_back(v);
      lines[size_t(d)].push_back(-1);
    }
}

namespace {

bool turn_ok(const MeshTurns& t, int from, int to) { return from == to || t.allowed[from][to]; }

}  // namespace

// Channel c = r * 6 + d leaves r going d; its head is next[c].
template <class F>
void MeshReach::each_next(int c, F&& fn) const {
  const int y = links_->next[size_t(c)], from = c % 6;
  for (int d = 0; d < 6; d++)
    if (turn_ok(at_[size_t(y)], from, d) && alive(y * 6 + d)) fn(y * 6 + d);
}

// The channels after which c may be asked for: into c's tail p going e,
// from the router next[p * 6 + (e ^ 1)] (links are dead from both ends).
template <class F>
void MeshReach::each_prev(int c, F&& fn) const {
  const int r = c / 6, to = c % 6;
  for (int e = 0; e < 6; e++) {
    const int p = links_->next[size_t(r) * 6 + size_t(e ^ 1)];
    if (p >= 0 && turn_ok(at_[size_t(r)], e, to)) fn(p * 6 + e);
  }
}

MeshReach::MeshReach(const MeshLinks& links, std::vector<MeshTurns> at)
    : links_(&links), at_(std::move(at)), words_((links.routers() + 63) / 64) {
  const int channels = links.routers() * 6;
  seen_.assign(size_t(channels), 0);
  // Kahn's order of the live channels; any left over lie on a cycle.
  std::vector<uint32_t> indeg(size_t(channels), 0);
  int live = 0;
  for (int c = 0; c < channels; c++)
    if (alive(c)) {
      live++;
      each_next(c, [&](int n) { indeg[size_t(n)]++; });
    }
  std::vector<int> order;
  order.reserve(size_t(live));
  for (int c = 0; c < channels; c++)
    if (alive(c) && indeg[size_t(c)] == 0) order.push_back(c);
  for (size_t i = 0; i < order.size(); i++)
    each_next(order[i], [&](int n) {
      if (--indeg[size_t(n)] == 0) order.push_back(n);
    });
  if (int(order.size()) != live) return;
  acyclic_ = true;
  bits_.assign(size_t(channels) * size_t(words_), 0);
  for (size_t i = order.size(); i-- > 0;) {
    const int c = order[i];
    uint64_t* mine = row(c);
    const int head = links.next[size_t(c)];
    mine[head / 64] |= uint64_t{1} << (head % 64);
    each_next(c, [&](int n) {
      const uint64_t* theirs = row(n);
      for (int w = 0; w < words_; w++) mine[w] |= theirs[w];
    });
  }
}

bool MeshReach::connected(int s, int d) const {
  if (s == d) return links_->live[size_t(s)] != 0;
  if (!acyclic_) return false;
  for (int e = 0; e < 6; e++)
    if (alive(s * 6 + e) && (row(s * 6 + e)[d / 64] >> (d % 64) & 1)) return true;
  return false;
}

void MeshReach::reach_from(int s, uint64_t* out) const {
  for (int w = 0; w < words_; w++) out[w] = 0;
  if (!links_->live[size_t(s)]) return;
  out[s / 64] |= uint64_t{1} << (s % 64);
  if (!acyclic_) return;
  for (int e = 0; e < 6; e++) {
    if (!alive(s * 6 + e)) continue;
    const uint64_t* r = row(s * 6 + e);
    for (int w = 0; w < words_; w++) out[w] |= r[w];
  }
}

uint64_t MeshReach::disconnected() const {
  uint64_t live = 0;
  for (uint8_t l : links_->live) live += l;
  uint64_t missing = 0;
  std::vector<uint64_t> r(static_cast<size_t>(words_));
  for (int s = 0; s < links_->routers(); s++) {
    if (!links_->live[size_t(s)]) continue;
    reach_from(s, r.data());
    uint64_t got = 0;
    for (uint64_t w : r) got += uint64_t(std::popcount(w));
    missing += live - got;  // reach holds live routers only
  }
  return missing;
}

// Whether channel `from` reaches channel `to`: a search that leaves out
// every channel whose reach lacks `to`'s head (it cannot lead to `to`).
bool MeshReach::channel_reaches(int from, int to) {
  const int head = links_->next[size_t(to)];
  const auto has_head = [&](int c) { return row(c)[head / 64] >> (head % 64) & 1; };
  if (!has_head(from)) return false;
  stamp_++;
  stack_.assign(1, from);
  seen_[size_t(from)] = stamp_;
  while (!stack_.empty()) {
    const int c = stack_.back();
    stack_.pop_back();
    if (c == to) return true;
    each_next(c, [&](int n) {
      if (seen_[size_t(n)] != stamp_ && has_head(n)) {
        seen_[size_t(n)] = stamp_;
        stack_.push_back(n);
      }
    });
  }
  return false;
}

bool MeshReach::closes_cycle(int router, int from, int to) {
  if (!may_close_cycle(router, from, to) || turn_ok(at_[size_t(router)], from, to)) return false;
  const int p = links_->next[size_t(router) * 6 + size_t(from ^ 1)];
  return channel_reaches(router * 6 + to, p * 6 + from);
}

bool MeshReach::admit(int router, int from, int to) {
  if (turn_ok(at_[size_t(router)], from, to)) return true;
  const int p = links_->next[size_t(router) * 6 + size_t(from ^ 1)];
  const int out = router * 6 + to;
  if (p < 0 || !alive(out) || !acyclic_) {
    at_[size_t(router)].allowed[from][to] = (from ^ 1) != to;
    return true;
  }
  const int in = p * 6 + from;
  if (channel_reaches(out, in)) return false;
  // Every channel that reaches `in` (in included) now reaches what `out`
  // does; past one that already does, so do all that reach it.
  const uint64_t* gain = row(out);
  stamp_++;
  stack_.assign(1, in);
  seen_[size_t(in)] = stamp_;
  while (!stack_.empty()) {
    const int c = stack_.back();
    stack_.pop_back();
    uint64_t* mine = row(c);
    bool grew = false;
    for (int w = 0; w < words_; w++) {
      grew |= (gain[w] & ~mine[w]) != 0;
      mine[w] |= gain[w];
    }
    if (!grew) continue;
    each_prev(c, [&](int q) {
      if (seen_[size_t(q)] != stamp_) {
        seen_[size_t(q)] = stamp_;
        stack_.push_back(q);
      }
    });
  }
  at_[size_t(router)].allowed[from][to] = true;
  return true;
}

uint64_t mesh_disconnected_pairs(const MeshShape& m, const MeshFaults& f,
                                 const std::vector<MeshTurns>& at,
                                 std::vector<std::pair<int, int>>* pairs, size_t limit) {
  const MeshLinks links(m, f);
  const MeshReach reach(links, at);
  if (pairs)
    reach.for_each_disconnected([&](int s, int d) {
      if (pairs->size() < limit) pairs->push_back({s, d});
    });
  return reach.disconnected();
}

}  // namespace fabemu
