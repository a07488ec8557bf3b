// Registers routing "adaptive" for the torus family: the Cray T3E's
// adaptive VC on top of direction-order routing
// (dataplane/routing/t3e_adaptive.h), on the direction-order tables.
//
// Faults: the source table's adaptivity bit is cleared for every pair one
// of whose minimal paths meets a dead link or router, as the T3E's system
// software does (section 2: "used to disable adaptivity in the event of a
// faulty link in one of the minimal paths"); such a pair routes
// deterministically around the fault (torus_faults.cpp).
//
// Deadlock check (Scott & Thorson section 5, after Duato): a packet enters
// the adaptive VC only where its buffer has room for the whole packet, so
// it never waits for an adaptive buffer and no buffer depends on one. What
// must be acyclic is the graph of the deterministic VCs 0-3 with the
// dependencies every adaptive choice creates among them: a packet may hold
// a deterministic VC and ask for the next deterministic one from wherever
// its adaptive hops brought it, on the VC its escape takes there. The
// choice tracer below hands analysis exactly those dependencies (each as a
// two-hop path), for every state (router, input, VC) a packet can reach
// under every choice, and fails a packet when some reachable router offers
// it no deterministic candidate (no escape) or a choice leads into a fault.
#include "control/topology/torus_adaptive.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "control/topology/routing_registration.h"
#include "control/topology/torus.h"

namespace fabemu {
namespace {

// True when `c` lies on the arc a path from `from` to `to` covers in a
// ring of k: going + when plus, - otherwise; the ordinate itself when
// from == to.
bool on_arc(int c, int from, int to, int k, bool plus) {
  if (from == to) return c == from;
  const int span = plus ? (to - from + k) % k : (from - to + k) % k;
  const int at = plus ? (c - from + k) % k : (from - c + k) % k;
  return at <= span;
}

// Router r lies in the region the minimal paths of (s, d) along `path`
// cover.
bool in_region(const T3eTables& t, int s, int d, uint8_t path, int r) {
  for (int dim = 0; dim < 3; ++dim)
    if (!on_arc(t.coord[size_t(r)][dim], t.coord[size_t(s)][dim], t.coord[size_t(d)][dim], t.k[dim],
                (path >> dim) & 1u))
      return false;
  return true;
}

// Clears the adaptivity bit of every pair whose minimal region holds a dead
// router or a dead link one of its minimal paths can take.
void disable_adaptivity_near_faults(T3eTables& t, const Fabric& f) {
  std::vector<int> dead_routers;
  std::vector<std::pair<int, int>> dead_links;  // (router, direction)
  for (const FabricRouter& r : f.routers) {
    if (r.dead) dead_routers.push_back(r.id);
    for (int d = 0; d < kT3eDirections && d < static_cast<int>(r.ports.size()); ++d)
      if (r.ports[size_t(d)].dead) dead_links.emplace_back(r.id, d);
  }
  if (dead_routers.empty() && dead_links.empty()) return;
  const int nr = t.num_routers;
  tbb::parallel_for(tbb::blocked_range<int>(0, nr), [&](const tbb::blocked_range<int>& rg) {
    for (int s = rg.begin(); s != rg.end(); ++s) {
      uint8_t* row = t.path.data() + size_t(s) * size_t(nr);
      for (int d = 0; d < nr; ++d) {
        const uint8_t path = row[d];
        if (!(path & kT3ePathAdaptive) || (path & kT3eUnroutable)) continue;
        bool touched = false;
        for (int r : dead_routers) touched = touched || in_region(t, s, d, path, r);
        for (const auto& [r, dir] : dead_links) {
          if (touched) break;
          // A minimal path takes it when it leaves r in a direction of the
          // path whose dimension r has not resolved yet.
          touched = ((path >> dir) & 1u) &&
                    t.coord[size_t(r)][t3e_dim(dir)] != t.coord[size_t(d)][t3e_dim(dir)] &&
                    in_region(t, s, d, path, r);
        }
        if (touched) row[d] = static_cast<uint8_t>(path & ~kT3ePathAdaptive);
      }
    }
  });
}

// The escape dependencies of one packet under every adaptive choice
// (see the top of this file): a walk over the states it can reach, each
// once, handing visit one two-hop path per dependency between
// deterministic VCs.
// One per thread, kept across packets and fabrics (its stamps are never
// reused, so a stamp left by another fabric's walk is never current).
class EscapeWalk {
 public:
  bool run(const T3eAdaptiveTables& t, const Fabric& f, const PortPeers& ports, PacketMeta m,
           std::vector<HopTrace>& path, const RouteVisit& visit) {
    const size_t states = f.routers.size() * kInputs * kVcs;
    if (seen_.size() != states) seen_.assign(states, 0);
    if (++gen_ == 0) {  // wrapped: forget every stamp
      std::fill(seen_.begin(), seen_.end(), 0);
      gen_ = 1;
    }
    T3eAdaptive::on_inject(t, f, m);
    const FabricEndpoint& src = f.endpoints[m.src];
    stack_.clear();
    stack_.push_back({src.router, static_cast<uint8_t>(src.port), m});
    OfflineRouting offline;  // an idle fabric: every adaptive VC has room
    RoutingContext ctx = offline.ctx();
    bool ok = true;
    while (!stack_.empty()) {
      const State s = stack_.back();
      stack_.pop_back();
      RouteCandidates rc;
      T3eAdaptive::route(t, ctx, s.router, s.in_port, s.m, rc);
      bool escape = false;
      for (uint32_t i = 0; i < rc.count; ++i)  // (ejection on the VC it came: no wait)
        escape = escape || rc.c[i].vc != kT3eAdaptiveVc || rc.c[i].port >= kT3eFirstPePort;
      if (!escape) {
        ok = false;  // unroutable, or no way back to the deterministic VCs
        continue;
      }
      const bool from_escape = s.in_port < kT3eDirections && s.m.vc != kT3eAdaptiveVc;
      for (uint32_t i = 0; i < rc.count; ++i) {
        const RouteCandidate& c = rc.c[i];
        PacketMeta next = s.m;
        path.clear();
        if (from_escape) {
          const PortPeer& back = ports(s.router, s.in_port);
          path.push_back(
              HopTrace{back.peer_router, 0, 0, static_cast<uint8_t>(back.peer_port), s.m.vc, 0});
        }
        take_hop<T3eAdaptive>(t, s.router, s.in_port, c, next, path);
        if (from_escape && c.vc != kT3eAdaptiveVc)
          visit(static_cast<const std::vector<HopTrace>&>(path));
        const PortPeer& p = ports(s.router, c.port);
        // A choice into a fault (the tables should allow none) discards the
        // packet there: unroutable, as analysis counts a route that meets one.
        const FabricRouter& here = f.routers[size_t(s.router)];
        if (here.ports[c.port].dead ||
            (p.peer_router >= 0 && f.routers[size_t(p.peer_router)].dead)) {
          ok = false;
          continue;
        }
        if (p.endpoint >= 0) {
          ok = ok && static_cast<uint32_t>(p.endpoint) == next.dst;
          continue;
        }
        if (p.peer_router < 0) {
          ok = false;
          continue;
        }
        next.vc = c.vc;
        next.hops++;
        const uint8_t in = static_cast<uint8_t>(p.peer_port);
        uint32_t& stamp = seen_[(size_t(p.peer_router) * kInputs + in) * kVcs + c.vc];
        if (stamp == gen_) continue;
        stamp = gen_;
        stack_.push_back({p.peer_router, in, next});
      }
    }
    return ok;
  }

