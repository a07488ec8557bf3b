#include "control/barrier/barrier_tree.h"

#include <deque>
#include <vector>

namespace fabemu {
namespace {

// Breadth first from `root`: each router's parent port (kBarrierRoot for
// the root, -2 unreached) and depth.
struct Bfs {
  std::vector<int32_t> parent_port;
  std::vector<uint32_t> depth;
  std::vector<int32_t> order;  // the routers reached, in the order reached
  uint32_t max_depth = 0;
  uint32_t reached = 0;
};

Bfs bfs(const Fabric& f, int32_t root) {
  Bfs b;
  const size_t n = f.routers.size();
  b.parent_port.assign(n, -2);
  b.depth.assign(n, 0);
  std::deque<int32_t> q{root};
  b.parent_port[size_t(root)] = kBarrierRoot;
  while (!q.empty()) {
    const int32_t r = q.front();
    q.pop_front();
    b.reached++;
    b.order.push_back(r);
    const FabricRouter& fr = f.routers[size_t(r)];
    for (const FabricPort& p : fr.ports) {
      if (p.peer_router < 0 || p.dead) continue;
      const size_t s = size_t(p.peer_router);
      if (f.routers[s].dead || b.parent_port[s] != -2) continue;
      b.parent_port[s] = p.peer_port;  // its port toward r
      b.depth[s] = b.depth[size_t(r)] + 1;
      if (b.depth[s] > b.max_depth) b.max_depth = b.depth[s];
      q.push_back(p.peer_router);
    }
  }
  return b;
}

}  // namespace

bool build_barrier_tree(const Fabric& f, int32_t root, BarrierTree* out, std::string* err) {
  const size_t n = f.routers.size();
  for (size_t r = 0; r < n; r++)
    if (f.routers[r].ports.size() > kBarrierMaxPorts) {
      *err = "router " + std::to_string(r) + " has " + std::to_string(f.routers[r].ports.size()) +
             " ports, but a BSU register names its children in " +
             std::to_string(kBarrierMaxPorts) + " bits: traffic.phases needs routers of at most " +
             std::to_string(kBarrierMaxPorts) + " ports";
      return false;
    }
  if (root >= 0 && (size_t(root) >= n || f.routers[size_t(root)].dead)) {
    *err = "barrier.root " + std::to_string(root) + " is not a live router (the fabric has " +
           std::to_string(n) + ", 0 to " + std::to_string(n - 1) + ")";
    return false;
  }
  if (root < 0) {  // the centre: least eccentricity among the live routers
    uint32_t best = UINT32_MAX;
    for (size_t r = 0; r < n; r++) {
      if (f.routers[r].dead) continue;
      if (n > 4096) {
        root = int32_t(r);
        break;
      }
      const Bfs b = bfs(f, int32_t(r));
      if (b.max_depth < best) best = b.max_depth, root = int32_t(r);
    }
    if (root < 0) {
      *err = "every router is dead: no barrier tree";
      return false;
    }
  }
  const Bfs b = bfs(f, root);
  BarrierTree t;
  t.root = root;
  t.routers = b.reached;
  t.config.children.assign(n, 0);
  t.config.parent.assign(n, kBarrierRoot);
  for (size_t r = 0; r < n; r++) {
    const FabricRouter& fr = f.routers[r];
    if (b.parent_port[r] != -2 || fr.dead) continue;
    for (const FabricPort& p : fr.ports)  // out of reach: only a router without processors may be
      if (p.endpoint >= 0) {
        *err = "router " + std::to_string(r) + " (endpoint " + std::to_string(p.endpoint) +
               ") cannot be reached from the barrier tree's root, router " +
               std::to_string(root) + ", over live links";
        return false;
      }
  }
  // Deepest first: a router is a child of its parent when processors hang
  // below it (a router with none would never signal, and its parent's
  // barrier would never complete).
  std::vector<uint8_t> below(n, 0);
  for (auto it = b.order.rbegin(); it != b.order.rend(); ++it) {
    const size_t r = size_t(*it);
    const FabricRouter& fr = f.routers[r];
    t.config.parent[r] = static_cast<int8_t>(b.parent_port[r]);
    for (size_t q = 0; q < fr.ports.size(); q++) {
      const FabricPort& p = fr.ports[q];
      if (p.dead) continue;
      const bool child = p.peer_router >= 0 && below[size_t(p.peer_router)] &&
                         b.parent_port[size_t(p.peer_router)] == p.peer_port &&
                         f.routers[size_t(p.peer_router)].ports[size_t(p.peer_port)].peer_router ==
                             int32_t(r);
      if (child || p.endpoint >= 0) t.config.children[r] |= uint32_t{1} << q;
    }
    below[r] = t.config.children[r] != 0;
  }
  // The depth that matters: the deepest router with processors below it.
  t.depth = 0;
  for (int32_t r : b.order)
    if (below[size_t(r)] && b.depth[size_t(r)] > t.depth) t.depth = b.depth[size_t(r)];
  *out = std::move(t);
  return true;
}

}  // namespace fabemu
