#include "control/run/fault_control.h"

#include <fmt/format.h>

#include <algorithm>

#include "control/spec/spec_error.h"
#include "control/topology/registry.h"

namespace fabemu {
namespace {

// "none", or the count and the first few.
std::string joined(const std::vector<std::string>& v) {
  constexpr size_t kShown = 8;
  if (v.empty()) return "none";
  std::string s;
  for (size_t i = 0; i < std::min(kShown, v.size()); i++) s += (i ? ", " : "") + v[i];
  if (v.size() > kShown) s += fmt::format(", and {} more", v.size() - kShown);
  return fmt::format("{} ({})", v.size(), s);
}

}  // namespace

std::string FaultController::status() const {
  std::vector<std::string> routers;
  for (int32_t r : state_.dead_router_ids()) routers.push_back(std::to_string(r));
  return fmt::format("ok emulated {:.3f} us; dead links: {}; dead routers: {}; faults given: {}",
                     double(engine_.emulated_now()) / 1e6, joined(state_.dead_link_names()),
                     joined(routers), given_.size());
}

std::string FaultController::handle(const std::string& request) {
  std::lock_guard<std::mutex> g(mu_);
  if (request == "help") return std::string("ok requests: ") + kControlRequests;
  if (request == "status") return status();
  std::string text = request;
  if (text.rfind("fault ", 0) == 0) text = text.substr(6);
  FaultSpec f;
  std::string why;
  if (!parse_fault(text, false, &f, &why))
    return "error: " + why + " (requests: " + kControlRequests + ")";
  // Tried on a copy first: a fault refused, or tables that cannot be
  // programmed, leave the state as it was.
  FaultState next = state_;
  std::vector<FabricFault> changes;
  if (!next.apply(f, spec_.link.retry, &changes, &why)) return "error: " + why;
  const bool reroute = changes_routing(changes);
  Given entry;
  entry.text = text;
  entry.n = changes.size();
  std::string failed;
  engine_.change_while_running([&] {
    try {
      // The tables first: a worker that took the faults but not yet the
      // tables would send packets into the dead port (counted, but lost).
      if (reroute && !routing_.reprogram(engine_, spec_, next.fabric(), kNever))
        failed = "the routing tables could not be replaced while running";
    } catch (const std::exception& e) {
      failed = std::string("the routing could not be programmed around it: ") + e.what();
    }
    if (failed.empty() && !changes.empty() && !engine_.inject_faults(changes, &entry.first))
      failed = "the engine was started without fault support";
  });
  if (!failed.empty()) return "error: '" + printable(text) + "': " + failed;
  state_ = std::move(next);
  entry.dead_links = state_.dead_links();
  entry.dead_routers = state_.dead_routers();
  given_.push_back(entry);
  return fmt::format(
      "ok '{}' given at about {:.3f} us emulated: {} port change{}{}; {} dead "
      "link{}, {} dead router{}",
      text, double(engine_.emulated_now()) / 1e6, changes.size(), changes.size() == 1 ? "" : "s",
      reroute ? ", routing tables reprogrammed" : "", entry.dead_links,
      entry.dead_links == 1 ? "" : "s", entry.dead_routers, entry.dead_routers == 1 ? "" : "s");
}

nlohmann::json FaultController::log() const {
  std::lock_guard<std::mutex> g(mu_);
  const std::vector<ps_t> at = engine_.injected_applied_at();
  nlohmann::json out = nlohmann::json::array();
  for (const Given& e : given_) {
    const bool applied = e.n == 0 || (e.first < at.size() && at[e.first] != kNever);
    nlohmann::json j = {{"fault", e.text},
                        {"source", "control socket"},
                        {"applied", applied},
                        {"dead_links", e.dead_links},
                        {"dead_routers", e.dead_routers}};
    j["at_ns"] = applied && e.n ? nlohmann::json(double(at[e.first]) / 1e3) : nlohmann::json();
    out.push_back(std::move(j));
  }
  return out;
}

size_t FaultController::given() const {
  std::lock_guard<std::mutex> g(mu_);
  return given_.size();
}

FaultController::Counts FaultController::counts() const {
  std::lock_guard<std::mutex> g(mu_);
  return {given_.size(), state_.dead_links(), state_.dead_routers()};
}

namespace {
std::string dead_text(int links, int routers) {
  return fmt::format("{} dead link{}, {} dead router{}", links, links == 1 ? "" : "s", routers,
                     routers == 1 ? "" : "s");
}
}  // namespace

std::string FaultProgress::text(ps_t now) const {
  std::string s;
  if (!plan_.empty()) {
    size_t applied = 0;
    while (applied < plan_.steps.size() && plan_.steps[applied].fault.at <= now) applied++;
    s = fmt::format("faults {} of {} applied", applied, plan_.steps.size());
    if (applied)
      s += ": " +
           dead_text(plan_.steps[applied - 1].dead_links, plan_.steps[applied - 1].dead_routers);
  }
  if (controller_) {
    const FaultController::Counts c = controller_->counts();
    if (c.given)
      s += fmt::format("{}control socket {} given: {}", s.empty() ? "" : "; ", c.given,
                       dead_text(c.dead_links, c.dead_routers));
  }
  return s;
}

}  // namespace fabemu
