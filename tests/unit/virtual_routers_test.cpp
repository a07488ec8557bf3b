// Virtual routers (router.virtual_routers; Scott et al., ISCA 2006, sections
// 2.2 and 7.4): each pair of the clos family's radix-32 rank-2 (and rank-3)
// routers is one 64-port YARC partitioned by port masks. The chips are
// wired as the separate routers were, a packet that entered a virtual
// router leaves on its ports only, every hop count (with halves every
// route, and every run's figures) is the separate build's: the two halves
// of a chip share its tiles but no buffer, bus or channel (a row bus is
// its input's, a column channel its output's), so they do not contend, in
// either router model. A fault names a chip and kills both.
#include "control/topology/virtual_routers.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/spec/spec_error.h"
#include "control/topology/clos.h"
#include "tests/support/fabric_specs.h"
#include "tests/support/run_collect.h"
#include "tests/support/tiled_router_driver.h"

namespace fabemu {
namespace {

Spec virtual_spec(int rank, int endpoints, const char* layout) {
  Spec s = yarc_spec(rank, endpoints);
  s.router.virtual_routers = layout;
  return s;
}

int links(const Fabric& f) {
  int n = 0;
  for (const FabricRouter& r : f.routers)
    for (const FabricPort& p : r.ports) n += p.peer_router >= 0;
  return n;
}

// The chip port of logical port i of virtual router l.
int chip_port(const Fabric& f, int32_t l, int i) {
  uint64_t m = f.virtual_routers[size_t(l)].ports;
  for (int k = 0; k < i; ++k) m &= m - 1;
  return std::countr_zero(m);
}

TEST(VirtualRouters, EachPairOfRadix32RoutersIsOneYarc) {
  for (const char* layout : {"halves", "columns"}) {
    SCOPED_TRACE(layout);
    const Fabric sep = build_clos(yarc_spec(2, 1024));
    const Fabric vr = build_clos(virtual_spec(2, 1024, layout));
    // 32 rank-1 routers and 32 rank-2 routers on 16 chips.
    ASSERT_EQ(sep.routers.size(), 64u);
    ASSERT_EQ(vr.routers.size(), 48u);
    ASSERT_EQ(vr.virtual_routers.size(), 64u);
    EXPECT_EQ(links(vr), links(sep));
    for (const FabricRouter& chip : vr.routers) {
      if (chip.rank != 2) continue;
      ASSERT_EQ(chip.ports.size(), 64u);
      for (const FabricPort& p : chip.ports) EXPECT_GE(p.peer_router, 0);
    }
    // The two halves of chip c are rank-2 routers 2c and 2c + 1, on the
    // layout's masks.
    const std::vector<uint64_t> masks = virtual_router_masks(virtual_router_layout(layout));
    for (int j = 0; j < 32; ++j) {
      const FabricVirtualRouter& v = vr.virtual_routers[size_t(32 + j)];
      EXPECT_EQ(v.router, 32 + j / 2);
      EXPECT_EQ(v.ports, masks[size_t(j % 2)]);
    }
    // Split back, it is the separate build link for link.
    const Fabric back = split_virtual_routers(vr);
    ASSERT_EQ(back.routers.size(), sep.routers.size());
    for (size_t r = 0; r < sep.routers.size(); ++r) {
      ASSERT_EQ(back.routers[r].ports.size(), sep.routers[r].ports.size()) << r;
      EXPECT_EQ(back.routers[r].coord, sep.routers[r].coord);
      for (size_t p = 0; p < sep.routers[r].ports.size(); ++p) {
        const FabricPort &a = back.routers[r].ports[p], &b = sep.routers[r].ports[p];
        EXPECT_EQ(a.peer_router, b.peer_router);
        EXPECT_EQ(a.peer_port, b.peer_port);
        EXPECT_EQ(a.endpoint, b.endpoint);
        EXPECT_EQ(a.label, b.label);
      }
    }
  }
  // Rank 3 up to 16K: rank-2 and rank-3 routers paired; above, the rank-2
  // routers are whole YARCs and only the rank-3 ones are.
  const Fabric r3 = build_clos(virtual_spec(3, 2048, "halves"));
  EXPECT_EQ(r3.virtual_routers.size(), 64u + 128u + 512u);
  EXPECT_EQ(r3.routers.size(), 64u + 64u + 256u);
  // Masks must not overlap and must hold the router.
  const Fabric two = build_clos(yarc_spec(2, 64));
  std::vector<FabricVirtualRouter> bad = pair_radix32_routers(two, VirtualRouterLayout::halves);
  bad.back().ports = bad[bad.size() - 2].ports;
  EXPECT_THROW(merge_virtual_routers(two, bad), std::invalid_argument);
}

// A layout the builder does not know is an error at its field, not "none".
TEST(VirtualRouters, AnUnknownLayoutNamesTheField) {
  EXPECT_EQ(virtual_router_layout("none"), VirtualRouterLayout::none);
  try {
    virtual_router_layout("quarters");
    ADD_FAILURE() << "an unknown layout was taken for none";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.field(), "router.virtual_routers");
  }
}

// Every route of the separate build, hop for hop, on the chips (halves);
// at a chip, in and out on one virtual router's ports. The up-routing hash
// takes the physical input port, as YARC's does: in the columns layout a
// virtual router's port numbers are not its logical ones, so a request may
// hash onto another uplink, with the same hop count.
TEST(VirtualRouters, SameRoutesAndHopCountsAsSeparateRouters) {
  for (const std::string layout : {"halves", "columns"})
    for (const auto& [rank, e] : {std::pair{2, 256}, std::pair{3, 1024}}) {
      SCOPED_TRACE(layout + " rank " + std::to_string(rank));
      const Spec ss = yarc_spec(rank, e), vs = virtual_spec(rank, e, layout.c_str());
      const Fabric sep = build_clos(ss), vr = build_clos(vs);
      const RouteTraceFn ts = make_route_tracer(ss, sep), tv = make_route_tracer(vs, vr);
      for (uint32_t s = 0; s < uint32_t(e); s += 37)
        for (uint32_t d = 0; d < uint32_t(e); ++d)
          for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
            const auto a = ts(trace_meta(s, d, 19, cls)), b = tv(trace_meta(s, d, 19, cls));
            ASSERT_FALSE(a.empty());
            ASSERT_EQ(a.size(), b.size()) << s << " -> " << d;
            for (size_t h = 0; h < a.size(); ++h) {
              const FabricVirtualRouter& v = vr.virtual_routers[size_t(a[h].router)];
              if (layout == "halves") {
                ASSERT_EQ(b[h].router, v.router) << s << " -> " << d << " hop " << h;
                EXPECT_EQ(b[h].in_port, chip_port(vr, a[h].router, a[h].in_port));
                EXPECT_EQ(b[h].out_port, chip_port(vr, a[h].router, a[h].out_port));
              }
              // The virtual router the packet entered on its chip.
              uint64_t mask = 0;
              for (const FabricVirtualRouter& u : vr.virtual_routers)
                if (u.router == b[h].router && ((u.ports >> b[h].in_port) & 1u)) mask = u.ports;
              EXPECT_TRUE((mask >> b[h].out_port) & 1u) << s << " -> " << d << " hop " << h;
            }
          }
      // describe's figures: the same but for the router count.
      const FabricSummary a = summarize(ss, sep), b = summarize(vs, vr);
      EXPECT_EQ(a.links, b.links);
      EXPECT_EQ(a.diameter, b.diameter);
      EXPECT_DOUBLE_EQ(a.avg_hops, b.avg_hops);
      EXPECT_EQ(a.zero_load_ps_typical, b.zero_load_ps_typical);
      EXPECT_EQ(a.zero_load_ps_max, b.zero_load_ps_max);
      EXPECT_EQ(a.bisection_links, b.bisection_links);
      EXPECT_TRUE(b.deadlock_free);
      EXPECT_EQ(a.channels, b.channels);
      EXPECT_EQ(a.dependencies, b.dependencies);
    }
}

