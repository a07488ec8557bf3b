#include "control/topology/clos.h"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/spec/spec_error.h"
#include "control/topology/registry.h"
#include "control/topology/routing_registration.h"
#include "control/topology/virtual_routers.h"

namespace fabemu {

namespace {

constexpr int kRank1Radix = 64;
constexpr int kSubtreeBits = 5;  // log2(kClosSubtree)

// The loader checks these too; a builder called with another spec (tests,
// tools) still names the field it cannot build.
void check_clos_spec(const Spec& spec) {
  const char* field = nullptr;
  if (const std::string why = clos_size_problem(spec, &field); !why.empty())
    throw FieldError(field, why);
  if (spec.router.radix != kRank1Radix)
    throw FieldError("router.radix",
                     fmt::format("got {}, but the clos family is built of radix-64 YARC routers "
                                 "(a rank-2 router is one split into two radix-32 halves): "
                                 "remove router.radix or set it to 64",
                                 spec.router.radix));
  if (spec.vcs.count < 1 || spec.vcs.count > kMaxVcs)
    throw FieldError("vcs.count",
                     fmt::format("got {}, but it must be 1 to {}", spec.vcs.count, kMaxVcs));
}

}  // namespace

Fabric build_clos(const Spec& spec) {
  check_clos_spec(spec);
  Fabric f = build_clos_ranks(spec);
  // router.virtual_routers: each pair of radix-32 routers becomes one YARC.
  const VirtualRouterLayout layout = virtual_router_layout(spec.router.virtual_routers);
  if (layout == VirtualRouterLayout::none) return f;
  const std::vector<FabricVirtualRouter> place = pair_radix32_routers(f, layout);
  if (place.size() == static_cast<size_t>(place.empty() ? 0 : place.back().router + 1))
    throw FieldError("router.virtual_routers",
                     fmt::format("is {}, but this rank-{} fabric has no radix-32 routers to pair "
                                 "on a chip (ranks 2 and up have): remove it or set it to none",
                                 spec.router.virtual_routers, clos_rank_name(spec)));
  return merge_virtual_routers(f, place);
}

int64_t clos_bisection_links(const Spec& spec, const Fabric& fabric) {
  if (spec.topology.rank == 3 || spec.topology.sidelinks) return clos_ranks_bisection_links(spec);
  if (spec.topology.rank == 1) return spec.topology.endpoints / 2;
  int64_t r1 = 0;
  for (const FabricRouter& r : fabric.routers) r1 += r.rank == 1;
  return r1 * spec.topology.uplinks / 2;
}

std::vector<BisectionCut> clos_bisection_cuts(const Spec& spec, const Fabric& fabric) {
  if (!fabric.virtual_routers.empty()) {
    // The logical cut, each chip on the side of its first virtual router.
    std::vector<BisectionCut> cuts = clos_bisection_cuts(spec, split_virtual_routers(fabric));
    for (BisectionCut& cut : cuts) {
      BisectionCut chips(fabric.routers.size(), 2);
      for (size_t l = 0; l < cut.size(); ++l) {
        auto& side = chips[size_t(fabric.virtual_routers[l].router)];
        if (side == 2) side = cut[l];
      }
      cut = chips;
    }
    return cuts;
  }
  if (spec.topology.rank == 3 || spec.topology.sidelinks)
    return clos_ranks_bisection_cuts(spec, fabric);
  if (spec.topology.rank == 1) return {};
  // Half of each rank: every rank-1 router is linked to every rank-2 router.
  int count[3] = {0, 0, 0};
  for (const FabricRouter& r : fabric.routers) count[r.rank]++;
  BisectionCut side(fabric.routers.size());
  for (size_t i = 0; i < side.size(); ++i) {
    const FabricRouter& r = fabric.routers[i];
    side[i] = r.coord[1] >= count[r.rank] / 2;
  }
  return {side};
}

namespace {

// The first destination under each router, from the wiring: a rank-1
// router i roots 32i.. (its subtree's slots, used or not); a higher one the
// lowest subtree below it. So root detect and down-port maps hold for any
// number of ranks (the fat trees of control/analysis/fat_tree_model.h too).
std::vector<uint32_t> subtree_first_destinations(const Fabric& fabric) {
  std::vector<uint32_t> first(fabric.routers.size(), ~0u);
  int top = 0;
  for (const FabricRouter& r : fabric.routers) top = std::max(top, r.rank);
  for (int rank = 1; rank <= top; ++rank)
    for (size_t ri = 0; ri < fabric.routers.size(); ++ri) {
      const FabricRouter& r = fabric.routers[ri];
      if (r.rank != rank) continue;
      if (rank == 1) {
        first[ri] = static_cast<uint32_t>(r.coord[1]) << kSubtreeBits;
        continue;
      }
      for (const FabricPort& fp : r.ports)
        if (fp.peer_router >= 0 && fp.label == kClosDown)
          first[ri] = std::min(first[ri], first[static_cast<size_t>(fp.peer_router)]);
    }
  return first;
}

// Destination bits under a router of each rank: 5 at rank 1, then the child
// rank's plus those of the down ports (a radix-32 rank-2 router with 16 down
// ports roots 512 destinations, one with 32 roots 1024), from the wiring.
std::vector<int> span_bits_by_rank(const Fabric& fabric) {
  std::vector<int> bits(2, kSubtreeBits);
  for (const FabricRouter& r : fabric.routers) {
    if (r.rank < 2) continue;
    int down = 0;
    for (const FabricPort& fp : r.ports) down += fp.label == kClosDown;
    int b = 0;
    while ((1 << b) < down) ++b;
    if (bits.size() <= size_t(r.rank)) bits.resize(size_t(r.rank) + 1, 0);
    bits[size_t(r.rank)] = std::max(bits[size_t(r.rank)], b);
  }
  for (size_t rank = 2; rank < bits.size(); ++rank) bits[rank] += bits[rank - 1];
  return bits;
}

}  // namespace

YarcTables program_yarc_tables(const Spec& spec, const Fabric& fabric) {
  if (!fabric.virtual_routers.empty()) {
    // Each virtual router's tables as if it were its own router, then put
    // on its chip's ports (section 7.4).
    YarcTables t = program_yarc_tables(spec, split_virtual_routers(fabric));
    t.routers = place_virtual_tables(fabric, t.routers);
    return t;
  }
  YarcTables t;
  t.latency_ps = static_cast<ps_t>(std::llround(spec.router.latency_ns * 1000.0));
  t.adaptive_responses = true;
  t.routers.resize(fabric.routers.size());
  const std::vector<uint32_t> first = subtree_first_destinations(fabric);
  const std::vector<int> span = span_bits_by_rank(fabric);
  // Each router's table is its own: 3072 routers at 32K, in parallel.
  tbb::parallel_for(size_t{0}, fabric.routers.size(), [&](size_t ri) {
    const FabricRouter& r = fabric.routers[ri];
    YarcRouterTable& rt = t.routers[ri];
    const int rank = r.rank;
    // Root detect: rank-1 router i roots destinations 32i..32i+31 (location
    // 32i, mask 0x1F); a rank-2 router its 1024 (or, beside sidelinks or
    // under rank 3, 512) destinations.
    const uint32_t mask = (1u << span[size_t(rank)]) - 1;
    rt.root_location = static_cast<uint16_t>(first[ri] & ~mask & kYarcDestMask);
    rt.root_mask = static_cast<uint16_t>(mask & kYarcDestMask);
    // Hash bits: rank 1 uses 0..7, rank 2 5..12, rank 3 10..14 (section 7.8.2).
    rt.hash_shift = static_cast<uint8_t>(kSubtreeBits * (rank - 1));
    rt.down_shift = static_cast<uint8_t>(rank > 1 ? span[size_t(rank - 1)] : 0);
    rt.down_mask = (1u << kSubtreeBits) - 1;
    // Logical -> physical port map from the wiring: logical j is the
    // endpoint, or the subtree below, whose destinations have j in the
    // bits this rank shifts out.
    for (int l = 0; l < kYarcPorts; ++l) rt.port_map[l] = static_cast<uint8_t>(l);
    uint64_t up = 0, side = 0;
    std::vector<std::pair<uint16_t, uint64_t>> peers;  // (peer root location, its sidelinks)
    for (size_t p = 0; p < r.ports.size(); ++p) {
      const FabricPort& fp = r.ports[p];
      if (fp.endpoint >= 0) {
        rt.port_map[fp.endpoint & rt.down_mask] = static_cast<uint8_t>(p);
      } else if (fp.peer_router >= 0) {
        const FabricRouter& peer = fabric.routers[fp.peer_router];
        if (fp.label == kClosUp) {
          up |= uint64_t{1} << p;
        } else if (fp.label == kClosSide) {
          side |= uint64_t{1} << p;
          const auto loc = static_cast<uint16_t>(first[fp.peer_router] & ~mask & kYarcDestMask);
          auto it = std::find_if(peers.begin(), peers.end(),
                                 [&](const auto& e) { return e.first == loc; });
          if (it == peers.end()) it = peers.insert(peers.end(), {loc, 0});
          it->second |= uint64_t{1} << p;
        } else if (peer.rank == rank - 1) {
          rt.port_map[(first[fp.peer_router] >> rt.down_shift) & rt.down_mask] =
              static_cast<uint8_t>(p);
        }
      }
    }
    // Healthy network: a single entry matching every destination, all uplinks.
    int entry = 0;
    if (up) rt.up[entry++].set(0, kYarcDestMask, up);
    // Sidelinks: each peer subtree its own entry (section 5.1); a dead
    // sidelink just leaves its peer's mask, no fault entry needed
    // (add_yarc_fault_entries drops it, with the dead uplinks).
    for (const auto& [loc, ports] : peers) {
      if (entry == kYarcUpEntries)
        throw std::invalid_argument(fmt::format(
            "router {} has sidelinks to {} peer subtrees, more than the {} up-routing entries",
            r.id, peers.size(), kYarcUpEntries));
      rt.up[entry++].set(loc, static_cast<uint16_t>(mask), ports);
    }
    rt.uplinks = up | side;
  });
  add_yarc_fault_entries(t, fabric);
  return t;
}

uint64_t yarc_table_bytes(const Fabric& fabric) {
  return std::max(fabric.routers.size(), fabric.virtual_routers.size()) * sizeof(YarcRouterTable);
}

namespace {

const char* kClosSummary =
    "BlackWidow folded Clos of radix-64 YARC routers: rank 1 (<= 32 endpoints), 1.5 (<= 288, "
    "rank-1 routers joined by sidelinks), 2 (<= 1024; 32 endpoints + U uplinks per rank-1 "
    "router, U radix-32 rank-2 routers, U = topology.uplinks, 32 by default), 2.5 (<= 4608, R2 "
    "subtrees of 512 joined by sidelinks) or 3 (<= 32768, R2 subtrees joined by rank-3 routers)";

SpecProblem clos_spec_problem(const Spec& s) {
  const char* field = nullptr;
  if (std::string why = clos_size_problem(s, &field); !why.empty())
    return {{field, "topology.rank"}, std::move(why)};
  return {};
}

FABEMU_REGISTER_TOPOLOGY(TopologyInfo{
    "clos", kClosSummary, build_clos, clos_bisection_links, clos_bisection_cuts,
    [](const Spec& s) -> int64_t { return s.topology.endpoints; }, clos_spec_problem,
    [](const Spec&) { return std::vector<std::pair<std::string, std::vector<int>>>{}; },
    nullptr});

RoutingInfo updown_routing() {
  RoutingInfo r = policy_routing<YarcUpDown>(
      "clos", "updown",
      "YARC up/down routing: root-detect register, 8-entry up table (highest match wins), "
      "hashed deterministic requests, adaptive responses, shift/mask down routes",
      2, 1, true, program_yarc_tables, yarc_table_bytes);
  r.prove_deadlock_free = prove_clos_updown;
  return r;
}

FABEMU_REGISTER_ROUTING(updown_routing());

}  // namespace

}  // namespace fabemu
