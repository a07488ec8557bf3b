#include "control/analysis/deadlock.h"

#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <atomic>

#include "control/analysis/analysis.h"
#include "control/analysis/route_sample.h"

namespace fabemu {

ChannelDependencyGraph::ChannelDependencyGraph(const Fabric& fabric, bool count_repeats)
    : fabric_(fabric) {
  for (const FabricRouter& r : fabric.routers)
    ports_ = std::max(ports_, static_cast<int>(r.ports.size()));
  vcs_ = std::max(1, fabric.num_vcs);
  slots_ = ports_ * vcs_;
  words_ = (slots_ + 63) / 64;
  stride_ = count_repeats ? 2 : 1;
  succ_.assign(fabric.routers.size() * static_cast<size_t>(slots_) * words_ * stride_, 0);
  next_router_.assign(fabric.routers.size() * static_cast<size_t>(ports_), -1);
  for (size_t r = 0; r < fabric.routers.size(); ++r)
    for (size_t p = 0; p < fabric.routers[r].ports.size(); ++p)
      next_router_[r * ports_ + p] = fabric.routers[r].ports[p].peer_router;
}

uint32_t ChannelDependencyGraph::index(int32_t router, int port, int vc) const {
  return static_cast<uint32_t>((router * ports_ + port) * vcs_ + vc);
}

Channel ChannelDependencyGraph::channel(uint32_t idx) const {
  Channel c;
  c.vc = static_cast<uint8_t>(idx % vcs_);
  idx /= vcs_;
  c.port = static_cast<uint8_t>(idx % ports_);
  c.router = static_cast<int32_t>(idx / ports_);
  return c;
}

bool ChannelDependencyGraph::add_dependency(const HopTrace& from, const HopTrace& to) {
  if (from.router < 0 || static_cast<size_t>(from.router) >= fabric_.routers.size()) return false;
  if (from.out_port >= ports_ || next_router(from.router, from.out_port) != to.router) return false;
  if (from.out_vc >= vcs_ || to.out_vc >= vcs_ || to.out_port >= ports_) return false;
  const uint32_t ch = index(from.router, from.out_port, from.out_vc);
  const int slot = to.out_port * vcs_ + to.out_vc;
  const size_t i = word(ch, slot / 64);
  std::atomic_ref<uint64_t> w(succ_[i]);
  const uint64_t bit = uint64_t{1} << (slot % 64);
  // Seen before (read, or lost a race to set it): a repeat.
  if (!(w.load(std::memory_order_relaxed) & bit) &&
      !(w.fetch_or(bit, std::memory_order_relaxed) & bit))
    return true;
  if (stride_ == 2) {
    std::atomic_ref<uint64_t> a(succ_[i + 1]);
    if (!(a.load(std::memory_order_relaxed) & bit)) a.fetch_or(bit, std::memory_order_relaxed);
  }
  return true;
}

bool ChannelDependencyGraph::add_path(const std::vector<HopTrace>& path) {
  bool ok = true;
  for (size_t i = 1; i < path.size(); ++i) ok &= add_dependency(path[i - 1], path[i]);
  // The last hop's VC must exist too (a dependency-free path has no check above).
  for (const HopTrace& h : path) ok &= h.out_vc < vcs_;
  return ok;
}

uint64_t ChannelDependencyGraph::num_dependencies() const {
  uint64_t n = 0;
  for (size_t i = 0; i < succ_.size(); i += stride_)
    n += static_cast<uint64_t>(__builtin_popcountll(succ_[i]));
  return n;
}

uint64_t ChannelDependencyGraph::num_seen_once() const {
  if (stride_ != 2) return 0;
  uint64_t n = 0;
  const size_t nch = fabric_.routers.size() * static_cast<size_t>(slots_);
  for (size_t c = 0; c < nch; ++c) {
    const Channel ch = channel(static_cast<uint32_t>(c));
    const int32_t peer = next_router(ch.router, ch.port);
    if (peer < 0) continue;
    for (int w = 0; w < words_; ++w)
      // Only into a channel that leads on to a router: the others (ejection)
      // end every route and close no cycle.
      for (uint64_t once = succ_[word(c, w)] & ~succ_[word(c, w) + 1]; once; once &= once - 1)
        n += next_router(peer, (w * 64 + __builtin_ctzll(once)) / vcs_) >= 0;
  }
  return n;
}

uint64_t ChannelDependencyGraph::num_channels_used() const {
  const size_t nch = fabric_.routers.size() * static_cast<size_t>(slots_);
  std::vector<uint8_t> used(nch, 0);
  for (size_t c = 0; c < nch; ++c) {
    const Channel ch = channel(static_cast<uint32_t>(c));
    const int32_t peer = next_router(ch.router, ch.port);
    for (int w = 0; w < words_; ++w) {
      uint64_t bits = succ_[word(c, w)];
      if (!bits) continue;
      used[c] = 1;
      if (peer < 0) continue;
      const size_t next = static_cast<size_t>(peer) * slots_;
      while (bits) {
        const int b = __builtin_ctzll(bits);
        bits &= bits - 1;
        used[next + w * 64 + b] = 1;
      }
    }
  }
  uint64_t n = 0;
  for (uint8_t u : used) n += u;
  return n;
}

bool ChannelDependencyGraph::has_dependency(const Channel& from, const Channel& to) const {
  if (from.port >= ports_ || next_router(from.router, from.port) != to.router) return false;
  if (from.vc >= vcs_ || to.vc >= vcs_ || to.port >= ports_) return false;
  const int slot = to.port * vcs_ + to.vc;
  return (succ_[word(index(from.router, from.port, from.vc), slot / 64)] >> (slot % 64)) & 1u;
}

std::vector<Channel> ChannelDependencyGraph::find_cycle() const {
  const uint32_t nch = static_cast<uint32_t>(fabric_.routers.size() * slots_);
  enum : uint8_t { kWhite = 0, kGray = 1, kBlack = 2 };
  std::vector<uint8_t> color(nch, kWhite);
  struct Frame {
    uint32_t ch;
    int next_slot;  // next successor slot to look at
  };
  std::vector<Frame> stack;
  // Next successor slot >= from of channel c, or -1.
  auto next_succ = [&](uint32_t c, int from) -> int {
    for (int w = from / 64; w < words_; ++w) {
      uint64_t bits = succ_[word(c, w)];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      if (bits) return w * 64 + __builtin_ctzll(bits);
    }
    return -1;
  };
  for (uint32_t root = 0; root < nch; ++root) {
    if (color[root] != kWhite) continue;
    if (next_succ(root, 0) < 0) {
      color[root] = kBlack;
      continue;
    }
    stack.push_back({root, 0});
    color[root] = kGray;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const int s = next_succ(f.ch, f.next_slot);
      if (s < 0) {
        color[f.ch] = kBlack;
        stack.pop_back();
        continue;
      }
      f.next_slot = s + 1;
      const Channel from = channel(f.ch);
      const uint32_t to = static_cast<uint32_t>(next_router(from.router, from.port)) * slots_ + s;
      if (color[to] == kGray) {
        std::vector<Channel> cycle;
        size_t i = stack.size();
        while (stack[i - 1].ch != to) --i;
        for (size_t j = i - 1; j < stack.size(); ++j) cycle.push_back(channel(stack[j].ch));
        return cycle;
      }
      if (color[to] == kWhite) {
        color[to] = kGray;
        stack.push_back({to, 0});
      }
    }
  }
  return {};
}