// A chip's zero-load latency is a separate router's: 31.25 ns a hop.
TEST(VirtualRouters, ZeroLoadLatencyUnchanged) {
  for (const char* model : {"router.model=input_queued", "router.model=yarc_tiled"}) {
    SCOPED_TRACE(model);
    std::vector<Delivery> got;
    const Spec s =
        spec_of("yarc-r2-1024.yaml",
                {model, "router.virtual_routers=halves", "topology.endpoints=64",
                 "traffic.load=0.002", "traffic.reply_fraction=0", "run.measure_ns=200000"});
    run_exactly_once(s, &got);
    ASSERT_GT(got.size(), 50u);
    expect_at_zero_load(got, [](const Delivery& d) {
      return yarc_write_zero_load_ps(d.src / 32 == d.dst / 32 ? 0 : 2);
    });
  }
}

// One tiled YARC alone, saturated on the inputs of `senders`, each input
// sending 19-phit packets to random outputs of `targets(in)` on both VCs:
// the packets from the inputs of `counted` its outputs send in 40000 cycles.
uint64_t chip_packets(uint64_t senders, const std::function<uint64_t(uint32_t)>& targets,
                      uint64_t counted) {
  TiledRouterDriver::Options o;
  o.units = 19;
  o.vcs_used = 2;
  o.source_mask = senders;
  TiledRouterDriver d(o, [&](uint32_t in, Rng& r) -> uint32_t {
    uint64_t left = targets(in);
    for (uint32_t k = r.below(uint32_t(std::popcount(left))); k > 0; --k) left &= left - 1;
    return uint32_t(std::countr_zero(left));
  });
  const ps_t warm = 4000 * o.link_ps;
  d.run(warm + 40000 * o.link_ps);
  d.check_credits();
  uint64_t n = 0;
  for (const TiledRouterDriver::Grant& g : d.grants())
    n += g.at >= warm && ((counted >> g.in) & 1u);
  return n;
}

