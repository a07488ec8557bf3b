// Spec loading: profile defaults, --set overrides, and one test per class of
// bad input, each checking the field, line and column the error names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "control/cli/commands.h"
#include "control/spec/profiles.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"

namespace fabemu {
namespace {

Spec load(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return load_spec_text(yaml, sets, "t.yaml");
}

// The SpecError a spec raises; fails the test if it loads.
SpecError error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load(yaml, sets);
  } catch (const SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a SpecError for:\n" << yaml;
  return SpecError("", 0, 0, "", "");
}

// Field, 1-based line and column of an error from the file.
void expect_at(const SpecError& e, const std::string& field, int line, int column) {
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.column(), column) << e.what();
  EXPECT_EQ(e.file(), "t.yaml");
  EXPECT_TRUE(e.set_arg().empty()) << e.what();
}

// The error's message contains `text`.
void expect_says(const SpecError& e, const std::string& text) {
  EXPECT_NE(e.message().find(text), std::string::npos) << e.what();
}

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
  EXPECT_EQ(find_profile("spider"), nullptr);  // not yet a profile
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
  EXPECT_EQ(e.field(), "ports");
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

// ---- Real time and ports ------------------------------------------------------

TEST(SpecRealtime, ReadsEveryKey) {
  const Spec s = load(
      "run:\n"
      "  mode: realtime\n"
      "  workers: 2\n"  // real time with several workers is allowed
      "  time_scale: 10\n"
      "  duration_s: 2.5\n"
      "  lateness_bound_ns: 500\n"
      "  mac_aging_s: 60\n"
      "  eal: [\"--vdev=net_ring0\", --no-huge]\n"
      "ports:\n"
      "  - name: h0\n"
      "    device: net_ring0\n"
      "    endpoint: 5\n"
      "    vlan: 10\n"
      "    macs: [\"02:00:00:00:00:AA\", 02:00:00:00:00:01]\n"
      "    queue_frames: 128\n"
      "  - {device: net_ring0, endpoint: 6, vlan: 10, macs: [\"0A:00:00:00:00:02\"]}\n"
      "  - {device: net_ring0, endpoint: 7, vlan: 11}\n"
      "  - {device: \"net_af_packet0,iface=fe0\", endpoint: 63}\n");
  EXPECT_EQ(s.run.mode, "realtime");
  EXPECT_EQ(s.run.workers, 2);
  EXPECT_DOUBLE_EQ(s.run.time_scale, 10.0);
  EXPECT_DOUBLE_EQ(s.run.duration_s, 2.5);
  EXPECT_DOUBLE_EQ(s.run.lateness_bound_ns, 500.0);
  EXPECT_DOUBLE_EQ(s.run.mac_aging_s, 60.0);
  EXPECT_EQ(s.run.eal, (std::vector<std::string>{"--vdev=net_ring0", "--no-huge"}));
  ASSERT_EQ(s.ports.size(), 4u);
  EXPECT_EQ(s.ports[0].name, "h0");
  EXPECT_EQ(s.ports[0].device, "net_ring0");
  EXPECT_EQ(s.ports[0].endpoint, 5);
  EXPECT_EQ(s.ports[0].vlan, 10);
  // MACs are kept in lower case, so that the same address is one address.
  EXPECT_EQ(s.ports[0].macs, (std::vector<std::string>{"02:00:00:00:00:aa", "02:00:00:00:00:01"}));
  EXPECT_EQ(s.ports[0].queue_frames, 128);
  EXPECT_EQ(s.ports[1].name, "port1");  // the default name is the position
  EXPECT_EQ(s.ports[1].queue_frames, 64);
  EXPECT_EQ(s.ports[2].vlan, 11);  // another VLAN of the same device needs no MACs
  EXPECT_TRUE(s.ports[2].macs.empty());
  EXPECT_EQ(s.ports[3].device, "net_af_packet0,iface=fe0");
  EXPECT_EQ(s.ports[3].vlan, 0);
}

