// The radix-64 fat tree (folded Clos) of the BlackWidow paper's analyses
// (Tables 2 and 4) at any size up to 32K endpoints, routed by the YARC
// up/down tables of the clos family (program_yarc_tables, YarcUpDown).
//
// Up to 1024 endpoints it is what the clos builder builds (build_clos, rank
// 1 or rank 2 with 32 uplinks). Above, the builder packages BlackWidow's own
// way (R2.5 sidelinks, R3 of 512-endpoint subtrees up to 16K), which is not
// the full fat tree the tables assume, so this file builds the rank-3 tree
// the paper's "radix-64 fat-tree networks" describe, with
// build_clos's conventions extended one rank up:
//   - S = ceil(E / 1024) subtrees of up to 1024 endpoints, each wired as
//     build_clos's rank-2 network: rank-1 router g = 32 s + i (endpoints
//     32g..32g+31 on ports 0..31) has uplink 32 + j to rank-2 router (s, j),
//     arriving on its port i;
//   - rank-2 router (s, j) is a whole YARC: ports 0..31 down, 32 + u up to
//     rank-3 router (j, u), arriving on its port s;
//   - 1024 rank-3 routers (j, u), radix-32 virtual routers with one port
//     per subtree, all down.
// Router ids: rank-1 routers first, then rank-2 (s, j) at R1 + 32 s + j,
// then rank-3 (j, u) at R1 + 32 S + 32 j + u; coord = (rank, index within
// rank, 0), FabricRouter::rank = rank, labels kClosDown / kClosUp, so the
// clos tables and tracer apply unchanged: root detect from the subtree
// below, hash bits 10..14 at rank 3, down route s = 10 there.
#pragma once
#include <string>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

inline constexpr int kFatTreeMaxEndpoints = 32768;  // the BlackWidow maximum (15-bit destinations)
inline constexpr int kFatTreeSubtree = 1024;        // endpoints under one rank-2 subtree

// A clos spec (the yarc profile's link, latency and VCs) sized for
// `endpoints`: rank 1 up to 32, rank 2 up to 1024 (32 uplinks), else rank 2
// as the nearest the spec can say (build_fat_tree reads only its timing and
// VCs above 1024).
Spec fat_tree_spec(Spec clos, int endpoints);

// The fat tree of `endpoints` (2..32768) endpoints: build_clos(spec) up to
// 1024, the rank-3 tree above. Throws std::invalid_argument on a size out
// of range.
Fabric build_fat_tree(const Spec& spec, int endpoints);

// True when build_fat_tree builds a tree the clos builder does not (rank 3).
inline bool fat_tree_is_model(int endpoints) { return endpoints > kFatTreeSubtree; }

// One line for the output and the docs: which tree a size is and how it is
// built, e.g. "rank 3: 32 subtrees of 1024 joined by 1024 radix-32 rank-3
// routers (analysis model: a full fat tree ...)".
std::string fat_tree_description(int endpoints);

}  // namespace fabemu
