// The router's parts a spec names, registered by name from their own files
// (control/topology/router_models/): router models (router.model), switch
// allocators (router.switch_allocator) and the arbiters they are built of.
// The spec's allowed values and help come from here (control/spec/
// spec_fields.cpp), and so do the checks a choice makes of the rest of the
// spec (control/spec/spec_validate.cpp). Which engine runs a model is the
// routing's (RoutingInfo::router_models, control/topology/
// routing_registration.h); this says what the model is and what it needs.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "control/spec/spec_problem.h"
#include "control/topology/named_registry.h"

namespace fabemu {

struct RoutingInfo;  // control/topology/registry.h

// One value of router.model or router.switch_allocator.
struct RouterChoiceInfo {
  std::string name;       // the spec value
  std::string summary;    // what it is, for the spec's help
  std::string reference;  // the paper (and section) it follows; "" for fabemu's own
  bool baseline = false;  // every routing has it: listed first, the fallback
  // Keys that apply to this choice only (refused with another one).
  std::vector<std::string> own_keys;
  // Whether the routing has an engine for it; nullptr: every routing has.
  std::function<bool(const RoutingInfo&)> available;
  // Said when it is not available: where it is ("yarc_tiled models ...");
  // "": the routings `available` holds for (choice_where), which the help
  // lists too.
  std::string where;
  // What else it needs, for the help ("without switch speedup"); "": nothing.
  std::string limits;
  // What it needs of the rest of the spec, in the order it is checked.
  std::function<SpecProblem(const Spec&, const WrittenFn& written)> check;
};

// Same shape, separate lists.
struct RouterModelInfo : RouterChoiceInfo {};
struct SwitchAllocatorInfo : RouterChoiceInfo {};

// An arbiter of dataplane/router/arbiter/ (none is a spec value yet: the
// router models choose theirs).
struct ArbiterInfo {
  std::string name;
  std::string summary;
  std::string reference;
  std::string header;  // where it is implemented
  bool baseline = false;
};

inline const NamedRegistry<RouterModelInfo>& router_models() {
  return NamedRegistry<RouterModelInfo>::get();
}
inline const NamedRegistry<SwitchAllocatorInfo>& switch_allocators() {
  return NamedRegistry<SwitchAllocatorInfo>::get();
}
inline const NamedRegistry<ArbiterInfo>& arbiters() { return NamedRegistry<ArbiterInfo>::get(); }

// "flatfly min, ran_min and val; torus dim_order": the routings `available`
// holds for, by family (families and names in alphabetical order).
std::string routings_where(const std::function<bool(const RoutingInfo&)>& available);
// What is said of choice c where a routing does not have it: its `where`, or
// "NAME is for " the routings it is available for.
std::string choice_where(const RouterChoiceInfo& c);

// "a (summary a) or b (summary b); b: where b is, and its limits": the
// choices of a spec key, for its help.
template <class Info>
std::string choices_help(const NamedRegistry<Info>& reg) {
  std::string s;
  const auto& all = reg.all();
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) s += i + 1 == all.size() ? " or " : ", ";
    s += all[i].name + " (" + all[i].summary + ")";
  }
  for (const auto& e : all) {
    // (The baseline's routings are nearly all: not listed.)
    std::string where =
        e.available && e.where.empty() && !e.baseline ? routings_where(e.available) : "";
    if (!where.empty() && !e.limits.empty()) where += "; ";
    where += e.limits;
    if (!where.empty()) s += "; " + e.name + ": " + where;
  }
  return s;
}

// "a: reference of a; b: reference of b", for the spec's source column.
template <class Info>
std::string choices_source(const NamedRegistry<Info>& reg) {
  std::string s;
  for (const auto& e : reg.all()) {
    if (e.reference.empty()) continue;
    if (!s.empty()) s += "; ";
    s += e.name + ": " + e.reference;
  }
  return s;
}

// Whether `routing` has an engine instance for router model `model`
// (RoutingInfo::router_models): a model's usual `available`.
bool has_router_model(const RoutingInfo& routing, const std::string& model);

// "key is N, but why: remove key, or set instead" for the first switch
// speedup above 1 (a router with no speedup to set); empty when none is.
SpecProblem speedup_problem(const Spec& s, const char* with, const char* why, const char* instead);

}  // namespace fabemu
