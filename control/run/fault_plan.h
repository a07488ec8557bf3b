// A spec's faults (control/spec/faults.h) resolved against its fabric: for
// each fault in time order, the fabric as it is afterwards (dead ports and
// routers marked, for the routing tables programmed around them) and the
// per-port changes the engine applies (dataplane/engine/engine_base.h,
// FabricFault). The same serves the control socket's faults while a run
// goes on (FaultState) and `fabemu describe` of a degraded fabric.
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "control/spec/faults.h"
#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/engine/engine_base.h"

namespace fabemu {

// Which links and routers are down, and the fabric marked accordingly.
class FaultState {
 public:
  explicit FaultState(const Fabric& healthy) : fabric_(healthy) {}
  // Applies fault f: the port changes the engine must make (at f.at), in
  // *changes. False, with *why (what is wrong and what to do), when f names
  // no router, no router-to-router link, no such lane of it, or a BER
  // without link-level retry. A link whose lanes are all down is dead.
  bool apply(const FaultSpec& f, bool retry_on, std::vector<FabricFault>* changes,
             std::string* why);
  const Fabric& fabric() const { return fabric_; }
  int dead_links() const;    // router-to-router links down (each counted once)
  int dead_routers() const;
  // The dead links by their lower end ("r0:p33"; those a fault set down and
  // those of dead routers, as dead_links counts them), and the dead routers
  // ("status" on the control socket).
  std::vector<std::string> dead_link_names() const;
  std::vector<int32_t> dead_router_ids() const;

 private:
  bool lane_exists(const FaultSpec& f, std::string* why) const;
  Fabric fabric_;
  std::set<std::pair<int32_t, int>> links_down_;  // (router, port) of the lower end
  std::map<std::pair<int32_t, int>, uint64_t> lanes_down_;  // the same: its lanes down
  std::set<int32_t> routers_down_;
};

// Whether the changes kill or revive a port (the routing tables must then
// be programmed anew), rather than only change a link's bit error rate.
bool changes_routing(const std::vector<FabricFault>& changes);

struct FaultPlan {
  struct Step {
    FaultSpec fault;
    std::vector<FabricFault> changes;
    Fabric fabric;         // after this fault
    bool routing = false;  // the fault changed which links are dead: tables change
    int dead_links = 0, dead_routers = 0;  // after this fault (FaultState's counts)
  };
  std::vector<Step> steps;  // in time order (stable for equal times)
  bool empty() const { return steps.empty(); }
};

// Refuses (SpecError at the `faults` key) a fault the fabric does not have.
FaultPlan plan_faults(const Spec& spec, const Fabric& fabric);

}  // namespace fabemu
