// Spec loading, bad input: one test per class of mistake, each checking the
// field, line and column the error names.
#include <gtest/gtest.h>

#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

// ---- Bad input, one class at a time -----------------------------------------

TEST(SpecErrors, UnknownKeysListTheKnownOnes) {
  SpecError e = error_of("traffic:\n  load: 0.3\n  lod: 0.3\n");
  expect_at(e, "traffic.lod", 3, 3);
  EXPECT_NE(e.message().find("known keys in 'traffic': pattern, load"), std::string::npos)
      << e.what();
  EXPECT_NE(e.message().find("did you mean 'load'"), std::string::npos) << e.what();

  e = error_of("topology: {family: torus}\nrouter_model: t3e\n");
  expect_at(e, "router_model", 2, 1);
  EXPECT_NE(e.message().find("profile, topology, link, router, vcs, routing"), std::string::npos)
      << e.what();

  e = error_of("traffic:\n  sizes: [{bytes: 8, wieght: 2}]\n");
  EXPECT_EQ(e.field(), "traffic.sizes[0].wieght");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 22);
}

TEST(SpecErrors, KeyGivenTwice) {
  const SpecError e = error_of("run:\n  seed: 1\n  seed: 2\n");
  expect_at(e, "run.seed", 3, 3);
  EXPECT_NE(e.message().find("first at line 2"), std::string::npos) << e.what();
}

TEST(SpecErrors, WrongTypes) {
  SpecError e = error_of("topology:\n  dims: 8\n");
  expect_at(e, "topology.dims", 2, 9);
  EXPECT_NE(e.message().find("expected three sizes"), std::string::npos) << e.what();

  e = error_of("traffic:\n  load: high\n");
  expect_at(e, "traffic.load", 2, 9);
  EXPECT_NE(e.message().find("expected a number, got 'high'"), std::string::npos) << e.what();

  e = error_of("link:\n  lanes: 2.5\n");
  expect_at(e, "link.lanes", 2, 10);
  EXPECT_NE(e.message().find("expected an integer"), std::string::npos) << e.what();

  e = error_of("link:\n  lanes: \"3\"\n");
  expect_at(e, "link.lanes", 2, 10);
  EXPECT_NE(e.message().find("remove the quotes"), std::string::npos) << e.what();

  e = error_of("run:\n  check_invariants: 3\n");
  expect_at(e, "run.check_invariants", 2, 21);

  e = error_of("run:\n  seed: -1\n");
  expect_at(e, "run.seed", 2, 9);

  e = error_of("traffic:\n  load:\n");
  EXPECT_EQ(e.field(), "traffic.load");
  EXPECT_NE(e.message().find("got nothing"), std::string::npos) << e.what();

  e = error_of("topology: torus\n");
  expect_at(e, "topology", 1, 11);
  EXPECT_NE(e.message().find("is a section"), std::string::npos) << e.what();

  e = error_of("- 1\n- 2\n");
  EXPECT_NE(e.message().find("a spec is a YAML map"), std::string::npos) << e.what();
}

TEST(SpecErrors, RatesLatenciesSizesAndLoadsMustBePositive) {
  struct Case {
    const char* yaml;
    const char* field;
    int line, column;
  };
  const Case cases[] = {
      {"link:\n  lane_gbps: 0\n", "link.lane_gbps", 2, 14},
      {"link:\n  lane_gbps: -6.25\n", "link.lane_gbps", 2, 14},
      {"link:\n  wire_ns: -1\n", "link.wire_ns", 2, 12},
      {"link:\n  coding: 1.25\n", "link.coding", 2, 11},
      {"router:\n  straight_ns: 0\n", "router.straight_ns", 2, 16},
      {"vcs:\n  buffer_units: 0\n", "vcs.buffer_units", 2, 17},
      {"packet:\n  max_units: -3\n", "packet.max_units", 2, 14},
      {"traffic:\n  load: 0\n", "traffic.load", 2, 9},
      {"traffic:\n  load: 1.01\n", "traffic.load", 2, 9},
      {"traffic:\n  sizes: [64, 0]\n", "traffic.sizes[1]", 2, 15},
      {"traffic:\n  sizes: []\n", "traffic.sizes", 2, 10},
      {"traffic:\n  sizes: [70000]\n", "traffic.sizes[0]", 2, 11},
      {"run:\n  measure_ns: 0\n", "run.measure_ns", 2, 15},
      {"run:\n  workers: 0\n", "run.workers", 2, 12},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    expect_at(error_of(c.yaml), c.field, c.line, c.column);
  }
}

