// Spec loading, what the errors say: every refusal names the field and where
// it came from (also when the topology builder refuses), the real cause, and
// hints that apply; a key of another topology family is refused, not ignored.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "control/cli/commands.h"
#include "control/spec/spec_refuse.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

TEST(SpecMessages, KeyOfAnotherFamilyIsRefused) {
  // The README's own example on a torus file used to be ignored.
  SpecError e = error_of("topology: {family: torus}\n", {"topology={rank: 2, endpoints: 64}"});
  EXPECT_EQ(e.field(), "topology.rank");
  EXPECT_EQ(e.set_arg(), "topology={rank: 2, endpoints: 64}");
  expect_says(e,
              "topology.rank applies to the clos family only, but this spec's "
              "topology.family is torus (from line 1): remove it, or set topology.family: clos");

  // The family from the profile: the hint names the profile that has it.
  e = error_of("", {"topology.endpoints=64"});
  expect_says(e,
              "(from the default of profile 't3e'): remove it, or set profile: yarc (or "
              "topology.family: clos)");

  // In the file, for each direction.
  expect_at(error_of("profile: yarc\ntopology:\n  dims: [4, 4, 4]\n"), "topology.dims", 3, 9);
  expect_at(error_of("profile: yarc\nvcs: {adaptive_buffer_units: 30}\n"),
            "vcs.adaptive_buffer_units", 2, 30);
  expect_at(error_of("router: {latency_ns: 20}\n"), "router.latency_ns", 1, 22);

  // The same keys where they belong, and a family given with --set.
  EXPECT_EQ(load("profile: yarc\n", {"topology={rank: 2, endpoints: 64}"}).topology.endpoints, 64);
  EXPECT_EQ(load("topology: {dims: [2, 2, 2]}\n").topology.dims[0], 2);
  e = error_of("topology: {dims: [2, 2, 2]}\n", {"topology.family=clos", "routing=updown"});
  expect_at(e, "topology.dims", 1, 18);
  expect_says(e, "(from --set 'topology.family=clos')");
}

TEST(SpecMessages, BuilderRefusalsNameTheField) {
  SpecError e = error_of("profile: yarc\nrouter: {radix: 8}\n");
  expect_at(e, "router.radix", 2, 17);
  expect_says(e, "got 8, but the clos family is built of radix-64 YARC routers");
  expect_says(e, "set it to 64");
  e = error_of("profile: yarc\n", {"router.radix=32"});
  EXPECT_EQ(e.set_arg(), "router.radix=32");

  // The same through build_fabric, for a spec changed after loading.
  Spec s = load("profile: yarc\n");
  s.router.radix = 16;
  try {
    build_fabric(s);
    FAIL() << "built a radix-16 clos";
  } catch (const SpecError& err) {
    EXPECT_EQ(err.field(), "router.radix");
    EXPECT_NE(err.message().find("the default of profile 'yarc'"), std::string::npos) << err.what();
  }
}

TEST(SpecMessages, ClosHintsThatApply) {
  SpecError e = error_of("profile: yarc\ntopology: {rank: 2, endpoints: 1025}\n");
  expect_says(e, "a rank-2 clos has 33 to 1024 endpoints, got 1025: 1024 is the most");
  EXPECT_EQ(e.message().find("use rank 1"), std::string::npos) << e.what();
  e = error_of("profile: yarc\ntopology: {rank: 2, endpoints: 20}\n");
  expect_says(e, "use rank 1 for 32 or fewer");
  e = error_of("profile: yarc\ntopology: {rank: 1, endpoints: 2000}\n");
  expect_says(e, "use rank 2.5 for up to 4608 endpoints or rank 3 for up to 32768");
  e = error_of("profile: yarc\ntopology: {rank: 3, endpoints: 40000}\n");
  expect_says(e, "a rank-3 clos has 513 to 32768 endpoints, got 40000: 32768 is the most");
  e = error_of("profile: yarc\ntopology: {rank: 1.5, endpoints: 300}\n");
  expect_says(e, "a rank-1.5 clos has 33 to 288 endpoints, got 300: use rank 2");
  e = error_of("profile: yarc\ntopology: {rank: 1, endpoints: 64}\n");
  expect_says(e, "use rank 2 for 33 to 1024 endpoints");
}

TEST(SpecMessages, DpdkPortTableLimit) {
  std::string yaml = "traffic: {load: 0}\nrun: {mode: realtime}\nports:\n";
  for (int i = 0; i < 33; ++i)
    yaml += fmt::format("  - {{device: net_ring{}, endpoint: {}}}\n", i, i);
  SpecError e = error_of(yaml);
  expect_at(e, "ports[32].device", 36, 14);
  expect_says(e,
              "device 'net_ring32' would be DPDK port number 33, but this DPDK build has room "
              "for 32 Ethernet ports (RTE_MAX_ETHPORTS");
  // Bindings sharing devices are one port each; run.eal's --vdev counts.
  yaml = "traffic: {load: 0}\nrun: {mode: realtime, eal: [--vdev=net_null9]}\nports:\n";
  for (int i = 0; i < 40; ++i)
    yaml += fmt::format("  - {{device: net_ring{}, endpoint: {}, vlan: {}}}\n", i % 31, i, i + 1);
  EXPECT_EQ(load(yaml).ports.size(), 40u);
  yaml += "  - {device: net_ring31, endpoint: 50}\n";
  expect_at(error_of(yaml), "ports[40].device", 44, 14);
}

TEST(SpecMessages, OriginText) {
  const Spec s = load("traffic:\n  load: 0.2\n", {"run.seed=3"});
  EXPECT_EQ(origin_text(s.origins, "traffic.load"), "line 2");
  EXPECT_EQ(origin_text(s.origins, "run.seed"), "--set 'run.seed=3'");
  EXPECT_EQ(origin_text(s.origins, "vcs.count"), "the default of profile 't3e'");
}

}  // namespace
}  // namespace fabemu
