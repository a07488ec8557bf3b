// Every injected packet is delivered exactly once, whatever the fabric: a
// property test over small configurations drawn by a fixed-seed generator
// (every router model: input-queued with the per-output and the iSLIP
// switch allocator, with and without output speedup, and the YARC tiled
// router; the torus, folded Clos, flattened butterfly, hypercube and
// butterfly families with each routing they offer; VC counts, loads up to
// saturation, packet sizes, replies, seeds, one and two workers; credit
// conservation checked), and the stranded-packet reproductions of the iSLIP
// router as fixed cases. A failure names the command that reproduces it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "control/spec/spec_error.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

// A run as `fabemu run topologies/FILE --set KEY=VALUE ...` gives it.
struct Config {
  std::string file;
  std::vector<std::string> sets;
};

std::string command_of(const Config& c) {
  std::string cmd = "build/fabemu run topologies/" + c.file;
  for (const std::string& s : c.sets)
    cmd += s.find_first_of(" [],") == std::string::npos ? " --set " + s : " --set '" + s + "'";
  return cmd;
}

// Runs c and requires every packet delivered exactly once (and, when it
// checks them, credits conserved); failures carry the command to reproduce.
void expect_every_packet_delivered(const Config& c, const Spec& spec) {
  SCOPED_TRACE("reproduce: " + command_of(c));
  std::vector<Delivery> got;
  RunResult r;
  try {
    r = run_collect(spec, &got);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the run did not start: " << e.what();
    return;
  }
  if (spec.run.check_invariants) {
    EXPECT_EQ(r.stats.invariant_failure, "");
    EXPECT_GT(r.stats.invariant_checks, 0u);
  }
  expect_exactly_once(r, got);
}

// Draws from std::mt19937_64 alone (its output is fixed by the standard;
// the <random> distributions are not), so every platform draws the same.
class Draws {
 public:
  explicit Draws(uint64_t seed) : rng_(seed) {}
  uint64_t below(uint64_t n) { return rng_() % n; }
  bool chance(int percent) { return below(100) < uint64_t(percent); }
  template <class T>
  T pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  std::mt19937_64 rng_;
};

std::string set(const std::string& key, int v) { return key + "=" + std::to_string(v); }

// The router models the generator draws.
enum class Model { per_output, islip, yarc_tiled };

// The router a loaded spec runs.
std::string model_of(const Spec& s) {
  return s.router.model == "input_queued" ? s.router.model + " " + s.router.switch_allocator
                                          : s.router.model;
}

// The flattened butterfly on the iSLIP router or the per-output one: k-ary
// n-flats of at most 81 endpoints, every routing, BookSim's timing or the
// paper's router.
Config flatfly(Draws& d, Model m) {
  Config c;
  c.file = m == Model::islip
               ? "flatfly-32x2-booksim.yaml"
               : d.pick<std::string>({"flatfly-32x2-booksim.yaml", "flatfly-32x2.yaml"});
  const auto [k, n] = d.pick<std::pair<int, int>>(
      {{2, 2}, {3, 2}, {4, 2}, {6, 2}, {8, 2}, {2, 3}, {3, 3}, {4, 3}, {2, 4}, {3, 4}});
  c.sets = {set("topology.k", k), set("topology.n", n)};
  const std::vector<std::string> islip_routings{"min", "ran_min", "val", "ugal", "ugal_s"};
  const std::vector<std::string> routings{"min",  "ran_min", "val",    "min_ad",
                                          "ugal", "ugal_s",  "clos_ad"};
  c.sets.push_back("routing=" + d.pick(m == Model::islip ? islip_routings : routings));
  c.sets.push_back(set("vcs.count", d.pick<int>({1, 2, 4, 8})));
  c.sets.push_back("vcs.injection=" + d.pick<std::string>({"class", "rotate"}));
  if (m == Model::islip) {
    c.sets.push_back("router.switch_allocator=islip");
    if (d.chance(25)) c.sets.push_back(set("router.islip_iterations", d.pick<int>({2, 4})));
  } else {
    c.sets.push_back("router.switch_allocator=per_output");
    if (d.chance(30)) c.sets.push_back(set("router.output_speedup", d.pick<int>({2, 4})));
  }
  return c;
}

