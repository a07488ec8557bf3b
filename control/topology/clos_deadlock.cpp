// A proof that the YARC up/down tables of a clos fabric cannot deadlock,
// from the tables alone (RoutingInfo::prove_deadlock_free): tracing every
// route of a 32K-endpoint R3 takes most of an hour, this a fraction of a
// second.
//
// Order the channels: uplinks by the rank they leave (lowest first), then
// sidelinks, then downlinks by the rank they leave (highest first). A route
// that climbs this order at every hop has an acyclic channel dependency
// graph (Dally & Seitz). It does when (a) every link goes the way its label
// says (up to a higher rank, side to the same rank, down to a lower one),
// and (b) every destination a router sends down, or over a sidelink,
// is inside the root-detect subtree of the router it reaches, so that router
// sends it down too (a packet that came from above or the side never turns
// up or over again). (b) is checked on location/mask patterns: the
// destinations of a down port are the router's root pattern with the
// port's logical number in the down-route bits; those of a sidelink every
// up-routing entry that lists it (a superset: higher entries may win some).
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "control/topology/clos.h"
#include "control/topology/virtual_routers.h"

namespace fabemu {

namespace {

// The destinations whose bits under `fixed` equal `value`.
struct DestPattern {
  uint32_t fixed = 0, value = 0;
};

DestPattern root_pattern(const YarcRouterTable& rt) {
  const uint32_t fixed = ~uint32_t{rt.root_mask} & kYarcDestMask;
  return {fixed, rt.root_location & fixed};
}

bool intersects(const DestPattern& a, const DestPattern& b) {
  return ((a.value ^ b.value) & a.fixed & b.fixed) == 0;
}

bool contains(const DestPattern& outer, const DestPattern& inner) {
  return (outer.fixed & ~inner.fixed) == 0 && ((outer.value ^ inner.value) & outer.fixed) == 0;
}

const char* label_name(uint8_t label) {
  return label == kClosUp ? "up" : label == kClosSide ? "side" : "down";
}

}  // namespace

std::string prove_clos_updown(const Spec& spec, const Fabric& fabric) {
  // A chip's virtual routers route apart (their tables see only their own
  // ports), so the proof is the logical fabric's.
  if (!fabric.virtual_routers.empty())
    return prove_clos_updown(spec, split_virtual_routers(fabric));
  const YarcTables t = program_yarc_tables(spec, fabric);
  uint64_t links = 0;
  for (const FabricRouter& r : fabric.routers) {
    const YarcRouterTable& rt = t.routers[size_t(r.id)];
    const DestPattern root = root_pattern(rt);
    for (size_t p = 0; p < r.ports.size(); ++p) {
      const FabricPort& fp = r.ports[p];
      if (fp.peer_router < 0 || fp.dead) continue;
      ++links;
      const FabricRouter& peer = fabric.routers[size_t(fp.peer_router)];
      const DestPattern peer_root = root_pattern(t.routers[size_t(peer.id)]);
      const int want = fp.label == kClosUp ? 1 : fp.label == kClosSide ? 0 : -1;
      const int got = peer.rank > r.rank ? 1 : peer.rank == r.rank ? 0 : -1;
      if (want != got)
        return fmt::format("not proven: router {} port {} is a {} link to router {} of rank {}",
                           r.id, p, label_name(fp.label), peer.id, peer.rank);
      // Destinations of this router's own subtree routed out of port p.
      for (int l = 0; l <= rt.down_mask; ++l) {
        if (rt.port_map[size_t(l)] != p) continue;
        const uint32_t bits = uint32_t{rt.down_mask} << rt.down_shift;
        const DestPattern sent{root.fixed | bits, root.value | (uint32_t(l) << rt.down_shift)};
        if (!intersects(root, {bits, uint32_t(l) << rt.down_shift})) continue;
        if (fp.label != kClosDown || !contains(peer_root, sent))
          return fmt::format(
              "not proven: router {} sends destinations {:#x}/{:#x} of its subtree out of {} "
              "port {} to router {}, whose subtree is {:#x}/{:#x}",
              r.id, sent.value, sent.fixed, label_name(fp.label), p, peer.id, peer_root.value,
              peer_root.fixed);
      }
      if (fp.label != kClosSide) continue;
      for (const YarcUpEntry& u : rt.up) {
        if (!u.valid || !((u.ports >> p) & 1u)) continue;
        const uint32_t fixed = ~uint32_t{u.mask} & kYarcDestMask;
        const DestPattern sent{fixed, u.location & fixed};
        if (!contains(peer_root, sent))
          return fmt::format(
              "not proven: router {} sends destinations {:#x}/{:#x} over sidelink port {} to "
              "router {}, whose subtree is {:#x}/{:#x}",
              r.id, sent.value, sent.fixed, p, peer.id, peer_root.value, peer_root.fixed);
      }
    }
  }
  return fmt::format(
      "every route climbs up, side, down in rank order (checked on the tables of {} routers and "
      "{} links)",
      fabric.routers.size(), links);
}

}  // namespace fabemu
