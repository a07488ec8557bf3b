// Registers routing "spider_tables" for the fat_hypercube family: Spider's
// two-level tables (dataplane/routing/spider_tables.h) programmed from the
// topology as the paper's software does, cycle-free: a message goes up to
// its position's meta chip, across the metahypercube's dimensions lowest
// first, down into the destination's domain, then across the local
// dimensions highest first (the diagonal, when there is one, last: it
// replaces dimensions 0 and 1 together). Every route takes the channels in
// that one order, so the channel dependencies cannot close a cycle on one
// VC (Dally & Seitz); a meta chip's route depends on the destination's
// domain only, which is its meta address, so the 32-entry meta table holds
// it. Around dead links and chips: control/topology/spider_faults.cpp.
//
// VCs: requests VC 0, responses VC 2 with 4 VCs (1 with 2 or 3), as the
// Origin 2000 runs its request and reply networks on separate VC pairs so
// that a reply never waits behind a request (the protocol's deadlock
// avoidance); the other VC of each pair is the one CC bit 0 lets a message
// adapt to.
#include "control/topology/spider_routing.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "control/topology/routing_registration.h"

namespace fabemu {

int spider_healthy_port(const FatHypercubeShape& s, int32_t chip, int32_t dst) {
  const int dst_chip = dst / s.conc;
  const int dst_domain = dst_chip >> s.n;
  const int dst_position = dst_chip & (s.positions() - 1);
  if (chip >= s.local_chips()) {  // meta chip: domain in its low bits
    const int differ = ((chip - s.local_chips()) & (s.domains() - 1)) ^ dst_domain;
    return differ ? 1 + __builtin_ctz(unsigned(differ)) : 0;
  }
  if ((chip >> s.n) != dst_domain) return s.up_port();
  const int differ = (chip & (s.positions() - 1)) ^ dst_position;
  if (!differ) return dst % s.conc;
  const int high = 31 - __builtin_clz(unsigned(differ));
  if (!s.diagonal || high >= 2) return s.local_port(high);
  return differ == 3 ? s.diagonal_port() : s.local_port(high);
}

uint8_t spider_meta_id(const FatHypercubeShape& s, int32_t chip) {
  if (chip >= s.local_chips()) return kSpiderNoMetaId;
  return static_cast<uint8_t>((chip * s.conc) >> kSpiderLocalBits);
}

SpiderTables program_spider_tables(const Spec& spec, const Fabric& fabric,
                                   const SpiderExitFn& exit_port) {
  SpiderTables t;
  t.ports = static_cast<uint8_t>(kSpiderPorts);
  t.response_vc = static_cast<uint8_t>(fabric.num_vcs >= 4 ? 2 : fabric.num_vcs >= 2 ? 1 : 0);
  t.latency_ps = static_cast<ps_t>(std::llround(spec.router.latency_ns * 1000.0));
  t.cc_adapt_below = static_cast<uint64_t>(std::llround(spec.traffic.cc_adapt * 0x1p32));
  t.vector_below = static_cast<uint64_t>(std::llround(spec.traffic.vector_fraction * 0x1p32));
  const FatHypercubeShape s = fat_hypercube_shape(spec);
  const size_t chips = fabric.routers.size();
  const int32_t endpoints = static_cast<int32_t>(fabric.endpoints.size());
  t.table.resize(chips * kSpiderPorts);
  t.router_port.assign(chips * kSpiderPorts, 0);
  // The table of chip y as its neighbour across port p of chip x holds it.
  for (size_t x = 0; x < chips; ++x) {
    const std::vector<FabricPort>& ports = fabric.routers[x].ports;
    for (size_t p = 0; p < ports.size(); ++p) {
      if (!ports[p].connected()) continue;
      const bool to_chip = ports[p].peer_router >= 0;
      const int32_t y = to_chip ? ports[p].peer_router : int32_t(x);
      const int in_port = to_chip ? ports[p].peer_port : int(p);
      t.router_port[x * kSpiderPorts + p] = to_chip;
      SpiderTable& tab = t.table[x * kSpiderPorts + p];
      tab.meta_id = spider_meta_id(s, y);
      std::fill(std::begin(tab.local), std::end(tab.local), kSpiderNoRoute);
      std::fill(std::begin(tab.meta), std::end(tab.meta), kSpiderNoRoute);
      bool meta_set[kSpiderMetaEntries] = {};
      for (int32_t e = 0; e < endpoints; ++e) {
        const int port = exit_port(y, in_port, e);
        const uint8_t d = port < 0 ? kSpiderNoRoute : static_cast<uint8_t>(port + 1);
        const int meta = e >> kSpiderLocalBits;
        if (meta == tab.meta_id) {
          tab.local[e & 15] = d;
        } else if (!meta_set[meta]) {
          tab.meta[meta] = d, meta_set[meta] = true;
        } else if (tab.meta[meta] != d) {
          throw std::invalid_argument(fmt::format(
              "{}: chip {}'s route to meta address {} differs between its destinations (endpoint "
              "{} leaves by direction {}, an earlier one by {}), which a 32-entry meta table "
              "cannot hold: build the fabric so that a domain is a meta address",
              fabric.name, y, meta, e, d, tab.meta[meta]));
        }
      }
    }
  }
  return t;
}

namespace {

SpiderTables program_healthy_or_faulted(const Spec& spec, const Fabric& fabric) {
  return spider_route_around_faults(spec, fabric);
}

std::string spider_tables_text(const Spec& spec, const Fabric& fabric) {
  const FatHypercubeShape s = fat_hypercube_shape(spec);
  size_t tables = 0;
  for (const FabricRouter& r : fabric.routers)
    for (const FabricPort& p : r.ports) tables += p.connected();
  return fmt::format(
      "{} tables (one per chip and port: the neighbour's, or the chip's own at an endpoint), "
      "each a meta-ID, {} meta and {} local entries: {} entries instead of the {} of a flat "
      "table of the 9-bit destination; {} of {} endpoint addresses used",
      tables, kSpiderMetaEntries, kSpiderLocalEntries, kSpiderMetaEntries + kSpiderLocalEntries,
      kSpiderMaxEndpoints, s.endpoints(), kSpiderMaxEndpoints);
}

RoutingInfo spider_tables_routing() {
  RoutingInfo r = policy_routing<SpiderTableRouting>(
      "fat_hypercube", "spider_tables",
      "Spider's two-level tables (meta-ID, 32-entry meta and 16-entry local table per "
      "neighbour, the lookup one hop ahead): up, meta dimensions lowest first, down, local "
      "dimensions highest first; requests VC 0, responses VC 2 when there are 4",
      4, 1, true, program_healthy_or_faulted, [](const Fabric& f) -> uint64_t {
        return uint64_t(f.routers.size()) * kSpiderPorts * (sizeof(SpiderTable) + 1);
      });
  r.tables_text = spider_tables_text;
  // CC bit 0: every VC choice of every message, for describe's dependency
  // check (the run draws which messages adapt; the check takes them all).
  r.make_choice_tracer =
      choice_tracer<SpiderTableRouting>([](const Spec& spec, const Fabric& fabric) {
        SpiderTables t = program_healthy_or_faulted(spec, fabric);
        if (t.cc_adapt_below) t.cc_adapt_below = uint64_t{1} << 32;
        return t;
      });
  return r;
}

FABEMU_REGISTER_ROUTING(spider_tables_routing());

}  // namespace
}  // namespace fabemu