TEST(SpecRealtime, RunKeysInRange) {
  struct Case {
    const char* yaml;
    const char* field;
    int line, column;
    const char* message;
  };
  const Case cases[] = {
      {"run:\n  mode: wallclock\n", "run.mode", 2, 9, "use one of virtual, realtime"},
      {"run:\n  time_scale: 0.5\n", "run.time_scale", 2, 15, "must be a number >= 1"},
      {"run:\n  duration_s: -1\n", "run.duration_s", 2, 15, "must be a number >= 0"},
      {"run:\n  lateness_bound_ns: 0\n", "run.lateness_bound_ns", 2, 22,
       "must be a positive number"},
      {"run:\n  mac_aging_s: 0\n", "run.mac_aging_s", 2, 16, "must be a positive number"},
      {"run:\n  eal: --no-huge\n", "run.eal", 2, 8, "expected a list of EAL arguments"},
      {"run:\n  eal: [--no-huge, \"\"]\n", "run.eal[1]", 2, 20,
       "expected an EAL argument such as --vdev=net_null0, got an empty string"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    const SpecError e = error_of(c.yaml);
    expect_at(e, c.field, c.line, c.column);
    expect_says(e, c.message);
  }
  EXPECT_DOUBLE_EQ(load("run: {time_scale: 1, duration_s: 0}\n").run.time_scale, 1.0);
}

const std::string kPortsHead = "run: {mode: realtime}\nports:\n";

TEST(SpecRealtime, PortsNeedRealtime) {
  // Mode left at its default: the ports list is what the user wrote.
  SpecError e = error_of("ports:\n  - {device: net_ring0, endpoint: 0}\n");
  expect_at(e, "ports", 2, 3);
  expect_says(e, "ports carry real frames in wall-clock time: set run.mode: realtime");

  // Mode written as virtual: blame that line.
  e = error_of("run: {mode: virtual}\nports:\n  - {device: net_ring0, endpoint: 0}\n");
  expect_at(e, "run.mode", 1, 13);

  EXPECT_TRUE(load("run: {mode: realtime}\n").ports.empty());  // realtime without ports is fine
  EXPECT_TRUE(load("run: {mode: virtual}\nports: []\n").ports.empty());
}

TEST(SpecRealtime, PortItemKeys) {
  struct Case {
    const char* item;
    const char* field;
    int column;
    const char* message;
  };
  const Case cases[] = {
      {"{device: net_ring0, endpoint: 0, vlna: 3}", "ports[0].vlna", 38,
       "known keys here: name, device, endpoint, vlan, macs, queue_frames"},
      {"{device: net_ring0, endpoint: 0, endpoint: 1}", "ports[0].endpoint", 38, "given twice"},
      {"{name: h0, endpoint: 0}", "ports[0]", 5, "no 'device': give at least {device, endpoint}"},
      {"{device: net_ring0}", "ports[0]", 5, "no 'endpoint'"},
      {"net_ring0", "ports[0]", 5, "expected a map {device, endpoint}"},
      {"{device: \"\", endpoint: 0}", "ports[0].device", 14, "got an empty string"},
      {"{device: d, endpoint: -1}", "ports[0].endpoint", 27, "an integer >= 0"},
      {"{device: d, endpoint: 0, vlan: 4095}", "ports[0].vlan", 36, "from 0 to 4094"},
      {"{device: d, endpoint: 0, vlan: -1}", "ports[0].vlan", 36, "from 0 to 4094"},
      {"{device: d, endpoint: 0, queue_frames: 0}", "ports[0].queue_frames", 44, "from 1 to 65536"},
      {"{device: d, endpoint: 0, queue_frames: 65537}", "ports[0].queue_frames", 44,
       "from 1 to 65536"},
      {"{device: d, endpoint: 0, macs: 02:00:00:00:00:01}", "ports[0].macs", 36,
       "expected a list of MAC addresses"},
      {"{device: d, endpoint: 0, macs: [\"02:00:00:00:00\"]}", "ports[0].macs[0]", 37,
       "is not a MAC address"},
      {"{device: d, endpoint: 0, macs: [\"02-00-00-00-00-01\"]}", "ports[0].macs[0]", 37,
       "is not a MAC address"},
      {"{device: d, endpoint: 0, macs: [\"02:00:00:00:00:0g\"]}", "ports[0].macs[0]", 37,
       "is not a MAC address"},
      {"{device: d, endpoint: 0, macs: [\"01:00:5e:00:00:01\"]}", "ports[0].macs[0]", 37,
       "is a group (multicast or broadcast) address"},
      {"{device: d, endpoint: 0, macs: [\"FF:FF:FF:FF:FF:FF\"]}", "ports[0].macs[0]", 37,
       "ff:ff:ff:ff:ff:ff is a group"},
      {"{device: d, endpoint: 0, macs: [\"00:00:00:00:00:00\"]}", "ports[0].macs[0]", 37,
       "no host's address"},
      {"{device: d, endpoint: 0, macs: [\"02:00:00:00:00:01\", \"02:00:00:00:00:01\"]}",
       "ports[0].macs[1]", 58, "listed twice"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.item);
    const SpecError e = error_of(kPortsHead + "  - " + c.item + "\n");
    expect_at(e, c.field, 3, c.column);
    expect_says(e, c.message);
  }
  // An item key's error carries that key's help.
  const SpecError e = error_of(kPortsHead + "  - {device: d, endpoint: 0, vlan: 4095}\n");
  expect_says(e, "(ports[].vlan: 0: untagged frames");
}

TEST(SpecRealtime, PortEndpointMustExist) {
  SpecError e = error_of(kPortsHead +
                         "  - {device: a, endpoint: 0}\n"
                         "  - {device: b, endpoint: 64}\n");  // t3e 4x4x4: 64 endpoints
  expect_at(e, "ports[1].endpoint", 4, 27);
  expect_says(e, "endpoint 64 does not exist: this fabric has endpoints 0 to 63");

  // A --set shrinks the fabric under a binding: the error points at the
  // endpoint in the file, the value to change.
  e = error_of(kPortsHead + "  - {device: a, endpoint: 40}\n", {"topology.dims=[2,2,2]"});
  expect_at(e, "ports[0].endpoint", 3, 27);
  expect_says(e, "endpoints 0 to 7");

  EXPECT_EQ(load(kPortsHead + "  - {device: a, endpoint: 63}\n").ports[0].endpoint, 63);
}

TEST(SpecRealtime, EndpointsAndNamesOnce) {
  SpecError e = error_of(kPortsHead +
                         "  - {device: a, endpoint: 3}\n"
                         "  - {device: b, endpoint: 3}\n");
  expect_at(e, "ports[1].endpoint", 4, 27);
  expect_says(e, "endpoint 3 is already bound to ports[0] 'port0' at line 3");

  e = error_of(kPortsHead +
               "  - {name: h, device: a, endpoint: 0}\n"
               "  - {name: h, device: b, endpoint: 1}\n");
  expect_at(e, "ports[1].name", 4, 12);
  expect_says(e, "name 'h' is already taken by ports[0] 'h' at line 3");

  // A default name clashes too: the second binding is called port1.
  e = error_of(kPortsHead +
               "  - {name: port1, device: a, endpoint: 0}\n"
               "  - {device: b, endpoint: 1}\n");
  expect_at(e, "ports[1].name", 4, 5);
  expect_says(e, "name 'port1' is already taken");
}

TEST(SpecRealtime, MacsTellBindingsApart) {
  // The same MAC in two bindings, even on different devices.
  SpecError e = error_of(kPortsHead +
                         "  - {device: a, endpoint: 0, macs: [\"02:00:00:00:00:01\"]}\n"
                         "  - {device: b, endpoint: 1, macs: [\"02:00:00:00:00:02\", "
                         "\"02:00:00:00:00:01\"]}\n");
  expect_at(e, "ports[1].macs[1]", 4, 58);
  expect_says(e,
              "02:00:00:00:00:01 is already pinned to ports[0] 'port0' at line 3: "
              "frames from it could not be told apart");

  // Case does not make another address.
  e = error_of(kPortsHead +
               "  - {device: a, endpoint: 0, macs: [\"02:00:00:00:00:AB\"]}\n"
               "  - {device: a, endpoint: 1, macs: [\"02:00:00:00:00:ab\"]}\n");
  expect_at(e, "ports[1].macs[0]", 4, 37);

  // Same device and VLAN: both bindings need MACs.
  e = error_of(kPortsHead +
               "  - {device: a, endpoint: 0, macs: [\"02:00:00:00:00:01\"]}\n"
               "  - {device: a, endpoint: 1}\n");
  expect_at(e, "ports[1].macs", 4, 5);
  expect_says(e,
              "ports[0] 'port0' at line 3 is on the same device 'a' and untagged "
              "(vlan 0): frames could not be told apart; bindings that share a "
              "device and VLAN need non-empty, disjoint macs");

  e = error_of(kPortsHead +
               "  - {device: a, endpoint: 0, vlan: 7}\n"
               "  - {device: a, endpoint: 1, vlan: 7, macs: [\"02:00:00:00:00:01\"]}\n");
  expect_at(e, "ports[1].macs", 4, 45);
  expect_says(e, "VLAN 7");

  // One device named with two sets of vdev arguments.
  e = error_of(kPortsHead +
               "  - {device: \"net_af_packet0,iface=a\", endpoint: 0}\n"
               "  - {device: \"net_af_packet0,iface=b\", endpoint: 1}\n");
  expect_at(e, "ports[1].device", 4, 14);
  expect_says(e, "one DPDK device has one set of arguments");

  // Shared device and VLAN with disjoint MACs; other VLANs and devices need none.
  const Spec s = load(kPortsHead +
                      "  - {device: a, endpoint: 0, macs: [\"02:00:00:00:00:01\"]}\n"
                      "  - {device: a, endpoint: 1, macs: [\"02:00:00:00:00:02\"]}\n"
                      "  - {device: a, endpoint: 2, vlan: 2}\n"
                      "  - {device: b, endpoint: 3}\n");
  EXPECT_EQ(s.ports.size(), 4u);
}

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
  SpecError e = error_of("topology:\n  dims: [4, 1, 4]\n");
  expect_at(e, "topology.dims[1]", 2, 13);
  EXPECT_NE(e.message().find("give at least 2"), std::string::npos) << e.what();

  e = error_of("topology:\n  dims: [8, 0, 8]\n");
  expect_at(e, "topology.dims[1]", 2, 13);

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
  EXPECT_NE(e.message().find("set routing to one of direction_order"), std::string::npos)
      << e.what();

  // The routing is the t3e default, the family the user's: blame the family.
  e = error_of("topology:\n  family: clos\n");
  expect_at(e, "topology.family", 2, 11);
  EXPECT_NE(e.message().find("updown"), std::string::npos) << e.what();
}

