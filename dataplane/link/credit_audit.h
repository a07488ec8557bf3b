// Credit conservation, checked on every link and VC of a run: credits held
// by the sender (in hand and streaming back) + units in flight forward +
// units buffered downstream + credits in flight back (not yet written to the
// sender) = the downstream buffer's size. run.check_invariants checks it at
// every event (one worker) or window edge.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/link/credit_counter.h"

namespace fabemu {

// What the receiving end of a link shows of one VC's buffer: units that
// entered it, are in it, and have left it (and whose credits went back).
struct ReceivedUnits {
  uint64_t in = 0, buffered = 0, out = 0;
};

// The ends of every link, as the run has them (A):
//   const CreditCounter& sender(uint32_t router, uint32_t port, uint32_t vc)
//   const CreditCounter& injector(uint32_t endpoint, uint32_t vc)
//   ReceivedUnits receiver(uint32_t router, uint32_t port, uint32_t vc)
// Returns what does not add up, first found (empty: all do). An endpoint
// sinks at line rate: its credits leave as units are sent.
template <class A>
std::string audit_credits(const Fabric& f, const std::vector<uint32_t>& cap, A& a) {
  using std::to_string;
  const uint32_t nv = static_cast<uint32_t>(cap.size());
  for (uint32_t r = 0; r < f.routers.size(); r++)
    for (uint32_t p = 0; p < f.routers[r].ports.size(); p++) {
      const FabricPort& fp = f.routers[r].ports[p];
      if (!fp.connected()) continue;
      for (uint32_t v = 0; v < nv; v++) {
        const CreditCounter& cc = a.sender(r, p, v);
        const int64_t held = cc.held();
        int64_t fwd = 0, buffered = 0, back = int64_t(cc.taken()) - int64_t(cc.returned());
        if (fp.peer_router >= 0) {
          const ReceivedUnits in = a.receiver(uint32_t(fp.peer_router), uint32_t(fp.peer_port), v);
          fwd = int64_t(cc.taken()) - int64_t(in.in);
          buffered = int64_t(in.buffered);
          back = int64_t(in.out) - int64_t(cc.returned());
        }
        if (held + fwd + buffered + back != int64_t(cap[v]) || fwd < 0 || back < 0)
          return "router " + to_string(r) + " port " + to_string(p) + " VC " + to_string(v) +
                 ": credits " + to_string(held) + " + in flight " + to_string(fwd) +
                 " + buffered " + to_string(buffered) + " + credits returning " + to_string(back) +
                 " != " + to_string(cap[v]);
      }
    }
  for (uint32_t e = 0; e < f.endpoints.size(); e++) {
    const FabricEndpoint& fe = f.endpoints[e];
    for (uint32_t v = 0; v < nv; v++) {
      const CreditCounter& cc = a.injector(e, v);
      const ReceivedUnits in = a.receiver(uint32_t(fe.router), uint32_t(fe.port), v);
      const int64_t total = int64_t(cc.held()) + (int64_t(cc.taken()) - int64_t(in.in)) +
                            int64_t(in.buffered) + (int64_t(in.out) - int64_t(cc.returned()));
      if (total != int64_t(cap[v]))
        return "injection link of endpoint " + to_string(e) + " VC " + to_string(v) +
               ": credits do not add up to " + to_string(cap[v]);
    }
  }
  return {};
}

}  // namespace fabemu
