// The builder of every BlackWidow rank (Scott et al., ISCA 2006, section
// 2.2, Figure 2): R1 and R2; R1.5 and R2.5, whose top subtrees are joined
// by sidelinks; and R3, whose R2 subtrees are joined by rank-3 routers; and
// the size checks of every rank. Wiring and numbering: clos.h.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "control/topology/clos.h"
#include "control/topology/fabric_parts.h"
#include "control/topology/link_timing.h"

namespace fabemu {

namespace {

constexpr int kWholeYarc = 64;
constexpr int kHalfYarc = 32;     // a radix-32 virtual router (section 7.4)
constexpr int kHalfR2 = 512;      // an R2 subtree beside sidelinks or under R3 (16 rank-1 routers)
constexpr int kFullR2 = 1024;     // an R2 subtree of the 32K maximum
constexpr int kR3Max512 = 16384;  // 32 subtrees of 512 ("up to 16K processors")

struct RankRange {
  int rank;
  bool side;
  int lo, hi;
};
constexpr RankRange kRanges[] = {{1, false, 1, 32},
                                 {1, true, 33, 288},
                                 {2, false, 33, 1024},
                                 {2, true, 513, 4608},
                                 {3, false, 513, 32768}};

const RankRange* range_of(const Spec& spec) {
  for (const RankRange& r : kRanges)
    if (r.rank == spec.topology.rank && r.side == spec.topology.sidelinks) return &r;
  return nullptr;
}

// Which ranks build e endpoints.
std::string endpoint_hint(int rank, int e) {
  if (e > kClosMaxEndpoints)
    return fmt::format("{} is the most (the BlackWidow maximum, 15-bit destinations)",
                       kClosMaxEndpoints);
  if (e <= 32) return "use rank 1 for 32 or fewer";
  if (e <= 1024)
    return std::string("use rank 2 for 33 to 1024 endpoints") +
           (e <= 288 ? " (or rank 1.5, rank-1 routers joined by sidelinks, up to 288)" : "");
  const std::string more = e <= 4608 ? "use rank 2.5 for up to 4608 endpoints or rank 3 for up to "
                                       "32768"
                                     : "use rank 3 for up to 32768 endpoints";
  return rank == 2 ? "1024 is the most a rank-2 clos has: " + more : more;
}

FabricRouter& add_router(Fabric& f, int32_t id, int rank, int index, int radix, uint8_t label) {
  FabricRouter& r = f.routers[size_t(id)];
  r.id = id;
  r.rank = rank;
  r.coord = {rank, index, 0};
  r.ports.resize(size_t(radix));
  for (FabricPort& p : r.ports) p.label = label;
  return r;
}

// Sidelinks among the routers at[0..S-1] (one per subtree), first port
// `base`: per_peer links between each pair, peers in subtree order, so the
// k-th link of s to t is port base + (ordinal of t among s's peers) *
// per_peer + k at s.
void wire_sidelinks(Fabric& f, const std::vector<int32_t>& at, int base, int per_peer, ps_t unit,
                    ps_t wps) {
  const int s_count = int(at.size());
  for (int s = 0; s < s_count; ++s)
    for (int t = s + 1; t < s_count; ++t)
      for (int k = 0; k < per_peer; ++k)
        wire_clos_link(f, at[size_t(s)], base + (t - 1) * per_peer + k, kClosSide, at[size_t(t)],
                       base + s * per_peer + k, kClosSide, unit, wps);
}

}  // namespace

void wire_clos_link(Fabric& f, int32_t a, int pa, uint8_t label_a, int32_t b, int pb,
                    uint8_t label_b, ps_t unit, ps_t wps) {
  FabricPort& x = f.routers[size_t(a)].ports[size_t(pa)];
  FabricPort& y = f.routers[size_t(b)].ports[size_t(pb)];
  x.peer_router = b;
  x.peer_port = static_cast<int16_t>(pb);
  x.label = label_a;
  y.peer_router = a;
  y.peer_port = static_cast<int16_t>(pa);
  y.label = label_b;
  x.unit_ps = y.unit_ps = unit;
  x.wire_ps = y.wire_ps = wps;
}

std::string clos_rank_name(const Spec& spec) {
  return fmt::format("{}{}", spec.topology.rank, spec.topology.sidelinks ? ".5" : "");
}

std::string clos_size_problem(const Spec& spec, const char** field) {
  const RankRange* range = range_of(spec);
  const std::string name = clos_rank_name(spec);
  const int e = spec.topology.endpoints, u = spec.topology.uplinks;
  auto blame = [&](const char* f, std::string why) {
    if (field) *field = f;
    return why;
  };
  if (!range)
    return blame("topology.rank",
                 fmt::format("clos rank {} is not supported: give 1, 1.5, 2, 2.5 or 3", name));
  if (e < range->lo || e > range->hi)
    return blame("topology.endpoints",
                 fmt::format("a rank-{} clos has {} to {} endpoints, got {}: {}", name, range->lo,
                             range->hi, e, endpoint_hint(spec.topology.rank, e)));
  if (u < 1 || u > kHalfYarc)
    return blame(
        "topology.uplinks",
        fmt::format("got {}, but a rank-1 router has 1 to {} cables above it", u, kHalfYarc));
  if (spec.topology.rank == 1 && !spec.topology.sidelinks && u != kHalfYarc)
    return blame("topology.uplinks",
                 fmt::format("topology.uplinks is {}, but a rank-1 clos is one router with no "
                             "uplinks: remove topology.uplinks or set topology.rank: 2",
                             u));
  const ClosShape sh = clos_shape(spec);
  if (spec.topology.rank == 1 && spec.topology.sidelinks && sh.per_peer < 1)
    return blame("topology.uplinks",
                 fmt::format("{} sidelink ports per rank-1 router cannot reach its {} peers: "
                             "give topology.uplinks of at least {}",
                             u, sh.subtrees - 1, sh.subtrees - 1));
  return "";
}

ClosShape clos_shape(const Spec& spec) {
  ClosShape sh;
  sh.rank = spec.topology.rank;
  sh.sidelinks = spec.topology.sidelinks;
  sh.endpoints = spec.topology.endpoints;
  sh.uplinks = spec.topology.uplinks;
  sh.rank1 = (sh.endpoints + kClosSubtree - 1) / kClosSubtree;
  if (sh.rank == 1) {
    sh.subtree = kClosSubtree;
    sh.subtrees = sh.rank1;
    sh.per_peer = sh.subtrees > 1 ? sh.uplinks / (sh.subtrees - 1) : 0;
    return sh;
  }
  sh.subtree = sh.rank == 2 && !sh.sidelinks              ? kFullR2
               : sh.rank == 3 && sh.endpoints > kR3Max512 ? kFullR2
                                                          : kHalfR2;
  sh.subtrees = (sh.endpoints + sh.subtree - 1) / sh.subtree;
  sh.rank1_per_subtree = sh.subtree / kClosSubtree;
  sh.rank2_radix = sh.subtree == kFullR2 && sh.rank == 3 ? kWholeYarc : kHalfYarc;
  sh.rank2_up = sh.rank == 2 && !sh.sidelinks ? 0 : sh.rank2_radix - sh.rank1_per_subtree;
  sh.rank2 = sh.subtrees * sh.uplinks;
  if (sh.sidelinks) sh.per_peer = sh.subtrees > 1 ? sh.rank2_up / (sh.subtrees - 1) : 0;
  if (sh.rank == 3) sh.rank3 = sh.uplinks * sh.rank2_up;
  return sh;
}

Fabric build_clos_ranks(const Spec& spec) {
  const ClosShape sh = clos_shape(spec);
  const ps_t unit = unit_ps(spec), channel = router_unit_ps(spec), wps = wire_ps(spec);
  Fabric f =
      fabric_frame(spec, fmt::format("yarc R{} {}", clos_rank_name(spec), sh.endpoints), "clos");
  f.routers.resize(size_t(sh.rank1 + sh.rank2 + sh.rank3));
  const int32_t r2_base = sh.rank1, r3_base = sh.rank1 + sh.rank2;
  for (int g = 0; g < sh.rank1; ++g) {
    FabricRouter& r = add_router(f, g, 1, g, kWholeYarc, kClosDown);
    for (int p = kClosSubtree; p < kWholeYarc; ++p)
      r.ports[size_t(p)].label = sh.rank == 1 && sh.sidelinks ? kClosSide : kClosUp;
  }
  if (sh.rank == 1) {  // R1.5 (R1, one router: no links)
    std::vector<int32_t> all(size_t(sh.rank1));
    for (int g = 0; g < sh.rank1; ++g) all[size_t(g)] = g;
    wire_sidelinks(f, all, kClosSubtree, sh.per_peer, channel, wps);
  } else {
    // Rank-2 router (s, j): ports 0..rank1_per_subtree-1 down, the rest up
    // (R3) or side (R2.5); at R2 all 32 are down. Rank-1 router
    // g = s * rank1_per_subtree + i has uplink 32 + j to its port i.
    for (int s = 0; s < sh.subtrees; ++s)
      for (int j = 0; j < sh.uplinks; ++j) {
        FabricRouter& r = add_router(f, r2_base + s * sh.uplinks + j, 2, s * sh.uplinks + j,
                                     sh.rank2_radix, kClosDown);
        for (int p = sh.rank1_per_subtree; p < sh.rank2_radix; ++p)
          r.ports[size_t(p)].label = sh.sidelinks ? kClosSide : kClosUp;
      }
    for (int g = 0; g < sh.rank1; ++g) {
      const int s = g / sh.rank1_per_subtree, i = g % sh.rank1_per_subtree;
      for (int j = 0; j < sh.uplinks; ++j)
        wire_clos_link(f, g, kClosSubtree + j, kClosUp, r2_base + s * sh.uplinks + j, i, kClosDown,
                       channel, wps);
    }
  }
  // R2.5: router j of every subtree joined to router j of the others.
  if (sh.rank == 2 && sh.sidelinks)
    for (int j = 0; j < sh.uplinks; ++j) {
      std::vector<int32_t> plane(size_t(sh.subtrees));
      for (int s = 0; s < sh.subtrees; ++s) plane[size_t(s)] = r2_base + s * sh.uplinks + j;
      wire_sidelinks(f, plane, sh.rank1_per_subtree, sh.per_peer, channel, wps);
    }
  if (sh.rank == 3)  // uplink u of (s, j) to port s of rank-3 router (j, u)
    for (int j = 0; j < sh.uplinks; ++j)
      for (int u = 0; u < sh.rank2_up; ++u) {
        const int32_t top = r3_base + j * sh.rank2_up + u;
        add_router(f, top, 3, j * sh.rank2_up + u, kHalfYarc, kClosDown);
        for (int s = 0; s < sh.subtrees; ++s)
          wire_clos_link(f, r2_base + s * sh.uplinks + j, sh.rank1_per_subtree + u, kClosUp, top, s,
                         kClosDown, channel, wps);
      }
  f.endpoints.resize(size_t(sh.endpoints));
  for (int ep = 0; ep < sh.endpoints; ++ep)
    attach_endpoint(f, ep, ep / kClosSubtree, ep % kClosSubtree, unit, wps, kClosDown);
  return f;
}

int64_t clos_ranks_bisection_links(const Spec& spec) {
  const ClosShape sh = clos_shape(spec);
  const int64_t a = sh.subtrees / 2, b = sh.subtrees - a;
  // Sidelinks: every pair of peers across the cut, in each of the U planes
  // at R2.5. R3: half of the rank-3 routers' links lead to the other half
  // of the subtrees.
  if (sh.rank == 1) return a * b * sh.per_peer;
  if (sh.rank == 2) return a * b * sh.per_peer * sh.uplinks;
  return int64_t{sh.rank3} * sh.subtrees / 2;
}

std::vector<BisectionCut> clos_ranks_bisection_cuts(const Spec& spec, const Fabric& fabric) {
  const ClosShape sh = clos_shape(spec);
  // Subtrees split in half (rank-1 and rank-2 routers go with theirs); R3:
  // the rank-3 routers split in half too.
  BisectionCut side(fabric.routers.size());
  const int half = sh.subtrees / 2;
  for (size_t i = 0; i < side.size(); ++i) {
    const FabricRouter& r = fabric.routers[i];
    const int index = r.coord[1];
    if (r.rank == 1) side[i] = index / (sh.rank == 1 ? 1 : sh.rank1_per_subtree) >= half;
    if (r.rank == 2) side[i] = index / sh.uplinks >= half;
    if (r.rank == 3) side[i] = index >= sh.rank3 / 2;
  }
  return {side};
}

}  // namespace fabemu