TEST(SpecErrors, UnknownFamilyPatternProfile) {
  SpecError e = error_of("topology:\n  family: dragonfly\n");
  expect_at(e, "topology.family", 2, 11);
  EXPECT_NE(e.message().find("known families: clos, flatfly, torus"), std::string::npos) << e.what();

  e = error_of("traffic:\n  pattern: shuffle\n");
  expect_at(e, "traffic.pattern", 2, 12);
  EXPECT_NE(e.message().find("uniform, transpose"), std::string::npos) << e.what();

  e = error_of("profile: cray-1\n");
  expect_at(e, "profile", 1, 10);
  EXPECT_NE(e.message().find("t3e, yarc, flatfly, custom"), std::string::npos) << e.what();

  e = error_of("topology: {dims: [4, 8, 4]}\ntraffic: {pattern: transpose}\n");
  EXPECT_EQ(e.field(), "traffic.pattern");
  EXPECT_NE(e.message().find("square"), std::string::npos) << e.what();
}

TEST(SpecErrors, ClosRankAndEndpoints) {
  SpecError e = error_of("profile: yarc\ntopology:\n  rank: 3\n");
  expect_at(e, "topology.rank", 3, 9);
  EXPECT_NE(e.message().find("give 1 or 2"), std::string::npos) << e.what();

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
                                        "a number in [0, 1]",
                                        0),
            0u)
      << e.what();
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

