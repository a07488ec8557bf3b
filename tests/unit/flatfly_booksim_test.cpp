// BookSim2's Valiant and UGAL on the flattened butterfly (valiant_booksim,
// ugal_booksim: dataplane/routing/flatfly_booksim.h): routes through the
// programmed tables (dimension order to a uniform intermediate, own router
// included, on the lower VC half, then on to the destination on the upper
// half; same-router traffic takes no router hop; UGAL minimal on an idle
// fabric), the even-VC rule, the spec keys they come with (vcs.injection
// free, traffic.to_self) and virtual-time runs that deliver every packet
// exactly once and conserve credits.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"
#include "control/topology/flatfly.h"
#include "control/topology/registry.h"
#include "tests/support/flatfly_digits.h"
#include "tests/support/run_collect.h"
#include "tests/support/trace_pairs.h"

namespace fabemu {
namespace {

Spec booksim_spec(int k, int n, const std::string& routing, int vcs,
                  std::vector<std::string> extra = {}) {
  extra.insert(extra.end(), {"topology.k=" + std::to_string(k), "topology.n=" + std::to_string(n),
                             "routing=" + routing, "vcs.count=" + std::to_string(vcs)});
  return load_spec_text("profile: flatfly\n", extra, "t.yaml");
}

// Router-to-router hops of valiant_booksim from router s through
// intermediate b to router d, by its rules: dimension order (lowest
// dimension first) towards b, but on at b or at d, whichever comes first;
// b == s goes minimally.
int valiant_booksim_hops(int64_t s, int64_t b, int64_t d, int k, int dims) {
  if (s == d) return 0;
  int64_t at = s;
  int hops = 0;
  for (int dim = 0; dim < dims && at != b; ++dim) {
    const int want = digit(b, dim, k);
    if (digit(at, dim, k) == want) continue;
    at += (want - digit(at, dim, k)) * ipow(k, dim);
    ++hops;
    if (at == d) return hops;  // the destination's router: ejected there
  }
  return hops + differing_digits(at, d, k, dims);
}

// A traced route's router-to-router hops split into a leg on VCs below
// `half` and a leg on VCs from `half` up, in that order, each in dimension
// order. Returns the router where the second leg starts (the intermediate
// reached, or the source when the first leg is empty).
struct Legs {
  int first = 0, second = 0;
  int32_t turn = -1;
};
Legs split_legs(const Fabric& f, const std::vector<HopTrace>& p, int half) {
  Legs l;
  l.turn = p.front().router;
  int last_dim = 0;
  bool upper = false;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    const int dim = f.routers[p[i].router].ports[p[i].out_port].label;
    if (p[i].out_vc >= half && !upper) {
      upper = true;
      l.turn = p[i].router;
      last_dim = 0;
    }
    EXPECT_EQ(p[i].out_vc >= half, upper) << "the lower half before the upper, hop " << i;
    EXPECT_LT(p[i].out_vc, 2 * half);
    EXPECT_GT(dim, last_dim) << "dimension order within a leg, hop " << i;
    last_dim = dim;
    (upper ? l.second : l.first)++;
  }
  if (!upper) l.turn = p.back().router;
  return l;
}

TEST(FlatflyBooksimRouting, ValiantGoesThroughAUniformIntermediateOnVcHalves) {
  const int k = 4, n = 3, dims = n - 1;
  const Spec spec = booksim_spec(k, n, "valiant_booksim", 4);
  const Fabric f = build_flatfly(spec);
  const int64_t routers = static_cast<int64_t>(f.routers.size());
  double hops = 0, want = 0;
  int pairs = 0, own_intermediate = 0, other_router_pairs = 0;
  for_every_route(
      spec, f, [&](uint32_t s, uint32_t d, TrafficClass cls, const std::vector<HopTrace>& p) {
        const int64_t rs = s / k, rd = d / k;
        EXPECT_EQ(p.back().router, rd);
        EXPECT_EQ(p.back().out_port, d % k);
        const int h = static_cast<int>(p.size()) - 1;
        if (rs == rd) {
          EXPECT_EQ(h, 0) << "same router: BookSim goes straight out (" << s << " -> " << d << ")";
          return;
        }
        const Legs l = split_legs(f, p, 2);
        EXPECT_EQ(l.first, differing_digits(rs, l.turn, k, dims));
        EXPECT_EQ(l.second, differing_digits(l.turn, rd, k, dims)) << s << " -> " << d;
        if (cls != TrafficClass::request) return;  // the same draw: counted once
        // The second leg starts at the source only when the draw was it.
        ++other_router_pairs;
        own_intermediate += l.first == 0;
        hops += h;
        ++pairs;
      });
  // The exact expectation of a uniform intermediate over every router.
  for (uint32_t s = 0; s < f.endpoints.size(); ++s)
    for (uint32_t d = 0; d < f.endpoints.size(); ++d)
      if (s / k != d / k)
        for (int64_t b = 0; b < routers; ++b)
          want += double(valiant_booksim_hops(s / k, b, d / k, k, dims)) / double(routers);
  const double mean = hops / pairs;
  want /= pairs;
  // 3840 independent draws: the standard error is about 0.015 hops. The
  // 4-ary 3-flat's 2.925 is told apart from 3.0 (no early exit at the
  // destination's router) and 3.013 (the source's own router never drawn).
  EXPECT_NEAR(mean, want, 0.04) << "exact uniform expectation " << want;
  // The source's own router is a possible intermediate (1/16 of the draws).
  EXPECT_GT(own_intermediate, other_router_pairs / 32);
  EXPECT_LT(own_intermediate, other_router_pairs / 8);
}

TEST(FlatflyBooksimRouting, UgalOnAnIdleFabricIsMinimalOnTheUpperHalf) {
  for (auto [k, n, vcs] : std::vector<std::tuple<int, int, int>>{{4, 3, 4}, {8, 2, 2}, {3, 3, 8}}) {
    SCOPED_TRACE(std::to_string(k) + "-ary " + std::to_string(n) + "-flat, vcs " +
                 std::to_string(vcs));
    const Spec spec = booksim_spec(k, n, "ugal_booksim", vcs);
    const Fabric f = build_flatfly(spec);
    for_every_route(spec, f,
                    [&](uint32_t s, uint32_t d, TrafficClass, const std::vector<HopTrace>& p) {
                      ASSERT_EQ(static_cast<int>(p.size()) - 1,
                                differing_digits(s / k, d / k, k, n - 1))
                          << s << " -> " << d;
                      EXPECT_EQ(p.back().out_port, d % k);
                      int last_dim = 0;
                      for (size_t i = 0; i + 1 < p.size(); ++i) {
                        EXPECT_GE(p[i].out_vc, vcs / 2) << "the upper half";
                        EXPECT_LT(p[i].out_vc, vcs);
                        const int dim = f.routers[p[i].router].ports[p[i].out_port].label;
                        EXPECT_GT(dim, last_dim) << "dimension order";
                        last_dim = dim;
                      }
                    });
  }
}

// ---- the even-VC rule ------------------------------------------------------

void expect_even_vcs_refused(const std::function<void()>& program) {
  try {
    program();
    ADD_FAILURE() << "an odd vcs.count was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("vcs.count"), std::string::npos) << m;
    EXPECT_NE(m.find("even"), std::string::npos) << m;
  }
}

TEST(FlatflyBooksimRouting, OddVcCountIsRefusedByTheTables) {
  for (const char* routing : {"valiant_booksim", "ugal_booksim"}) {
    SCOPED_TRACE(routing);
    const Spec spec = booksim_spec(4, 3, routing, 3);
    const Fabric f = build_flatfly(spec);
    expect_even_vcs_refused([&] { make_route_tracer(spec, f); });
    expect_even_vcs_refused([&] { make_route_choice_tracer(spec, f); });
    expect_even_vcs_refused([&] { make_route_path_tracer(spec, f); });
    // The engine's tables too: a run cannot start.
    Spec run = spec;
    run.run.progress_s = 0;
    run.run.measure_ns = 1000;
    expect_even_vcs_refused([&] { run_collect(run, nullptr); });
  }
  // Even counts up to 8 are programmed.
  for (int vcs : {2, 4, 6, 8}) {
    const Spec spec = booksim_spec(4, 3, "valiant_booksim", vcs);
    const Fabric f = build_flatfly(spec);
    EXPECT_NO_THROW(make_route_tracer(spec, f)) << vcs;
  }
}

// ---- spec keys ---------------------------------------------------------------

SpecError error_of(const std::vector<std::string>& sets) {
  try {
    load_spec_text("profile: flatfly\n", sets, "t.yaml");
  } catch (const SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a SpecError";
  return SpecError("", 0, 0, "", "");
}

TEST(FlatflyBooksimSpec, FreeInjectionOnlyWithRoutingsThatStartOnAnyVc) {
  for (const char* routing : {"ran_min", "valiant_booksim", "ugal_booksim"}) {
    const Spec s = booksim_spec(4, 3, routing, 2, {"vcs.injection=free"});
    EXPECT_EQ(s.vcs.injection, "free") << routing;
  }
  const SpecError e = error_of({"routing=val", "vcs.injection=free"});
  EXPECT_NE(std::string(e.what()).find("vcs.injection"), std::string::npos) << e.what();
}

// traffic.to_self changes uniform draws only: a fixed pattern's spec loads
// with it (a file that sets it may be run with --set traffic.pattern=...).
TEST(FlatflyBooksimSpec, ToSelfLeavesFixedPatternsAlone) {
  EXPECT_TRUE(booksim_spec(4, 3, "ran_min", 2, {"traffic.to_self=true"}).traffic.to_self);
  EXPECT_TRUE(
      booksim_spec(4, 3, "ran_min", 2, {"traffic.pattern=bitcomp", "traffic.to_self=true"})
          .traffic.to_self);
}

// ---- runs --------------------------------------------------------------------

std::vector<std::string> low_load_islip(const std::string& routing) {
  return {"routing=" + routing, "vcs.count=4", "router.switch_allocator=islip",
          "traffic.load=0.1", "run.measure_ns=20000"};
}

TEST(FlatflyBooksimRun, EveryPacketExactlyOnceOnIslip) {
  for (const char* routing : {"valiant_booksim", "ugal_booksim"}) {
    SCOPED_TRACE(routing);
    std::vector<Delivery> got;
    run_exactly_once(spec_of("flatfly-4x3.yaml", low_load_islip(routing)), &got);
    EXPECT_GT(got.size(), 1000u);
    for (const Delivery& d : got)
      EXPECT_LE(d.hops, 4u) << "at most 2n' router hops";
  }
  // With free injection, as BookSim's sources choose their VC.
  std::vector<std::string> sets = low_load_islip("ugal_booksim");
  sets.push_back("vcs.injection=free");
  expect_exactly_once(spec_of("flatfly-4x3.yaml", sets));
}

TEST(FlatflyBooksimRun, CreditsConservedOnIslip) {
  for (const char* routing : {"valiant_booksim", "ugal_booksim"}) {
    SCOPED_TRACE(routing);
    expect_credits_conserved(spec_of("flatfly-4x3.yaml", low_load_islip(routing)));
  }
}

TEST(FlatflyBooksimRun, ToSelfSendsSomePacketsToTheirSource) {
  std::vector<std::string> sets = low_load_islip("valiant_booksim");
  sets.push_back("traffic.to_self=true");
  std::vector<Delivery> got;
  run_exactly_once(spec_of("flatfly-4x3.yaml", sets), &got);
  size_t to_self = 0;
  for (const Delivery& d : got)
    if (d.src == d.dst) {
      ++to_self;
      EXPECT_EQ(d.hops, 0u) << "into its router and straight out again";
    }
  // Uniform over all 64 endpoints: about 1 in 64.
  EXPECT_GT(to_self, got.size() / 200) << to_self << " of " << got.size();
  EXPECT_LT(to_self, got.size() / 20) << to_self << " of " << got.size();

  // Without it, none.
  got.clear();
  run_exactly_once(spec_of("flatfly-4x3.yaml", low_load_islip("valiant_booksim")), &got);
  for (const Delivery& d : got) EXPECT_NE(d.src, d.dst);
}

}  // namespace
}  // namespace fabemu
