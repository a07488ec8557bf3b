// Cross-field validation of a loaded spec (spec_validate.h), split from
// the loader's YAML walk (spec_loader.cpp).
#include "control/spec/spec_validate.h"

#include <fmt/format.h>
#include <rte_config.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "control/run/runner.h"
#include "control/spec/profiles.h"
#include "control/spec/spec_context.h"
#include "control/spec/spec_fields.h"
#include "control/spec/spec_loader.h"
#include "control/spec/spec_refuse.h"
#include "control/spec/spec_validate.h"
#include "control/spec/spec_yaml.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"
#include "control/topology/router_models.h"
#include "control/topology/routing_registration.h"
#include "dataplane/codec/codec.h"
#include "dataplane/codec/codec_check.h"
#include "dataplane/codec/t3e_packets.h"
#include "dataplane/core/fabric.h"
#include "dataplane/endpoint/traffic.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/ethernet/ether.h"
#include "dataplane/link/lanes.h"
#include "dataplane/router/router_sizing.h"
#include "dataplane/stats/sample_periods.h"

namespace fabemu {

using namespace spec_detail;

// Reports a problem that involves several fields against the one the user
// wrote (the first of `paths` set by the file or a --set), so the location
// is a line they can edit rather than a profile default.
void SpecValidator::blame(const std::vector<std::string>& paths, const std::string& msg) const {
  refuse_spec(file_, origins_, paths, msg);
}

// A whole packet of the largest size must fit `units` of buffer `field`.
void SpecValidator::require_packet_fits(const Spec& s, const char* field, int units,
                                        const char* what) const {
  if (const SpecProblem p = packet_fits_problem(s, field, units, what); !p.message.empty())
    blame(p.keys, p.message);
}

void SpecValidator::validate(Spec& s) const {
  const ProfileInfo* profile = find_profile(s.profile);
  const Registry& reg = Registry::get();
  if (s.topology.family.empty())
    blame({"topology.family", "profile"},
          fmt::format("profile '{}' has no topology of its own: set topology.family (known: {})",
                      profile ? profile->name : s.profile, join(reg.topology_names())));
  if (!reg.topology(s.topology.family))
    blame({"topology.family"},
          fmt::format("unknown topology family '{}'; known families: {}",
                      printable(s.topology.family), join(reg.topology_names())));
  validate_families(s);
  validate_link_rate(s);
  const RoutingInfo* routing = reg.routing(s.topology.family, s.routing);
  if (!routing)
    blame({"routing", "topology.family"},
          fmt::format("routing '{}' does not exist for topology family '{}': set routing to one "
                      "of {}",
                      printable(s.routing), printable(s.topology.family),
                      join(reg.routing_names(s.topology.family))));
  validate_router_model(s, *routing);
  validate_switch_allocator(s, *routing);
  validate_injection_vc(s, *routing);
  validate_sample_periods(s);
  if (s.topology.family == "torus" && !s.topology.wrap && !routing->routes_mesh)
    blame({"topology.wrap", "routing"},
          fmt::format("topology.wrap false makes a mesh, but routing '{}' needs the torus's wrap "
                      "links: use routing dim_order (BookSim's dimension order on a mesh), or "
                      "remove topology.wrap",
                      printable(s.routing)));
  if (s.traffic.permutation_seed >= 0 && s.traffic.pattern != "permutation")
    blame({"traffic.permutation_seed", "traffic.pattern"},
          fmt::format("traffic.permutation_seed chooses BookSim2's random permutation, but "
                      "traffic.pattern is '{}': set traffic.pattern: permutation, or remove the key",
                      printable(s.traffic.pattern)));
  if (s.traffic.adaptive_fraction < 1.0 && s.routing != "adaptive")
    blame({"traffic.adaptive_fraction", "routing"},
          fmt::format("traffic.adaptive_fraction {} marks packets for adaptive routing, but "
                      "routing '{}' does not adapt: set routing: adaptive, or remove the key",
                      s.traffic.adaptive_fraction, printable(s.routing)));
  if (s.traffic.phases != "none") {  // (the barrier tree is checked against the fabric at run)
    if (!s.ports.empty())
      blame({"traffic.phases", "ports"},
            "traffic.phases synchronises the synthetic sources, but this spec binds ports: "
            "remove traffic.phases, or the ports");
    if (s.topology.slices > 1)
      blame({"traffic.phases", "topology.slices"},
            "traffic.phases needs one network (a processor's BSUs sit in its one router): set "
            "topology.slices: 1");
    if (s.traffic.process == "single_batch")
      blame({"traffic.phases", "traffic.process"},
            "traffic.phases generates traffic.phase_messages per phase: use traffic.process "
            "bernoulli or batch, not single_batch");
  } else if (s.traffic.phase_messages > 0) {
    blame({"traffic.phase_messages", "traffic.phases"},
          "traffic.phase_messages sizes the phases of traffic.phases, which is none: set "
          "traffic.phases: barrier (or eureka), or remove the key");
  }
  // The socket's faults start from the healthy fabric and publish tables
  // while running; the spec's are scheduled before it. Mixing the two would
  // let one's tables undo the other's.
  if (!s.run.control_socket.empty() && !s.faults.empty())
    blame({"run.control_socket", "faults"},
          "faults in the spec and a control socket cannot be combined yet: give the spec's "
          "faults through the socket (`fabemu fault`), or drop run.control_socket");
  // Every slice routes by slice 0's tables (control/topology/slices.h): a
  // fault in one slice would need tables of its own.
  struct {
    const char* key = nullptr;
    const char* what = nullptr;
  } fault;
  if (!s.faults.empty())
    fault = {"faults", "dead links and routers"};
  else if (!s.run.control_socket.empty())
    fault = {"run.control_socket", "the socket brings them"};
  else if (s.link.lane_degrade && s.link.retry)
    fault = {"link.lane_degrade", "a link may die of its lanes"};
  if (s.topology.slices > 1 && fault.key)
    blame({"topology.slices", fault.key},
          fmt::format("faults ({}: {}) are not modelled on a fabric of {} network slices yet (the "
                      "slices share slice 0's routing tables, which a fault in one slice would "
                      "change): run them on topology.slices: 1",
                      fault.key, fault.what, s.topology.slices));
  if (s.vcs.count > routing->max_vcs)
    blame({"vcs.count", "routing"},
          fmt::format("{} VCs is more than routing '{}' can use: set vcs.count to at most {}",
                      s.vcs.count, s.routing, routing->max_vcs));
  const int needed = routing->needed_vcs ? routing->needed_vcs(s) : routing->min_vcs;
  if (needed > kMaxVcs)
    blame({"routing", "topology.n"},
          fmt::format("routing '{}' needs {} VCs on this size (one per hop it may take), more "
                      "than the {} a port has: lower topology.n or choose another routing",
                      s.routing, needed, kMaxVcs));
  if (s.vcs.count < needed)
    blame({"vcs.count", "routing"},
          fmt::format("routing '{}' needs at least {} VCs to be deadlock-free, got {}: set "
                      "vcs.count to at least {}",
                      s.routing, needed, s.vcs.count, needed));

  // Spider's CC bit 0 adapts between the two VCs of a class's pair.
  if (s.traffic.cc_adapt > 0 && s.vcs.count < 4)
    blame({"traffic.cc_adapt", "vcs.count"},
          fmt::format("congestion-control bit 0 lets a message adapt between the two VCs of its "
                      "pair (requests 0 and 1, responses 2 and 3), and vcs.count is {}: set "
                      "vcs.count: 4, or traffic.cc_adapt: 0",
                      s.vcs.count));

  // The family's own size limits (TopologyInfo::size_problem).
  if (const auto& size_problem = reg.topology(s.topology.family)->size_problem)
    if (const SpecProblem p = size_problem(s); !p.message.empty()) blame(p.keys, p.message);

  if (s.packet.header_units >= s.packet.max_units)
    blame({"packet.header_units", "packet.max_units"},
          fmt::format("{} header units leave no room for payload in a packet of at most {} "
                      "units: lower packet.header_units or raise packet.max_units",
                      s.packet.header_units, s.packet.max_units));
  require_packet_fits(s, "vcs.buffer_units", s.vcs.buffer_units,
                      "VC buffer; virtual cut-through needs room for a whole packet");

  if (s.link.ber > 0 && !s.link.retry)
    blame({"link.ber", "link.retry"},
          "bit errors without link-level retry would reach endpoints as damaged packets; set "
          "link.retry: true, or leave link.ber out");
  if ((s.link.retry_window > 0 || s.link.retry_timeout_ns > 0) && !s.link.retry)
    blame({s.link.retry_window > 0 ? "link.retry_window" : "link.retry_timeout_ns"},
          "this shapes link-level retry, which is off; set link.retry: true");
  validate_lanes(s);

  if (s.router.output_speedup > 1 && s.router.output_queue_units > 0)
    require_packet_fits(s, "router.output_queue_units", s.router.output_queue_units,
                        "output queue; it would wait for room forever (0: four VC buffers)");

  const int64_t endpoints = spec_endpoint_count(s);
  if (endpoints > 0 && s.traffic.pattern == "hotspot" && s.traffic.hotspot >= endpoints)
    blame({"traffic.hotspot", "traffic.pattern"},
          fmt::format("hot spot {} is not an endpoint: the fabric has endpoints 0 to {}",
                      s.traffic.hotspot, endpoints - 1));
  if (s.traffic.process == "bernoulli" && s.traffic.batch_size > 1)
    blame({"traffic.batch_size", "traffic.process"},
          fmt::format("batch_size {} needs traffic.process: batch (bernoulli injects one "
                      "message at a time)",
                      s.traffic.batch_size));
  if (s.traffic.process == "single_batch" && s.traffic.batch_size > s.run.source_queue_packets)
    blame({"traffic.batch_size", "run.source_queue_packets"},
          fmt::format("a single batch of {} messages does not fit a source queue of {} packets "
                      "(the rest would be dropped, not delivered late): raise "
                      "run.source_queue_packets to at least the batch size",
                      s.traffic.batch_size, s.run.source_queue_packets));

  if (!s.run.cores.empty() && static_cast<int>(s.run.cores.size()) != s.run.workers)
    blame({"run.cores", "run.workers"},
          fmt::format("run.cores lists {} CPU(s) for {} worker(s): give one CPU per worker, or "
                      "leave run.cores out to let the workers run on any allowed CPU",
                      s.run.cores.size(), s.run.workers));

  validate_ports(s, endpoints);
  validate_with_fabric(s, endpoints);
}

// A key that means nothing for the spec's topology family (topology.rank
// on a torus) is refused when the file or a --set gave it: ignoring it
// would run another fabric than the one the user asked for.
void SpecValidator::validate_families(const Spec& s) const {
  // Field::families is one family or a list ("clos, flatfly").
  auto listed = [](const char* families, const std::string& family) {
    const std::string list = std::string(", ") + families + ",";
    return list.find(" " + family + ",") != std::string::npos;
  };
  for (const Field& f : fields()) {
    if (!f.families || is_item_key(f.path)) continue;
    auto it = origins_.find(f.path);
    if (it == origins_.end() || it->second.kind == Origin::Kind::profile) continue;
    if (listed(f.families, s.topology.family)) continue;
    const bool several = std::string(f.families).find(',') != std::string::npos;
    std::string hint = several ? fmt::format("topology.family to one of {}", f.families)
                               : fmt::format("topology.family: {}", f.families);
    const auto fam = origins_.find("topology.family");
    const bool family_by_profile =
        fam == origins_.end() || fam->second.kind == Origin::Kind::profile;
    std::string named;  // the profiles whose family it applies to
    for (const auto& p : profiles()) {
      const Field* ff = find_field("topology.family");
      const std::string def(profile_default(p, ff->path));
      if (family_by_profile && !p.needs_family && !def.empty() && listed(f.families, def))
        named += fmt::format("{}profile: {}", named.empty() ? "" : " or ", p.name);
    }
    if (!named.empty()) hint = fmt::format("{} (or {})", named, hint);
    blame(
        {f.path},
        fmt::format("{} applies to the {} {} only, but this spec's topology.family is {} "
                    "(from {}): remove it, or set {}",
                    f.path, f.families, several ? "families" : "family",
                    printable(s.topology.family), origin_text(origins_, "topology.family"), hint));
  }
}

// Whether the file or a --set gave `path` (not a profile's default).
bool SpecValidator::written(const std::string& path) const {
  const auto it = origins_.find(path);
  return it != origins_.end() && it->second.kind != Origin::Kind::profile;
}

// The first key the spec gave that belongs to a choice other than `chosen`
// (its own_keys) and not to `chosen` too, with that choice; {nullptr,
// nullptr} when none.
template <class Info>
std::pair<const Info*, const std::string*> SpecValidator::foreign_key(
    const NamedRegistry<Info>& choices, const std::string& chosen) const {
  const Info* mine = choices.find(chosen);
  const auto own = [&](const std::string& key) {
    return mine &&
           std::find(mine->own_keys.begin(), mine->own_keys.end(), key) != mine->own_keys.end();
  };
  for (const Info& c : choices.all()) {
    if (c.name == chosen) continue;
    for (const std::string& key : c.own_keys)
      if (written(key) && !own(key)) return {&c, &key};
  }
  return {nullptr, nullptr};
}

// router.model against the routing's engine instances (the model's
// `available`, control/topology/router_models.h): the yarc profile's
// default falls back to the baseline model where there is none (a
// yarc-profile torus); a model the user named is refused. A model's own
// keys go with it only; then the model checks what it needs.
void SpecValidator::validate_router_model(Spec& s, const RoutingInfo& routing) const {
  const auto& models = router_models();
  std::vector<std::string> there;
  for (const RouterModelInfo& m : models.all())
    if (!m.available || m.available(routing)) there.push_back(m.name);
  if (std::find(there.begin(), there.end(), s.router.model) == there.end()) {
    const std::string where = choice_where(*models.find(s.router.model));
    const bool baseline_there =
        std::find(there.begin(), there.end(), models.baseline().name) != there.end();
    if (!written("router.model") && baseline_there) {
      s.router.model = models.baseline().name;
    } else {
      blame({"router.model", "routing", "topology.family"},
            fmt::format("router.model {} is not available for routing '{}' of topology.family "
                        "{} (models there: {}){}: set router.model to {} or remove it",
                        s.router.model, s.routing, printable(s.topology.family),
                        there.empty() ? "none" : join(there), where.empty() ? "" : "; " + where,
                        there.empty() ? "a model listed in FABEMU_ENGINES beside the routing"
                                      : join(there)));
    }
  }
  if (const auto [m, key] = foreign_key(models, s.router.model); key)
    blame(
        {*key, "router.model"},
        fmt::format("{} applies to router.model {} only, but this spec's router.model is {} "
                    "(from {}): remove it, or set router.model: {}",
                    *key, m->name, s.router.model, origin_text(origins_, "router.model"), m->name));
  check_choice(s, *models.find(s.router.model));
}

// What a router choice needs of the rest of the spec (its `check`).
void SpecValidator::check_choice(const Spec& s, const RouterChoiceInfo& choice) const {
  if (!choice.check) return;
  const SpecProblem p = choice.check(s, [this](const std::string& key) { return written(key); });
  if (!p.message.empty()) blame(p.keys, p.message);
}

// router.switch_allocator: an engine instance for the routing, the
// allocator's own keys with it only, and what it needs.
void SpecValidator::validate_switch_allocator(const Spec& s, const RoutingInfo& routing) const {
  const auto& allocators = switch_allocators();
  if (const auto [a, key] = foreign_key(allocators, s.router.switch_allocator); key)
    blame({*key, "router.switch_allocator"},
          fmt::format("{} applies to router.switch_allocator {} only: remove it, or set "
                      "router.switch_allocator: {}",
                      *key, a->name, a->name));
  const SwitchAllocatorInfo& chosen = *allocators.find(s.router.switch_allocator);
  if (chosen.available && !chosen.available(routing))
    blame({"router.switch_allocator", "routing"},
          fmt::format("router.switch_allocator {} is not available for routing '{}' of "
                      "topology.family {} ({}): choose one of those, or remove "
                      "router.switch_allocator",
                      chosen.name, s.routing, printable(s.topology.family),
                      choice_where(chosen)));
  check_choice(s, chosen);
}

// vcs.injection free chooses among every VC, which only a routing that
// starts packets on any VC allows; rotate is the flatfly classes' rotation
// (the torus's dim_order rotates over every VC whatever the key says).
void SpecValidator::validate_injection_vc(const Spec& s, const RoutingInfo& routing) const {
  if (s.vcs.injection == "free" && !routing.injects_on_any_vc)
    blame({"vcs.injection", "routing"},
          fmt::format(
              "vcs.injection free lets a source start a packet on any VC, but routing '{}' "
              "starts each traffic class on VCs of its own: use it with BookSim's routings "
              "(flatfly ran_min, valiant_booksim, ugal_booksim; torus and hypercube dim_order; "
              "butterfly dest_tag), or set "
              "vcs.injection class or rotate",
              printable(s.routing)));
  if (s.vcs.injection == "rotate" &&
      (s.topology.family == "torus" || s.topology.family == "butterfly") &&
      !routing.injects_on_any_vc)
    blame({"vcs.injection", "routing"},
          fmt::format("vcs.injection rotate turns over a traffic class's VCs, which {} "
                      "routing '{}' assigns itself: remove the key, or use routing {} "
                      "(which rotates over every VC)",
                      s.topology.family, printable(s.routing),
                      s.topology.family == "torus" ? "dim_order" : "dest_tag"));
}

// run.sample_period_ns: cells kept per worker for every period up to the
// end of generation (dataplane/stats/sample_periods.h).
void SpecValidator::validate_sample_periods(const Spec& s) const {
  const double p = s.run.sample_period_ns;
  if (p <= 0) return;
  if (s.run.mode == "realtime")
    blame({"run.sample_period_ns", "run.mode"},
          "run.sample_period_ns samples a virtual-time run: remove it, or set run.mode: virtual");
  const double periods = std::ceil((s.run.warmup_ns + s.run.measure_ns) / p);
  if (periods > SamplePeriods::kMaxPeriods)
    blame({"run.sample_period_ns", "run.measure_ns"},
          fmt::format("run.sample_period_ns {} cuts run.warmup_ns + run.measure_ns ({} ns) into "
                      "{:.0f} periods, more than the {} kept: lengthen the period, or shorten "
                      "the run",
                      p, s.run.warmup_ns + s.run.measure_ns, periods, SamplePeriods::kMaxPeriods));
}

// What the port bindings need from the rest of the spec (clashes between
// bindings are refused as the list is read, in read_ports).
void SpecValidator::validate_ports(const Spec& s, int64_t endpoints) const {
  bool replays = false;
  for (const PortBinding& p : s.ports) replays = replays || !p.replay.empty();
  // (Phases at load 0 are barriers back to back: the barrier network's own.)
  if (s.run.mode == "virtual" && s.traffic.load == 0 && !replays && s.traffic.phases == "none")
    blame({"traffic.load", "run.mode"},
          "a virtual-time run with traffic.load 0 has nothing to emulate: give a load in (0, 1], "
          "replay a pcap file at a port (ports[].replay), use traffic.phases (barriers back to "
          "back), or use run.mode: realtime with ports");
  for (size_t i = 0; i < s.ports.size(); ++i)
    if (!s.ports[i].device.empty() && s.run.mode != "realtime")
      blame({"run.mode", fmt::format("ports[{}].device", i), "ports"},
            fmt::format("DPDK ports carry real frames in wall-clock time: set run.mode: "
                        "realtime (run.mode is '{}'), or replay a pcap file (ports[].replay)",
                        s.run.mode));
  // DPDK keeps its Ethernet ports in a fixed table (RTE_MAX_ETHPORTS, 32
  // in Debian's build); a device beyond it cannot be created, and DPDK
  // says only "Operation not permitted". run.eal's --vdev ports count too.
  std::set<std::string> devices;
  for (size_t a = 0; a < s.run.eal.size(); ++a) {
    const std::string& arg = s.run.eal[a];
    if (arg.rfind("--vdev=", 0) == 0) devices.insert(device_name(arg.substr(7)));
    if (arg == "--vdev" && a + 1 < s.run.eal.size()) devices.insert(device_name(s.run.eal[a + 1]));
  }
  for (size_t i = 0; i < s.ports.size(); ++i) {
    const PortBinding& p = s.ports[i];
    if (!p.device.empty()) devices.insert(device_name(p.device));
    if (devices.size() > RTE_MAX_ETHPORTS)
      blame({fmt::format("ports[{}].device", i), fmt::format("ports[{}]", i), "ports"},
            fmt::format("device '{}' would be DPDK port number {}, but this DPDK build has room "
                        "for {} Ethernet ports (RTE_MAX_ETHPORTS; run.eal's --vdev devices "
                        "count too): put several bindings on one device, told apart by vlan "
                        "or macs, or use fewer devices",
                        printable(device_name(p.device)), devices.size(), RTE_MAX_ETHPORTS));
    if (endpoints > 0 && p.endpoint >= endpoints)
      blame({fmt::format("ports[{}].endpoint", i), fmt::format("ports[{}]", i), "ports"},
            fmt::format("endpoint {} does not exist: this fabric has endpoints 0 to {}; bind "
                        "the port to one of them",
                        p.endpoint, endpoints - 1));
  }
}

// Checks that need the built fabric: what the topology builder refuses
// (blamed on the field it names), explicit endpoint placement (router and
// port ranges are the builder's) and the fixed traffic patterns (which
// need, e.g., a square torus).
void SpecValidator::validate_with_fabric(const Spec& s, int64_t endpoints) const {
  for (size_t i = 0; i < s.endpoint_map.size(); ++i) {
    const EndpointMap& m = s.endpoint_map[i];
    if (endpoints > 0 && m.id >= endpoints)
      blame({fmt::format("endpoints[{}]", i), "endpoints"},
            fmt::format("endpoint {} does not exist: this fabric has endpoints 0 to {}", m.id,
                        endpoints - 1));
  }
  const Fabric f = build_spec_fabric(s);
  const Pattern pattern = pattern_of(s.traffic.pattern);
  const bool fixed_pattern = pattern != Pattern::uniform && pattern != Pattern::hotspot &&
                             pattern != Pattern::flatfly_worst;
  for (size_t i = 0; i < s.endpoint_map.size(); ++i) {
    const EndpointMap& m = s.endpoint_map[i];
    const std::string item = fmt::format("endpoints[{}]", i);
    if (m.router >= static_cast<int>(f.routers.size()))
      blame({item, "endpoints"},
            fmt::format("router {} does not exist: this fabric has routers 0 to {}", m.router,
                        f.routers.size() - 1));
    const auto& ports = f.routers[m.router].ports;
    if (m.port < static_cast<int>(ports.size()) && ports[m.port].peer_router >= 0)
      blame({item, "endpoints"},
            fmt::format("router {} port {} is a link to router {}, not an endpoint port", m.router,
                        m.port, ports[m.port].peer_router));
  }
  // The cycle-synchronous router's matcher has one bit per switch input
  // and output: ports times the speedup.
  if (engine_model(s) == "input_queued_islip") {
    size_t ports = 0;
    for (const FabricRouter& r : f.routers) ports = std::max(ports, r.ports.size());
    const bool in = s.router.input_speedup >= s.router.output_speedup;
    const int speedup = in ? s.router.input_speedup : s.router.output_speedup;
    if (ports * size_t(speedup) > size_t(kMaxPorts))
      blame({in ? "router.input_speedup" : "router.output_speedup", "router.switch_allocator"},
            fmt::format("{} {} gives this fabric's {}-port routers {} switch {}, but "
                        "router.switch_allocator {} matches at most {}: lower the speedup, or "
                        "set router.switch_allocator: per_output",
                        in ? "router.input_speedup" : "router.output_speedup", speedup, ports,
                        ports * size_t(speedup), in ? "inputs" : "outputs",
                        s.router.switch_allocator, kMaxPorts));
  }
  validate_t3e_traffic(s, endpoints);
  validate_packets(s, f);
  validate_generation(s, f);
  if (fixed_pattern) {
    EngineConfig cfg;
    cfg.pattern = pattern;
    cfg.hotspot = static_cast<uint32_t>(s.traffic.hotspot);
    cfg.hotspot_fraction = s.traffic.hotspot_fraction;
    cfg.booksim_numbering = s.traffic.numbering == "booksim";
    cfg.permutation_seed = s.traffic.permutation_seed;
    TrafficPattern tp;
    std::string err;
    if (!tp.init(f, cfg, &err))
      blame({"traffic.pattern", "topology.dims", "topology.endpoints"},
            fmt::format("pattern '{}' does not fit this fabric: {}; choose another pattern or "
                        "another size",
                        s.traffic.pattern, err));
  }
}

// traffic.t3e_packets needs the T3E's flits (its header flits differ by
// type) and replaces the size mix (traffic.sizes, which a file for the
// profile often gives, is left unused) and its replies; traffic.sources
// must name endpoints.
void SpecValidator::validate_t3e_traffic(const Spec& s, int64_t endpoints) const {
  for (size_t i = 0; i < s.traffic.sources.size(); ++i)
    if (endpoints > 0 && s.traffic.sources[i] >= endpoints)
      blame({fmt::format("traffic.sources[{}]", i), "traffic.sources"},
            fmt::format("endpoint {} does not exist: this fabric has endpoints 0 to {}",
                        s.traffic.sources[i], endpoints - 1));
  if (s.traffic.t3e_packets.empty()) return;
  if (codec_for(s.profile, s.topology.family) != CodecKind::t3e)
    blame({"traffic.t3e_packets", "profile"},
          fmt::format("T3E packet types need the T3E's flits, and profile '{}' on a {} fabric "
                      "sends {} units: use profile t3e (or custom with a torus), or "
                      "traffic.sizes",
                      s.profile, s.topology.family,
                      codec_info(codec_for(s.profile, s.topology.family)).label));
  if (s.traffic.reply_fraction > 0)
    blame({"traffic.reply_fraction", "traffic.t3e_packets"},
          "every T3E Get and Put is answered by its response: leave traffic.reply_fraction out "
          "(or 0) with traffic.t3e_packets");
  for (size_t i = 0; i < s.traffic.t3e_packets.size(); ++i) {
    const T3ePacketType& t = *t3e_packet_type(s.traffic.t3e_packets[i].type);
    const uint32_t longest = std::max(t.request_flits(), t.response_flits());
    if (longest > uint32_t(s.packet.max_units))
      blame({fmt::format("traffic.t3e_packets[{}]", i), "packet.max_units"},
            fmt::format("a {} has a packet of {} flits (Table 3), longer than packet.max_units "
                        "{}: raise packet.max_units to {} (the T3E's 10)",
                        t.name, longest, s.packet.max_units, std::max<uint32_t>(longest, 10)));
  }
}

// The gap between an endpoint's messages is drawn in unit times of its
// injection link; a mean gap beyond any run (a load tiny for the batch
// and the message sizes) generates nothing and overflows the clock.
void SpecValidator::validate_generation(const Spec& s, const Fabric& f) const {
  if (s.traffic.load <= 0 || f.endpoints.empty()) return;
  const EngineConfig cfg = make_engine_config(s, f);
  const double p = generation_probability(cfg.format, cfg);
  const double gap_s = double(f.endpoints[0].unit_ps) / p * 1e-12;
  if (gap_s > 1000)
    blame({"traffic.load", "traffic.batch_size", "traffic.sizes"},
          fmt::format("each endpoint would start a {} every {:.3g} s on average, longer than "
                      "any run (1e10 ns a phase): raise traffic.load, or lower "
                      "traffic.batch_size or the message sizes",
                      cfg.batch_size > 1 ? "batch" : "message", gap_s));
  const double r1 = burst_on_probability(p, cfg);
  if (cfg.on_off && r1 > 1)
    blame({"traffic.load", "traffic.burst_alpha", "traffic.burst_beta"},
          fmt::format("process on_off is on {:.3g} of the slots (burst_alpha / (burst_alpha + "
                      "burst_beta)), so traffic.load {} would need an on source to start {:.3g} "
                      "messages a slot: lower the load or burst_beta, or raise burst_alpha",
                      s.traffic.burst_alpha / (s.traffic.burst_alpha + s.traffic.burst_beta),
                      s.traffic.load, r1));
}

// Every packet the sources will make must encode in the profile's codec,
// in the buffers the engine allocates (the engine's own configuration and
// buffer size, so the two cannot differ).
void SpecValidator::validate_packets(const Spec& s, const Fabric& f) const {
  const EngineConfig cfg = make_engine_config(s, f);
  // A router FIFO counts whole packets: a buffer full of the shortest.
  uint32_t maxcap = 1;
  for (int v = 0; v < f.num_vcs && v < kMaxVcs; ++v)
    maxcap = std::max(maxcap, f.vc_buffer_units[v]);
  const uint32_t minu = std::max<uint32_t>(1, cfg.format.min_units);
  if (fifo_entries(maxcap, minu) > kMaxFifoEntries)
    blame({"vcs.buffer_units", "vcs.adaptive_buffer_units"},
          fmt::format("a buffer of {} units holds up to {} packets of the shortest ({} unit{}), "
                      "more than the {} a router FIFO keeps: set it to at most {}",
                      maxcap, maxcap / minu, minu, minu == 1 ? "" : "s", kMaxFifoEntries - 1,
                      kMaxFifoEntries * minu - 1));
  const CodecInfo& codec = codec_info(static_cast<CodecKind>(cfg.codec));
  if (codec.max_vcs && uint32_t(f.num_vcs) > codec.max_vcs)
    blame({"vcs.count", "profile"},
          fmt::format("the {} codec tags a unit's VC in {} bits, so it has {} VCs, and vcs.count "
                      "is {}: set vcs.count to at most {}",
                      codec.label, std::bit_width(codec.max_vcs - 1), codec.max_vcs, f.num_vcs,
                      codec.max_vcs));
  std::vector<uint32_t> sizes = cfg.size_bytes;
  if (!s.ports.empty()) sizes.push_back(1500 + kEthHeaderBytes);  // a frame at the usual MTU
  const CodecProblem p = codec_check_messages(static_cast<CodecKind>(cfg.codec), cfg.format,
                                              static_cast<uint32_t>(f.endpoints.size()), sizes,
                                              cfg.reply_fraction > 0 ? cfg.reply_bytes : 0);
  using Limit = CodecProblem::Limit;
  switch (p.limit) {
    case Limit::none:
      return;
    case Limit::max_units:
      blame({"packet.max_units"}, p.message);
    case Limit::header_units:
      blame({"packet.header_units", "packet.max_units"}, p.message);
    case Limit::endpoints:
      blame({"topology.dims", "topology.endpoints_per_router", "topology.endpoints"}, p.message);
    case Limit::segments:
      blame({"packet.max_units", "traffic.sizes", "traffic.reply_bytes", "packet.header_units"},
            p.message);
    case Limit::message_bytes:
      blame({"packet.header_units", "packet.max_units", "traffic.sizes", "traffic.reply_bytes"},
            p.message);
  }
}

}  // namespace fabemu
