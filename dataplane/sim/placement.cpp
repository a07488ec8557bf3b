// Router placement (placement.h).
#include "dataplane/sim/placement.h"

#include <algorithm>

namespace fabemu {

bool place_routers(const Fabric& f, int workers, const std::vector<int>& given,
                   std::vector<uint16_t>* worker, std::vector<uint32_t>* local, std::string* err) {
  const int nw = workers;
  const uint32_t nrouters = static_cast<uint32_t>(f.routers.size());
  const uint32_t nep = static_cast<uint32_t>(f.endpoints.size());
  worker->assign(nrouters, 0);
  local->assign(nrouters, 0);
  std::vector<uint32_t> per_worker(nw, 0);
  for (uint32_t r = 0; r < nrouters; r++) {
    // (Without a placement, by the router's slice-0 id: a processor's
    // ports in every slice, which send for one processor, share a worker.)
    const uint32_t own = static_cast<uint32_t>(f.table_router(static_cast<int32_t>(r)));
    const uint32_t per_slice = f.slices > 1 ? f.slice_routers : nrouters;
    int w = r < given.size() ? given[r] : static_cast<int>(uint64_t(own) * nw / per_slice);
    if (w < 0 || w >= nw) {
      *err = "router " + std::to_string(r) + " placed on worker " + std::to_string(w) +
             " but the run has " + std::to_string(nw) + " workers";
      return false;
    }
    (*worker)[r] = static_cast<uint16_t>(w);
    (*local)[r] = per_worker[w]++;
  }
  for (uint32_t e = f.processors(); e < nep; e++) {
    const uint32_t home = f.processor(e);
    if ((*worker)[f.endpoints[e].router] != (*worker)[f.endpoints[home].router]) {
      *err = "endpoint " + std::to_string(e) + " (processor " + std::to_string(home) +
             "'s port in slice " + std::to_string(e / f.processors()) +
             ") is on another worker than the processor's slice-0 port: place each router's "
             "slice copies on one worker";
      return false;
    }
  }
  return true;
}

bool conservative_window(const Fabric& f, const std::vector<uint16_t>& router_worker, int workers,
                         const std::function<ps_t(const FabricPort&)>& lookahead, ps_t* window,
                         std::string* err) {
  const int nw = workers;
  ps_t win = kNever;
  for (size_t r = 0; r < f.routers.size(); r++)
    for (const FabricPort& fp : f.routers[r].ports)
      if (fp.peer_router >= 0 && router_worker[fp.peer_router] != router_worker[r])
        win = std::min(win, lookahead(fp));
  if (nw > 1) {
    if (win == kNever) win = 1000 * kPsPerNs;  // no cross-core link at all
    if (win == 0) {
      *err =
          "a link between routers on different workers has zero latency; conservative "
          "parallel emulation needs link.wire_ns > 0 (or run.workers: 1)";
      return false;
    }
  } else {
    win = 1000 * kPsPerNs;  // one worker: windows only pace progress and termination
  }
  *window = win;
  return true;
}

}  // namespace fabemu
