// Registers routing "source_route" for the mesh3d family: the proposal's
// source routes (dataplane/routing/mesh3d_source_route.h), XYZ dimension
// order where it is available and otherwise a static route of a 3-D turn
// model of which XYZ is a subset, shortest among the legal ones
// (control/topology/mesh_turns.h). Each router's list of allowed turns is
// XYZ's on a healthy mesh; around faults, turns are admitted to XYZ's
// router by router where a route needs them and they close no channel
// dependency cycle, so the lists stay deadlock free: describe proves it
// from the lists.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "control/topology/mesh3d.h"
#include "control/topology/mesh_routes.h"
#include "control/topology/mesh_turns.h"
#include "control/topology/routing_registration.h"
#include "dataplane/routing/mesh3d_source_route.h"

namespace fabemu {
namespace {

uint64_t turn_bits(const MeshTurns& t) {
  uint64_t b = 0;
  for (int from = 0; from < 6; ++from)
    for (int to = 0; to < 6; ++to)
      if (t.allowed[size_t(from)][size_t(to)]) b |= uint64_t{1} << (from * 6 + to);
  return b;
}

struct Mesh3dProgram {
  Mesh3dTables tables;
  MeshTurnLists lists;
  uint64_t exceptions = 0, unroutable = 0;
};

Mesh3dProgram program(const Spec& spec, const Fabric& fabric) {
  if (const std::string why = mesh3d_size_problem(spec); !why.empty())
    throw std::invalid_argument(why);
  Mesh3dProgram p;
  Mesh3dTables& t = p.tables;
  const MeshShape m = mesh3d_shape(spec);
  t.k = {m.k[0], m.k[1], m.k[2]};
  t.conc = spec.topology.endpoints_per_router;
  t.response_vc = static_cast<uint8_t>(fabric.num_vcs >= 2 ? 1 : 0);
  t.straight_ps = ns_to_ps(spec.router.straight_ns);
  t.turn_ps = ns_to_ps(spec.router.turn_ns);
  t.endpoint_ps = ns_to_ps(spec.router.endpoint_ns);
  t.corrupt_below = static_cast<uint64_t>(std::llround(spec.traffic.route_errors * 0x1p32));
  const MeshFaults f = mesh3d_faults(fabric, m);
  const bool healthy = f.routers.empty() && f.links.empty();
  if (healthy)
    p.lists.at.assign(size_t(m.routers()), xyz_turns());
  else
    p.lists = program_turn_lists(m, f, xyz_turns());
  t.turns.resize(p.lists.at.size());
  for (int r = 0; r < m.routers(); ++r) {
    uint64_t& bits = t.turns[size_t(r)];
    bits = turn_bits(p.lists.at[size_t(r)]);
    for (int d = 0; d < 6; ++d)
      if (m.neighbour(r, static_cast<MeshDir>(d)) >= 0) bits |= uint64_t{1} << (Mesh3dTables::kLinkBit + d);
  }
  if (healthy) return p;
  t.alive.assign(size_t(m.routers()), 0);
  for (int r = 0; r < m.routers(); ++r) {
    if (f.routers.count(r)) continue;
    for (int d = 0; d < 6; ++d) {
      const int n = m.neighbour(r, static_cast<MeshDir>(d));
      if (n >= 0 && !f.routers.count(n) && !f.link_dead(r, static_cast<MeshDir>(d)))
        t.alive[size_t(r)] = static_cast<uint8_t>(t.alive[size_t(r)] | (1u << d));
    }
  }
  // The pairs whose XYZ route meets a fault, by source router.
  const std::vector<MeshException> ex = mesh_exceptions(m, f, p.lists.at);
  t.first.assign(size_t(m.routers()) + 1, 0);
  t.dst_router.reserve(ex.size());
  t.route.reserve(ex.size());
  for (const MeshException& e : ex) {
    t.first[size_t(e.src_router) + 1]++;
    t.dst_router.push_back(e.dst_router);
    t.route.push_back(e.routable ? Mesh3dHeader::of_route(e.route) : kMesh3dNoRoute);
    p.unroutable += !e.routable;
  }
  for (size_t r = 1; r < t.first.size(); ++r) t.first[r] += t.first[r - 1];
  p.exceptions = ex.size();
  return p;
}

Mesh3dTables program_tables(const Spec& spec, const Fabric& fabric) {
  return program(spec, fabric).tables;
}

std::string tables_text(const Spec& spec, const Fabric& fabric) {
  const Mesh3dProgram p = program(spec, fabric);
  if (p.tables.first.empty())
    return fmt::format("every router's turn list is XYZ's (X to Y or Z, Y to Z); every route XYZ, "
                       "computed at the source from the coordinates");
  return fmt::format(
      "turn lists: XYZ's with {} turns admitted router by router around the faults (each closing "
      "no channel dependency cycle); {} source routes other than XYZ (pairs whose XYZ route "
      "meets a fault), {} pairs of live routers without a legal route of at most six segments "
      "(their packets are discarded at the source: no_route)",
      p.lists.added, p.exceptions, p.unroutable);
}

std::string prove(const Spec& spec, const Fabric& fabric) {
  const Mesh3dProgram p = program(spec, fabric);
  const MeshShape m = mesh3d_shape(spec);
  const MeshFaults f = mesh3d_faults(fabric, m);
  if (!mesh_turns_deadlock_free(m, f, p.lists.at))
    return "not proven: the routers' turn lists allow a cycle of channel dependencies";
  return fmt::format("the routers' turn lists allow no cycle of channel dependencies on the {}x{}x{} "
                     "mesh{} (every route follows them: a turn they forbid is discarded)",
                     m.k[0], m.k[1], m.k[2], f.routers.empty() && f.links.empty() ? "" : " with its faults");
}

RoutingInfo source_route_routing() {
  RoutingInfo r = policy_routing<Mesh3dSourceRoute>(
      "mesh3d", "source_route",
      "the proposal's source routes: XYZ dimension order where it is alive, else the shortest "
      "route legal under the routers' turn lists (a 3-D turn model of which XYZ is a subset); "
      "requests VC 0, responses VC 1",
      2, 1, true, program_tables, [](const Fabric& f) -> uint64_t {
        return uint64_t(f.routers.size()) * (sizeof(uint64_t) + sizeof(uint32_t));
      });
  r.tables_text = tables_text;
  r.prove_deadlock_free = prove;
  return r;
}

FABEMU_REGISTER_ROUTING(source_route_routing());

}  // namespace
}  // namespace fabemu
