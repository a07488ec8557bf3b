#include "control/analysis/fat_tree_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "control/topology/clos.h"
#include "control/topology/fabric_parts.h"
#include "control/topology/link_timing.h"

namespace fabemu {

namespace {

constexpr int kWholeYarc = 64;
constexpr int kHalfYarc = 32;  // a radix-32 virtual router (section 7.4)

int subtrees(int endpoints) { return (endpoints + kFatTreeSubtree - 1) / kFatTreeSubtree; }

// Both directions of the link between port pa of router a (its uplink) and
// port pb of router b (b's downlink towards a).
void wire_up(Fabric& f, int32_t a, int pa, int32_t b, int pb, ps_t unit, ps_t wire) {
  wire_clos_link(f, a, pa, kClosUp, b, pb, kClosDown, unit, wire);
}

FabricRouter& add_router(Fabric& f, int32_t id, int rank, int index, int radix) {
  FabricRouter& r = f.routers[id];
  r.id = id;
  r.rank = rank;
  r.coord = {rank, index, 0};
  r.ports.resize(radix);
  for (FabricPort& p : r.ports) p.label = kClosDown;
  return r;
}

Fabric build_rank3(const Spec& spec, int e) {
  const ps_t unit = unit_ps(spec);
  const ps_t channel = router_unit_ps(spec);
  const ps_t wire = wire_ps(spec);
  const int s_count = subtrees(e);
  const int r1 = (e + kClosSubtree - 1) / kClosSubtree;
  const int r2_base = r1, r3_base = r1 + kClosSubtree * s_count;
  Fabric f = fabric_frame(spec, fmt::format("yarc R3 {} (analysis model)", e), "clos");
  f.routers.resize(static_cast<size_t>(r3_base) + kClosSubtree * kClosSubtree);
  for (int g = 0; g < r1; ++g) {
    FabricRouter& r = add_router(f, g, 1, g, kWholeYarc);
    for (int p = kClosSubtree; p < kWholeYarc; ++p) r.ports[p].label = kClosUp;
  }
  for (int s = 0; s < s_count; ++s)
    for (int j = 0; j < kClosSubtree; ++j) {
      FabricRouter& r =
          add_router(f, r2_base + s * kClosSubtree + j, 2, s * kClosSubtree + j, kWholeYarc);
      for (int p = kClosSubtree; p < kWholeYarc; ++p) r.ports[p].label = kClosUp;
    }
  for (int j = 0; j < kClosSubtree; ++j)
    for (int u = 0; u < kClosSubtree; ++u)
      add_router(f, r3_base + j * kClosSubtree + u, 3, j * kClosSubtree + u, kHalfYarc);
  // Rank 1 -> rank 2 inside each subtree, rank 2 -> rank 3 across them.
  for (int g = 0; g < r1; ++g) {
    const int s = g / kClosSubtree, i = g % kClosSubtree;
    for (int j = 0; j < kClosSubtree; ++j)
      wire_up(f, g, kClosSubtree + j, r2_base + s * kClosSubtree + j, i, channel, wire);
  }
  for (int s = 0; s < s_count; ++s)
    for (int j = 0; j < kClosSubtree; ++j)
      for (int u = 0; u < kClosSubtree; ++u)
        wire_up(f, r2_base + s * kClosSubtree + j, kClosSubtree + u, r3_base + j * kClosSubtree + u,
                s, channel, wire);
  f.endpoints.resize(e);
  for (int ep = 0; ep < e; ++ep)
    attach_endpoint(f, ep, ep / kClosSubtree, ep % kClosSubtree, unit, wire, kClosDown);
  return f;
}

}  // namespace

Spec fat_tree_spec(Spec clos, int endpoints) {
  clos.topology.family = "clos";
  clos.topology.rank = endpoints <= kClosSubtree ? 1 : 2;
  clos.topology.endpoints = std::min(endpoints, kFatTreeSubtree);
  clos.topology.uplinks = kClosSubtree;
  return clos;
}

Fabric build_fat_tree(const Spec& spec, int endpoints) {
  if (endpoints < 2 || endpoints > kFatTreeMaxEndpoints)
    throw std::invalid_argument(fmt::format("a radix-64 fat tree has 2 to {} endpoints, got {}",
                                            kFatTreeMaxEndpoints, endpoints));
  if (!fat_tree_is_model(endpoints)) return build_clos(fat_tree_spec(spec, endpoints));
  return build_rank3(spec, endpoints);
}

std::string fat_tree_description(int endpoints) {
  if (endpoints <= kClosSubtree) return "rank 1: one YARC (clos builder)";
  const int r1 = (endpoints + kClosSubtree - 1) / kClosSubtree;
  if (!fat_tree_is_model(endpoints))
    return fmt::format("rank 2: {} rank-1 routers, 32 radix-32 rank-2 routers (clos builder)", r1);
  const int s = subtrees(endpoints);
  return fmt::format(
      "rank 3: {} subtree{} of up to 1024 (32 rank-1 and 32 rank-2 routers each) joined by 1024 "
      "radix-32 rank-3 routers (analysis model: a full fat tree of 1024-endpoint subtrees, not "
      "the clos builder's BlackWidow R2.5/R3)",
      s, s == 1 ? "" : "s");
}

}  // namespace fabemu
