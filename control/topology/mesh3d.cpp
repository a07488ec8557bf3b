#include "control/topology/mesh3d.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "control/analysis/analysis.h"
#include "control/topology/fabric_parts.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"
#include "dataplane/codec/codec.h"
#include "dataplane/codec/mesh3d_packet.h"

namespace fabemu {

MeshShape mesh3d_shape(const Spec& spec) { return MeshShape{spec.topology.dims}; }

std::string mesh3d_size_problem(const Spec& spec) {
  const MeshShape m = mesh3d_shape(spec);
  uint32_t segments = 0;
  for (int d = 0; d < 3; ++d) {
    if (m.k[d] < 1 || m.k[d] > 97)
      return fmt::format("topology.dims[{}] = {}: a mesh dimension has 1 to 97 routers (six "
                         "segments of 16 hops cross at most 96 links)",
                         d, m.k[d]);
    segments += static_cast<uint32_t>((m.k[d] - 1 + kMeshMaxSegmentHops - 1) / kMeshMaxSegmentHops);
  }
  if (segments > kMeshSegments)
    return fmt::format(
        "a {}x{}x{} mesh needs routes of {} segments corner to corner, more than the {} of the "
        "route word (each up to {} hops): make a dimension smaller",
        m.k[0], m.k[1], m.k[2], segments, kMeshSegments, kMeshMaxSegmentHops);
  const int e = spec.topology.endpoints_per_router;
  if (e < 1 || kMesh3dFirstProcessorPort + e > kMaxPorts)
    return fmt::format("topology.endpoints_per_router = {}: give 1 to {}", e,
                       kMaxPorts - kMesh3dFirstProcessorPort);
  if (int64_t(m.routers()) * e > int64_t(kMesh3dMaxEndpoints))
    return fmt::format("the mesh has {} endpoints, more than the {} a 20-bit destination addresses",
                       int64_t(m.routers()) * e, kMesh3dMaxEndpoints);
  return {};
}

Fabric build_mesh3d(const Spec& spec) {
  if (const std::string why = mesh3d_size_problem(spec); !why.empty())
    throw std::invalid_argument(why);
  const MeshShape m = mesh3d_shape(spec);
  const int epr = spec.topology.endpoints_per_router;
  const ps_t unit = unit_ps(spec);
  const ps_t channel = router_unit_ps(spec);
  const ps_t wire = wire_ps(spec);
  Fabric f = fabric_frame(spec, fmt::format("3D mesh {}x{}x{}", m.k[0], m.k[1], m.k[2]), "mesh3d");
  f.routers.resize(size_t(m.routers()));
  f.endpoints.resize(size_t(m.routers()) * size_t(epr));
  for (int r = 0; r < m.routers(); ++r) {
    FabricRouter& router = f.routers[size_t(r)];
    router.id = r;
    const std::array<int, 3> c = m.coord(r);
    router.coord = {c[0], c[1], c[2]};
    router.ports.resize(size_t(kMesh3dFirstProcessorPort + epr));
    for (int d = 0; d < 6; ++d) {
      const int n = m.neighbour(r, static_cast<MeshDir>(d));
      FabricPort& p = router.ports[size_t(d)];
      p.label = static_cast<uint8_t>(d);
      if (n >= 0) p = router_link(n, d ^ 1, channel, wire, static_cast<uint8_t>(d));
    }
    for (int j = 0; j < epr; ++j)
      attach_endpoint(f, r * epr + j, r, kMesh3dFirstProcessorPort + j, unit, 0,
                      kMesh3dProcessorLabel);
  }
  return f;
}

MeshFaults mesh3d_faults(const Fabric& fabric, const MeshShape& m) {
  MeshFaults f;
  for (const FabricRouter& r : fabric.routers) {
    if (r.dead) f.routers.insert(r.id);
    for (int d = 0; d < 6 && d < int(r.ports.size()); ++d)
      if (r.ports[size_t(d)].dead && r.ports[size_t(d)].peer_router >= 0)
        f.kill_link(m, r.id, static_cast<MeshDir>(d));
  }
  return f;
}

Mesh3dRecoveryMemory mesh3d_recovery_memory(const Spec& spec, const Fabric& fabric) {
  Mesh3dRecoveryMemory r;
  for (int v = 0; v < fabric.num_vcs; ++v) r.bi += fabric.vc_buffer_units[size_t(v)];
  r.bo = r.bi;
  const ps_t unit = router_unit_ps(spec);
  r.delay_line = unit ? double(wire_ps(spec)) / double(unit) : 0;
  r.per_output = 6 * r.bi + 5 * r.bo + 12 * r.delay_line;
  r.queues = 7 * (r.bi + r.bo);
  r.factor = r.queues ? 6 * (6 * r.bi + 5 * r.bo) / r.queues : 0;
  r.factor_with_wire = r.queues ? 6 * r.per_output / r.queues : 0;
  return r;
}

namespace {

// describe's rows: the recovery memory the proposal sizes, and the
// cross-machine latency its 100 ns target is about.
std::vector<std::pair<std::string, std::string>> mesh3d_rows(const Spec& spec, const Fabric& f) {
  const Mesh3dRecoveryMemory r = mesh3d_recovery_memory(spec, f);
  const double bytes = double(f.unit_bits) / 8;
  std::vector<std::pair<std::string, std::string>> rows;
  rows.emplace_back(
      "recovery memory",
      fmt::format("two-hop, as the proposal sizes it: per output 6 Bi + 5 Bo + 12 x {:.1f} words "
                  "of delay line = {:.0f} words ({:.1f} kB), Bi = Bo = {:.0f} words; the 6 "
                  "outputs {:.2f}x the 7 (Bi + Bo) of the queues without wire delay (the "
                  "proposal's 66/14), {:.2f}x with it; emulated with link.recovery: two_hop",
                  r.delay_line, r.per_output, r.per_output * bytes / 1000, r.bi, r.factor,
                  r.factor_with_wire));
  const MeshShape m = mesh3d_shape(spec);
  const int links = m.k[0] + m.k[1] + m.k[2] - 3;
  // A 64-byte message, corner to corner, through the programmed routes.
  const CodecKind codec = codec_for(spec.profile, spec.topology.family);
  const uint32_t words =
      codec_format(codec, uint32_t(spec.packet.header_units), uint32_t(spec.packet.max_units))
          .units_for(64);
  const uint32_t far = uint32_t(f.endpoints.size() - 1);
  if (f.routers.front().dead || f.routers.back().dead) {
    rows.emplace_back("corner to corner", "none: a corner router is dead");
    return rows;
  }
  const ps_t corner = zero_load_latency_ps(spec, f, 0, far, words, TrafficClass::request);
  const ps_t in_routers = corner - links * wire_ps(spec) - words * router_unit_ps(spec);
  rows.emplace_back(
      "corner to corner",
      fmt::format("endpoint 0 to {} (corner to corner): {} links, {} routers, {:.1f} ns at zero "
                  "load for a 64-byte message of {} words (the proposal's target: 100 ns); "
                  "{:.2f} ns of wire a link, {:.2f} ns a router on average",
                  far, links, links + 1, double(corner) / 1000, words,
                  double(wire_ps(spec)) / 1000, double(in_routers) / 1000 / (links + 1)));
  return rows;
}

const char* kMesh3dSummary =
    "the low-latency 3D mesh (petaflops 3D-mesh proposal): kx x ky x kz routers, not wrapped, "
    "every link the same length; topology.endpoints_per_router processors per router";

// A mesh dimension cut in the middle: N / k links each way (odd k: the
// larger half on side 1).
int64_t mesh3d_links_across(const MeshShape& m, int d) { return m.k[d] > 1 ? m.routers() / m.k[d] : 0; }

std::vector<BisectionCut> mesh3d_cuts(const Spec& spec, const Fabric& fabric) {
  const MeshShape m = mesh3d_shape(spec);
  int64_t best = std::numeric_limits<int64_t>::max();
  for (int d = 0; d < 3; ++d)
    if (m.k[d] > 1) best = std::min(best, mesh3d_links_across(m, d));
  std::vector<BisectionCut> cuts;
  for (int d = 0; d < 3; ++d) {
    if (m.k[d] < 2 || mesh3d_links_across(m, d) != best) continue;
    BisectionCut side(fabric.routers.size());
    for (size_t r = 0; r < side.size(); ++r) side[r] = fabric.routers[r].coord[d] >= m.k[d] / 2;
    cuts.push_back(std::move(side));
  }
  return cuts;
}

int64_t mesh3d_bisection_links(const Spec& spec, const Fabric&) {
  const MeshShape m = mesh3d_shape(spec);
  int64_t best = -1;
  for (int d = 0; d < 3; ++d)
    if (m.k[d] > 1 && (best < 0 || mesh3d_links_across(m, d) < best)) best = mesh3d_links_across(m, d);
  return best < 0 ? 0 : best;
}

FABEMU_REGISTER_TOPOLOGY(TopologyInfo{
    "mesh3d", kMesh3dSummary, build_mesh3d, mesh3d_bisection_links, mesh3d_cuts,
    [](const Spec& s) -> int64_t {
      return mesh3d_size_problem(s).empty()
                 ? int64_t(mesh3d_shape(s).routers()) * s.topology.endpoints_per_router
                 : -1;
    },
    [](const Spec& s) {
      return SpecProblem{{"topology.dims", "topology.endpoints_per_router"}, mesh3d_size_problem(s)};
    },
    [](const Spec& s) {
      return std::vector<std::pair<std::string, std::vector<int>>>{
          {"dims", {s.topology.dims[0], s.topology.dims[1], s.topology.dims[2]}},
          {"endpoints_per_router", {s.topology.endpoints_per_router}}};
    },
    mesh3d_rows});

}  // namespace
}  // namespace fabemu
