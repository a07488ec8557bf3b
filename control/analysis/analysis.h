// Analysis of a built fabric under its programmed routing: hop counts,
// zero-load latency, bisection, channel-dependency deadlock check. Everything
// is computed from routes traced through the real routing tables
// (trace_route<R>), so it is the routing the engine will run: every route of
// a fabric up to SampleOptions::max_routes routes, a sample of them above
// (route_sample.h), which the summary states.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/route_sample.h"
#include "control/spec/spec.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// The tracer of (spec.topology.family, spec.routing), from the registry
// (tables programmed once). Throws std::invalid_argument when the routing is
// unknown.
RouteTraceFn make_route_tracer(const Spec& spec, const Fabric& fabric);
// The same tracer into a caller's buffer (RoutePathFn).
// Every route an adaptive algorithm may take (RoutingInfo::make_choice_tracer),
// or an empty function for algorithms that register none.
RouteChoiceFn make_route_choice_tracer(const Spec& spec, const Fabric& fabric);
RoutePathFn make_route_path_tracer(const Spec& spec, const Fabric& fabric);

// The metadata a tracer starts from for one packet (src, dst, class).
PacketMeta trace_meta(uint32_t src_ep, uint32_t dst_ep, uint32_t units, TrafficClass cls,
                      uint16_t hash = 0);

// ---- Zero-load latency -----------------------------------------------------
// Sum over the path of the injection link's wire, each router's pipeline_ps
// and the wire of each link it leaves on (router links and the ejection
// link), plus units * unit_ps of the slowest link crossed (virtual cut-through:
// serialization once). kNever when path is empty (unroutable).
ps_t path_latency_ps(const Fabric& fabric, uint32_t src_ep, const std::vector<HopTrace>& path,
                     uint32_t units);
ps_t zero_load_latency_ps(const Spec& spec, const Fabric& fabric, uint32_t src_ep, uint32_t dst_ep,
                          uint32_t units, TrafficClass cls);

// ---- Summary ---------------------------------------------------------------
struct FabricSummary {
  int routers = 0;
  int links = 0;  // router-to-router unidirectional links
  int endpoints = 0;
  int diameter = 0;  // max router-to-router links on any route
  // Mean router-to-router links over all ordered pairs of distinct endpoints
  // (src != dst: the pairs uniform random traffic uses). 4x4x4: 192/63.
  double avg_hops = 0;
  // Same, including each endpoint's route to itself (0 hops). 4x4x4: 3.0.
  double avg_hops_with_self = 0;
  int64_t bisection_links = 0;  // one direction, TopologyInfo::bisection_links
  // Uniform random load (fraction of injection bandwidth) the bisection can
  // carry: half of all traffic crosses the cut, E/2 sources each side, so
  // lambda * E / 4 <= B * link_rate / injection_rate:
  //   min(1, 4 * B * link_rate / (E * injection_rate)).
  // (The T3E paper's "twice the bisection bandwidth [both directions] divided
  // by the number of nodes": 4x4x8 and 8x8x8 -> 1.0, 8x16x8 -> 0.5.)
  double bisection_bound = 1.0;
  // Capacity, the ideal uniform random throughput (Dally & Towles; the
  // flattened butterfly paper's footnote 3): 2B/N with B the bisection
  // bandwidth both ways and N the endpoints, in units of one endpoint's
  // injection bandwidth; bisection_bound is it capped at 1. Flattened
  // butterfly: B = N/2 channels, capacity 1.
  double capacity = 0;
  uint32_t packet_units = 0;      // packet length used for the latencies below
  ps_t zero_load_ps_typical = 0;  // mean over distinct pairs (requests)
  ps_t zero_load_ps_max = 0;      // max over distinct pairs (requests)
  bool deadlock_free = false;     // channel dependency graph acyclic
  std::string deadlock_cycle;     // one cycle, "r3.p0.v0 -> ... -> r3.p0.v0", if any
  uint64_t channels = 0;          // (router, out port, VC) channels used by some route
  uint64_t dependencies = 0;      // channel dependency edges
  uint64_t routes_traced = 0;     // (src, dst, class) routes traced
  uint64_t unroutable = 0;        // routes the tables could not deliver
  std::string first_unroutable;   // "src -> dst (class)" of the first, if any

