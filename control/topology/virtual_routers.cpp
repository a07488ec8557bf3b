#include "control/topology/virtual_routers.h"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>

#include "control/spec/spec_error.h"

namespace fabemu {

namespace {

uint64_t low_ports(size_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// The set bits of mask in ascending order: logical port i -> physical port.
std::vector<int> physical_ports(uint64_t mask) {
  std::vector<int> v;
  for (int p = 0; p < 64; ++p)
    if ((mask >> p) & 1u) v.push_back(p);
  return v;
}

// A logical port mask moved to the physical ports.
uint64_t deposit(uint64_t logical, const std::vector<int>& phys) {
  uint64_t m = 0;
  for (size_t i = 0; i < phys.size() && i < 64; ++i)
    if ((logical >> i) & 1u) m |= uint64_t{1} << phys[i];
  return m;
}

}  // namespace

VirtualRouterLayout virtual_router_layout(const std::string& name) {
  if (name == "halves") return VirtualRouterLayout::halves;
  if (name == "columns") return VirtualRouterLayout::columns;
  if (name == "none") return VirtualRouterLayout::none;
  // The spec loader admits only these; a builder called another way says so.
  throw FieldError("router.virtual_routers",
                   "'" + name + "' is not a virtual-router layout: give none, halves or columns");
}

std::vector<uint64_t> virtual_router_masks(VirtualRouterLayout layout) {
  if (layout == VirtualRouterLayout::halves) return {0x00000000FFFFFFFFull, 0xFFFFFFFF00000000ull};
  if (layout == VirtualRouterLayout::columns) return {0x0F0F0F0F0F0F0F0Full, 0xF0F0F0F0F0F0F0F0ull};
  return {};
}

Fabric merge_virtual_routers(const Fabric& logical, const std::vector<FabricVirtualRouter>& place) {
  if (place.size() != logical.routers.size())
    throw std::invalid_argument(fmt::format("virtual routers: {} placements for {} routers",
                                            place.size(), logical.routers.size()));
  Fabric f = logical;
  f.routers.clear();
  std::vector<std::vector<int>> phys(place.size());
  std::vector<uint64_t> used;
  for (size_t l = 0; l < place.size(); ++l) {
    const FabricRouter& r = logical.routers[l];
    const FabricVirtualRouter& v = place[l];
    phys[l] = physical_ports(v.ports);
    if (phys[l].size() < r.ports.size())
      throw std::invalid_argument(
          fmt::format("virtual router {} has {} ports but its mask {:#x} gives it {}", l,
                      r.ports.size(), v.ports, phys[l].size()));
    if (v.router == static_cast<int32_t>(f.routers.size())) {
      FabricRouter chip;
      chip.id = v.router;
      chip.coord = r.coord;
      chip.rank = r.rank;
      f.routers.push_back(chip);
      used.push_back(0);
    } else if (v.router < 0 || v.router > static_cast<int32_t>(f.routers.size())) {
      throw std::invalid_argument(fmt::format(
          "virtual router {} is on chip {}, but chips must be numbered in order of their first "
          "virtual router (next: {})",
          l, v.router, f.routers.size()));
    }
    if (used[size_t(v.router)] & v.ports)
      throw std::invalid_argument(
          fmt::format("virtual router {} shares ports {:#x} of chip {} with another", l,
                      used[size_t(v.router)] & v.ports, v.router));
    used[size_t(v.router)] |= v.ports;
  }
  for (size_t l = 0; l < place.size(); ++l) {
    FabricRouter& chip = f.routers[size_t(place[l].router)];
    const FabricRouter& r = logical.routers[l];
    chip.dead = chip.dead || r.dead;
    const size_t need = size_t(std::bit_width(used[size_t(place[l].router)]));
    if (chip.ports.size() < need) chip.ports.resize(need);
    for (size_t i = 0; i < r.ports.size(); ++i) {
      FabricPort fp = r.ports[i];
      if (fp.peer_router >= 0) {
        const size_t peer = size_t(fp.peer_router);
        fp.peer_port = static_cast<int16_t>(phys[peer][size_t(fp.peer_port)]);
        fp.peer_router = place[peer].router;
      }
      chip.ports[size_t(phys[l][i])] = fp;
    }
  }
  for (FabricEndpoint& e : f.endpoints) {
    const size_t l = size_t(e.router);
    e.port = static_cast<int16_t>(phys[l][size_t(e.port)]);
    e.router = place[l].router;
  }
  f.virtual_routers = place;
  for (size_t l = 0; l < place.size(); ++l) {
    f.virtual_routers[l].coord = logical.routers[l].coord;
    f.virtual_routers[l].rank = logical.routers[l].rank;
  }
  return f;
}

Fabric split_virtual_routers(const Fabric& physical) {
  if (physical.virtual_routers.empty()) return physical;
  const std::vector<FabricVirtualRouter>& place = physical.virtual_routers;
  Fabric f = physical;
  f.virtual_routers.clear();
  f.routers.assign(place.size(), FabricRouter{});
  // (chip, physical port) -> (logical router, logical port)
  std::vector<std::vector<std::pair<int32_t, int16_t>>> owner(physical.routers.size());
  for (size_t c = 0; c < owner.size(); ++c)
    owner[c].assign(physical.routers[c].ports.size(), {-1, -1});
  std::vector<std::vector<int>> phys(place.size());
  for (size_t l = 0; l < place.size(); ++l) {
    phys[l] = physical_ports(place[l].ports);
    auto& own = owner[size_t(place[l].router)];
    for (size_t i = 0; i < phys[l].size(); ++i)
      if (size_t(phys[l][i]) < own.size())
        own[size_t(phys[l][i])] = {static_cast<int32_t>(l), static_cast<int16_t>(i)};
  }
  for (size_t l = 0; l < place.size(); ++l) {
    const FabricRouter& chip = physical.routers[size_t(place[l].router)];
    FabricRouter& r = f.routers[l];
    r.id = static_cast<int32_t>(l);
    r.coord = place[l].coord;
    r.rank = place[l].rank;
    r.dead = chip.dead;
    // A virtual router has the ports of its mask that the chip has.
    size_t n = 0;
    for (size_t i = 0; i < phys[l].size(); ++i)
      if (size_t(phys[l][i]) < chip.ports.size()) n = i + 1;
    r.ports.resize(n);
    for (size_t i = 0; i < n; ++i) {
      FabricPort fp = chip.ports[size_t(phys[l][i])];
      if (fp.peer_router >= 0) {
        const auto [pl, pp] = owner[size_t(fp.peer_router)][size_t(fp.peer_port)];
        fp.peer_router = pl;
        fp.peer_port = pp;
      }
      r.ports[i] = fp;
    }
  }
  for (FabricEndpoint& e : f.endpoints) {
    const auto [l, i] = owner[size_t(e.router)][size_t(e.port)];
    e.router = l;
    e.port = i;
  }
  return f;
}

std::vector<FabricVirtualRouter> pair_radix32_routers(const Fabric& logical,
                                                      VirtualRouterLayout layout) {
  const std::vector<uint64_t> masks = virtual_router_masks(layout);
  std::vector<FabricVirtualRouter> place(logical.routers.size());
  int32_t chip = 0;
  const auto radix32 = [&](size_t l) {
    return l < logical.routers.size() && logical.routers[l].ports.size() == 32;
  };
  for (size_t l = 0; l < logical.routers.size(); ++l) {
    const FabricRouter& r = logical.routers[l];
    if (!masks.empty() && radix32(l) && radix32(l + 1) && logical.routers[l + 1].rank == r.rank) {
      place[l] = {chip, masks[0], r.coord, r.rank};
      place[l + 1] = {chip++, masks[1], logical.routers[l + 1].coord, r.rank};
      ++l;
      continue;
    }
    place[l] = {chip++, low_ports(r.ports.size()), r.coord, r.rank};
  }
  return place;
}

std::vector<YarcRouterTable> place_virtual_tables(const Fabric& physical,
                                                  const std::vector<YarcRouterTable>& logical) {
  const std::vector<FabricVirtualRouter>& place = physical.virtual_routers;
  std::vector<YarcRouterTable> out(physical.routers.size());
  std::vector<int64_t> last(physical.routers.size(), -1);
  std::vector<uint64_t> others(physical.routers.size(), 0);  // masks before the last
  for (size_t l = 0; l < place.size(); ++l) {
    const std::vector<int> phys = physical_ports(place[l].ports);
    YarcRouterTable t = logical[l];
    for (uint8_t& p : t.port_map)
      if (p < phys.size()) p = static_cast<uint8_t>(phys[p]);
    for (YarcUpEntry& u : t.up)
      if (u.valid) u.set(u.location, u.mask, deposit(u.ports, phys));
    t.uplinks = deposit(t.uplinks, phys);
    t.in_ports = place[l].ports;
    const size_t c = size_t(place[l].router);
    if (last[c] < 0) {
      out[c] = t;
      last[c] = static_cast<int64_t>(c);
    } else {
      others[c] |= out[size_t(last[c])].in_ports;
      out[size_t(last[c])].next_table = static_cast<uint32_t>(out.size());
      last[c] = static_cast<int64_t>(out.size());
      out.push_back(t);
    }
  }
  // The last virtual router of a chip takes every port no other claims, so
  // the chain always ends (and a chip of one router matches at once).
  for (size_t c = 0; c < last.size(); ++c) {
    YarcRouterTable& t = out[size_t(last[c])];
    t.in_ports = ~others[c];
    t.next_table = static_cast<uint32_t>(c);
  }
  return out;
}

}  // namespace fabemu
