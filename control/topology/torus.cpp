#include "control/topology/torus.h"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "control/analysis/analysis.h"
#include "control/analysis/t3e_vc_balance.h"
#include "control/spec/spec_error.h"
#include "control/topology/fabric_parts.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"
#include "control/topology/routing_registration.h"
#include "dataplane/routing/torus_dimension_order.h"

namespace fabemu {

namespace {

// The loader checks these too; a builder called with another spec (tests,
// tools) still names the field it cannot build.
void check_torus_spec(const Spec& spec) {
  for (int d = 0; d < 3; ++d)
    if (spec.topology.dims[d] < 1 || spec.topology.dims[d] > 255)
      throw FieldError(
          fmt::format("topology.dims[{}]", d),
          fmt::format("got {}, but each torus dimension must be 1 to 255", spec.topology.dims[d]));
  const int e = spec.topology.endpoints_per_router;
  if (e < 1 || kT3eFirstPePort + e > kMaxPorts)
    throw FieldError("topology.endpoints_per_router",
                     fmt::format("got {}, but it must be 1 to {}", e, kMaxPorts - kT3eFirstPePort));
  if (spec.vcs.count < 1 || spec.vcs.count > kMaxVcs)
    throw FieldError("vcs.count",
                     fmt::format("got {}, but it must be 1 to {}", spec.vcs.count, kMaxVcs));
}

ps_t minus_wire(ps_t v, ps_t wire) { return v > wire ? v - wire : 0; }

// True when a packet entering direction d at ordinate s towards o passes
// through its ring's dateline node (0 going +, k-1 going -: where the wrap
// link arrives), so that it must enter on VC0.
bool passes_dateline_node(int d, int s, int o, int k) {
  return t3e_plus(d) ? 0 < o && o < s : s < o && o < k - 1;
}

// The direction (0..5) the source table sends a packet from ordinate s to o
// in dimension dim of a ring of k, or -1 when s == o.
int ring_direction(int dim, int s, int o, int k, T3eTies ties) {
  const int delta = (o - s + k) % k;
  if (delta == 0) return -1;
  const bool plus = ties == T3eTies::plus ? delta <= k - delta : t3e_ring_goes_plus(s, o, k);
  return plus ? dim : dim + 3;
}

bool has_faults(const Fabric& f) {
  for (const FabricRouter& r : f.routers) {
    if (r.dead) return true;
    for (const FabricPort& p : r.ports)
      if (p.dead) return true;
  }
  return false;
}

}  // namespace

Fabric build_torus(const Spec& spec) {
  check_torus_spec(spec);
  const std::array<int, 3> k = spec.topology.dims;
  const int epr = spec.topology.endpoints_per_router;
  const ps_t unit = unit_ps(spec);
  const ps_t channel = router_unit_ps(spec);
  const ps_t wire = wire_ps(spec);
  const ps_t injection_wire = ns_to_ps(spec.link.injection_wire_ns);
  const ps_t ejection_wire = ns_to_ps(spec.link.ejection_wire_ns);

  Fabric f;
  const bool wrap = spec.topology.wrap;
  f.name = fmt::format("{} {}x{}x{}", wrap ? "t3e" : "mesh", k[0], k[1], k[2]);
  f.topology = "torus";
  f.routing = spec.routing;
  f.num_vcs = spec.vcs.count;
  for (int v = 0; v < kMaxVcs; ++v)
    f.vc_buffer_units[v] =
        v < f.num_vcs ? static_cast<uint32_t>(v < kT3eAdaptiveVc ? spec.vcs.buffer_units
                                                                 : spec.vcs.adaptive_buffer_units)
                      : 0;
  f.lanes = static_cast<uint32_t>(spec.link.lanes);
  f.credit_delay_ps = static_cast<ps_t>(std::llround(spec.link.credit_delay_ns * 1000.0));
  f.lanes_lower_half = spec.link.width_negotiation == "lower_half";
  f.unit_bits = static_cast<uint32_t>(spec.link.phit_bits * spec.link.phits_per_unit);
  f.unit_name = "flit";

  const int n = k[0] * k[1] * k[2];
  f.routers.resize(n);
  f.endpoints.resize(static_cast<size_t>(n) * epr);
  for (int x = 0; x < k[0]; ++x)
    for (int y = 0; y < k[1]; ++y)
      for (int z = 0; z < k[2]; ++z) {
        const int32_t id = torus_router_id(k, x, y, z);
        FabricRouter& r = f.routers[id];
        r.id = id;
        r.coord = {x, y, z};
        r.rank = 0;
        r.ports.resize(kT3eFirstPePort + epr);
        const std::array<int, 3> c{x, y, z};
        for (int d = 0; d < kT3eDirections; ++d) {
          const int dim = t3e_dim(d);
          FabricPort& p = r.ports[d];
          p.label = static_cast<uint8_t>(d);
          if (k[dim] == 1) continue;
          // A mesh has no link out of a line's ends.
          if (!wrap && (t3e_plus(d) ? c[dim] == k[dim] - 1 : c[dim] == 0)) continue;
          std::array<int, 3> nc = c;
          nc[dim] = (c[dim] + (t3e_plus(d) ? 1 : k[dim] - 1)) % k[dim];
          p.peer_router = torus_router_id(k, nc[0], nc[1], nc[2]);
          p.peer_port = static_cast<int16_t>(t3e_opposite(d));
          p.unit_ps = channel;
          p.wire_ps = wire;
        }
        for (int j = 0; j < epr; ++j) {
          attach_endpoint(f, id * epr + j, id, kT3eFirstPePort + j, unit, ejection_wire,
                          kTorusPeLabel);
          f.endpoints[id * epr + j].wire_ps = injection_wire;  // the way in (the port's: out)
        }
      }
  return f;
}

namespace {

// Links one way across a cut through every ring (line) of a dimension of k:
// cutting a ring crosses two links of it, a mesh's line one.
int64_t cut_links(const Spec& spec, int64_t routers, int k) {
  return (spec.topology.wrap ? 2 : 1) * routers / k;
}

}  // namespace

int64_t torus_bisection_links(const Spec& spec, const Fabric& fabric) {
  const std::array<int, 3> k = spec.topology.dims;
  const int64_t n = static_cast<int64_t>(k[0]) * k[1] * k[2];
  int64_t best = -1;
  for (int d = 0; d < 3; ++d) {
    if (k[d] < 2) continue;
    const int64_t links = cut_links(spec, n, k[d]);
    if (best < 0 || links < best) best = links;
  }
  return best < 0 ? 0 : best;
}

std::vector<BisectionCut> torus_bisection_cuts(const Spec& spec, const Fabric& fabric) {
  const std::array<int, 3> k = spec.topology.dims;
  const int64_t n = static_cast<int64_t>(k[0]) * k[1] * k[2];
  const int64_t best = torus_bisection_links(spec, fabric);
  std::vector<BisectionCut> cuts;
  for (int d = 0; d < 3; ++d) {
    if (k[d] < 2 || cut_links(spec, n, k[d]) != best) continue;
    // Each ring cut in two places, half a ring apart: an even ring has k/2
    // such cuts (offset o and o + k/2 are the same), an odd one k. A mesh's
    // line is cut once, in its middle.
    const int offsets = !spec.topology.wrap ? 1 : k[d] % 2 ? k[d] : k[d] / 2;
    for (int o = 0; o < offsets; ++o) {
      BisectionCut side(fabric.routers.size());
      for (size_t r = 0; r < side.size(); ++r)
        side[r] = (fabric.routers[r].coord[d] - o + k[d]) % k[d] >= k[d] / 2;
      cuts.push_back(std::move(side));
    }
  }
  return cuts;
}

const std::array<std::vector<uint8_t>, 2>& t3e_optimised_vc_bytes(int k) {
  static std::mutex mu;
  static std::map<int, std::array<std::vector<uint8_t>, 2>> cache;
  const std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(k);
  if (it != cache.end()) return it->second;
  const T3eRingAssignment a = t3e_vc_assignment(k, T3eVcScheme::optimised);
  std::array<std::vector<uint8_t>, 2> bytes{std::vector<uint8_t>(k, 0), std::vector<uint8_t>(k, 0)};
  for (const T3eRingRoute& r : a.routes) {
    if (!a.vc[&r - a.routes.data()]) continue;
    const int d = r.dst(k);
    bytes[0][r.src] |= static_cast<uint8_t>(1u << (d & 7));
    // The - ring is the + ring seen from the other side: ordinate x there is
    // k-1-x here (its dateline node k-1 is node 0 here, and its ties, from
    // odd sources, are the + ring's from even ones).
    bytes[1][k - 1 - r.src] |= static_cast<uint8_t>(1u << ((k - 1 - d) & 7));
  }
  return cache.emplace(k, std::move(bytes)).first->second;
}

std::vector<T3eDest> torus_dests(const Fabric& fabric,
                                 const std::vector<std::array<uint8_t, 3>>& coord) {
  std::vector<T3eDest> dest(fabric.endpoints.size());
  for (size_t e = 0; e < fabric.endpoints.size(); ++e) {
    const FabricEndpoint& ep = fabric.endpoints[e];
    dest[e].router = ep.router;
    dest[e].coord = coord[ep.router];
    dest[e].port = static_cast<uint8_t>(ep.port);
  }
  return dest;
}

void set_torus_fall_through(const Spec& spec, const Fabric& fabric,
                            std::array<ps_t, kMaxPorts>& straight_ps,
                            std::array<ps_t, kMaxPorts>& turn_ps,
                            std::array<ps_t, kMaxPorts>& endpoint_ps) {
  std::array<ps_t, kMaxPorts> wire{};
  for (int p = 0; p < kMaxPorts; ++p)
    for (const FabricRouter& r : fabric.routers)
      if (p < static_cast<int>(r.ports.size()) && r.ports[p].connected()) {
        wire[p] = r.ports[p].wire_ps;
        break;
      }
  const ps_t straight = ns_to_ps(spec.router.straight_ns);
  const ps_t turn = ns_to_ps(spec.router.turn_ns);
  const ps_t endpoint = ns_to_ps(spec.router.endpoint_ns);
  for (int p = 0; p < kMaxPorts; ++p) {
    straight_ps[p] = minus_wire(straight, wire[p]);
    turn_ps[p] = minus_wire(turn, wire[p]);
    endpoint_ps[p] = minus_wire(endpoint, wire[p]);
  }
}

T3eTables program_t3e_tables(const Spec& spec, const Fabric& fabric, T3eTies ties) {
  if (fabric.num_vcs < 4)
    throw std::invalid_argument(
        fmt::format("routing {} needs 4 VCs (request and response dateline pairs), have {}",
                    fabric.routing, fabric.num_vcs));
  T3eTables t;
  const int nr = static_cast<int>(fabric.routers.size());
  t.num_routers = nr;
  int kmax[3] = {1, 1, 1};
  t.coord.resize(nr);
  for (int r = 0; r < nr; ++r)
    for (int d = 0; d < 3; ++d) {
      t.coord[r][d] = static_cast<uint8_t>(fabric.routers[r].coord[d]);
      kmax[d] = std::max(kmax[d], fabric.routers[r].coord[d] + 1);
    }
  for (int d = 0; d < 3; ++d) t.k[d] = static_cast<uint8_t>(kmax[d]);

  t.dest = torus_dests(fabric, t.coord);

  // Source table: the shortest direction in each dimension (ties: see
  // T3eTies). One
  // byte per (source, destination) router: 1 GiB at 32x32x32, so the rows
  // are written in parallel into memory nothing has touched yet
  // (TableAllocator), each from its source's three per-dimension rows
  // (direction bit by destination ordinate) rather than a division per entry;
  // in one sweep, z fastest, when the routers are numbered as build_torus
  // numbers them.
  const std::array<int, 3> k{t.k[0], t.k[1], t.k[2]};
  bool numbered = k[0] * k[1] * k[2] == nr;
  for (int r = 0; r < nr && numbered; ++r)
    numbered = torus_router_id(k, t.coord[r][0], t.coord[r][1], t.coord[r][2]) == r;
  t.path.resize(static_cast<size_t>(nr) * nr);  // every entry is written below
  tbb::parallel_for(tbb::blocked_range<int>(0, nr), [&](const tbb::blocked_range<int>& rg) {
    std::array<std::array<uint8_t, 256>, 3> toward{};  // [dim][destination ordinate]
    for (int s = rg.begin(); s != rg.end(); ++s) {
      for (int dim = 0; dim < 3; ++dim)
        for (int c = 0; c < k[dim]; ++c) {
          const int d = ring_direction(dim, t.coord[s][dim], c, k[dim], ties);
          toward[dim][c] = d < 0 ? 0 : static_cast<uint8_t>(1u << d);
        }
      uint8_t* row = t.path.data() + static_cast<size_t>(s) * nr;
      if (numbered) {
        for (int x = 0; x < k[0]; ++x)
          for (int y = 0; y < k[1]; ++y) {
            const uint8_t xy = kT3ePathAdaptive | toward[0][x] | toward[1][y];
            for (int z = 0; z < k[2]; ++z) *row++ = xy | toward[2][z];
          }
        continue;
      }
      for (int d = 0; d < nr; ++d) {
        const std::array<uint8_t, 3>& c = t.coord[d];
        row[d] = kT3ePathAdaptive | toward[0][c[0]] | toward[1][c[1]] | toward[2][c[2]];
      }
    }
  });

  // VC tables: time of crossing (every packet starts a direction on VC0), or
  // the optimised assignment of each ring (t3e_vc_balance.h).
  t.vc_table.assign(nr, std::array<uint8_t, kT3eDirections>{});
  if (spec.vcs.dateline_assignment == "optimised")
    for (int dim = 0; dim < 3; ++dim) {
      if (k[dim] < 2) continue;
      // The assignment is for balanced ties; with ties + a tie from an odd
      // source goes + as well and, if it passes the dateline node, must
      // start on VC0.
      std::array<std::vector<uint8_t>, 2> bytes = t3e_optimised_vc_bytes(k[dim]);
      for (int s = 0; s < k[dim]; ++s)
        for (int o = 0; o < k[dim]; ++o) {
          const int d = ring_direction(dim, s, o, k[dim], ties);
          if (d >= 0 && passes_dateline_node(d, s, o, k[dim]))
            bytes[d == dim ? 0 : 1][s] &= static_cast<uint8_t>(~(1u << (o & 7)));
        }
      for (int r = 0; r < nr; ++r) {
        const int c = t.coord[r][dim];
        t.vc_table[r][dim] = bytes[0][c];
        t.vc_table[r][dim + 3] = bytes[1][c];
      }
    }

  set_torus_fall_through(spec, fabric, t.straight_ps, t.turn_ps, t.endpoint_ps);
  t3e_route_around_faults(t, fabric);
  // A path rewritten around a fault may go the long way round a ring, where
  // an entry chosen for the short way would cross the dateline node on VC1:
  // with faults every entry that some destination sharing it could need on
  // VC0 is VC0.
  if (has_faults(fabric))
    for (int r = 0; r < nr; ++r)
      for (int d = 0; d < kT3eDirections; ++d) {
        const int dim = t3e_dim(d);
        for (int o = 0; o < k[dim]; ++o)
          if (passes_dateline_node(d, t.coord[r][dim], o, k[dim]))
            t.vc_table[r][d] &= static_cast<uint8_t>(~(1u << (o & 7)));
      }
  return t;
}

bool t3e_vc_tables_safe(const T3eTables& t, std::string* why) {
  const std::array<int, 3> k{t.k[0], t.k[1], t.k[2]};
  std::vector<int32_t> at(static_cast<size_t>(k[0]) * k[1] * k[2], -1);
  for (int r = 0; r < t.num_routers; ++r)
    at[torus_router_id(k, t.coord[r][0], t.coord[r][1], t.coord[r][2])] = r;
  for (int src = 0; src < t.num_routers; ++src)
    for (int dst = 0; dst < t.num_routers; ++dst) {
      const uint8_t p = t.path[static_cast<size_t>(src) * t.num_routers + dst];
      if (p & kT3eUnroutable) continue;
      // Walk the path in direction order: where it enters direction d, the
      // entering router's table bit for the destination ordinate.
      std::array<uint8_t, 3> cur = t.coord[src];
      const std::array<uint8_t, 3>& to = t.coord[dst];
      for (int d = 0; d < kT3eDirections; ++d) {
        const int dim = t3e_dim(d);
        if (!((p >> d) & 1u) || cur[dim] == to[dim]) continue;
        const int32_t r = at[torus_router_id(k, cur[0], cur[1], cur[2])];
        if (r >= 0 && ((t.vc_table[r][d] >> (to[dim] & 7)) & 1u) &&
            passes_dateline_node(d, cur[dim], to[dim], k[dim])) {
          if (why)
            *why = fmt::format(
                "router {}: VC table bit {} of direction {} selects VC1 for destination "
                "ordinate {} (router {} to {}), whose route passes the dateline node",
                r, to[dim] & 7, d, to[dim], src, dst);
          return false;
        }
        cur[dim] = to[dim];
      }
    }
  return true;
}

namespace {

const char* kTorusSummary =
    "kx x ky x kz bidirectional 3D torus of Cray T3E routers (ports 0..5: +X +Y +Z -X -Y -Z, "
    "6..: PEs); a dimension of 1 makes it 2D or 1D, topology.wrap false a mesh";

int64_t torus_endpoint_count(const Spec& s) {
  int64_t n = s.topology.endpoints_per_router;
  for (int k : s.topology.dims) n *= k;
  return n;
}

// Routers within what fabemu sizes its tables for; the adaptive VC's buffer
// (Duato: whole-packet space) holds the longest packet.
SpecProblem torus_size_problem(const Spec& s) {
  int64_t routers = 1;
  for (int k : s.topology.dims) routers *= k;
  if (routers > kMaxRouters)
    return {{"topology.dims"},
            fmt::format("{}x{}x{} is {} routers, more than the {} fabemu supports: use smaller "
                        "dimensions",
                        s.topology.dims[0], s.topology.dims[1], s.topology.dims[2], routers,
                        kMaxRouters)};
  return packet_fits_problem(
      s, "vcs.adaptive_buffer_units", s.vcs.adaptive_buffer_units,
      "adaptive VC buffer; virtual cut-through needs room for a whole packet");
}

FABEMU_REGISTER_TOPOLOGY(TopologyInfo{
    "torus", kTorusSummary, build_torus, torus_bisection_links, torus_bisection_cuts,
    torus_endpoint_count, torus_size_problem, [](const Spec& s) {
      return std::vector<std::pair<std::string, std::vector<int>>>{
          {"dims", {s.topology.dims.begin(), s.topology.dims.end()}}};
    },
    nullptr});

// What program_t3e_tables allocates: the source table is routers squared.
uint64_t t3e_table_bytes(const Fabric& f) {
  const uint64_t nr = f.routers.size();
  return nr * nr +
         nr * (sizeof(std::array<uint8_t, 3>) + sizeof(std::array<uint8_t, kT3eDirections>)) +
         f.endpoints.size() * sizeof(T3eDest) + sizeof(T3eTables);
}

FABEMU_REGISTER_ROUTING(policy_routing<T3eDirectionOrder>(
    "torus", "direction_order",
    "T3E direction-order routing (+X +Y +Z -X -Y -Z) from a source table, dateline VC pairs "
    "for requests (VC0/VC1) and responses (VC2/VC3)",
    5, 4, true, [](const Spec& s, const Fabric& f) { return program_t3e_tables(s, f); },
    t3e_table_bytes));

// The same tables (ties +), dimensions in order X, Y, Z (the BlackWidow paper's
// torus in Table 4).
FABEMU_REGISTER_ROUTING(policy_routing<TorusDimensionOrder>(
    "torus", "dimension_order",
    "minimal dimension-order routing (X, then Y, then Z, each the shorter way round) on the T3E "
    "source table and dateline VC pairs",
    5, 4, true,
    [](const Spec& s, const Fabric& f) { return program_t3e_tables(s, f, T3eTies::plus); },
    t3e_table_bytes));

}  // namespace

}  // namespace fabemu
