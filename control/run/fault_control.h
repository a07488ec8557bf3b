// Faults given while a run goes on (the control socket,
// control/run/control_socket.h): each is resolved against the fabric's
// fault state (fault_plan.h), and its port changes and the routing tables
// programmed around it go to the engine as one change
// (EngineBase::change_while_running), so that in virtual time every worker
// takes both at the same window edge, and in real time each worker takes
// them at its next housekeeping pass (about every 10 us of wall time).
#pragma once
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "control/run/fault_plan.h"
#include "control/spec/spec.h"
#include "dataplane/engine/engine_base.h"

namespace fabemu {

struct RoutingInfo;

class FaultController {
 public:
  FaultController(const Spec& spec, const Fabric& fabric, const RoutingInfo& routing,
                  EngineBase& engine)
      : spec_(spec), routing_(routing), engine_(engine), state_(fabric) {}

  // One request line of the control socket in, one reply line out ("ok ..."
  // or "error: ..."). Thread-safe.
  std::string handle(const std::string& request);
  // After the run: each fault given, with the emulated time it took effect.
  nlohmann::json log() const;
  size_t given() const;
  // The faults given so far and the fabric's dead links and routers after
  // them (the progress line).
  struct Counts {
    size_t given = 0;
    int dead_links = 0, dead_routers = 0;
  };
  Counts counts() const;

 private:
  struct Given {
    std::string text;
    size_t first = 0, n = 0;  // its changes among all injected (EngineBase)
    int dead_links = 0, dead_routers = 0;
  };
  std::string status() const;

  const Spec& spec_;
  const RoutingInfo& routing_;
  EngineBase& engine_;
  mutable std::mutex mu_;
  FaultState state_;
  std::vector<Given> given_;
};

// The fault state the progress line shows at an emulated time: the spec's
// faults that took effect by then (the dead links and routers after the
// last), and the control socket's so far.
class FaultProgress {
 public:
  explicit FaultProgress(const FaultPlan& plan) : plan_(plan) {}
  void watch(const FaultController* controller) { controller_ = controller; }
  bool any() const { return !plan_.empty() || controller_; }
  std::string text(ps_t now) const;  // "" when there is nothing to say

 private:
  const FaultPlan& plan_;
  const FaultController* controller_ = nullptr;
};

// The control socket's requests, for `fabemu fault --help` and "help".
inline constexpr const char* kControlRequests =
    "TARGET WHAT (a fault now: link=rR:pP down|up|ber=X, router=R down|up, endpoint=E "
    "stop|start), fault TARGET WHAT "
    "(the same), status (emulated time, dead links and routers), help";

}  // namespace fabemu