 private:
  // A reached state: the route choices depend on the router, the input and
  // its VC (the rest of the route state is the packet's, fixed at its source).
  struct State {
    int32_t router;
    uint8_t in_port;
    PacketMeta m;
  };
  static constexpr size_t kInputs = kT3eDirections;  // router inputs (the PE's is never revisited)
  static constexpr size_t kVcs = kT3eAdaptiveVc + 1;
  std::vector<uint32_t> seen_;  // per (router, input, VC): gen_ when reached
  uint32_t gen_ = 0;
  std::vector<State> stack_;
};

}  // namespace

T3eAdaptiveTables program_t3e_adaptive_tables(const Spec& spec, const Fabric& fabric) {
  T3eAdaptiveTables t;
  static_cast<T3eTables&>(t) = program_t3e_tables(spec, fabric);
  disable_adaptivity_near_faults(t, fabric);
  const double share = std::clamp(spec.traffic.adaptive_fraction, 0.0, 1.0);
  t.adaptive_share = static_cast<uint32_t>(share * kT3eAdaptiveShareOne + 0.5);
  return t;
}

bool t3e_escape_dependencies(const T3eAdaptiveTables& t, const Fabric& f, const PortPeers& ports,
                             const PacketMeta& m, std::vector<HopTrace>& scratch,
                             const RouteVisit& visit) {
  thread_local EscapeWalk walk;  // analysis traces from many threads
  return walk.run(t, f, ports, m, scratch, visit);
}

namespace {

RouteChoiceTracerFactory escape_dependency_tracer() {
  return [](const Spec& spec, const Fabric& fabric) -> RouteChoiceFn {
    auto t = std::make_shared<const T3eAdaptiveTables>(program_t3e_adaptive_tables(spec, fabric));
    auto ports = std::make_shared<const PortPeers>(fabric);
    return [t, ports, &fabric](const PacketMeta& m, std::vector<HopTrace>& path,
                               const RouteVisit& visit) {
      return t3e_escape_dependencies(*t, fabric, *ports, m, path, visit);
    };
  };
}

RoutingInfo adaptive_routing() {
  RoutingInfo r = policy_routing<T3eAdaptive>(
      "torus", "adaptive",
      "T3E adaptive routing: direction order on VCs 0-3 (requests 0/1, responses 2/3) or the "
      "adaptive VC 4 in any profitable direction where it has room for the whole packet, the "
      "output with the shortest queue (ties: direction order); the deadlock check covers VCs "
      "0-3 with every adaptive choice's dependencies among them (VC 4 holds whole packets, so "
      "no buffer waits on it)",
      5, 5, true, program_t3e_adaptive_tables, [](const Fabric& f) -> uint64_t {
        // The direction-order tables, and the adaptive share beside them.
        const RoutingInfo* d = Registry::get().routing("torus", "direction_order");
        return (d && d->table_bytes ? d->table_bytes(f) : 0) + sizeof(uint32_t);
      });
  r.make_choice_tracer = escape_dependency_tracer();
  r.deadlock_scope =
      "the deterministic VCs 0-3 with the dependencies among them of every adaptive choice; "
      "VC 4 takes a packet only with room for all of it, so no buffer waits on it";
  return r;
}

FABEMU_REGISTER_ROUTING(adaptive_routing());

}  // namespace
}  // namespace fabemu
