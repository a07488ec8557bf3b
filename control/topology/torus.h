// Torus family "torus" (profile t3e): a kx x ky x kz bidirectional 3D torus
// of T3E routers, and the programming of the T3E routing tables
// (dataplane/routing/t3e_direction_order.h).
//
// Routers: id = (x * ky + y) * kz + z, so contiguous id blocks are X-slabs.
// Ports 0..5: directions +X +Y +Z -X -Y -Z (label = direction); port d of
// router r drives port (d + 3) % 6 of its neighbour in direction d. A
// dimension of size 1 leaves its two ports unconnected.
// Ports 6..6+E-1 (E = endpoints_per_router): PE ports, label 6; endpoint
// id = router * E + j sits on port 6 + j. The PE interface is on the router:
// injection/ejection links have wire 0 and the spec's unit time.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/t3e_direction_order.h"

namespace fabemu {

inline constexpr uint8_t kTorusPeLabel = 6;

constexpr int32_t torus_router_id(const std::array<int, 3>& k, int x, int y, int z) {
  return (x * k[1] + y) * k[2] + z;
}

// Throws std::invalid_argument on a bad size (k in 1..255, 1..58 endpoints per router).
Fabric build_torus(const Spec& spec);

// Minimum over dimensions (k > 1) of the links crossing a cut of that
// dimension in one direction: 2 * N / k (two cut points per ring, N / k
// rings). 4x4x4: 32; 8x16x8: 128 (the T3E's 153.6 GB/s both ways).
int64_t torus_bisection_links(const Spec& spec, const Fabric& fabric);
// The cuts that achieve it (TopologyInfo::bisection_cuts): every ring of a
// smallest-link dimension cut in two halves, at each offset.
std::vector<BisectionCut> torus_bisection_cuts(const Spec& spec, const Fabric& fabric);

// How a source table routes a destination k/2 away in an even ring: + from
// every source (the BlackWidow paper's dimension-order torus), or balanced
// (+ from even source ordinates, - from odd ones, so that + and - links carry
// the same load under uniform traffic; the T3E's VC-balance model,
// control/analysis/t3e_vc_balance.h).
enum class T3eTies { plus, balanced };

// Source routing table (minimal, shortest direction per dimension, ties as
// given), VC tables as vcs.dateline_assignment asks ("time_of_crossing": all
// zeros; "optimised": the annealed 8-entry assignment of t3e_vc_balance.h,
// the - rings its mirror image), Table 2 fall-through less wire.
// Throws std::invalid_argument when the fabric has fewer than 4 VCs.
T3eTables program_t3e_tables(const Spec& spec, const Fabric& fabric,
                             T3eTies ties = T3eTies::balanced);

// Where each endpoint lives: its router, that router's coordinates (coord,
// per router) and its PE port.
std::vector<T3eDest> torus_dests(const Fabric& fabric,
                                 const std::vector<std::array<uint8_t, 3>>& coord);

// Table 2 fall-through (pin to pin, wire included: router.straight_ns,
// turn_ns, endpoint_ns) less each output port's wire, per output port.
void set_torus_fall_through(const Spec& spec, const Fabric& fabric,
                            std::array<ps_t, kMaxPorts>& straight_ps,
                            std::array<ps_t, kMaxPorts>& turn_ps,
                            std::array<ps_t, kMaxPorts>& endpoint_ps);

// The VC table bytes of one ring of k for vcs.dateline_assignment
// "optimised": [0][s] for the + direction entered at ordinate s, [1][s] for
// the - direction (computed once per k, then cached).
const std::array<std::vector<uint8_t>, 2>& t3e_optimised_vc_bytes(int k);

// A fabric with faults (FabricPort::dead, FabricRouter::dead): source table
// entries whose path meets a fault rewritten around it, or marked
// unroutable (torus_faults.cpp); program_t3e_tables calls it.
void t3e_route_around_faults(T3eTables& t, const Fabric& fabric);

// True when no VC-table bit asks for VC1 on a route that would pass through
// its ring's dateline node (ordinate 0 going +, k-1 going -) from that
// router (destination ordinates alias mod 8, as in the T3E's 8-entry
// tables); otherwise false and *why names the first offender.
bool t3e_vc_tables_safe(const T3eTables& t, std::string* why = nullptr);

}  // namespace fabemu
