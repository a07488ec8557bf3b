// Spec loading, real time: run.mode, the real-time run keys and the port
// bindings (each key, and the clashes that would make two bindings ambiguous).
#include <gtest/gtest.h>

#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

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
      {"run:\n  time_scale: 0.5\n", "run.time_scale", 2, 15, "must be from 1 to 1e+06"},
      {"run:\n  duration_s: -1\n", "run.duration_s", 2, 15, "must be 0 or from 0.001 to 1e+06"},
      {"run:\n  lateness_bound_ns: 0\n", "run.lateness_bound_ns", 2, 22,
       "must be from 0.001 to 1e+09"},
      {"run:\n  mac_aging_s: 0\n", "run.mac_aging_s", 2, 16, "must be from 0.001 to 1e+06"},
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
  expect_at(e, "ports[0].device", 2, 14);
  expect_says(e, "DPDK ports carry real frames in wall-clock time: set run.mode: realtime");

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
       "known keys here: name, device, replay, replay_interface, replay_speed, replay_loops, "
       "endpoint, vlan, macs, queue_frames"},
      {"{device: net_ring0, endpoint: 0, endpoint: 1}", "ports[0].endpoint", 38, "given twice"},
      {"{name: h0, endpoint: 0}", "ports[0]", 5, "neither a device nor a replay file: give one"},
      {"{device: net_ring0}", "ports[0]", 5, "no 'endpoint'"},
      {"net_ring0", "ports[0]", 5, "expected a map {endpoint}"},
      {"{device: \"\", endpoint: 0}", "ports[0]", 5, "neither a device nor a replay file"},
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

}  // namespace
}  // namespace fabemu
