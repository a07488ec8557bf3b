// The BlackWidow system software's answer to a fault (Scott et al., ISCA
// 2006, sections 5 and 7.7): up-routing table entries of higher priority
// than the healthy entry 0, each matching the subtree in a fault's shadow
// with an uplink mask that avoids the routers from which the fault lies on
// the way down. A router's own dead uplinks leave every entry's mask.
//
// Rank 2 (the fabrics build_clos makes): a dead link between rank-2 router
// j and rank-1 router i shadows subtree i at j, so every other rank-1
// router gets an entry for i without its uplink to j. A dead rank-2 router
// leaves every uplink mask; a dead rank-1 router's subtree is unroutable (an
// entry with an empty mask: the packet is discarded at its first router and
// counted). Seven entries are all a router has above entry 0: when more
// subtrees are shadowed, entries are merged (location/mask covering both, the
// uplinks allowed for all of them), fewest uplinks lost first.
//
// Sidelinks (R1.5, R2.5) need no fault entries (section 5.1): a dead one
// leaves its peer's entry. Rank 3 and R2.5 get no shadow entries yet: only a
// router's own dead links leave its masks.
#include <algorithm>
#include <bit>
#include <vector>

#include "control/topology/clos.h"

namespace fabemu {
namespace {

struct ShadowEntry {
  uint32_t loc = 0, msk = 0;  // over rank-1 router (subtree) indices
  uint64_t ports = 0;
};

ShadowEntry merged(const ShadowEntry& a, const ShadowEntry& b) {
  ShadowEntry m;
  m.msk = a.msk | b.msk | (a.loc ^ b.loc);
  m.loc = a.loc & ~m.msk;
  m.ports = a.ports & b.ports;
  return m;
}

bool overlap(const ShadowEntry& a, const ShadowEntry& b) {
  return ((a.loc ^ b.loc) & ~(a.msk | b.msk)) == 0;
}

// A router's own dead uplinks and sidelinks leave every entry's mask.
void drop_dead_ports(YarcTables& t, const Fabric& fabric) {
  for (const FabricRouter& r : fabric.routers) {
    uint64_t dead = 0;
    for (size_t p = 0; p < r.ports.size(); p++)
      if (r.ports[p].dead) dead |= uint64_t{1} << p;
    for (YarcUpEntry& u : t.routers[size_t(r.id)].up)
      if (u.valid && (u.ports & dead)) u.set(u.location, u.mask, u.ports & ~dead);
  }
}

}  // namespace

void add_yarc_fault_entries(YarcTables& t, const Fabric& fabric) {
  bool any = false, side = false;
  int max_rank = 0;
  for (const FabricRouter& r : fabric.routers) {
    max_rank = std::max(max_rank, r.rank);
    for (const FabricPort& p : r.ports) {
      any = any || p.dead;
      side = side || (p.peer_router >= 0 && p.label == kClosSide);
    }
    any = any || r.dead;
  }
  if (!any) return;
  // Ranks 1.5, 2.5 and 3: only a router's own dead links leave its masks
  // (the shadows of faults further away are not programmed yet).
  if (max_rank != 2 || side) {
    if (max_rank > 1 || side) drop_dead_ports(t, fabric);
    return;
  }
  // Per rank-1 router index i: the rank-2 routers that cannot reach it, and
  // whether it is dead (its subtree unreachable).
  std::vector<int32_t> rank1;  // index -> router id
  for (const FabricRouter& r : fabric.routers)
    if (r.rank == 1) {
      if (size_t(r.coord[1]) >= rank1.size()) rank1.resize(size_t(r.coord[1]) + 1, -1);
      rank1[size_t(r.coord[1])] = r.id;
    }
  std::vector<std::vector<bool>> cut(rank1.size(), std::vector<bool>(fabric.routers.size()));
  for (const FabricRouter& j : fabric.routers) {
    if (j.rank != 2) continue;
    for (const FabricPort& p : j.ports)
      if (p.peer_router >= 0 && (p.dead || j.dead))
        cut[size_t(fabric.routers[size_t(p.peer_router)].coord[1])][size_t(j.id)] = true;
  }
  for (const FabricRouter& k : fabric.routers) {
    if (k.rank != 1) continue;
    YarcRouterTable& rt = t.routers[size_t(k.id)];
    uint64_t live = 0;
    std::vector<std::pair<int, int32_t>> ups;  // (port, rank-2 router)
    for (size_t p = 0; p < k.ports.size(); p++) {
      const FabricPort& fp = k.ports[p];
      if (fp.peer_router < 0 || fp.label != kClosUp) continue;
      ups.push_back({int(p), fp.peer_router});
      if (!fp.dead) live |= uint64_t{1} << p;
    }
    if (ups.empty()) continue;
    rt.up[0].set(0, kYarcDestMask, live);
    std::vector<ShadowEntry> entries;
    for (size_t i = 0; i < rank1.size(); i++) {
      if (rank1[i] < 0 || rank1[i] == k.id) continue;
      uint64_t allowed = fabric.routers[size_t(rank1[i])].dead ? 0 : live;
      for (const auto& [port, j] : ups)
        if (cut[i][size_t(j)]) allowed &= ~(uint64_t{1} << port);
      if (allowed != live) entries.push_back({uint32_t(i), 0, allowed});
    }
    while (entries.size() > size_t(kYarcUpEntries - 1)) {
      size_t ba = 0, bb = 1;
      int best_loss = 1 << 30;
      for (size_t a = 0; a < entries.size(); a++)
        for (size_t b = a + 1; b < entries.size(); b++) {
          const ShadowEntry m = merged(entries[a], entries[b]);
          const int loss = std::popcount(entries[a].ports & ~m.ports) +
                           std::popcount(entries[b].ports & ~m.ports) + std::popcount(m.msk);
          if (loss < best_loss) best_loss = loss, ba = a, bb = b;
        }
      ShadowEntry m = merged(entries[ba], entries[bb]);
      entries.erase(entries.begin() + long(bb));
      entries.erase(entries.begin() + long(ba));
      // Entries that overlap the merged cover join it (a destination must
      // match one fault entry only, or the highest would win unchecked).
      for (bool again = true; again;) {
        again = false;
        for (size_t x = 0; x < entries.size(); x++)
          if (overlap(m, entries[x])) {
            m = merged(m, entries[x]);
            entries.erase(entries.begin() + long(x));
            again = true;
            break;
          }
      }
      entries.push_back(m);
    }
    for (size_t e = 0; e < entries.size(); e++) {
      const ShadowEntry& s = entries[e];
      // Within a merged cover, subtrees nobody shadowed keep the mask too
      // (fewer uplinks, still a route); the own subtree turns down first.
      rt.up[e + 1].set(static_cast<uint16_t>(s.loc << 5),
                       static_cast<uint16_t>((s.msk << 5) | 0x1F), s.ports);
    }
  }
}

}  // namespace fabemu
