// Which worker owns each router: the run's placement (run.placement, or by
// default contiguous blocks of routers by their slice-0 id), checked; and
// the conservative window that placement allows.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// Places f's routers on `workers` workers: given[r] when the spec placed
// router r, else its block. Fills worker[r] and local[r] (its index among
// its worker's routers). False, with *err, when a router is placed outside
// the run's workers or a processor's slice ports are split over workers
// (they send for one processor).
bool place_routers(const Fabric& f, int workers, const std::vector<int>& given,
                   std::vector<uint16_t>* worker, std::vector<uint32_t>* local, std::string* err);

// The conservative window of a run on `workers` workers (window_kernel.h):
// the smallest lookahead of a link between routers on different workers
// (1 us when no link crosses, or with one worker: windows then only pace
// progress and the end). False, with *err, for a crossing link of zero
// lookahead.
bool conservative_window(const Fabric& f, const std::vector<uint16_t>& router_worker, int workers,
                         const std::function<ps_t(const FabricPort&)>& lookahead, ps_t* window,
                         std::string* err);

}  // namespace fabemu