// Inside the tiled chip: what virtual router 0 carries, saturated, is the
// same packet for packet whether virtual router 1 is idle or saturated too
// (both layouts: halves share no tile row, columns share every subswitch
// row). The measurement sees contention where there is some: when the
// other half's inputs may send to virtual router 0's outputs (no masks),
// virtual router 0's inputs get far less through.
TEST(VirtualRouters, TheTiledChipsHalvesDoNotContend) {
  for (const char* layout : {"halves", "columns"}) {
    const std::vector<uint64_t> m = virtual_router_masks(virtual_router_layout(layout));
    const auto own = [&](uint32_t in) { return (m[0] >> in) & 1u ? m[0] : m[1]; };
    const uint64_t alone = chip_packets(m[0], own, m[0]);
    const uint64_t both = chip_packets(~uint64_t{0}, own, m[0]);
    const uint64_t unmasked = chip_packets(
        ~uint64_t{0}, [&](uint32_t) { return m[0]; }, m[0]);
    std::printf(
        "%s: VR0's inputs send %llu packets alone, %llu beside a saturated VR1, %llu "
        "when VR1's inputs may send to VR0's outputs too\n",
        layout, (unsigned long long)alone, (unsigned long long)both, (unsigned long long)unmasked);
    EXPECT_EQ(alone, both) << layout;
    EXPECT_GT(alone, 32u * 40000u / 19u / 2u) << layout;  // above half of VR 0's links
    EXPECT_LT(unmasked, alone * 3 / 4) << layout;
  }
}

// A fault names the chip: a dead chip takes both virtual routers with it,
// and the tables (programmed per virtual router) route around both.
TEST(VirtualRouters, ADeadChipIsRoutedAround) {
  const Spec s =
      spec_of("yarc-r2-1024.yaml", {"router.virtual_routers=halves", "topology.endpoints=256",
                                    "faults=[\"0us link=r8:p33 down\", \"2us router=9 down\"]",
                                    "traffic.load=0.5", "traffic.reply_fraction=0.5",
                                    "run.warmup_ns=1000", "run.measure_ns=6000", "run.workers=1"});
  const RunResult r = run_collect(s, nullptr);
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  uint64_t dropped = 0;
  for (uint64_t d : r.stats.drops) dropped += d;
  EXPECT_GT(r.stats.delivered_packets, 40000u);
  EXPECT_EQ(r.stats.delivered_packets + dropped, r.stats.injected_packets);
  EXPECT_EQ(drops(r.stats, DropReason::no_route), 0u);
  EXPECT_EQ(r.json["down_route_violations"]["total"].get<uint64_t>(), 0u);
}

struct Figures {
  double accepted = 0, latency = 0;
};

Figures run_r2(const char* model, const char* layout, double load) {
  const Spec s = spec_of(
      "yarc-r2-1024.yaml",
      {std::string("router.model=") + model, std::string("router.virtual_routers=") + layout,
       "topology.endpoints=256", "traffic.load=" + std::to_string(load),
       "traffic.reply_fraction=0.5", "run.warmup_ns=2000", "run.measure_ns=8000", "run.workers=1"});
  const RunResult r = run_collect(s, nullptr);
  EXPECT_TRUE(r.stats.error.empty()) << r.stats.error;
  return {r.json["accepted_load"].get<double>(), r.json["latency_ns"]["mean"].get<double>()};
}

// Saturated rank-2 fabrics: the virtual routers of a chip carry what the
// separate routers carry, at their latency, in the input-queued model (no
// state shared between ports but the tables) and in the tiled one (the
// halves share tiles but no row bus, row buffer, column channel or column
// buffer; with the columns layout they even share every subswitch).
TEST(VirtualRouters, HalvesOfAChipDoNotContend) {
  for (const char* model : {"input_queued", "yarc_tiled"}) {
    const Figures sep = run_r2(model, "none", 1.0);
    for (const char* layout : {"halves", "columns"}) {
      const Figures vr = run_r2(model, layout, 1.0);
      std::printf("%s %s: accepted %.4f (separate %.4f), mean latency %.1f ns (%.1f)\n", model,
                  layout, vr.accepted, sep.accepted, vr.latency, sep.latency);
      EXPECT_NEAR(vr.accepted, sep.accepted, 0.01 * sep.accepted) << model << " " << layout;
      EXPECT_NEAR(vr.latency, sep.latency, 0.03 * sep.latency) << model << " " << layout;
    }
  }
}

}  // namespace
}  // namespace fabemu
