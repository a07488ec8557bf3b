// router.switch_allocator: how the input-queued router's switch is
// allocated. per_output is the engine's own (each output's round robin);
// islip and separable_input_first are the cycle-synchronous router of
// dataplane/router/input_queued_islip.h, for the routings that have its
// engine (FABEMU_ENGINES(..., input_queued_islip) beside them).
#include "control/topology/registry.h"
#include "control/topology/router_models.h"

namespace fabemu {

FABEMU_REGISTER_NAMED(SwitchAllocatorInfo) {
  i.name = "per_output";
  i.summary =
      "each output arbitrates round robin among its ready requesters the moment its "
      "link frees";
  i.reference = "fabemu default";
  i.baseline = true;
}

namespace {

// What the allocators of the cycle-synchronous router (input_queued_islip.h)
// share: its engine instance, where it runs and what it needs.
void cycle_allocator(SwitchAllocatorInfo& i) {
  i.available = [](const RoutingInfo& r) { return r.islip; };  // (where: the routings it is for)
  i.limits = "without link.retry";
  const std::string name = i.name;
  i.check = [name](const Spec& s, const WrittenFn& written) {
    if (written("router.output_queue_units"))
      return SpecProblem{
          {"router.output_queue_units", "router.switch_allocator"},
          "router.switch_allocator " + name +
              " queues packets per output, without a bound, as BookSim's router with its "
              "default output_buffer_size: remove router.output_queue_units, or set "
              "router.switch_allocator: per_output"};
    if (s.router.model != "input_queued")
      return SpecProblem{{"router.switch_allocator", "router.model"},
                         "router.switch_allocator " + name +
                             " allocates the input-queued router's switch, but "
                             "router.model is " +
                             s.router.model +
                             ": set router.model: input_queued, or "
                             "router.switch_allocator: per_output"};
    if (s.link.retry)
      return SpecProblem{
          {"link.retry", "router.switch_allocator"},
          "link.retry is not modelled with router.switch_allocator " + name +
              " (a packet excised "
              "after its VC was allocated would keep the VC): remove link.retry, or set "
              "router.switch_allocator: per_output"};
    if (s.router.flow_control == "wormhole" && (!s.faults.empty() || !s.run.control_socket.empty()))
      return SpecProblem{
          {s.faults.empty() ? "run.control_socket" : "faults", "router.flow_control"},
          "faults are not modelled with router.flow_control wormhole (a worm cut by a dead "
          "link would hold its output VCs for ever): remove the faults, or set "
          "router.flow_control: virtual_cut_through"};
    if (s.router.hold_switch_for_packet && s.router.flow_control != "wormhole")
      return SpecProblem{{"router.hold_switch_for_packet", "router.flow_control"},
                         "router.hold_switch_for_packet holds the switch for the flits of a "
                         "worm, but router.flow_control is virtual_cut_through (a packet "
                         "crosses whole): set router.flow_control: wormhole, or remove it"};
    if (s.router.hold_switch_for_packet &&
        (s.router.sw_alloc_cycles > 1 || s.router.forward_progress_ns > 0))
      return SpecProblem{
          {"router.hold_switch_for_packet",
           s.router.sw_alloc_cycles > 1 ? "router.sw_alloc_cycles" : "router.forward_progress_ns"},
          "router.hold_switch_for_packet is modelled with one-cycle switch allocation and no "
          "forward-progress timer: set router.sw_alloc_cycles: 1 and remove "
          "router.forward_progress_ns, or remove router.hold_switch_for_packet"};
    if (s.router.wait_for_tail_credit && (!s.faults.empty() || !s.run.control_socket.empty()))
      return SpecProblem{
          {s.faults.empty() ? "run.control_socket" : "faults", "router.wait_for_tail_credit"},
          "faults are not modelled with router.wait_for_tail_credit (the credits of a dead "
          "link never come back, so its output VCs would never be given again): remove the "
          "faults, or set router.wait_for_tail_credit: false"};
    if ((s.router.vc_alloc_cycles > 1 || s.router.sw_alloc_cycles > 1) &&
        (!s.faults.empty() || !s.run.control_socket.empty() || s.router.forward_progress_ns > 0))
      return SpecProblem{
          {!s.faults.empty()                ? "faults"
           : !s.run.control_socket.empty() ? "run.control_socket"
                                            : "router.forward_progress_ns",
           s.router.vc_alloc_cycles > 1 ? "router.vc_alloc_cycles" : "router.sw_alloc_cycles"},
          "faults and the forward-progress timer are not modelled with allocation stages of more "
          "than one cycle (a grant still in the stage would outlive the packet a dead link or an "
          "expired timer takes, or cross on credits never checked): remove them, or set "
          "router.vc_alloc_cycles and router.sw_alloc_cycles to 1"};
    return SpecProblem{};
  };
}

}  // namespace

FABEMU_REGISTER_NAMED(SwitchAllocatorInfo) {
  i.name = "islip";
  i.summary =
      "cycle-synchronous, in cycles of one longest packet on a router link: each free "
      "output VC grants one ready head and each head granted accepts one (iSLIP's grant "
      "and accept pointers, one iteration); it may cross from the next cycle "
      "and holds the VC until it has; then iSLIP matches input ports to output ports "
      "among the heads that hold their VC and have credits, router.islip_iterations "
      "times (router.input_speedup and output_speedup give each port that many switch "
      "inputs and outputs, as BookSim's); losers try again next cycle. "
      "router.flow_control wormhole moves a "
      "message's packets as the flits of one worm, which holds its output VC until "
      "its tail has crossed";
  i.reference =
      "BookSim2's iq router (vc_allocator = sw_allocator = islip, vc_alloc_delay = "
      "sw_alloc_delay = 1; Dally & Towles, Principles and Practices of "
      "Interconnection Networks, 19.3; McKeown, IEEE/ACM ToN 1999)";
  i.own_keys = {"router.islip_iterations", "router.flow_control",   "router.wait_for_tail_credit",
                "router.hold_switch_for_packet",
                "router.vc_allocator",     "router.routing_cycles", "router.vc_alloc_cycles",
                "router.sw_alloc_cycles",  "router.crossbar_cycles"};
  cycle_allocator(i);
}

FABEMU_REGISTER_NAMED(SwitchAllocatorInfo) {
  i.name = "separable_input_first";
  i.summary =
      "islip's cycle-synchronous router, its switch matched by a separable input-first "
      "allocator: each input picks one output it requests (round robin), then each output "
      "one of the inputs that picked it (round robin), one iteration";
  i.reference =
      "BookSim2's iq router with sw_allocator = separable_input_first (Dally & Towles, "
      "Principles and Practices of Interconnection Networks, 19.3)";
  i.own_keys = {"router.flow_control",    "router.wait_for_tail_credit", "router.vc_allocator",
                "router.hold_switch_for_packet",
                "router.routing_cycles",  "router.vc_alloc_cycles",     "router.sw_alloc_cycles",
                "router.crossbar_cycles"};
  cycle_allocator(i);
}

}  // namespace fabemu
