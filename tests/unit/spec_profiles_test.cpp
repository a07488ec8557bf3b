// Spec loading: profile defaults, --set overrides, the shipped topologies and
// the generated reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "control/cli/commands.h"
#include "control/spec/profiles.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

// ---- Profiles ---------------------------------------------------------------

TEST(SpecProfile, T3eDefaultsFromThePaper) {
  const Spec s = load("");  // no profile: t3e
  EXPECT_EQ(s.profile, "t3e");
  EXPECT_EQ(s.topology.family, "torus");
  EXPECT_EQ(s.topology.dims, (std::array<int, 3>{4, 4, 4}));
  EXPECT_EQ(s.topology.endpoints_per_router, 1);
  EXPECT_EQ(s.link.lanes, 14);
  EXPECT_DOUBLE_EQ(s.link.lane_gbps, 0.375);
  EXPECT_DOUBLE_EQ(s.link.coding, 1.0);
  EXPECT_EQ(s.link.phit_bits, 14);
  EXPECT_EQ(s.link.phits_per_unit, 5);
  EXPECT_DOUBLE_EQ(s.link.wire_ns, 5.0);
  EXPECT_DOUBLE_EQ(s.router.straight_ns, 40.0);
  EXPECT_DOUBLE_EQ(s.router.turn_ns, 80.0);
  EXPECT_DOUBLE_EQ(s.router.endpoint_ns, 133.0);
  EXPECT_EQ(s.vcs.count, 5);
  EXPECT_EQ(s.vcs.buffer_units, 12);
  EXPECT_EQ(s.vcs.adaptive_buffer_units, 22);
  EXPECT_EQ(s.routing, "direction_order");
  EXPECT_EQ(s.packet.max_units, 10);
  EXPECT_EQ(s.packet.header_units, 2);
  ASSERT_EQ(s.traffic.sizes.size(), 1u);
  EXPECT_EQ(s.traffic.sizes[0].bytes, 64u);
  EXPECT_TRUE(s.endpoint_map.empty());
  EXPECT_EQ(s.file, "t.yaml");
}

TEST(SpecProfile, RealtimeDefaults) {
  for (const char* yaml : {"", "profile: yarc\n"}) {
    SCOPED_TRACE(yaml);
    const Spec s = load(yaml);
    EXPECT_EQ(s.run.mode, "virtual");
    EXPECT_DOUBLE_EQ(s.run.time_scale, 1.0);
    EXPECT_DOUBLE_EQ(s.run.duration_s, 0.0);
    EXPECT_DOUBLE_EQ(s.run.lateness_bound_ns, 1000.0);
    EXPECT_DOUBLE_EQ(s.run.mac_aging_s, 300.0);
    EXPECT_TRUE(s.run.eal.empty());
    EXPECT_TRUE(s.ports.empty());
  }
}

TEST(SpecProfile, YarcDefaultsFromThePaper) {
  const Spec s = load("profile: yarc\n");
  EXPECT_EQ(s.profile, "yarc");
  EXPECT_EQ(s.topology.family, "clos");
  EXPECT_EQ(s.topology.rank, 1);
  EXPECT_EQ(s.topology.endpoints, 32);
  EXPECT_EQ(s.link.lanes, 3);
  EXPECT_DOUBLE_EQ(s.link.lane_gbps, 6.25);
  EXPECT_DOUBLE_EQ(s.link.coding, 0.8);
  EXPECT_EQ(s.link.phit_bits, 24);
  EXPECT_EQ(s.link.phits_per_unit, 1);
  EXPECT_DOUBLE_EQ(s.link.wire_ns, 10.0);
  EXPECT_DOUBLE_EQ(s.router.latency_ns, 31.25);
  EXPECT_EQ(s.router.radix, 64);
  EXPECT_EQ(s.vcs.count, 2);
  EXPECT_EQ(s.vcs.buffer_units, 256);
  EXPECT_EQ(s.routing, "updown");
  // A 32-byte write: 6 header + 12 data + 1 EOP = 19 phits.
  EXPECT_EQ(s.packet.max_units, 19);
  EXPECT_EQ(s.packet.header_units, 6);
  ASSERT_EQ(s.traffic.sizes.size(), 1u);
  EXPECT_EQ(s.traffic.sizes[0].bytes, 32u);
}

TEST(SpecProfile, CustomNeedsAFamily) {
  // custom has no topology: the error points at the profile line.
  const SpecError e = error_of("profile: custom\n");
  expect_at(e, "profile", 1, 10);
  EXPECT_NE(e.message().find("topology.family"), std::string::npos) << e.what();

  const Spec s = load("profile: custom\ntopology: {family: torus, dims: [2, 3, 4]}\n");
  EXPECT_EQ(s.profile, "custom");
  EXPECT_EQ(s.topology.dims, (std::array<int, 3>{2, 3, 4}));
  EXPECT_EQ(s.vcs.count, 5);  // t3e numbers otherwise
}

