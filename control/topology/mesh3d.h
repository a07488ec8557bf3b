// Topology family "mesh3d" (profile mesh3d): the low-latency 3D mesh of the
// petaflops 3D-mesh proposal ("Physical Size and Overall Latency", Figures
// 5-7): a kx x ky x kz mesh, not a torus, whose links all have one fixed
// length (the packaging maps the mesh onto the machine room, so every wire
// is a neighbour's), e.g. the proposal's 27 x 16 x 24.
//
// Routers: id = x + kx (y + ky z) (control/topology/mesh_turns.h's
// MeshShape). Ports 0..5: the directions +X -X +Y -Y +Z -Z (MeshDir, label
// = direction); port d of router r drives port d ^ 1 of its neighbour in
// direction d; ports off the mesh's edge are unconnected. Ports 6..6+E-1
// (E = topology.endpoints_per_router): the processors, label 6; endpoint
// id = router * E + j on port 6 + j, with the injection link on the chip
// (wire 0).
#pragma once
#include <cstdint>
#include <string>

#include "control/spec/spec.h"
#include "control/topology/mesh_turns.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

inline constexpr uint8_t kMesh3dProcessorLabel = 6;
inline constexpr int kMesh3dFirstProcessorPort = 6;  // Mesh3dSourceRoute::kMesh3dProcessorPort

MeshShape mesh3d_shape(const Spec& spec);

// Empty when the mesh can be built and every XYZ route fits the first
// word's six segments of up to 16 hops; otherwise what is wrong and what
// to do.
std::string mesh3d_size_problem(const Spec& spec);

// Throws std::invalid_argument with mesh3d_size_problem()'s message.
Fabric build_mesh3d(const Spec& spec);

// The proposal's sizing of a router's two-hop recovery memories ("Error
// Detection and Recovery"), in flow units (80-bit words): each of the six
// outputs keeps 6 Bi + 5 Bo messages' worth plus 12 times what its link
// holds as a delay line, against the 7 (Bi + Bo) of the six directions'
// and the processor's queues without it. Bi = Bo = a port's input buffer
// (every VC's): the proposal's "If Bi = Bo", 66/14 (about 4.7) more.
struct Mesh3dRecoveryMemory {
  double bi = 0, bo = 0;      // words
  double delay_line = 0;      // words a link holds in flight (wire / word time)
  double per_output = 0;      // 6 Bi + 5 Bo + 12 delay_line
  double queues = 0;          // 7 (Bi + Bo)
  double factor = 0;          // 6 (6 Bi + 5 Bo) / queues: 66/14 when Bi = Bo
  double factor_with_wire = 0;
};
Mesh3dRecoveryMemory mesh3d_recovery_memory(const Spec& spec, const Fabric& fabric);

// The dead links and routers of a fabric with faults, as mesh_turns.h
// records them.
MeshFaults mesh3d_faults(const Fabric& fabric, const MeshShape& m);

}  // namespace fabemu
