// Clos family "clos" (profile yarc): the BlackWidow folded Clos of YARC
// routers (Scott et al., ISCA 2006, section 2.2), and the programming of the
// YARC routing tables (dataplane/routing/yarc_updown.h).
//
// Rank 1 (E <= 32 endpoints): one radix-64 router (id 0), endpoint e on
//   port e; ports E..63 unconnected.
// Rank 2 (E <= 1024): R1 = ceil(E / 32) rank-1 routers (ids 0..R1-1), router
//   i with endpoints 32i..32i+31 on ports 0..31 and U uplinks on ports
//   32..32+U-1 (U = topology.uplinks, 32 by default: full bisection; 16
//   halves it, as the flattened butterfly paper's Figure 6 holds the
//   bisection of its 3-stage folded Clos to the other topologies'); then U
//   radix-32 rank-2 routers (ids R1..R1+U-1): port i of rank-2 router j
//   goes down to rank-1 router i, whose uplink 32 + j comes back up.
// router.virtual_routers then puts each pair of radix-32 routers on one
// YARC as the R2/R3 module does (virtual_routers.h); without it, each is
// a router of its own.
// Ranks 1.5, 2.5 and 3 (ClosShape says their sizes; every rank is built
// in clos_ranks.cpp):
//   R1.5 (33..288): S = ceil(E / 32) rank-1 routers joined pairwise by
//     sidelinks, floor(U / (S - 1)) per pair on ports 32.. (peers in order).
//   R2.5 (513..4608): S = ceil(E / 512) R2 subtrees of 16 rank-1 routers and
//     U radix-32 rank-2 routers (16 down, 16 sidelinks); rank-2 router j of
//     each subtree is joined to router j of every other by
//     floor(16 / (S - 1)) sidelinks on ports 16.. (peers in order).
//   R3 (513..32768): S R2 subtrees of 512 (up to 16K; rank-2 routers radix
//     32, 16 down, 16 up) or of 1024 (above 16K, to the 32K maximum; rank-2
//     routers whole YARCs, 32 down, 32 up) joined by U x (16 or 32) radix-32
//     rank-3 routers: uplink u of rank-2 router j of subtree s goes to port
//     s of rank-3 router (j, u).
// topology.uplinks (U) is the taper at every rank: the cables each rank-1
// router has above it (section 2.2: "connecting only a subset of the rank 1
// to rank 2 network cables").
// Router ids: rank 1 first, then rank 2 (subtree-major), then rank 3.
// Router coord = (rank, index within rank, 0); FabricRouter::rank = rank.
// Port label 0 = down (towards endpoints), 1 = up, 2 = side (to a peer).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/yarc_updown.h"

namespace fabemu {

inline constexpr uint8_t kClosDown = 0;
inline constexpr uint8_t kClosUp = 1;
inline constexpr uint8_t kClosSide = 2;
inline constexpr int kClosSubtree = 32;  // endpoints under one rank-1 router
inline constexpr int kClosMaxEndpoints = 32768;  // the BlackWidow maximum (15-bit destinations)

// The sizes of one clos spec, for the builders, the checks and the docs.
struct ClosShape {
  int rank = 1;            // tree rank: 1, 2 or 3
  bool sidelinks = false;  // R1.5, R2.5: the top subtrees are joined by sidelinks
  int endpoints = 0;
  int uplinks = 32;  // U: cables above each rank-1 router (the taper)
  int subtree = 32;  // endpoints of each subtree the top stage joins
  int subtrees = 1;  // S: how many (R1.5: rank-1 routers; R2.5, R3: R2 subtrees)
  int rank1 = 1;     // rank-1 routers
  int rank1_per_subtree = 1;
  int rank2_radix = 32;  // rank-2 router ports (32: a virtual router; 64: a whole YARC)
  int rank2_up = 0;      // rank-2 router ports above it (R2.5 sidelinks, R3 uplinks)
  int per_peer = 0;      // sidelinks between two peer routers (R1.5, R2.5)
  int rank2 = 0;         // rank-2 routers
  int rank3 = 0;         // rank-3 routers
};

// "1", "1.5", "2", "2.5", "3".
std::string clos_rank_name(const Spec& spec);
// What is wrong with the spec's size (endpoints for its rank, uplinks), with
// what to do; empty when it can be built. The first field is the one to blame.
std::string clos_size_problem(const Spec& spec, const char** field = nullptr);
// The shape of a spec clos_size_problem accepts.
ClosShape clos_shape(const Spec& spec);

// Throws std::invalid_argument on a bad size (rank 1: 1..32, rank 2: 1..1024
// endpoints; rank 2: 1..32 uplinks; the other ranks as clos_size_problem).
Fabric build_clos(const Spec& spec);
// Both directions of the link between port pa of router a and port pb of
// router b, labelled as seen from each end (clos_ranks.cpp; the analysis
// fat tree of control/analysis/fat_tree_model.h too).
void wire_clos_link(Fabric& f, int32_t a, int pa, uint8_t label_a, int32_t b, int pb,
                    uint8_t label_b, ps_t unit, ps_t wire);
// The routers, links and endpoints of every rank as above, without
// router.virtual_routers (clos_ranks.cpp); build_clos calls it.
Fabric build_clos_ranks(const Spec& spec);

// Rank 1: E / 2; rank 2: R1 * U / 2 uplinks (with U = 32 a full-bisection
// fat tree); R1.5: floor(S/2) ceil(S/2) pairs of peers x their sidelinks;
// R2.5: that x U planes; R3: half the rank-2 to rank-3 links.
int64_t clos_bisection_links(const Spec& spec, const Fabric& fabric);
// A cut that achieves it (TopologyInfo::bisection_cuts), rank 2: half of the
// rank-1 and half of the rank-2 routers on each side. Rank 1: none.
std::vector<BisectionCut> clos_bisection_cuts(const Spec& spec, const Fabric& fabric);
// The same for ranks 1.5, 2.5 and 3 (clos_ranks.cpp).
int64_t clos_ranks_bisection_links(const Spec& spec);
std::vector<BisectionCut> clos_ranks_bisection_cuts(const Spec& spec, const Fabric& fabric);

// Healthy-network tables: root detect (location = first destination of the
// subtree, mask = its size - 1), up-table entry 0 matching everything with
// every uplink, and one entry per peer subtree with the sidelinks to it
// (section 5.1), hash bits 0..7 at rank 1, 5..12 at rank 2, 10..14 at rank
// 3, down route s = the child subtree's bits, m = 5 bits, port map from the
// wiring. Pipeline
// spec.router.latency_ns at every hop; adaptive responses as in the paper.
YarcTables program_yarc_tables(const Spec& spec, const Fabric& fabric);

// A fabric with faults (FabricPort::dead, FabricRouter::dead): up-routing
// fault entries around each fault's shadow (clos_faults.cpp); program_yarc_tables
// calls it. Healthy fabrics: no change.
void add_yarc_fault_entries(YarcTables& t, const Fabric& fabric);

// RoutingInfo::prove_deadlock_free for up/down routing (clos_deadlock.cpp):
// every route climbs up, side, down channels in rank order.
std::string prove_clos_updown(const Spec& spec, const Fabric& fabric);

// Bytes the YARC tables of `fabric` take (RoutingInfo::table_bytes).
uint64_t yarc_table_bytes(const Fabric& fabric);

}  // namespace fabemu