std::string describe_cycle(const Fabric& fabric, const std::vector<Channel>& cycle) {
  std::string s;
  auto name = [&](const Channel& c) {
    const FabricRouter& r = fabric.routers[c.router];
    return fmt::format("r{}({},{},{}).p{}.v{}", c.router, r.coord[0], r.coord[1], r.coord[2],
                       c.port, c.vc);
  };
  for (const Channel& c : cycle) {
    s += name(c);
    s += " -> ";
  }
  if (!cycle.empty()) s += name(cycle.front());
  return s;
}

DeadlockReport check_deadlock(const Spec& spec, const Fabric& fabric) {
  const RoutePathFn trace = make_route_path_tracer(spec, fabric);
  const RouteChoiceFn choices = make_route_choice_tracer(spec, fabric);
  ChannelDependencyGraph g(fabric);
  struct Acc {
    uint64_t bad = 0;
    std::vector<HopTrace> path;  // reused: one allocation per thread
  };
  tbb::enumerable_thread_specific<Acc> acc;
  SampleOptions every_route;
  every_route.max_routes = 0;
  const RouteSample all =
      plan_route_sample(static_cast<uint32_t>(fabric.endpoints.size()), every_route);
  for_each_pair(all, acc, [&](Acc& a, uint32_t /*row*/, uint32_t s, uint32_t d) {
    for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
      const PacketMeta m = trace_meta(s, d, 1, cls);
      if (choices) {  // every adaptive choice, the zero-load one among them
        bool ok = true;
        ok = choices(m, a.path, [&](const std::vector<HopTrace>& p) { ok &= g.add_path(p); }) && ok;
        a.bad += !ok;
      } else if (!trace(m, a.path) || !g.add_path(a.path)) {
        ++a.bad;
      }
    }
  });
  DeadlockReport rep;
  for (const Acc& a : acc) rep.unroutable += a.bad;
  rep.cycle = g.find_cycle();
  rep.deadlock_free = rep.cycle.empty();
  rep.description = describe_cycle(fabric, rep.cycle);
  rep.channels = g.num_channels_used();
  rep.dependencies = g.num_dependencies();
  return rep;
}

}  // namespace fabemu
