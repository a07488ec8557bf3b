// Microbenchmarks of the engine's components: the timing wheel, a route
// lookup per profile, round-robin arbitration and the credit counter's
// check-take-return cycle. Figures, never assertions.
//
//   build/fabemu_micro_bench [--benchmark_min_time=0.2] [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "control/spec/spec.h"
#include "control/topology/clos.h"
#include "control/topology/torus.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/link/credit_counter.h"
#include "dataplane/router/arbiter/round_robin.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/t3e_direction_order.h"
#include "dataplane/routing/yarc_updown.h"
#include "dataplane/sim/timing_wheel.h"
#include "tests/support/fabric_specs.h"

using namespace fabemu;

namespace {

constexpr size_t kSamples = 4096;  // precomputed inputs, cycled through (power of two)

// ---- timing wheel -------------------------------------------------------------
// Steady state: pop the earliest event, push one at its time plus a delay
// (mostly link and pipeline scale, 1 in 16 beyond the wheel's horizon), with
// state.range(0) events pending.
void BM_TimingWheelPushPop(benchmark::State& state) {
  const size_t pending = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(1);
  std::vector<ps_t> delay(kSamples);
  for (ps_t& d : delay)
    d = rng() % 16 == 0 ? rng() % (10'000 * kPsPerNs) : rng() % (200 * kPsPerNs);
  TimingWheel w;
  Event e{};
  for (size_t i = 0; i < pending; i++) {
    e.t = delay[i % kSamples] + rng() % (200 * kPsPerNs);
    e.a = static_cast<uint32_t>(i);
    w.push(e);
  }
  size_t i = 0;
  for (auto _ : state) {
    const ps_t t = w.next_time();
    Event x = w.pop();
    benchmark::DoNotOptimize(x);
    x.t = t + delay[i++ & (kSamples - 1)];
    w.push(x);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["pending"] = static_cast<double>(w.size());
}
BENCHMARK(BM_TimingWheelPushPop)->Arg(1024)->Arg(4096);

// ---- route lookups --------------------------------------------------------------
struct RouteInput {
  int32_t router;
  uint8_t in_port;
  PacketMeta m;
};

PacketMeta packet(uint32_t src, uint32_t dst, TrafficClass cls, uint16_t hash) {
  PacketMeta m{};
  m.src = src;
  m.dst = dst;
  m.units = 4;
  m.cls = static_cast<uint8_t>(cls);
  m.hash = hash;
  m.nseg = 1;
  return m;
}

// Routes the samples in turn, one per iteration, with an idle queue view.
template <class R>
void route_samples(benchmark::State& state, const typename R::Tables& t,
                   const std::vector<RouteInput>& in) {
  size_t i = 0;
  OfflineRouting offline;
  RoutingContext ctx = offline.ctx();
  for (auto _ : state) {
    const RouteInput& r = in[i++ & (kSamples - 1)];
    RouteCandidates rc;
    R::route(t, ctx, r.router, r.in_port, r.m, rc);
    benchmark::DoNotOptimize(rc);
  }
  state.SetItemsProcessed(state.iterations());
}

// T3E direction order on an 8x8x8 torus: random packets (source table
// lookup done at injection) routed at random routers and input ports.
void BM_RouteT3eDirectionOrder(benchmark::State& state) {
  const Spec spec = t3e_spec(8, 8, 8);
  const Fabric f = build_torus(spec);
  const T3eTables t = program_t3e_tables(spec, f);
  const uint32_t ne = static_cast<uint32_t>(f.endpoints.size());
  std::mt19937_64 rng(2);
  std::vector<RouteInput> in(kSamples);
  for (RouteInput& r : in) {
    r.m = packet(rng() % ne, rng() % ne, rng() % 2 ? TrafficClass::request : TrafficClass::response,
                 0);
    T3eDirectionOrder::on_inject(t, f, r.m);
    r.router = static_cast<int32_t>(rng() % f.routers.size());
    r.in_port = static_cast<uint8_t>(rng() % (kT3eDirections + 1));
  }
  route_samples<T3eDirectionOrder>(state, t, in);
}
BENCHMARK(BM_RouteT3eDirectionOrder);

// YARC up/down on a rank-2 folded Clos of 1024 endpoints (64 routers):
// Arg 0 requests (deterministic, hashed uplink), Arg 1 responses (adaptive:
// every uplink a candidate).
void BM_RouteYarcUpDown(benchmark::State& state) {
  const Spec spec = yarc_spec(2, 1024);
  const Fabric f = build_clos(spec);
  const YarcTables t = program_yarc_tables(spec, f);
  const uint32_t ne = static_cast<uint32_t>(f.endpoints.size());
  const TrafficClass cls = state.range(0) ? TrafficClass::response : TrafficClass::request;
  std::mt19937_64 rng(3);
  std::vector<RouteInput> in(kSamples);
  for (RouteInput& r : in) {
    r.m = packet(rng() % ne, rng() % ne, cls, static_cast<uint16_t>(rng() & kYarcDestMask));
    YarcUpDown::on_inject(t, f, r.m);
    r.router = static_cast<int32_t>(rng() % f.routers.size());
    r.in_port = static_cast<uint8_t>(rng() % kYarcPorts);
  }
  route_samples<YarcUpDown>(state, t, in);
}
BENCHMARK(BM_RouteYarcUpDown)->ArgName("response")->Arg(0)->Arg(1);

// ---- arbitration ------------------------------------------------------------------
// state.range(0) requester bits, each requesting with probability 1/2; the
// caller refuses about one requester in four (not ready, or short of credits).
void BM_RoundRobinPick(benchmark::State& state) {
  const uint32_t nbits = static_cast<uint32_t>(state.range(0));
  std::mt19937_64 rng(4);
  struct Sample {
    uint64_t req, refuse;
    uint32_t n;
  };
  std::vector<Sample> s(kSamples);
  const uint64_t all = nbits == 64 ? ~uint64_t{0} : (uint64_t{1} << nbits) - 1;
  for (Sample& x : s) {
    do x.req = rng() & all;
    while (x.req == 0);
    x.refuse = rng() & rng();
    x.n = static_cast<uint32_t>(__builtin_popcountll(x.req));
  }
  uint16_t ptr = 0;
  size_t i = 0;
  for (auto _ : state) {
    const Sample& x = s[i++ & (kSamples - 1)];
    const int32_t w = RoundRobinArbiter::pick(&x.req, nbits, x.n, &ptr,
                                              [&](uint32_t k) { return !((x.refuse >> k) & 1); });
    benchmark::DoNotOptimize(w);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RoundRobinPick)->Arg(16)->Arg(64);

// ---- credits ------------------------------------------------------------------------
// One (output, VC) sending 4-unit packets into a 16-unit buffer whose credits
// stream back after a round trip: per packet, available() (again at the time
// it named when short), take() and the returning add_stream(). A stream the
// full queue refuses is resumed at once (its predecessors end before it).
void BM_CreditCounterCycle(benchmark::State& state) {
  constexpr uint32_t kUnits = 4;
  constexpr ps_t kUnit = 1600, kRoundTrip = 40 * kUnit;
  CreditCounter c(16);
  ps_t now = 0, last_end = 0;
  uint64_t waits = 0, deferred = 0;
  for (auto _ : state) {
    ps_t when = kNever;
    if (!c.available(kUnits, now, &when)) {
      waits++;
      now = when;
      benchmark::DoNotOptimize(c.available(kUnits, now, &when));
    }
    c.take(kUnits);
    const ps_t first = std::max(now + kRoundTrip, last_end + kUnit);
    last_end = first + (kUnits - 1) * kUnit;
    if (!c.add_stream(kUnits, first, kUnit)) {
      deferred++;
      c.add_resumed(kUnits, first, kUnit);
    }
    now += kUnits * kUnit;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["waits"] = benchmark::Counter(static_cast<double>(waits), benchmark::Counter::kAvgIterations);
  state.counters["deferred"] =
      benchmark::Counter(static_cast<double>(deferred), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_CreditCounterCycle);

}  // namespace

BENCHMARK_MAIN();