// The folded Clos of YARC routers, ranks 1, 1.5 and 2, on any model.
Config clos(Draws& d, Model m) {
  Config c{"yarc-r1-32.yaml", {}};
  switch (d.below(3)) {
    case 0:
      c.sets = {"topology.rank=1", set("topology.endpoints", d.pick<int>({4, 8, 16, 32}))};
      break;
    case 1:
      c.sets = {"topology.rank=1.5", set("topology.endpoints", d.pick<int>({40, 64}))};
      break;
    default:
      c.sets = {"topology.rank=2", "topology.endpoints=40",
                set("topology.uplinks", d.pick<int>({1, 2, 4}))};
  }
  c.sets.push_back("routing=" + d.pick<std::string>({"updown", "adaptive"}));
  c.sets.push_back(set("vcs.count", d.pick<int>({1, 2})));
  if (m == Model::yarc_tiled)
    c.sets.push_back(set("router.subswitch_degree", d.pick<int>({4, 8, 16})));
  else
    c.sets.push_back("router.model=input_queued");
  if (m == Model::islip) c.sets.push_back("router.switch_allocator=islip");
  return c;
}

// The T3E torus, 8 to 36 routers.
Config torus(Draws& d) {
  Config c{"t3e-4x4x4.yaml", {}};
  const int kx = d.pick<int>({2, 3, 4}), ky = d.pick<int>({2, 3, 4}), kz = d.pick<int>({2, 3});
  c.sets = {"topology.dims=[" + std::to_string(kx) + "," + std::to_string(ky) + "," +
                std::to_string(kz) + "]",
            set("topology.endpoints_per_router", d.pick<int>({1, 2})),
            "routing=" + d.pick<std::string>({"direction_order", "dimension_order"}),
            set("vcs.count", d.pick<int>({4, 5}))};
  return c;
}

// BookSim's routings of the hypercube and butterfly (dim_order, dest_tag:
// any VC) on BookSim's router.
void booksim_routing(Draws& d, Config& c, const std::string& routing) {
  c.sets.back() = set("vcs.count", d.pick<int>({1, 2, 4, 8}));
  c.sets.push_back("routing=" + routing);
  c.sets.push_back("router.switch_allocator=islip");
  c.sets.push_back("vcs.injection=" + d.pick<std::string>({"class", "free"}));
}

Config hypercube(Draws& d, Model m) {
  Config c{"hypercube-4.yaml",
           {set("topology.n", d.pick<int>({2, 3, 4, 5})),
            set("topology.endpoints_per_router", d.pick<int>({1, 2, 4})),
            set("vcs.count", d.pick<int>({1, 2}))}};
  if (m == Model::islip) booksim_routing(d, c, "dim_order");
  return c;
}

Config butterfly(Draws& d, Model m) {
  const auto [k, n] = d.pick<std::pair<int, int>>({{2, 2}, {2, 3}, {2, 4}, {4, 2}, {4, 3}, {8, 2}});
  Config c{"butterfly-32x2.yaml",
           {set("topology.k", k), set("topology.n", n), set("vcs.count", d.pick<int>({1, 2}))}};
  if (m == Model::islip) booksim_routing(d, c, "dest_tag");
  return c;
}

// One configuration: the router model, a fabric it runs, then the traffic
// and the run, each run short (a few microseconds of traffic, drained).
Config draw_config(Draws& d) {
  const int r = static_cast<int>(d.below(10));
  const Model model = r < 4 ? Model::islip : r < 8 ? Model::per_output : Model::yarc_tiled;
  Config c;
  if (model == Model::per_output) {
    const int f = static_cast<int>(d.below(20));
    c = f < 6    ? flatfly(d, model)
        : f < 10 ? clos(d, model)
        : f < 14 ? torus(d)
        : f < 17 ? hypercube(d, model)
                 : butterfly(d, model);
  } else if (model == Model::islip) {
    const int f = static_cast<int>(d.below(10));
    c = f < 5   ? flatfly(d, model)
        : f < 7 ? hypercube(d, model)
        : f < 9 ? butterfly(d, model)
                : clos(d, model);
  } else {
    c = clos(d, model);
  }
  if (model == Model::islip) {
    // BookSim's wait_for_tail_credit, and its separable input-first
    // switch allocator (one iteration: not with islip_iterations).
    if (d.chance(20)) c.sets.push_back("router.wait_for_tail_credit=true");
    const bool iterations = std::any_of(c.sets.begin(), c.sets.end(), [](const std::string& s) {
      return s.rfind("router.islip_iterations", 0) == 0;
    });
    if (!iterations && d.chance(25))
      c.sets.push_back("router.switch_allocator=separable_input_first");
  }
  const int load = d.chance(25) ? 100 : 5 * static_cast<int>(1 + d.below(19));  // 0.05..0.95
  c.sets.push_back(load == 100 ? "traffic.load=1.0"
                               : "traffic.load=0." + std::string(load < 10 ? "0" : "") +
                                     std::to_string(load));
  if (d.chance(20))
    c.sets.push_back("traffic.pattern=" +
                     d.pick<std::string>({"permutation", "tornado", "bitcomp", "neighbor"}));
  if (d.chance(30)) c.sets.push_back("traffic.sizes=[8, 32, 64, 200]");
  if (d.chance(30)) c.sets.push_back("traffic.reply_fraction=0.5");
  c.sets.push_back(set("run.seed", static_cast<int>(1 + d.below(1000))));
  c.sets.push_back(set("run.workers", d.pick<int>({1, 2})));
  c.sets.push_back(set("run.warmup_ns", d.pick<int>({0, 2000})));
  c.sets.push_back(set("run.measure_ns", d.pick<int>({3000, 6000, 12000})));
  c.sets.push_back("run.check_invariants=true");
  return c;
}

