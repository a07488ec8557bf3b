// Topologies and routing algorithms register themselves by name from their
// own source file (FABEMU_REGISTER_TOPOLOGY / FABEMU_REGISTER_ROUTING), so a
// new fabric is a new file, not edits across the engine.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "control/spec/spec.h"
#include "control/spec/spec_problem.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/routing_policy.h"

namespace fabemu {

class EngineBase;       // dataplane/engine/engine_base.h
struct EngineConfig;

using BisectionCut = std::vector<uint8_t>;  // side of each router, 0 or 1

struct TopologyInfo {
  std::string family;   // spec topology.family: "torus", "clos", ...
  std::string summary;
  // Builds routers, links and endpoints from the spec (already validated).
  std::function<Fabric(const Spec&)> build;
  // Bisection: the number of unidirectional router-to-router links that cross
  // the minimum bisection of the fabric in one direction.
  std::function<int64_t(const Spec&, const Fabric&)> bisection_links;
  // Minimum bisections of the healthy fabric, each a side (0 or 1) per
  // router, crossed by bisection_links links each way: a fabric with dead
  // links counts its live links across them (control/analysis/bisection.h).
  // Empty: none with router links (the fabric's bisection is its endpoints').
  std::function<std::vector<BisectionCut>(const Spec&, const Fabric&)> bisection_cuts;
  // What the spec needs to know of the family before it is built:
  // the endpoints its size gives (-1 while size_problem refuses the size),
  std::function<int64_t(const Spec&)> endpoint_count;
  // what is wrong with its size (an empty message: nothing), and
  std::function<SpecProblem(const Spec&)> size_problem;
  // the keys that give its size, as `fabemu describe --json` reports them
  // (one value: a number; more: a list).
  std::function<std::vector<std::pair<std::string, std::vector<int>>>(const Spec&)> size_keys;
  // Optional: describe's rows of the family's own (name, text), e.g. the
  // 3D mesh's recovery memory and cross-machine latency.
  std::function<std::vector<std::pair<std::string, std::string>>(const Spec&, const Fabric&)>
      describe_rows;
};

// Walks one packet through routing tables programmed once (analysis: hop
// counts, zero-load latency, deadlock check). Safe to call from many threads.
using RouteTraceFn = std::function<std::vector<HopTrace>(const PacketMeta&)>;
using RouteTracerFactory = std::function<RouteTraceFn(const Spec&, const Fabric&)>;
// The same walk into a caller's buffer (trace_route_into: false and an empty
// path when unroutable), for analyses that trace millions of routes.
using RoutePathFn = std::function<bool(const PacketMeta&, std::vector<HopTrace>& path)>;
using RoutePathTracerFactory = std::function<RoutePathFn(const Spec&, const Fabric&)>;
// Every route an adaptive algorithm may give one packet (for_each_route_choice:
// false when one is unroutable), each handed to visit in a reused buffer.
using RouteVisit = std::function<void(const std::vector<HopTrace>&)>;
using RouteChoiceFn =
    std::function<bool(const PacketMeta&, std::vector<HopTrace>& scratch, const RouteVisit& visit)>;
using RouteChoiceTracerFactory = std::function<RouteChoiceFn(const Spec&, const Fabric&)>;

// A routing algorithm bound to the tables it programs. make_engine
// instantiates Engine<Policy> (one template instance per algorithm);
// control/topology/routing_registration.h builds both members from a policy
// and its table-programming function.
struct RoutingInfo {
  std::string family;     // topology family it routes
  std::string name;       // spec "routing" value
  std::string summary;
  int max_vcs = 2;        // VCs the algorithm can use (more is a spec error)
  int min_vcs = 1;        // VCs it needs to be deadlock-free
  // Optional: the VCs it needs on the spec's size (e.g. one per dimension),
  // in place of min_vcs.
  std::function<int(const Spec&)> needed_vcs;
  bool deadlock_free = true;
  // The router models (spec router.model) it has an engine instance for.
  std::vector<std::string> router_models{"input_queued"};
  // It has an engine on the cycle-synchronous allocator too
  // (router.switch_allocator islip, router/input_queued_islip.h).
  bool islip = false;
  // A source may start a packet on any VC (BookSim2's routings: dim_order,
  // ran_min), so vcs.injection free may choose among them all.
  bool injects_on_any_vc = false;
  // It routes a torus family fabric without wrap links (topology.wrap
  // false: a mesh); the others need the rings.
  bool routes_mesh = false;
  std::function<std::unique_ptr<EngineBase>(const Spec&, const Fabric&, const EngineConfig&)>
      make_engine;
  // Programs tables for `fabric` (this topology, e.g. with faults marked)
  // and hands them to an engine make_engine made: adopted at emulated time
  // `at` (before the run) or, with at == kNever, at each worker's next
  // window edge (while it runs). False when a change for a time `at` comes
  // after the run has begun. May throw like the programming function.
  std::function<bool(EngineBase&, const Spec&, const Fabric&, ps_t at)> reprogram;
  // Bytes the programmed tables of `fabric` take (the memory estimate,
  // control/run/run_memory.h); nullptr: negligible.
  std::function<uint64_t(const Fabric&)> table_bytes;
  // Optional: what the programmed tables hold, for describe's "routing
  // tables" row (e.g. Spider's 48 entries per table instead of 512).
  std::function<std::string(const Spec&, const Fabric&)> tables_text;
  // Programs the tables once and returns a tracer over them; the tracer
  // holds a reference to the fabric, which must outlive it.
  RouteTracerFactory make_tracer;
  // Optional: the same tracer into a buffer (analysis falls back to
  // make_tracer without it).
  RoutePathTracerFactory make_path_tracer;
  // Optional, for adaptive algorithms: every route a packet may take, so
  // that the channel dependency graph holds the dependencies of each choice
  // and not only the zero-load one (analysis uses make_path_tracer alone
  // without it).
  RouteChoiceTracerFactory make_choice_tracer;
  // Optional: a proof of deadlock freedom from the programmed tables alone,
  // for fabrics whose routes are too many to trace (analysis calls it when
  // a sample found no cycle). Returns what it checked, or "" / a text
  // starting "not proven" when it could not prove it.
  std::function<std::string(const Spec&, const Fabric&)> prove_deadlock_free;
  // Optional: which channels and dependencies the deadlock check holds when
  // that is not simply every route's (e.g. only the deterministic VCs of
  // an adaptive routing), for describe's deadlock row.
  std::string deadlock_scope;
};

class Registry {
 public:
  static Registry& get();
  void add_topology(TopologyInfo t);
  void add_routing(RoutingInfo r);
  const TopologyInfo* topology(const std::string& family) const;
  const RoutingInfo* routing(const std::string& family, const std::string& name) const;
  std::vector<std::string> topology_names() const;
  std::vector<std::string> routing_names(const std::string& family) const;
  const std::vector<RoutingInfo>& routings() const { return routings_; }

 private:
  std::vector<TopologyInfo> topologies_;
  std::vector<RoutingInfo> routings_;
};

struct TopologyRegistrar {
  explicit TopologyRegistrar(TopologyInfo t) { Registry::get().add_topology(std::move(t)); }
};
struct RoutingRegistrar {
  explicit RoutingRegistrar(RoutingInfo r) { Registry::get().add_routing(std::move(r)); }
};

#define FABEMU_CONCAT2(a, b) a##b
#define FABEMU_CONCAT(a, b) FABEMU_CONCAT2(a, b)
#define FABEMU_REGISTER_TOPOLOGY(...) \
  static ::fabemu::TopologyRegistrar FABEMU_CONCAT(fabemu_topology_, __LINE__){__VA_ARGS__}
#define FABEMU_REGISTER_ROUTING(...) \
  static ::fabemu::RoutingRegistrar FABEMU_CONCAT(fabemu_routing_, __LINE__){__VA_ARGS__}

}  // namespace fabemu
