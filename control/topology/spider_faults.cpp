// Spider's tables reprogrammed around dead links and chips (Galles 1997,
// "Routing tables": the tables are programmed by software, cycle-free, and
// reprogrammed around faults; how is not said, so this is fabemu's way).
//
// A route is a sequence of states (chip, in-port); each state holds one
// exit port per key, the key being the destination (the local table, at a
// chip whose meta-ID is the destination's meta address) or its meta address
// (the meta table, anywhere else). First every healthy route that meets no
// dead part is kept, its channel dependencies recorded. Then every state
// and destination whose walk stops at a state without an entry (its healthy
// exit dead) gets one from a breadth-first search from there, the shortest
// way to a chip where the route goes on or ends; a step may add the
// dependency (channel in -> channel out) only when that closes no cycle in
// the channel dependency graph, so the tables stay deadlock-free on one VC
// per class. A search that finds nothing leaves the key unroutable there
// (kSpiderNoRoute: the chip discards the message and the engine counts it).
#include <algorithm>
#include <deque>
#include <vector>

#include "control/topology/spider_routing.h"

namespace fabemu {
namespace {

constexpr int8_t kUnset = -2;
constexpr int8_t kNone = -1;

class FaultRouter {
 public:
  FaultRouter(const FatHypercubeShape& s, const Fabric& f)
      : s_(s),
        f_(f),
        chips_(int32_t(f.routers.size())),
        endpoints_(int32_t(f.endpoints.size())),
        keys_(endpoints_ + kSpiderMetaEntries),
        next_(size_t(chips_) * kSpiderPorts * size_t(keys_), kUnset),
        deps_(size_t(chips_) * kSpiderPorts),
        stamp_(size_t(chips_) * kSpiderPorts, 0) {}

  int exit(int32_t chip, int in_port, int32_t dst) const {
    const int8_t p = next_[index(chip, in_port, dst)];
    return p < 0 ? -1 : p;
  }

  // Walks from every live source first, so that a state no source's route
  // enters adds no dependency that would refuse a source a detour.
  void program() {
    for (int32_t src = 0; src < endpoints_; ++src)
      for (int32_t e = 0; e < endpoints_; ++e)
        if (live_endpoint(src) && live_endpoint(e)) keep_healthy(source(src), e);
    for (int32_t src = 0; src < endpoints_; ++src)
      for (int32_t e = 0; e < endpoints_; ++e)
        if (live_endpoint(src) && live_endpoint(e)) complete(source(src), e);
    // Tables changed while a run goes on (the control socket) meet messages
    // that the healthy routes brought to states no new route enters: such a
    // state gets an exit too, where one closes no cycle (after every
    // source's routes, so theirs come first). Only those states: all of
    // them took 5 s on 512 endpoints.
    for (int32_t chip = 0; chip < chips_; ++chip)
      for (int p = 0; p < int(f_.routers[size_t(chip)].ports.size()); ++p) {
        const FabricPort& in = port(chip, p);
        if (in.peer_router < 0 || !live_state(chip, p)) continue;
        for (int32_t e = 0; e < endpoints_; ++e)
          if (live_endpoint(e) && next_[index(chip, p, e)] == kUnset &&
              spider_healthy_port(s_, in.peer_router, e) == in.peer_port)
            borrow_exit(chip, p, e);
      }
  }

 private:
  struct State {
    int32_t chip;
    int in_port;
  };

  const FabricPort& port(int32_t chip, int p) const {
    return f_.routers[size_t(chip)].ports[size_t(p)];
  }
  bool live_state(int32_t chip, int in_port) const {
    return !f_.routers[size_t(chip)].dead && port(chip, in_port).connected() &&
           !port(chip, in_port).dead;
  }
  State source(int32_t e) const {
    const FabricEndpoint& ep = f_.endpoints[size_t(e)];
    return {ep.router, ep.port};
  }
  bool live_endpoint(int32_t e) const {
    const FabricEndpoint& ep = f_.endpoints[size_t(e)];
    return live_state(ep.router, ep.port);
  }
  // Where leaving `chip` by `p` leads: the next state, or chip -1 (ejection
  // or a dead way).
  State step(int32_t chip, int p) const {
    const FabricPort& x = port(chip, p);
    if (x.dead || x.peer_router < 0 || f_.routers[size_t(x.peer_router)].dead) return {-1, 0};
    return {x.peer_router, x.peer_port};
  }
  int key(int32_t chip, int32_t dst) const {
    const int meta = dst >> kSpiderLocalBits;
    return meta == spider_meta_id(s_, chip) ? dst : endpoints_ + meta;
  }
  size_t index(int32_t chip, int in_port, int32_t dst) const {
    return (size_t(chip) * kSpiderPorts + size_t(in_port)) * size_t(keys_) + size_t(key(chip, dst));
  }
  // The channel a state was entered by (the link out of the previous chip),
  // or -1 at injection.
  int channel_in(int32_t chip, int in_port) const {
    const FabricPort& x = port(chip, in_port);
    return x.peer_router < 0 ? -1 : x.peer_router * kSpiderPorts + x.peer_port;
  }
  bool arrives(int32_t chip, int p, int32_t dst) const {
    const FabricEndpoint& ep = f_.endpoints[size_t(dst)];
    return ep.router == chip && ep.port == p;
  }