TEST(SpecErrors, TorusDimensions) {
  // A dimension of 1 has no links: a 2D torus (BookSim's k-ary 2-cube).
  EXPECT_EQ(load("topology:\n  dims: [4, 1, 4]\n").topology.dims[1], 1);
  SpecError e = error_of("topology:\n  dims: [8, 0, 8]\n");
  expect_at(e, "topology.dims[1]", 2, 13);
  EXPECT_NE(e.message().find("at least 1 router"), std::string::npos) << e.what();

  e = error_of("topology:\n  dims: [8, 8]\n");
  expect_at(e, "topology.dims", 2, 9);
  EXPECT_NE(e.message().find("give three"), std::string::npos) << e.what();

  EXPECT_EQ(load("topology: {dims: [2, 2, 2]}\n").topology.dims[2], 2);
}

TEST(SpecErrors, VirtualChannelsBoundedByTheRoutingAlgorithm) {
  // direction_order: 4 dateline VCs (request/response pairs) + 1 adaptive.
  SpecError e = error_of("vcs:\n  count: 6\n");
  expect_at(e, "vcs.count", 2, 10);
  EXPECT_NE(e.message().find("at most 5"), std::string::npos) << e.what();

  e = error_of("vcs:\n  count: 3\n");
  expect_at(e, "vcs.count", 2, 10);
  EXPECT_NE(e.message().find("at least 4"), std::string::npos) << e.what();

  e = error_of("profile: yarc\nvcs: {count: 3}\n");
  expect_at(e, "vcs.count", 2, 14);
  EXPECT_NE(e.message().find("at most 2"), std::string::npos) << e.what();

  EXPECT_EQ(load("profile: yarc\nvcs: {count: 1}\n").vcs.count, 1);
}

TEST(SpecErrors, EndpointMappedTwice) {
  const std::string head = "topology: {family: torus, dims: [2, 2, 2]}\nendpoints:\n";
  SpecError e = error_of(head +
                         "  - {id: 0, router: 0, port: 6}\n"
                         "  - {id: 0, router: 1, port: 6}\n");
  expect_at(e, "endpoints[1].id", 4, 10);
  EXPECT_NE(e.message().find("endpoint 0 is mapped twice (also entry 0 at line 3)"),
            std::string::npos)
      << e.what();

  e = error_of(head +
               "  - {id: 0, router: 3, port: 6}\n"
               "  - {id: 1, router: 3, port: 6}\n");
  expect_at(e, "endpoints[1]", 4, 5);
  EXPECT_NE(e.message().find("router 3 port 6 already hosts endpoint 0"), std::string::npos)
      << e.what();

  e = error_of(head + "  - {id: 0, router: 0}\n");
  expect_at(e, "endpoints[0]", 3, 5);
  EXPECT_NE(e.message().find("no 'port'"), std::string::npos) << e.what();

  e = error_of(head + "  - {id: 8, router: 0, port: 6}\n");
  expect_at(e, "endpoints[0]", 3, 5);
  EXPECT_NE(e.message().find("endpoints 0 to 7"), std::string::npos) << e.what();

  e = error_of(head + "  - {id: 0, router: 0, port: 0}\n");
  expect_at(e, "endpoints[0]", 3, 5);
  EXPECT_NE(e.message().find("is a link to router"), std::string::npos) << e.what();

  const Spec s = load(head + "  - {id: 0, router: 0, port: 6}\n  - {id: 1, router: 1, port: 6}\n");
  ASSERT_EQ(s.endpoint_map.size(), 2u);
  EXPECT_EQ(s.endpoint_map[1].router, 1);
  EXPECT_EQ(s.endpoint_map[1].port, 6);
}

TEST(SpecErrors, RoutingMustExistForTheFamily) {
  SpecError e = error_of("routing: minimal\n");
  expect_at(e, "routing", 1, 10);
  EXPECT_NE(e.message().find("set routing to one of adaptive, dim_order, dimension_order, direction_order"),
            std::string::npos)
      << e.what();

  // The routing is the t3e default, the family the user's: blame the family.
  e = error_of("topology:\n  family: clos\n");
  expect_at(e, "topology.family", 2, 11);
  EXPECT_NE(e.message().find("updown"), std::string::npos) << e.what();
}

