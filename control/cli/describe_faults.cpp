#include "control/cli/describe_faults.h"

#include <fmt/format.h>

#include "control/run/fault_plan.h"

namespace fabemu {
namespace {

// 20000000 -> "20us", 1500000 -> "1500ns", as the spec writes times.
std::string emulated_time_text(ps_t ps) {
  if (ps % 1'000'000'000 == 0 && ps) return fmt::format("{}ms", ps / 1'000'000'000);
  if (ps % 1'000'000 == 0 && ps) return fmt::format("{}us", ps / 1'000'000);
  return fmt::format("{:g}ns", static_cast<double>(ps) / 1e3);
}

// "a, b, c and 5 more (the JSON lists them all)": long lists stay readable.
std::string some_of(const std::vector<std::string>& items) {
  constexpr size_t kShown = 16;
  std::string s;
  for (size_t i = 0; i < items.size() && i < kShown; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > kShown)
    s += fmt::format(" and {} more (--json lists them all)", items.size() - kShown);
  return s;
}

std::string fault_list(const std::vector<FaultSpec>& faults) {
  std::string s;
  for (const FaultSpec& f : faults) s += (s.empty() ? "" : "; ") + f.text;
  return s;
}

}  // namespace

DescribedFaults describe_faults(const Spec& spec, const Fabric& healthy, ps_t at,
                                bool healthy_asked) {
  DescribedFaults d;
  d.spec_faults = spec.faults.size();
  d.healthy_asked = healthy_asked;
  d.at = at;
  const FaultPlan plan = plan_faults(spec, healthy);  // refuses a fault the fabric lacks
  FaultState state(healthy);
  for (const FaultPlan::Step& step : plan.steps) {
    if (healthy_asked || step.fault.at > at) break;  // steps are in time order
    std::vector<FabricFault> changes;
    std::string why;
    state.apply(step.fault, spec.link.retry, &changes, &why);  // plan_faults applied it already
    d.applied.push_back(step.fault);
  }
  d.fabric = state.fabric();
  d.dead_routers = state.dead_router_ids();
  // Links down between live routers (a dead router's are listed with it).
  const Fabric& f = d.fabric;
  for (size_t r = 0; r < f.routers.size(); ++r)
    for (size_t p = 0; p < f.routers[r].ports.size(); ++p) {
      const FabricPort& fp = f.routers[r].ports[p];
      if (!fp.dead || fp.peer_router < 0 || f.routers[r].dead ||
          f.routers[size_t(fp.peer_router)].dead ||
          std::make_pair(fp.peer_router, int(fp.peer_port)) < std::make_pair(int32_t(r), int(p)))
        continue;
      d.dead_links.push_back(fmt::format("r{}:p{}-r{}:p{}", r, p, fp.peer_router, fp.peer_port));
    }
  return d;
}

void write_fault_header(const DescribedFaults& d, const DescribeRow& row) {
  if (!d.spec_faults) return;
  const size_t n = d.spec_faults;
  const std::string of_n = fmt::format("the spec's {} fault{}", n, n == 1 ? "" : "s");
  if (d.healthy_asked) {
    row("faults", fmt::format("healthy: {} left out (--healthy)", of_n));
    return;
  }
  if (!d.degraded()) {
    row("faults",
        fmt::format("healthy: at {} none of {} has happened yet", emulated_time_text(d.at), of_n));
    return;
  }
  if (d.at == kNever)
    row("faults", fmt::format("DEGRADED: the fabric after {} (the end of its fault plan; --at TIME "
                              "for an earlier state, --healthy for none): {}",
                              n == 1 ? of_n : "all " + of_n, fault_list(d.applied)));
  else
    row("faults",
        fmt::format("DEGRADED: the fabric at {}, after {} of {} (--healthy for none): {}",
                    emulated_time_text(d.at), d.applied.size(), of_n, fault_list(d.applied)));
  row("dead links", d.dead_links.empty()
                        ? std::string("none")
                        : fmt::format("{}: {}", d.dead_links.size(), some_of(d.dead_links)));
  std::vector<std::string> routers;
  for (const int32_t r : d.dead_routers) routers.push_back(fmt::format("r{}", r));
  row("dead routers",
      routers.empty() ? std::string("none")
                      : fmt::format("{}: {} (with every link into and out of {})", routers.size(),
                                    some_of(routers), routers.size() == 1 ? "it" : "them"));
}

void write_fault_rows(const DescribedFaults& d, const FabricSummary& sum, const DescribeRow& row) {
  if (!d.degraded()) return;
  const FabricSummary::Faults& f = sum.faults;
  const std::string pairs = sum.exact ? fmt::format("{} (src, dst) pairs", f.pairs_traced)
                                      : fmt::format("{} sampled (src, dst) pairs", f.pairs_traced);
  if (!f.unroutable_pairs) {
    row("unroutable pairs", "none: every one of the " + pairs + " is routed around the faults");
  } else {
    std::vector<std::string> some;
    for (const auto& [s, t] : f.unroutable_examples) some.push_back(fmt::format("{} -> {}", s, t));
    std::string first = some_of(some);
    if (f.unroutable_pairs > some.size()) first += ", ...";
    row("unroutable pairs",
        fmt::format("{} of the {}: a dead link or router on the route, where its packets are "
                    "discarded, or no route in the tables; first {}",
                    f.unroutable_pairs, pairs, first));
  }
  std::string hops = "keep their hop count";
  if (f.hops_added)
    hops = fmt::format("take {:+} hops in all, {:+.3f} each", f.hops_added,
                       double(f.hops_added) / double(std::max<uint64_t>(1, f.requests_changed)));
  row("routes changed",
      fmt::format("{} of the routable pairs take another path than in the healthy fabric ({} "
                  "routes of both classes); the {} requests among them {}",
                  f.pairs_changed, f.routes_changed, f.requests_changed, hops));
}

nlohmann::json faults_json(const DescribedFaults& d, const FabricSummary& sum) {
  if (!d.spec_faults) return nullptr;
  nlohmann::json applied = nlohmann::json::array();
  for (const FaultSpec& f : d.applied)
    applied.push_back({{"at_ns", f.at / 1000}, {"fault", f.text}});
  nlohmann::json j = {
      {"spec_faults", d.spec_faults},
      {"degraded", d.degraded()},
      {"healthy_asked", d.healthy_asked},
      {"at_ns", d.at == kNever ? nlohmann::json(nullptr) : nlohmann::json(d.at / 1000)},
      {"applied", applied},
      {"dead_links", d.dead_links},
      {"dead_routers", d.dead_routers}};
  if (!d.degraded()) return j;
  const FabricSummary::Faults& f = sum.faults;
  nlohmann::json examples = nlohmann::json::array();
  for (const auto& [s, t] : f.unroutable_examples) examples.push_back({s, t});
  j["pairs_traced"] = f.pairs_traced;
  j["unroutable_pairs"] = f.unroutable_pairs;
  j["unroutable_examples"] = examples;
  j["routes_changed"] = f.routes_changed;
  j["pairs_changed"] = f.pairs_changed;
  j["requests_changed"] = f.requests_changed;
  j["hops_added"] = f.hops_added;
  j["healthy"] = {{"diameter", f.healthy_diameter},
                  {"avg_hops", f.healthy_avg_hops},
                  {"bisection_links", f.healthy_bisection_links},
                  {"capacity", f.healthy_capacity}};
  return j;
}

}  // namespace fabemu