  // True when `to` reaches `from` in the dependency graph (from -> to would
  // close a cycle).
  bool reaches(int from, int to) {
    ++epoch_;
    std::vector<int> stack{to};
    stamp_[size_t(to)] = epoch_;
    while (!stack.empty()) {
      const int c = stack.back();
      stack.pop_back();
      if (c == from) return true;
      for (int n : deps_[size_t(c)])
        if (stamp_[size_t(n)] != epoch_) stamp_[size_t(n)] = epoch_, stack.push_back(n);
    }
    return false;
  }
  bool has_dep(int a, int b) const {
    const std::vector<int>& d = deps_[size_t(a)];
    return std::find(d.begin(), d.end(), b) != d.end();
  }
  bool may_add(int a, int b) { return has_dep(a, b) || !reaches(a, b); }
  void add_dep(int a, int b) {
    if (!has_dep(a, b)) deps_[size_t(a)].push_back(b);
  }

  // Keeps the healthy route from (chip, in_port) to dst when all of it lives.
  void keep_healthy(State from, int32_t dst) {
    State path[4 * kSpiderPorts * 8];
    int exits[4 * kSpiderPorts * 8];
    int len = 0;
    State at = from;
    for (;;) {
      if (len == int(std::size(path))) return;
      const int p = spider_healthy_port(s_, at.chip, dst);
      path[len] = at, exits[len++] = p;
      if (arrives(at.chip, p, dst)) break;
      const State next = step(at.chip, p);
      if (next.chip < 0) return;
      at = next;
    }
    for (int i = 0; i < len; ++i) {
      next_[index(path[i].chip, path[i].in_port, dst)] = int8_t(exits[i]);
      if (i + 1 < len)
        add_dep(channel(path[i].chip, exits[i]), channel(path[i + 1].chip, exits[i + 1]));
    }
  }

  // Walks the entries from (chip, in_port) to dst, searching where one is
  // missing, until the message arrives or cannot.
  void complete(State from, int32_t dst) {
    State at = from;
    for (int hops = 0; hops < 4 * chips_; ++hops) {
      int8_t& entry = next_[index(at.chip, at.in_port, dst)];
      if (entry == kUnset) entry = search(at, dst);
      if (entry < 0 || arrives(at.chip, entry, dst)) return;
      at = step(at.chip, entry);
      if (at.chip < 0) return;  // an entry into a dead way: a broken table left as is
    }
  }

  // Gives (chip, in_port) an exit for dst's key: a sibling entry port's
  // exit, else any live exit to a state that has one (or to dst), the first
  // whose dependency closes no cycle; kNone when none does (a message that
  // meets it is discarded and counted, no_route). A full search here, for
  // every state, took seconds on 64 endpoints.
  void borrow_exit(int32_t chip, int in_port, int32_t dst) {
    int8_t& entry = next_[index(chip, in_port, dst)];
    entry = kNone;
    const int in = channel_in(chip, in_port);
    const int ports = int(f_.routers[size_t(chip)].ports.size());
    auto fits = [&](int x) {
      const int out = arrives(chip, x, dst) ? -1 : channel(chip, x);
      if (out >= 0 && !may_add(in, out)) return false;
      if (out >= 0) add_dep(in, out);
      entry = int8_t(x);
      return true;
    };
    for (int q = 0; q < ports; ++q) {
      const int8_t x = q == in_port ? kNone : next_[index(chip, q, dst)];
      if (x >= 0 && fits(x)) return;
    }
    for (int x = 0; x < ports; ++x) {
      if (arrives(chip, x, dst)) {
        if (fits(x)) return;
        continue;
      }
      const State w = step(chip, x);
      if (w.chip >= 0 && next_[index(w.chip, w.in_port, dst)] >= 0 && fits(x)) return;
    }
  }

  // The shortest way from `from` on, through states without an entry (any
  // live exit whose dependency closes no cycle) to one with an entry or the
  // destination; its entries are written. Returns the exit at `from`, or
  // kNone. A way whose dependencies close a cycle only together is refused
  // and the search run again without its offending step.
  int8_t search(State from, int32_t dst) {
    banned_.clear();
    for (int attempt = 0; attempt < 64; ++attempt) {
      const int8_t got = search_once(from, dst);
      if (got != kUnset) return got;
    }
    return kNone;
  }

