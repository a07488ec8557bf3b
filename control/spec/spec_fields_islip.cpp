// The spec keys of the cycle-synchronous input-queued router
// (router.switch_allocator islip or separable_input_first;
// dataplane/router/input_queued_islip.h): its allocators, flow control and
// BookSim2's pipeline delays. Part of the field table (spec_fields.cpp).
#include "control/spec/spec_fields.h"

#include "control/topology/router_models.h"

namespace fabemu {
namespace spec_detail {

// clang-format off
std::vector<Field> islip_router_fields() {
  static const std::string switch_allocator_help =
      "how the input-queued router's switch is allocated: " + choices_help(switch_allocators());
  static const std::string switch_allocator_source = choices_source(switch_allocators());
  return {
    // Values, help and source from the switch allocators' registrations.
    {"router.switch_allocator", "string", "", switch_allocator_source.c_str(),
     switch_allocator_help.c_str(),
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.switch_allocator = c.one_of(n, switch_allocators().names()); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.islip_iterations", "int", "", "BookSim2 alloc_iters (1 in its default router)",
     "router.switch_allocator islip: iSLIP iterations per cycle (the grant and accept pointers move in the first only); 1..8",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.islip_iterations = static_cast<int>(c.integer(n, 1, 8)); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.flow_control", "string", "", "BookSim2 packet_size > 1 (its iq router is wormhole); Dally & Towles 13.2",
     "router.switch_allocator islip: virtual_cut_through (a packet crosses a hop whole, with credits for all of it) or wormhole (the packets of a message are the flits of one worm: its head is allocated an output VC, which it holds until its tail has crossed; every other flit follows on that VC, a flit per cycle as credits allow)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.flow_control = c.one_of(n, {"virtual_cut_through", "wormhole"}); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.wait_for_tail_credit", "bool", "", "fabemu default: false; BookSim2 wait_for_tail_credit (0 in its defaults)",
     "router.switch_allocator islip or separable_input_first: false (an output VC is free for the next packet once the last one's tail has crossed the switch) or true (only once every credit of the last one has come back, its tail gone from the next router's buffer, as BookSim2's wait_for_tail_credit = 1)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.wait_for_tail_credit = c.boolean(n); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.hold_switch_for_packet", "bool", "", "fabemu default: false; BookSim2 hold_switch_for_packet (0 in its defaults)",
     "router.switch_allocator islip or separable_input_first with router.flow_control wormhole: false (each flit of a worm asks for the switch) or true (a worm's flit that crosses keeps its switch input and output, as BookSim2's hold_switch_for_packet = 1: the next flit, if it waits behind and has credits, crosses in the next cycle with no allocation, and no other request takes that input or output meanwhile; the hold ends with the tail, a flit not yet there, or credits short)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.hold_switch_for_packet = c.boolean(n); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.vc_allocator", "string", "", "fabemu default: islip; BookSim2 vc_allocator (islip, separable_output_first, separable_input_first)",
     "router.switch_allocator islip or separable_input_first: islip (each free output VC grants one head, each head granted accepts one: one iSLIP iteration, as BookSim2's islip and separable_output_first VC allocators) or separable_input_first (each head picks one free output VC it may take, round robin from its pointer, then each output VC one of the heads that picked it, as BookSim2's separable_input_first)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.vc_allocator = c.one_of(n, {"islip", "separable_input_first"}); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.routing_cycles", "int", "cycles", "fabemu default: 0; BookSim2 routing_delay (1 in its defaults; 0 is its lookahead routing)",
     "router.switch_allocator islip or separable_input_first: cycles a head spends in the routing stage before it may request an output VC, each time a packet reaches the front of its input VC (a worm's flits behind its head take none); 0..8",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.routing_cycles = static_cast<int>(c.integer(n, 0, 8)); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.vc_alloc_cycles", "int", "cycles", "fabemu default: 1; BookSim2 vc_alloc_delay (1 in its defaults)",
     "router.switch_allocator islip or separable_input_first: cycles of the VC allocation stage: a grant made in a cycle takes the output VC in the last of them (until then the VC still looks free to other heads, whose grants are dropped when it is taken) and the head requests the switch in the next; a head not granted asks again that many cycles later; 1..8",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.vc_alloc_cycles = static_cast<int>(c.integer(n, 1, 8)); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.sw_alloc_cycles", "int", "cycles", "fabemu default: 1; BookSim2 sw_alloc_delay (1 in its defaults)",
     "router.switch_allocator islip or separable_input_first: cycles of the switch allocation stage: a packet matched in a cycle leaves its input buffer (its credits go back) in the last of them, while the switch takes other matches meanwhile; a head not matched asks again that many cycles later; 1..8",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.sw_alloc_cycles = static_cast<int>(c.integer(n, 1, 8)); }, "flatfly, torus, hypercube, butterfly, clos"},
    {"router.crossbar_cycles", "int", "cycles", "fabemu default: 1; BookSim2 st_prepare_delay + st_final_delay (0 + 1 in its defaults)",
     "router.switch_allocator islip or separable_input_first: cycles of the switch traversal after a packet has left its input buffer (its credits gone back): as BookSim2's crossbar, the packets waiting go through in batches, each once the batch ahead is through, then leave each output one a cycle; 1..8",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.crossbar_cycles = static_cast<int>(c.integer(n, 1, 8)); }, "flatfly, torus, hypercube, butterfly, clos"},
  };
}
// clang-format on

}  // namespace spec_detail
}  // namespace fabemu