TEST(SpecProfile, FileOverridesProfile) {
  const Spec s = load(
      "profile: yarc\n"
      "topology: {rank: 2, endpoints: 1024}\n"
      "traffic:\n"
      "  load: 1.0\n"
      "  sizes: [{bytes: 8, weight: 3}, 64]\n");
  EXPECT_EQ(s.topology.rank, 2);
  EXPECT_EQ(s.topology.endpoints, 1024);
  EXPECT_DOUBLE_EQ(s.traffic.load, 1.0);  // the upper end is allowed
  ASSERT_EQ(s.traffic.sizes.size(), 2u);
  EXPECT_EQ(s.traffic.sizes[0].bytes, 8u);
  EXPECT_DOUBLE_EQ(s.traffic.sizes[0].weight, 3.0);
  EXPECT_EQ(s.traffic.sizes[1].bytes, 64u);
  EXPECT_DOUBLE_EQ(s.traffic.sizes[1].weight, 1.0);
  EXPECT_EQ(s.link.lanes, 3);  // untouched keys keep the profile's value
}

TEST(SpecProfile, DefaultsHelperMatchesLoadedSpec) {
  const Spec d = profile_defaults("yarc");
  EXPECT_EQ(d.vcs.buffer_units, 256);
  EXPECT_TRUE(profile_defaults("custom").topology.family.empty());
  EXPECT_THROW(profile_defaults("cray-1"), SpecError);
  EXPECT_NE(find_profile("t3e"), nullptr);
  EXPECT_NE(find_profile("flatfly"), nullptr);
  EXPECT_NE(find_profile("spider"), nullptr);
  EXPECT_NE(find_profile("mesh3d"), nullptr);
  EXPECT_EQ(profile_defaults("mesh3d").topology.dims, (std::array<int, 3>{27, 16, 24}));
}

// ---- --set ------------------------------------------------------------------

TEST(SpecSet, OverridesByDottedPath) {
  const Spec s =
      load("traffic: {load: 0.1}\n", {"traffic.load=0.3", "topology.dims=[8,8,8]", "run.seed=7",
                                      "traffic.sizes=[8, 64]", "run.check_invariants=true"});
  EXPECT_DOUBLE_EQ(s.traffic.load, 0.3);
  EXPECT_EQ(s.topology.dims, (std::array<int, 3>{8, 8, 8}));
  EXPECT_EQ(s.run.seed, 7u);
  ASSERT_EQ(s.traffic.sizes.size(), 2u);
  EXPECT_TRUE(s.run.check_invariants);
}

TEST(SpecSet, AppliedInOrderAfterTheFile) {
  const Spec s = load("run: {seed: 3}\n", {"run.seed=4", "run.seed=5"});
  EXPECT_EQ(s.run.seed, 5u);
}

TEST(SpecSet, ProfileAndWholeSections) {
  // A --set profile replaces the file's before any other value applies.
  const Spec s = load("profile: t3e\n", {"profile=yarc", "topology={rank: 2, endpoints: 64}"});
  EXPECT_EQ(s.profile, "yarc");
  EXPECT_EQ(s.topology.family, "clos");
  EXPECT_EQ(s.topology.endpoints, 64);
  EXPECT_EQ(s.vcs.count, 2);
}

TEST(SpecSet, ErrorsNameTheSetArgument) {
  SpecError e = error_of("", {"traffic.load=2"});
  EXPECT_EQ(e.set_arg(), "traffic.load=2");
  EXPECT_EQ(e.field(), "traffic.load");
  EXPECT_EQ(e.line(), 0);
  EXPECT_NE(std::string(e.what()).find("--set 'traffic.load=2'"), std::string::npos) << e.what();

  e = error_of("", {"traffic.lod=0.2"});
  EXPECT_EQ(e.field(), "traffic.lod");
  EXPECT_NE(e.message().find("did you mean 'load'"), std::string::npos) << e.what();

  e = error_of("", {"trafic.load=0.2"});
  EXPECT_EQ(e.field(), "trafic.load");
  EXPECT_NE(e.message().find("known keys at the top level"), std::string::npos) << e.what();

  e = error_of("", {"traffic.sizes.bytes=8"});
  EXPECT_EQ(e.field(), "traffic.sizes.bytes");
  EXPECT_NE(e.message().find("'traffic.sizes' is a single value"), std::string::npos) << e.what();

  e = error_of("", {"traffic.shape.alpha=1"});
  EXPECT_NE(e.message().find("unknown key 'shape' in 'traffic'"), std::string::npos) << e.what();

  e = error_of("", {"traffic.load"});
  EXPECT_EQ(e.set_arg(), "traffic.load");
  EXPECT_NE(e.message().find("KEY=VALUE"), std::string::npos) << e.what();

  e = error_of("", {"topology.dims=[8,8"});
  EXPECT_EQ(e.field(), "topology.dims");
  EXPECT_NE(e.message().find("not valid YAML"), std::string::npos) << e.what();

  // A cross-field problem caused by a --set is blamed on that --set.
  e = error_of("", {"vcs.count=2"});
  EXPECT_EQ(e.field(), "vcs.count");
  EXPECT_EQ(e.set_arg(), "vcs.count=2");
}

