#include "control/run/fault_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "control/spec/spec_error.h"
#include "control/spec/spec_refuse.h"
#include "dataplane/link/lanes.h"

namespace fabemu {

bool FaultState::apply(const FaultSpec& f, bool retry_on, std::vector<FabricFault>* changes,
                       std::string* why) {
  if (f.target == FaultSpec::Target::endpoint) {  // its sink: no port or table changes
    const int ne = static_cast<int>(fabric_.endpoints.size());
    if (f.endpoint < 0 || f.endpoint >= ne) {
      *why = fmt::format("'{}': endpoint {} does not exist (the fabric has endpoints 0 to {})",
                         printable(f.text), f.endpoint, ne - 1);
      return false;
    }
    const FabricEndpoint& ep = fabric_.endpoints[size_t(f.endpoint)];
    changes->push_back(
        {f.at, ep.router, ep.port,
         f.kind == FaultSpec::Kind::stop ? FabricFault::Op::sink_stop : FabricFault::Op::sink_start,
         0});
    return true;
  }
  const int32_t nr = static_cast<int32_t>(fabric_.routers.size());
  if (f.router < 0 || f.router >= nr) {
    *why = fmt::format("'{}': router {} does not exist (the fabric has routers 0 to {})",
                       printable(f.text), f.router, nr - 1);
    return false;
  }
  const auto key = [&](int32_t r, int p) {
    const FabricPort& fp = fabric_.routers[size_t(r)].ports[size_t(p)];
    return std::min(std::make_pair(r, p), std::make_pair(fp.peer_router, int(fp.peer_port)));
  };
  if (f.target == FaultSpec::Target::link) {
    const auto& ports = fabric_.routers[size_t(f.router)].ports;
    if (f.port < 0 || f.port >= int(ports.size()) || ports[size_t(f.port)].peer_router < 0) {
      std::string links;
      for (size_t p = 0; p < ports.size(); p++)
        if (ports[p].peer_router >= 0) links += (links.empty() ? "" : ", ") + std::to_string(p);
      *why = fmt::format(
          "'{}': port {} of router {} is not a link to another router (its router links are "
          "ports {}); endpoint links cannot be faulted",
          printable(f.text), f.port, f.router, links.empty() ? "none" : links);
      return false;
    }
    if (f.lane >= 0 && !lane_exists(f, why)) return false;
    const FabricPort& fp = ports[size_t(f.port)];
    if (f.kind == FaultSpec::Kind::ber) {
      if (!retry_on) {
        *why = fmt::format("'{}': bit errors need link-level retry (set link.retry: true)",
                           printable(f.text));
        return false;
      }
      const FabricFault::Op op = f.lane >= 0 ? FabricFault::Op::lane_ber : FabricFault::Op::ber;
      changes->push_back({f.at, f.router, int16_t(f.port), op, f.ber, int16_t(f.lane)});
      changes->push_back({f.at, fp.peer_router, fp.peer_port, op, f.ber, int16_t(f.lane)});
      return true;
    }
    if (f.lane >= 0) {
      uint64_t& down = lanes_down_[key(f.router, f.port)];
      const uint64_t bit = uint64_t{1} << f.lane;
      down = f.kind == FaultSpec::Kind::down ? down | bit : down & ~bit;
    } else if (f.kind == FaultSpec::Kind::down) {
      links_down_.insert(key(f.router, f.port));
    } else {
      links_down_.erase(key(f.router, f.port));
    }
  } else if (f.kind == FaultSpec::Kind::down) {
    if (!routers_down_.count(f.router))
      changes->push_back({f.at, f.router, -1, FabricFault::Op::router_flush, 0});
    routers_down_.insert(f.router);
  } else {
    routers_down_.erase(f.router);
  }
  // The ports whose state changed, every one of them (both ends of a link);
  // a link whose lanes down leave it no width is dead.
  std::vector<FabricFault> ports_changed;
  const auto lanes_all_down = [&](int32_t r, int p) {
    const auto it = lanes_down_.find(key(r, p));
    return it != lanes_down_.end() &&
           usable_lanes(fabric_.lanes, it->second, fabric_.lanes_lower_half) == 0;
  };
  for (int32_t r = 0; r < nr; r++) {
    FabricRouter& fr = fabric_.routers[size_t(r)];
    fr.dead = routers_down_.count(r) > 0;
    for (size_t p = 0; p < fr.ports.size(); p++) {
      FabricPort& fp = fr.ports[p];
      if (!fp.connected()) continue;
      bool dead = fr.dead;
      if (fp.peer_router >= 0)
        dead = dead || routers_down_.count(fp.peer_router) > 0 ||
               links_down_.count(key(r, int(p))) > 0 || lanes_all_down(r, int(p));
      if (dead == fp.dead) continue;
      fp.dead = dead;
      ports_changed.push_back(
          {f.at, r, int16_t(p), dead ? FabricFault::Op::port_down : FabricFault::Op::port_up, 0});
    }
  }
  // A lane of a link, both directions, before the link's own change.
  if (f.target == FaultSpec::Target::link && f.lane >= 0) {
    const FabricPort& fp = fabric_.routers[size_t(f.router)].ports[size_t(f.port)];
    const FabricFault::Op op =
        f.kind == FaultSpec::Kind::down ? FabricFault::Op::lane_down : FabricFault::Op::lane_up;
    changes->push_back({f.at, f.router, int16_t(f.port), op, 0, int16_t(f.lane), !fp.dead});
    changes->push_back({f.at, fp.peer_router, fp.peer_port, op, 0, int16_t(f.lane), !fp.dead});
  }
  changes->insert(changes->end(), ports_changed.begin(), ports_changed.end());
  return true;
}

bool FaultState::lane_exists(const FaultSpec& f, std::string* why) const {
  const uint32_t lanes = fabric_.lanes;
  if (lanes > kMaxLanes) {
    *why = fmt::format(
        "'{}': lane faults are modelled on links of at most {} lanes, and this fabric's have {} "
        "(link.lanes): lower link.lanes or fault the whole link",
        printable(f.text), kMaxLanes, lanes);
    return false;
  }
  if (uint32_t(f.lane) >= lanes) {
    *why = fmt::format(
        "'{}': lane {} does not exist: the links of this fabric have {} lane{} (link.lanes), so "
        "name lane=0{}",
        printable(f.text), f.lane, lanes, lanes == 1 ? "" : "s",
        lanes == 1 ? "" : fmt::format(" to lane={}", lanes - 1));
    return false;
  }
  return true;
}

int FaultState::dead_links() const { return static_cast<int>(dead_link_names().size()); }

bool changes_routing(const std::vector<FabricFault>& changes) {
  return std::any_of(changes.begin(), changes.end(), [](const FabricFault& c) {
    return c.op == FabricFault::Op::port_down || c.op == FabricFault::Op::port_up;
  });
}

std::vector<std::string> FaultState::dead_link_names() const {
  std::vector<std::string> out;
  for (size_t r = 0; r < fabric_.routers.size(); r++)
    for (size_t p = 0; p < fabric_.routers[r].ports.size(); p++) {
      const FabricPort& fp = fabric_.routers[r].ports[p];
      if (fp.dead && fp.peer_router >= 0 &&
          std::make_pair(int32_t(r), int(p)) < std::make_pair(fp.peer_router, int(fp.peer_port)))
        out.push_back(fmt::format("r{}:p{}", r, p));
    }
  return out;
}

std::vector<int32_t> FaultState::dead_router_ids() const {
  return std::vector<int32_t>(routers_down_.begin(), routers_down_.end());
}

int FaultState::dead_routers() const { return static_cast<int>(routers_down_.size()); }

FaultPlan plan_faults(const Spec& spec, const Fabric& fabric) {
  FaultPlan plan;
  std::vector<FaultSpec> faults;
  for (size_t i = 0; i < spec.faults.size(); i++) {
    FaultSpec f;
    std::string why;
    if (!parse_fault(spec.faults[i], true, &f, &why))
      refuse_spec(spec, {"faults"}, fmt::format("faults[{}]: {}", i, why));
    faults.push_back(f);
  }
  std::stable_sort(faults.begin(), faults.end(),
                   [](const FaultSpec& a, const FaultSpec& b) { return a.at < b.at; });
  FaultState state(fabric);
  for (const FaultSpec& f : faults) {
    FaultPlan::Step step;
    step.fault = f;
    std::string why;
    if (!state.apply(f, spec.link.retry, &step.changes, &why))
      refuse_spec(spec, {"faults"}, why);
    step.routing = changes_routing(step.changes);
    step.fabric = state.fabric();
    step.dead_links = state.dead_links();
    step.dead_routers = state.dead_routers();
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

}  // namespace fabemu
