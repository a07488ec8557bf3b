// Network slices (Scott et al., ISCA 2006, section 2.2): "Each BW processor
// has four injection ports into the network, with each port connecting to a
// different network slice. Each slice is a completely separate network with
// its own set of YARC router chips." The topology builders build one slice;
// the run replicates it (Fabric::slices says how the copies are numbered)
// and the routing tables are programmed once, on slice 0, for all of them:
// the slices are programmed alike, and packets carry processor numbers.
#pragma once
#include <cstdint>
#include <string>

#include "dataplane/core/fabric.h"

namespace fabemu {

// `one` (a single slice) copied `slices` times: router r of slice s is
// s * R + r, endpoint p of slice s is s * P + p, every link stays inside its
// slice. slices == 1: `one` unchanged. Throws std::invalid_argument when
// `one` is already sliced or slices is 0 or above kMaxSlices.
Fabric replicate_slices(Fabric one, uint32_t slices);

// Slice 0 of a sliced fabric, numbered as replicate_slices numbered it
// (what the routing tables are programmed on). A fabric of one slice: a copy.
Fabric first_slice(const Fabric& sliced);

}  // namespace fabemu
