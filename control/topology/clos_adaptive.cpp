// Registers routing "adaptive" for the clos family: every packet goes up on
// the uplink with the shortest queue, down deterministically
// (dataplane/routing/yarc_adaptive.h), with the sequential allocator the
// flattened butterfly paper gives its folded Clos (Table 1) unless
// router.allocator says otherwise. Up*/down*: 1 VC is deadlock-free; with
// 2, responses use VC 1.
#include "control/topology/clos.h"
#include "control/topology/routing_registration.h"
#include "dataplane/routing/yarc_adaptive.h"

namespace fabemu {
namespace {

YarcTables program_adaptive(const Spec& spec, const Fabric& fabric) {
  YarcTables t = program_yarc_tables(spec, fabric);
  t.allocator = spec_allocator(spec, Allocator::sequential);
  return t;
}

RoutingInfo adaptive_routing() {
  RoutingInfo r = policy_routing<YarcAdaptive>(
      "clos", "adaptive",
      "adaptive up, deterministic down: every packet takes the uplink with the shortest queue "
      "(credits owed plus routed and not yet sent), sequential allocator (Kim et al. 2007, "
      "Table 1); requests VC 0, responses VC 1 when there are 2",
      2, 1, true, program_adaptive, yarc_table_bytes);
  // The deadlock check follows every uplink a packet may take.
  r.make_choice_tracer = choice_tracer<YarcAdaptive>(program_adaptive);
  r.prove_deadlock_free = prove_clos_updown;
  return r;
}

FABEMU_REGISTER_ROUTING(adaptive_routing());

}  // namespace
}  // namespace fabemu
