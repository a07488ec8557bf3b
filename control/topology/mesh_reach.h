// Which routers of a faulted 3D mesh can reach which under per-router
// turn lists (control/topology/mesh_turns.h), fast enough for the
// petaflops 3D-mesh proposal's 27 x 16 x 24 machine.
//
// A channel is a live directed link (router, direction); a packet on it
// may ask next for the channels its head router's list allows (going
// straight always, a U-turn never). Under deadlock-free lists these
// dependencies form a DAG, so one pass in reverse topological order gives
// each channel the set of routers reachable from it (a bitset of N bits):
// reach(c) = {head of c} + the reach of every channel allowed after c.
// s reaches d when some live channel out of s does. On 27x16x24 that is
// 62k channels of 10,368 bits (80 MB), built in tens of ms.
//
// Admitting one turn (in -> out at a router) adds one dependency; it
// closes a cycle exactly when `out` already reaches `in`, and otherwise
// the reach of `in` and of every channel that reaches it grows by
// reach(out) (no path can use the new dependency twice: that would be a
// cycle). Both are searched with pruning by the bitsets, so the sets stay
// exact as turns are admitted one by one.
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "control/topology/mesh_turns.h"

namespace fabemu {

// The live hops of a faulted mesh, looked up once.
struct MeshLinks {
  MeshLinks(const MeshShape& m, const MeshFaults& f);
  MeshShape shape;
  std::vector<int32_t> next;  // [r * 6 + d]: the router a live hop from live r going d, else -1
  std::vector<uint8_t> live;  // per router
  // Per direction d: the maximal runs of live hops going d, each run's
  // routers in order and then -1.
  std::array<std::vector<int32_t>, 6> lines;
  int routers() const { return shape.routers(); }
};

class MeshReach {
 public:
  // `links` must outlive this. The lists are copied and grow by admit().
  MeshReach(const MeshLinks& links, std::vector<MeshTurns> at);
  // False when the lists' channel dependencies have a cycle: nothing else
  // is then computed (every query says disconnected).
  bool acyclic() const { return acyclic_; }
  const std::vector<MeshTurns>& lists() const { return at_; }

  // A legal route from s to d exists (s == d: true; a dead end: false).
  bool connected(int s, int d) const;
  // The routers s reaches, s included, as words() 64-bit words (bit d of
  // word d / 64); all zero for a dead router.
  void reach_from(int s, uint64_t* out) const;
  int words() const { return words_; }
  // Ordered pairs of distinct live routers without a legal route.
  uint64_t disconnected() const;
  // Calls fn(s, d) for each of them, by s then d.
  template <class F>
  void for_each_disconnected(F&& fn) const {
    std::vector<uint64_t> row(static_cast<size_t>(words_));
    for (int s = 0; s < links_->routers(); s++) {
      if (!links_->live[size_t(s)]) continue;
      reach_from(s, row.data());
      for (int d = 0; d < links_->routers(); d++)
        if (links_->live[size_t(d)] && !(row[size_t(d / 64)] >> (d % 64) & 1)) fn(s, d);
    }
  }

  // Allows turn from -> to at `router` (directions as ints) unless the one
  // dependency it adds closes a cycle: then false and nothing changes.
  // True too when it was already allowed, or a hop it names is dead.
  bool admit(int router, int from, int to);
  // False when admit(router, from, to) surely closes no cycle (the
  // channel out of the turn reaches neither end of the one into it).
  bool may_close_cycle(int router, int from, int to) const {
    const int out = router * 6 + to, p = links_->next[size_t(router) * 6 + size_t(from ^ 1)];
    if (!acyclic_ || p < 0 || !alive(out)) return false;
    const uint64_t* r = row(out);
    return (r[router / 64] >> (router % 64) & 1) && (r[p / 64] >> (p % 64) & 1);
  }
  // Exactly: admit(router, from, to) would return false.
  bool closes_cycle(int router, int from, int to);

 private:
  uint64_t* row(int c) { return bits_.data() + size_t(c) * size_t(words_); }
  const uint64_t* row(int c) const { return bits_.data() + size_t(c) * size_t(words_); }
  bool alive(int c) const { return links_->next[size_t(c)] >= 0; }
  template <class F>
  void each_next(int c, F&& fn) const;
  template <class F>
  void each_prev(int c, F&& fn) const;
  bool channel_reaches(int from, int to);

  const MeshLinks* links_;
  std::vector<MeshTurns> at_;
  int words_ = 0;
  bool acyclic_ = false;
  std::vector<uint64_t> bits_;    // reach per channel, words_ each
  std::vector<uint32_t> seen_;    // search marks, by stamp
  uint32_t stamp_ = 0;
  std::vector<int> stack_;
};

// The disconnected ordered pairs of live routers under the lists (every
// pair when the lists deadlock); `pairs`, when given, receives up to
// `limit` of them in (s, d) order.
uint64_t mesh_disconnected_pairs(const MeshShape& m, const MeshFaults& f,
                                 const std::vector<MeshTurns>& at,
                                 std::vector<std::pair<int, int>>* pairs = nullptr,
                                 size_t limit = SIZE_MAX);

}  // namespace fabemu
