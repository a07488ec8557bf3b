// The name registries the spec reads its allowed values and help from
// (control/topology/router_models.h).
#include "control/topology/registry.h"

#include <gtest/gtest.h>

#include "control/topology/router_models.h"

namespace fabemu {
namespace {

TEST(RouterModelRegistry, NamesBaselineFirst) {
  EXPECT_EQ(router_models().names(),
            (std::vector<std::string>{"input_queued", "mesh3d", "output_queued_ideal", "spider",
                                      "yarc_tiled"}));
  EXPECT_EQ(router_models().baseline().name, "input_queued");
  EXPECT_EQ(switch_allocators().names(),
            (std::vector<std::string>{"per_output", "islip", "separable_input_first"}));
  EXPECT_EQ(arbiters().names(), (std::vector<std::string>{"round_robin", "age", "islip", "matrix",
                                                          "separable_input_first"}));
}

TEST(RouterModelRegistry, AvailabilityFollowsTheRoutingsEngines) {
  const RoutingInfo* updown = Registry::get().routing("clos", "updown");
  const RoutingInfo* dor = Registry::get().routing("torus", "direction_order");
  ASSERT_TRUE(updown && dor);
  const RouterModelInfo* tiled = router_models().find("yarc_tiled");
  ASSERT_TRUE(tiled && tiled->available);
  EXPECT_TRUE(tiled->available(*updown));
  EXPECT_FALSE(tiled->available(*dor));
  // The baseline too follows the engines (every routing lists it).
  const RouterModelInfo* iq = router_models().find("input_queued");
  ASSERT_TRUE(iq->available);
  for (const RoutingInfo* r : {updown, dor}) EXPECT_TRUE(iq->available(*r));
  RoutingInfo without_iq = *dor;
  without_iq.router_models = {"output_queued_ideal"};
  EXPECT_FALSE(iq->available(without_iq));
  const SwitchAllocatorInfo* islip = switch_allocators().find("islip");
  EXPECT_FALSE(islip->available(*dor));
  EXPECT_TRUE(switch_allocators().find("per_output")->own_keys.empty());
}

}  // namespace
}  // namespace fabemu
