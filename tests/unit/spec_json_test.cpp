// The resolved spec of the JSON report (control/spec/spec_json.h): every key
// of the field table has a writer, the values are the ones the run used
// (profile defaults, the file, then --set), and keys that mean nothing for
// the spec are left out.
#include "control/spec/spec_json.h"

#include <gtest/gtest.h>

#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using spec_test::load;

TEST(SpecJson, EveryKeyOfTheFieldTableHasAWriter) {
  const std::vector<std::string> missing = spec_keys_without_writer();
  std::string names;
  for (const std::string& k : missing) names += k + " ";
  EXPECT_TRUE(missing.empty()) << "add a writer in control/spec/spec_json.cpp for: " << names;
}

TEST(SpecJson, ValuesAreTheDefaultsTheFileAndTheOverrides) {
  const Spec s = load("profile: t3e\ntopology:\n  family: torus\n  dims: [4, 4, 8]\n",
                      {"traffic.load=0.45", "run.seed=7"});
  EXPECT_EQ(s.overrides, (std::vector<std::string>{"traffic.load=0.45", "run.seed=7"}));
  const nlohmann::json r = resolved_spec_json(s);
  EXPECT_EQ(r["profile"], "t3e");
  EXPECT_EQ(r["topology"]["dims"], nlohmann::json({4, 4, 8}));  // the file
  EXPECT_EQ(r["traffic"]["load"], 0.45);                        // --set
  EXPECT_EQ(r["run"]["seed"], 7);
  EXPECT_EQ(r["vcs"]["count"], 5);  // the t3e profile's default
  EXPECT_EQ(r["routing"], "direction_order");
  EXPECT_EQ(r["traffic"]["sizes"], nlohmann::json::parse(R"([{"bytes": 64, "weight": 1.0}])"));
}

TEST(SpecJson, KeysThatMeanNothingForTheSpecAreLeftOut) {
  const nlohmann::json torus = resolved_spec_json(load("topology:\n  family: torus\n"));
  EXPECT_FALSE(torus["topology"].contains("rank"));            // clos only
  EXPECT_FALSE(torus["topology"].contains("k"));               // flatfly, butterfly
  EXPECT_FALSE(torus["router"].contains("islip_iterations"));  // switch allocator islip only
  EXPECT_FALSE(torus["router"].contains("subswitch_degree"));  // router model yarc_tiled only
  EXPECT_FALSE(torus["run"].contains("control_socket"));       // none
  EXPECT_TRUE(torus["topology"].contains("dims"));

  const nlohmann::json clos =
      resolved_spec_json(load("profile: yarc\ntopology:\n  family: clos\n  rank: 1.5\n  "
                              "endpoints: 288\n"));
  EXPECT_EQ(clos["topology"]["rank"], 1.5);
  EXPECT_FALSE(clos["topology"].contains("dims"));
  EXPECT_EQ(clos["router"].contains("subswitch_degree"), clos["router"]["model"] == "yarc_tiled");
}

}  // namespace
}  // namespace fabemu