// 150 runs (and the draws the spec refuses, about 50), every one required
// to deliver every packet exactly once with credits conserved.
TEST(DeliveryProperty, RandomisedSmallFabricsDeliverEveryPacket) {
  constexpr int kRuns = 150;
  Draws d(0x28f1a7c0ffee2028ull);
  int runs = 0, refused = 0;
  std::vector<std::string> refusals;
  std::map<std::string, int> per_model, per_family;
  while (runs < kRuns && refused <= kRuns) {
    const Config c = draw_config(d);
    Spec spec;
    try {
      spec = spec_of(c.file, c.sets);
    } catch (const SpecError& e) {  // a combination the spec refuses: not a run
      ++refused;
      if (refusals.size() < 8) refusals.push_back(command_of(c) + "\n  " + e.what());
      continue;
    }
    ++runs;
    per_model[model_of(spec)]++;
    per_family[spec.topology.family]++;
    expect_every_packet_delivered(c, spec);
  }
  std::string why;
  for (const std::string& r : refusals) why += "\n" + r;
  EXPECT_GT(runs, refused) << "most draws must be runs, not refusals; some refused:" << why;
  // The draws reach every router model and every family (the input-queued
  // router with the per-output, iSLIP and separable input-first allocators,
  // and the tiled one).
  EXPECT_EQ(per_model.size(), 4u);
  EXPECT_EQ(per_family.size(), 5u);
}

// The runs of the issue that left packets stranded in the iSLIP router
// (the event queue ran dry with them buffered), and smaller fabrics that
// did the same.
TEST(DeliveryProperty, IslipReproductionsDeliverEveryPacket) {
  const std::string booksim = "flatfly-32x2-booksim.yaml";
  const std::vector<Config> cases = {
      {booksim, {"topology.k=16", "traffic.load=0.1"}},
      {booksim, {"traffic.load=0.3", "run.seed=4", "run.workers=2"}},
      // UGAL at saturation (the file's load 1.0) with 4 and 8 VCs.
      {booksim,
       {"topology.k=8", "routing=ugal", "vcs.count=4", "vcs.injection=rotate", "run.workers=2"}},
      {booksim,
       {"topology.k=8", "routing=ugal", "vcs.count=8", "vcs.injection=rotate", "run.workers=2"}},
      // BookSim's own UGAL and Valiant, at saturation, on VC halves.
      {booksim, {"topology.k=8", "routing=ugal_booksim", "vcs.count=4", "run.workers=2"}},
      {booksim, {"topology.k=8", "routing=valiant_booksim", "vcs.count=8", "run.workers=2"}},
      {booksim,
       {"topology.k=3", "topology.n=3", "routing=ugal_s", "vcs.count=4", "vcs.injection=rotate",
        "traffic.load=0.3", "run.seed=19", "run.workers=2", "run.warmup_ns=0",
        "run.measure_ns=10000", "run.check_invariants=true"}},
      {booksim,
       {"topology.k=2", "topology.n=4", "routing=val", "vcs.count=4", "vcs.injection=rotate",
        "traffic.load=0.2", "run.seed=22", "run.warmup_ns=0", "run.measure_ns=10000",
        "run.check_invariants=true"}},
      {booksim,
       {"topology.k=4", "routing=val", "vcs.count=4", "vcs.injection=rotate", "traffic.load=0.2",
        "run.seed=22", "run.warmup_ns=0", "run.measure_ns=30000", "run.check_invariants=true"}},
  };
  for (const Config& c : cases) expect_every_packet_delivered(c, spec_of(c.file, c.sets));
}

}  // namespace
}  // namespace fabemu