TEST(SpecErrors, UnknownFamilyPatternProfile) {
  SpecError e = error_of("topology:\n  family: dragonfly\n");
  expect_at(e, "topology.family", 2, 11);
  EXPECT_NE(
      e.message().find("known families: butterfly, clos, fat_hypercube, flatfly, hypercube, mesh3d, torus"),
      std::string::npos)
      << e.what();

  e = error_of("traffic:\n  pattern: butterfly\n");
  expect_at(e, "traffic.pattern", 2, 12);
  EXPECT_NE(e.message().find("uniform, transpose"), std::string::npos) << e.what();

  e = error_of("profile: cray-1\n");
  expect_at(e, "profile", 1, 10);
  EXPECT_NE(e.message().find("t3e, yarc, flatfly, spider, mesh3d, custom"), std::string::npos) << e.what();

  e = error_of("topology: {dims: [4, 8, 4]}\ntraffic: {pattern: transpose}\n");
  EXPECT_EQ(e.field(), "traffic.pattern");
  EXPECT_NE(e.message().find("square"), std::string::npos) << e.what();
}

TEST(SpecErrors, ClosRankAndEndpoints) {
  SpecError e = error_of("profile: yarc\ntopology:\n  rank: 4\n");
  expect_at(e, "topology.rank", 3, 9);
  EXPECT_NE(e.message().find("give 1, 1.5, 2, 2.5 or 3"), std::string::npos) << e.what();

  e = error_of("profile: yarc\ntopology:\n  endpoints: 33\n");
  expect_at(e, "topology.endpoints", 3, 14);
  EXPECT_NE(e.message().find("rank-1 clos has 1 to 32 endpoints"), std::string::npos) << e.what();

  e = error_of("profile: yarc\ntopology:\n  rank: 2\n  endpoints: 32\n");
  expect_at(e, "topology.endpoints", 4, 14);

  e = error_of("profile: yarc\ntopology:\n  rank: 2\n  endpoints: 1025\n");
  expect_at(e, "topology.endpoints", 4, 14);

  // Only the rank given: the endpoints default (32) no longer fits; blame the rank.
  e = error_of("profile: yarc\ntopology:\n  rank: 2\n");
  expect_at(e, "topology.rank", 3, 9);

  EXPECT_EQ(load("profile: yarc\ntopology: {rank: 2, endpoints: 33}\n").topology.endpoints, 33);
}

TEST(SpecErrors, PacketsThatDoNotFit) {
  SpecError e = error_of("packet:\n  header_units: 10\n");
  expect_at(e, "packet.header_units", 2, 17);
  EXPECT_NE(e.message().find("no room for payload"), std::string::npos) << e.what();

  e = error_of("packet:\n  max_units: 16\n");  // t3e VC buffers hold 12 flits
  expect_at(e, "packet.max_units", 2, 14);
  EXPECT_NE(e.message().find("does not fit the 12-unit VC buffer"), std::string::npos) << e.what();

  e = error_of("vcs:\n  adaptive_buffer_units: 8\n");
  expect_at(e, "vcs.adaptive_buffer_units", 2, 26);

  e = error_of("traffic:\n  batch_size: 4\n");
  expect_at(e, "traffic.batch_size", 2, 15);
  EXPECT_NE(e.message().find("process: batch"), std::string::npos) << e.what();
}

TEST(SpecErrors, SyntaxAndMissingFile) {
  SpecError e = error_of("traffic:\n  sizes: [64, 128\n");
  EXPECT_TRUE(e.field().empty());
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.message().find("YAML syntax error"), std::string::npos) << e.what();

  try {
    load_spec("/nonexistent/fabric.yaml", {});
    FAIL() << "loaded a missing file";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.file(), "/nonexistent/fabric.yaml");
    EXPECT_NE(err.message().find("check the path"), std::string::npos) << err.what();
  }
}

TEST(SpecErrors, MessageFormat) {
  const SpecError e = error_of("traffic:\n  load: 2\n");
  EXPECT_EQ(std::string(e.what()).rfind("t.yaml:2:9: field 'traffic.load': got 2, but it must be "
                                        "0 or from 1e-06 to 1",
                                        0),
            0u)
      << e.what();
}

}  // namespace
}  // namespace fabemu
