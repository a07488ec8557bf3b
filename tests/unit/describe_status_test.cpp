// `fabemu describe` exits 1 when the programmed tables of a healthy fabric
// leave a pair unroutable, or when the channel dependency graph has a cycle
// the routing algorithm promises not to have (docs/commands.md, "Exit
// status"). No valid spec does either with fabemu's own routings: those rows
// guard against a fabemu bug, so they are shown here with routings broken on
// purpose, registered beside the real ones and chosen with --set routing=.
// (tests/system/exit_statuses.sh covers every other status of the table.)
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "control/cli/commands.h"
#include "control/topology/registry.h"

namespace fabemu {
namespace {

const std::string kTorus = std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml";

// The T3E direction-order tracer with `change` applied to each route.
template <class Change>
RoutingInfo broken_direction_order(const std::string& name, bool deadlock_free, Change change) {
  RoutingInfo r = *Registry::get().routing("torus", "direction_order");
  r.name = name;
  r.deadlock_free = deadlock_free;
  r.make_path_tracer = nullptr;  // describe traces through make_tracer then
  r.make_choice_tracer = nullptr;
  r.prove_deadlock_free = nullptr;
  r.make_tracer = [real = r.make_tracer, change](const Spec& spec, const Fabric& f) {
    return [trace = real(spec, f), change](const PacketMeta& m) {
      std::vector<HopTrace> path = trace(m);
      change(m, path);
      return path;
    };
  };
  return r;
}

void add_once(const RoutingInfo& r) {
  if (!Registry::get().routing(r.family, r.name)) Registry::get().add_routing(r);
}

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome describe(const std::string& routing) {
  std::ostringstream out, err;
  DescribeOptions opts;
  opts.max_routes = 0;  // exact: every route traced
  // 5x4x4: the X rings of 5 close a VC cycle when the dateline switch is
  // dropped (rings of 4 with balanced ties have none to close).
  const int rc =
      describe_command({kTorus, {"routing=" + routing, "topology.dims=[5, 4, 4]"}}, opts, out, err);
  return {rc, out.str(), err.str()};
}

TEST(DescribeStatus, UnroutablePairsInAHealthyFabricExit1) {
  // Every route to endpoint 5 lost, as a table with a hole would lose it.
  add_once(broken_direction_order("test_status_unroutable", true,
                                  [](const PacketMeta& m, std::vector<HopTrace>& path) {
                                    if (m.dst == 5) path.clear();
                                  }));
  const Outcome o = describe("test_status_unroutable");
  EXPECT_EQ(o.rc, 1) << o.err;
  EXPECT_NE(o.out.find("unroutable (first: 0 -> 5 (request))"), std::string::npos) << o.out;
}

// The dateline VC switch dropped: each torus ring's dependencies close on
// one VC.
void no_dateline(const PacketMeta&, std::vector<HopTrace>& path) {
  for (HopTrace& h : path) h.in_vc &= ~1u, h.out_vc &= ~1u;
}

TEST(DescribeStatus, ACycleTheRoutingPromisesNotToHaveExits1) {
  add_once(broken_direction_order("test_status_cycle", true, no_dateline));
  const Outcome o = describe("test_status_cycle");
  EXPECT_EQ(o.rc, 1) << o.err;
  EXPECT_NE(o.out.find("CYCLE"), std::string::npos) << o.out;
}

TEST(DescribeStatus, ACycleTheRoutingDoesNotPromiseAgainstExits0) {
  add_once(broken_direction_order("test_status_cycle_allowed", false, no_dateline));
  const Outcome o = describe("test_status_cycle_allowed");
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("CYCLE"), std::string::npos) << o.out;  // shown, not a failure
}

TEST(DescribeStatus, TheRealRoutingExits0) {
  const Outcome o = describe("direction_order");
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("0 unroutable"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace fabemu
