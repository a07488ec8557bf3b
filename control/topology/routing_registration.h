// One way to register a routing policy: its tables' programming function
// gives the engine (Engine<Policy>), the tables it is given after a change
// (reprogram) and the analysis tracer, so a new algorithm's file states only
// what is its own.
#pragma once
#include <memory>
#include <string>
#include <utility>

#include "control/topology/registry.h"
#include "control/topology/slices.h"
#include "dataplane/engine/engine_factory.h"
#include "dataplane/router/router_model.h"

namespace fabemu {

// The allocator a routing runs with: router.allocator when it names one,
// else `paper`, the one the routing's paper gives it.
inline Allocator spec_allocator(const Spec& spec, Allocator paper) {
  const std::string& a = spec.router.allocator;
  return a == "greedy" ? Allocator::greedy : a == "sequential" ? Allocator::sequential : paper;
}

// The tables an engine runs by: a sliced fabric's are slice 0's, which every
// slice routes by (Fabric::table_router).
template <class Program>
auto program_engine_tables(const Program& program, const Spec& spec, const Fabric& fabric) {
  if (fabric.slices <= 1) return program(spec, fabric);
  return program(spec, first_slice(fabric));
}

// program: Tables(const Spec&, const Fabric&), may throw on bad input.
// table_bytes: what program's tables take for a fabric, written beside it.
template <class Policy, class Program>
RoutingInfo policy_routing(std::string family, std::string name, std::string summary, int max_vcs,
                           int min_vcs, bool deadlock_free, Program program,
                           std::function<uint64_t(const Fabric&)> table_bytes = nullptr) {
  RoutingInfo r;
  r.family = std::move(family);
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.max_vcs = max_vcs;
  r.min_vcs = min_vcs;
  r.deadlock_free = deadlock_free;
  r.table_bytes = std::move(table_bytes);
  r.make_engine = [program](const Spec& spec, const Fabric& fabric, const EngineConfig& cfg) {
    return make_engine<Policy>(program_engine_tables(program, spec, fabric), fabric, cfg);
  };
  r.reprogram = [program](EngineBase& engine, const Spec& spec, const Fabric& fabric, ps_t at) {
    return replace_tables<Policy>(engine, program_engine_tables(program, spec, fabric), at);
  };
  r.make_tracer = [program](const Spec& spec, const Fabric& fabric) -> RouteTraceFn {
    auto t = std::make_shared<const typename Policy::Tables>(program(spec, fabric));
    return [t, &fabric](const PacketMeta& m) { return trace_route<Policy>(*t, fabric, m); };
  };
  r.make_path_tracer = [program](const Spec& spec, const Fabric& fabric) -> RoutePathFn {
    auto t = std::make_shared<const typename Policy::Tables>(program(spec, fabric));
    auto ports = std::make_shared<const PortPeers>(fabric);
    return [t, ports, &fabric](const PacketMeta& m, std::vector<HopTrace>& path) {
      return trace_route_into<Policy>(*t, fabric, m, path, *ports);
    };
  };
  return r;
}

// Another engine for the same routing and tables, chosen per run: Variant
// (the policy on another router model, an instance FABEMU_ENGINES beside
// the routing makes) when chosen(spec), else the engine r had.
template <class Variant, class Program, class Chosen>
void add_engine_variant(RoutingInfo& r, Program program, Chosen chosen) {
  r.make_engine = [program, chosen, plain = r.make_engine](const Spec& spec, const Fabric& fabric,
                                                           const EngineConfig& cfg) {
    if (!chosen(spec)) return plain(spec, fabric, cfg);
    return make_engine<Variant>(program_engine_tables(program, spec, fabric), fabric, cfg);
  };
  r.reprogram = [program, chosen, plain = r.reprogram](EngineBase& engine, const Spec& spec,
                                                       const Fabric& fabric, ps_t at) {
    if (!chosen(spec)) return plain(engine, spec, fabric, at);
    return replace_tables<Variant>(engine, program_engine_tables(program, spec, fabric), at);
  };
}

// A routing of the YARC's tables on the YARC tiled router too (router.model
// yarc_tiled): its engine is then OnYarcTiles<Policy>.
template <class Policy, class Program>
void add_yarc_tiles(RoutingInfo& r, Program program) {
  r.router_models.push_back("yarc_tiled");
  add_engine_variant<OnYarcTiles<Policy>>(
      r, program, [](const Spec& spec) { return spec.router.model == "yarc_tiled"; });
}

// A routing on the input-queued router with the cycle-synchronous iSLIP
// allocator too (router.switch_allocator islip): its engine is then
// OnIslip<Policy>.
template <class Policy, class Program>
void add_islip(RoutingInfo& r, Program program) {
  r.islip = true;
  add_engine_variant<OnIslip<Policy>>(
      r, program, [](const Spec& spec) { return spec.router.switch_allocator == "islip"; });
}

// Every route a policy's adaptive choices allow (RoutingInfo::make_choice_tracer).
template <class Policy, class Program>
RouteChoiceTracerFactory choice_tracer(Program program) {
  return [program](const Spec& spec, const Fabric& fabric) -> RouteChoiceFn {
    auto t = std::make_shared<const typename Policy::Tables>(program(spec, fabric));
    auto ports = std::make_shared<const PortPeers>(fabric);
    return [t, ports, &fabric](const PacketMeta& m, std::vector<HopTrace>& path,
                               const RouteVisit& visit) {
      return for_each_route_choice<Policy>(*t, fabric, m, path, *ports, visit);
    };
  };
}

}  // namespace fabemu
