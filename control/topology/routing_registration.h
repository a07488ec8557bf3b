// One way to register a routing policy: its tables' programming function
// gives the engine (Engine<Policy> on the router model the spec chooses,
// among the instances FABEMU_ENGINES beside the policy makes), the tables it
// is given after a change (reprogram) and the analysis tracer, so a new
// algorithm's file states only what is its own.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>

#include "control/topology/registry.h"
#include "control/topology/slices.h"
#include "dataplane/engine/engine_factory.h"

namespace fabemu {

// The allocator a routing runs with: router.allocator when it names one,
// else `paper`, the one the routing's paper gives it.
inline Allocator spec_allocator(const Spec& spec, Allocator paper) {
  const std::string& a = spec.router.allocator;
  return a == "greedy" ? Allocator::greedy : a == "sequential" ? Allocator::sequential : paper;
}

// The router model (router/router_models.cmake's name) a spec's engine runs:
// router.model, or its input-queued router made cycle-synchronous
// (router.switch_allocator islip or separable_input_first, which differ in
// the switch matcher only).
inline std::string engine_model(const Spec& spec) {
  const std::string& a = spec.router.switch_allocator;
  if (spec.router.model == "input_queued" && (a == "islip" || a == "separable_input_first"))
    return "input_queued_islip";
  return spec.router.model;
}

// The engine instance of Policy for a spec (the spec's check refused a
// model the routing has none for).
template <class Policy>
const EngineInstance& engine_for(const Spec& spec) {
  const std::string model = engine_model(spec);
  if (const EngineInstance* e = find_engine_instance(typeid(Policy), model)) return *e;
  throw std::runtime_error("routing '" + spec.routing + "' has no engine on router model '" +
                           model + "': list the model in FABEMU_ENGINES beside the routing policy");
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
  // The router models it has an engine for (router.model values; the
  // input-queued one on the iSLIP allocator is router.switch_allocator's).
  r.router_models.clear();
  for (std::string& m : engine_models(typeid(Policy))) {
    if (m == "input_queued_islip")
      r.islip = true;
    else
      r.router_models.push_back(std::move(m));
  }
  r.make_engine = [program](const Spec& spec, const Fabric& fabric, const EngineConfig& cfg) {
    return engine_for<Policy>(spec).template as_make<Policy>()(
        program_engine_tables(program, spec, fabric), fabric, cfg);
  };
  r.reprogram = [program](EngineBase& engine, const Spec& spec, const Fabric& fabric, ps_t at) {
    return engine_for<Policy>(spec).template as_replace<Policy>()(
        engine, program_engine_tables(program, spec, fabric), at);
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

// BookSim2's routings of one path per pair (dimension order, a butterfly's
// destination tag), as its routing functions give VCs: any VC at every
// hop, any count, one enough; sources may start a packet on any VC
// (vcs.injection free).
template <class Policy, class Program>
RoutingInfo booksim_any_vc_routing(std::string family, std::string name, std::string summary,
                                   Program program) {
  RoutingInfo r = policy_routing<Policy>(std::move(family), std::move(name), std::move(summary),
                                         kMaxVcs, 1, true, program);
  r.injects_on_any_vc = true;
  return r;
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