  int8_t search_once(State from, int32_t dst) {
    const size_t states = size_t(chips_) * kSpiderPorts;
    parent_.assign(states, -2);  // state -> previous state; -1: the start
    exit_of_.assign(states, -1);
    std::deque<State> queue{from};
    parent_[state_index(from)] = -1;
    while (!queue.empty()) {
      const State v = queue.front();
      queue.pop_front();
      const int in = channel_in(v.chip, v.in_port);
      const int8_t fixed =
          state_index(v) == state_index(from) ? kUnset : next_[index(v.chip, v.in_port, dst)];
      if (fixed == kNone) continue;
      if (fixed >= 0) {  // joins a route: its exit is given
        if (allowed(in, arrives(v.chip, fixed, dst) ? -1 : channel(v.chip, fixed)))
          return finish(v, fixed, from, dst);
        continue;
      }
      for (int p = 0; p < int(f_.routers[size_t(v.chip)].ports.size()); ++p) {
        if (arrives(v.chip, p, dst)) return finish(v, p, from, dst);
        const State w = step(v.chip, p);
        if (w.chip < 0) continue;
        const size_t wi = state_index(w);
        if (parent_[wi] != -2 || !allowed(in, channel(v.chip, p))) continue;
        parent_[wi] = int(state_index(v));
        exit_of_[wi] = p;
        queue.push_back(w);
      }
    }
    return kNone;
  }

  bool allowed(int in, int out) {
    if (in < 0 || out < 0) return true;
    for (const auto& b : banned_)
      if (b.first == in && b.second == out) return false;
    return may_add(in, out);
  }

  // Adds the way's dependencies (`v` leaving by `p` last) and writes its
  // entries; kUnset when they would close a cycle together (the offending
  // step banned for the next attempt).
  int8_t finish(State v, int p, State from, int32_t dst) {
    struct Hop {
      State at;
      int exit;
    };
    std::vector<Hop> hops{{v, p}};
    for (State at = v; state_index(at) != state_index(from);) {
      const size_t ai = state_index(at);
      const int prev = parent_[ai];
      const int e = exit_of_[ai];
      at = State{prev / kSpiderPorts, prev % kSpiderPorts};
      hops.push_back({at, e});
    }
    std::vector<std::pair<int, int>> added;
    for (auto h = hops.rbegin(); h != hops.rend(); ++h) {
      const int in = channel_in(h->at.chip, h->at.in_port);
      const int out = arrives(h->at.chip, h->exit, dst) ? -1 : channel(h->at.chip, h->exit);
      if (in < 0 || out < 0 || has_dep(in, out)) continue;
      if (reaches(in, out)) {
        for (auto a = added.rbegin(); a != added.rend(); ++a) deps_[size_t(a->first)].pop_back();
        banned_.emplace_back(in, out);
        return kUnset;
      }
      deps_[size_t(in)].push_back(out);
      added.emplace_back(in, out);
    }
    for (const Hop& h : hops) {
      int8_t& entry = next_[index(h.at.chip, h.at.in_port, dst)];
      if (entry == kUnset) entry = int8_t(h.exit);
    }
    return int8_t(hops.back().exit);
  }

  static size_t state_index(State s) { return size_t(s.chip) * kSpiderPorts + size_t(s.in_port); }
  static int channel(int32_t chip, int p) { return chip * kSpiderPorts + p; }

  const FatHypercubeShape& s_;
  const Fabric& f_;
  int32_t chips_, endpoints_, keys_;
  std::vector<int8_t> next_;
  std::vector<std::vector<int>> deps_;
  std::vector<uint32_t> stamp_;
  uint32_t epoch_ = 0;
  std::vector<int> parent_, exit_of_;
  std::vector<std::pair<int, int>> banned_;
};

}  // namespace
}  // namespace fabemu

namespace fabemu {

SpiderTables spider_route_around_faults(const Spec& spec, const Fabric& fabric) {
  const FatHypercubeShape s = fat_hypercube_shape(spec);
  bool dead = false;
  for (const FabricRouter& r : fabric.routers) {
    dead = dead || r.dead;
    for (const FabricPort& p : r.ports) dead = dead || p.dead;
  }
  if (!dead)
    return program_spider_tables(spec, fabric, [&s](int32_t chip, int /*in_port*/, int32_t dst) {
      return spider_healthy_port(s, chip, dst);
    });
  FaultRouter router(s, fabric);
  router.program();
  return program_spider_tables(spec, fabric, [&router](int32_t chip, int in_port, int32_t dst) {
    return router.exit(chip, in_port, dst);
  });
}

}  // namespace fabemu
