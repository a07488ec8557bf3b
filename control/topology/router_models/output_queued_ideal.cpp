// router.model output_queued_ideal: dataplane/router/output_queued_ideal.h,
// for the routings that list it in FABEMU_ENGINES beside them.
#include "control/topology/router_models.h"

namespace fabemu {

FABEMU_REGISTER_NAMED(RouterModelInfo) {
  i.name = "output_queued_ideal";
  i.summary =
      "a packet crosses the switch as soon as it is routed and queues at its output, one "
      "FIFO per output VC: no head-of-line blocking, no switch arbitration";
  i.reference =
      "Karol, Hluchyj & Morgan, IEEE Trans. Commun. 1987; Dally & Towles, Principles and "
      "Practices of Interconnection Networks, 17.1";
  i.available = [](const RoutingInfo& r) { return has_router_model(r, "output_queued_ideal"); };
  i.where =
      "output_queued_ideal has engines for torus dimension_order, clos updown and flatfly min "
      "(and hypercube ecube, which routes by flatfly min)";
  i.check = [](const Spec& s, const WrittenFn&) {
    if (SpecProblem p = speedup_problem(
            s, "router.model", "the ideal output-queued router's switch has every speedup already",
            "router.model: input_queued");
        !p.message.empty())
      return p;
    // Its packets wait in its output queues, where the forward-progress
    // timer (which watches an output's requesters) does not see them.
    if (s.router.forward_progress_ns > 0)
      return SpecProblem{{"router.forward_progress_ns", "router.model"},
                         "router.forward_progress_ns is not modelled on the ideal output-queued "
                         "router (its packets wait in output queues the timer does not watch): "
                         "remove it, or set router.model: input_queued"};
    return SpecProblem{};
  };
}

}  // namespace fabemu