TEST(SpecReference, CoversEveryKeyAndMatchesTheReadme) {
  const std::string md = spec_reference_markdown();
  for (const auto& f : spec_field_docs()) {
    EXPECT_NE(md.find("| `" + f.path + "` |"), std::string::npos) << f.path;
    EXPECT_FALSE(f.help.empty()) << f.path;
    if (!f.t3e_default.empty() || !f.yarc_default.empty() || !f.flatfly_default.empty()) {
      EXPECT_FALSE(f.source.empty()) << f.path;
    }
  }
  // The keys of a list item have one default, whichever the profile.
  for (const auto& f : spec_field_docs())
    if (f.path.find("[]") != std::string::npos) {
      EXPECT_EQ(f.t3e_default, f.yarc_default) << f.path;
      EXPECT_EQ(f.t3e_default, f.flatfly_default) << f.path;
    }
  // README.md carries the generated table verbatim: regenerate it with
  // `fabemu spec-reference` when a key changes.
  std::ifstream in(std::string(FABEMU_SOURCE_DIR) + "/README.md");
  std::stringstream readme;
  readme << in.rdbuf();
  EXPECT_NE(readme.str().find(md), std::string::npos)
      << "README.md's spec reference is stale: paste the output of `fabemu spec-reference`";
}

}  // namespace
}  // namespace fabemu