  // How the figures above were obtained. exact: every route was traced, and
  // every figure is exact. Otherwise from the sample below (route_sample.h):
  // avg_hops, avg_hops_with_self and zero_load_ps_typical are estimates
  // (95% interval half widths below); diameter, zero_load_ps_max, channels
  // and dependencies are what the sample reached (lower bounds); routes_traced,
  // unroutable and first_unroutable count the sample; and deadlock_free says
  // only that the sampled routes' dependencies have no cycle, which is not a
  // proof (a cycle found is a real one: deadlock_verdict_certain()).
  bool exact = true;
  uint64_t routes_all = 0;       // routes an exact analysis traces: E (E - 1) x 2
  uint32_t sampled_sources = 0;  // sources whose every destination was traced
  uint64_t random_pairs = 0;     // pairs to random destinations traced besides
  uint64_t seed = 0;
  double avg_hops_ci95 = 0;
  double avg_hops_with_self_ci95 = 0;
  double zero_load_ps_typical_ci95 = 0;
  uint64_t dependencies_seen_once = 0;  // sampled: link to link, on one route only
  double trace_seconds = 0;             // wall time of the tracing (not a figure)

  // A sample found no cycle and the routing proved, from its tables, that
  // there is none (RoutingInfo::prove_deadlock_free): what it checked.
  std::string deadlock_proof;
  // What the checked graph holds when not every route's dependencies
  // (RoutingInfo::deadlock_scope); empty: every route's.
  std::string deadlock_scope;

  bool deadlock_verdict_certain() const {
    return exact || !deadlock_free || !deadlock_proof.empty();
  }

  // A fabric with dead links or routers (summarize_degraded): a route that
  // meets one (or, adaptive, whose choices may) is unroutable, since its
  // packets are discarded there, and each route is compared with the route
  // the healthy fabric's tables give. The figures above are the degraded
  // fabric's over its routable pairs; bisection_links counts live links
  // (control/analysis/bisection.h).
  struct Faults {
    bool degraded = false;
    uint64_t pairs_traced = 0;      // (src, dst) pairs, each in both classes
    uint64_t unroutable_pairs = 0;  // pairs with a class unroutable
    // The first few (src, dst) of them, in that order.
    std::vector<std::pair<uint32_t, uint32_t>> unroutable_examples;
    uint64_t routes_changed = 0;  // routable routes on another path than the healthy tables'
    uint64_t pairs_changed = 0;   // pairs with a class changed
    // Requests on another path: how many, and their hops less their healthy hops.
    uint64_t requests_changed = 0;
    int64_t hops_added = 0;
    // The healthy fabric's figures, over every pair traced.
    int healthy_diameter = 0;
    double healthy_avg_hops = 0;
    double healthy_avg_hops_ci95 = 0;
    int64_t healthy_bisection_links = 0;
    double healthy_capacity = 0;
  } faults;
};

// How many unroutable pairs FabricSummary::Faults lists.
inline constexpr size_t kUnroutableExamples = 8;

// Traces every (src, dst) pair in both classes (requests and responses) in
// parallel, or the sample `sample` asks for on a larger fabric.
// packet_units = spec.packet.header_units (the shortest request: T3E
// single-word get, 2 flits) unless given.
FabricSummary summarize(const Spec& spec, const Fabric& fabric);
FabricSummary summarize(const Spec& spec, const Fabric& fabric, uint32_t packet_units);
FabricSummary summarize(const Spec& spec, const Fabric& fabric, const SampleOptions& sample,
                        uint32_t packet_units = 0);

// The same for `degraded`, the fabric `healthy` with dead links or routers
// marked (control/run/fault_plan.h), under the tables programmed around
// them; summary.faults compares it with `healthy`.
FabricSummary summarize_degraded(const Spec& spec, const Fabric& healthy, const Fabric& degraded,
                                 const SampleOptions& sample, uint32_t packet_units = 0);

// Router-to-router unidirectional links of a fabric.
int count_router_links(const Fabric& fabric);

}  // namespace fabemu