TEST(SpecSet, PortsAndEalAsWholeLists) {
  const Spec s =
      load("", {"run.mode=realtime", "ports=[{name: h0, device: \"net_ring0\", endpoint: 0}]",
                "run.eal=[\"--vdev=net_null0\"]"});
  ASSERT_EQ(s.ports.size(), 1u);
  EXPECT_EQ(s.ports[0].name, "h0");
  EXPECT_EQ(s.ports[0].device, "net_ring0");
  EXPECT_EQ(s.ports[0].endpoint, 0);
  EXPECT_EQ(s.ports[0].vlan, 0);
  EXPECT_EQ(s.ports[0].queue_frames, 64);
  EXPECT_EQ(s.run.eal, std::vector<std::string>{"--vdev=net_null0"});

  // A --set replaces the file's list whole.
  const Spec r = load(
      "run: {mode: realtime}\n"
      "ports:\n"
      "  - {device: a, endpoint: 0}\n"
      "  - {device: b, endpoint: 1}\n",
      {"ports=[{device: c, endpoint: 2}]"});
  ASSERT_EQ(r.ports.size(), 1u);
  EXPECT_EQ(r.ports[0].device, "c");
  EXPECT_EQ(r.ports[0].name, "port0");

  // Errors in a --set list name the --set.
  SpecError e = error_of("", {"run.mode=realtime", "ports=[{device: a, endpoint: 0, vlan: 5000}]"});
  EXPECT_EQ(e.field(), "ports[0].vlan");
  EXPECT_EQ(e.set_arg(), "ports=[{device: a, endpoint: 0, vlan: 5000}]");
  e = error_of("", {"ports=[{device: a, endpoint: 0}]"});
  EXPECT_EQ(e.field(), "ports[0].device");
  EXPECT_EQ(e.set_arg(), "ports=[{device: a, endpoint: 0}]");
  expect_says(e, "set run.mode: realtime");
  e = error_of("", {"run.eal=--vdev=net_null0"});
  EXPECT_EQ(e.field(), "run.eal");
  expect_says(e, "expected a list of EAL arguments");
}

TEST(SpecCli, EalArgumentsSplitOnWhiteSpace) {
  EXPECT_EQ(split_eal_args({"--vdev=net_null0 --no-huge", "  -l\t0-1 ", ""}),
            (std::vector<std::string>{"--vdev=net_null0", "--no-huge", "-l", "0-1"}));
  EXPECT_TRUE(split_eal_args({}).empty());
}

// ---- The shipped files and the reference -------------------------------------

TEST(SpecFiles, EveryTopologyLoads) {
  int n = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(FABEMU_SOURCE_DIR) + "/topologies")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(load_spec(entry.path().string(), {}));
    ++n;
  }
  EXPECT_GE(n, 5);
  const Spec s = load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-8x16x8.yaml", {});
  EXPECT_EQ(s.topology.dims, (std::array<int, 3>{8, 16, 8}));
}

TEST(SpecReference, CoversEveryKeyAndMatchesItsDocsPage) {
  const std::string md = spec_reference_markdown();
  for (const auto& f : spec_field_docs()) {
    EXPECT_NE(md.find("| `" + f.path + "` |"), std::string::npos) << f.path;
    EXPECT_FALSE(f.help.empty()) << f.path;
    if (std::any_of(f.defaults.begin(), f.defaults.end(), [](auto& d) { return !d.empty(); })) {
      EXPECT_FALSE(f.source.empty()) << f.path;
    }
  }
  // The keys of a list item have one default, whichever the profile.
  for (const auto& f : spec_field_docs())
    if (f.path.find("[]") != std::string::npos) {
      for (const std::string& d : f.defaults) EXPECT_EQ(d, f.defaults.front()) << f.path;
    }
  // docs/spec-reference.md carries the generated table verbatim: regenerate
  // it with `fabemu spec-reference` when a key changes.
  const std::string path = std::string(FABEMU_SOURCE_DIR) + "/docs/spec-reference.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " cannot be read: it holds the spec reference";
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_NE(doc.str().find(md), std::string::npos)
      << path << " is stale: paste the output of `fabemu spec-reference` between its markers";
}

}  // namespace
}  // namespace fabemu
