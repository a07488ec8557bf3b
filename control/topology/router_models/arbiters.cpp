// The arbiters of dataplane/router/arbiter/, by name: what each router model
// may build its allocation of, with where it comes from.
#include "control/topology/router_models.h"

namespace fabemu {

FABEMU_REGISTER_NAMED(ArbiterInfo) {
  i.name = "round_robin";
  i.summary =
      "the first requester at or after a rotating pointer wins; a refused one keeps "
      "its place";
  i.reference = "Dally & Towles, Principles and Practices of Interconnection Networks, 18.4";
  i.header = "dataplane/router/arbiter/round_robin.h";
  i.baseline = true;
}

FABEMU_REGISTER_NAMED(ArbiterInfo) {
  i.name = "matrix";
  i.summary = "a triangle of priority bits: the least recently granted requester wins";
  i.reference = "Dally & Towles, 18.5; YARC's ties between output columns, [BW] §5.1";
  i.header = "dataplane/router/arbiter/matrix.h";
}

FABEMU_REGISTER_NAMED(ArbiterInfo) {
  i.name = "islip";
  i.summary =
      "input ports matched to output ports by request, grant and accept, pointers "
      "moved in the first iteration only";
  i.reference = "McKeown, IEEE/ACM ToN 1999; Dally & Towles, 19.3";
  i.header = "dataplane/router/arbiter/islip.h";
}

FABEMU_REGISTER_NAMED(ArbiterInfo) {
  i.name = "separable_input_first";
  i.summary =
      "each input picks one output it requests, then each output one of the inputs that "
      "picked it, round robin; pointers moved for the pairs matched";
  i.reference = "Dally & Towles, 19.3; BookSim2's separable_input_first";
  i.header = "dataplane/router/arbiter/separable.h";
}

FABEMU_REGISTER_NAMED(ArbiterInfo) {
  i.name = "age";
  i.summary =
      "up to one winner per input and output port each cycle, the oldest (8-bit "
      "network age) first, ties broken round robin";
  i.reference =
      "Galles, \"Spider: A High-Speed Network Interconnect\", IEEE Micro 1997 "
      "(crossbar arbitration: up to six winners among 120 candidates)";
  i.header = "dataplane/router/arbiter/age.h";
}

}  // namespace fabemu
