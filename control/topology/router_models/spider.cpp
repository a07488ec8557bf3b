// router.model spider: the SGI Spider chip's router (dataplane/router/
// spider.h), for the routings that list it in FABEMU_ENGINES beside them.
#include <fmt/format.h>

#include "control/topology/router_models.h"
#include "dataplane/router/arbiter/age.h"

namespace fabemu {

namespace {

SpecProblem spider_needs(const Spec& s, const WrittenFn&) {
  if (SpecProblem p = speedup_problem(
          s, "router.model",
          "the Spider router's crossbar connects an input to one output at a time, with no "
          "speedup",
          "router.model: input_queued");
      !p.message.empty())
    return p;
  if (s.topology.family.find("hypercube") == std::string::npos)
    return {{"topology.family", "router.model"},
            fmt::format("the Spider router builds hypercubes (its chip has 6 ports); topology "
                        "family {} is not one: set topology.family: hypercube, or "
                        "router.model: input_queued",
                        s.topology.family)};
  if (s.topology.family == "hypercube") {
    const uint32_t ports = static_cast<uint32_t>(s.topology.n + s.topology.endpoints_per_router);
    if (ports > 15 || AgeArbiter::slots(ports, uint32_t(s.vcs.count)) > AgeArbiter::kMaxCandidates)
      return {{"topology.n", "topology.endpoints_per_router", "vcs.count", "router.model"},
              fmt::format("the Spider router's arbiter takes up to {} (input, VC, output) "
                          "candidates and 15 ports; {} ports with {} VCs make {}: use fewer "
                          "dimensions, endpoints per router or VCs (the chip: 6 ports, 4 VCs), "
                          "or set router.model: input_queued",
                          AgeArbiter::kMaxCandidates, ports, s.vcs.count,
                          AgeArbiter::slots(ports, uint32_t(s.vcs.count)))};
  }
  return {};
}

}  // namespace

FABEMU_REGISTER_NAMED(RouterModelInfo) {
  i.name = "spider";
  i.summary =
      "the SGI Spider chip: per (input, VC) buffer a list of messages per output (no "
      "head-of-line blocking across outputs), a crossbar arbiter picking up to one winner per "
      "input and output each cycle, oldest message age first; deadlock and tail time-outs";
  i.reference =
      "Galles, \"Spider: A High-Speed Network Interconnect\", IEEE Micro 17(1), 1997: Crossbar "
      "arbitration, Error handling";
  i.own_keys = {"router.arbitration_ns", "router.age_period_ns", "router.deadlock_timeout_ns",
                "router.tail_timeout_ns"};
  i.available = [](const RoutingInfo& r) { return has_router_model(r, "spider"); };
  i.where = "spider has engines for hypercube ecube (which routes by flatfly min)";
  i.check = spider_needs;
}

}  // namespace fabemu
