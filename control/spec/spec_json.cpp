// The resolved spec as JSON: a writer per key of the field table.
#include "control/spec/spec_json.h"

#include <string_view>
#include <utility>

#include "control/spec/spec_fields.h"
#include "control/topology/router_models.h"

namespace fabemu {
namespace {

using nlohmann::json;
using Writer = json (*)(const Spec&);

json sizes_json(const Spec& s) {
  json out = json::array();
  for (const PacketSize& p : s.traffic.sizes)
    out.push_back({{"bytes", p.bytes}, {"weight", p.weight}});
  return out;
}

json t3e_packets_json(const Spec& s) {
  json out = json::array();
  for (const T3ePacketShare& p : s.traffic.t3e_packets)
    out.push_back({{"type", p.type}, {"weight", p.weight}});
  return out;
}

json endpoint_map_json(const Spec& s) {
  json out = json::array();
  for (const EndpointMap& e : s.endpoint_map)
    out.push_back({{"id", e.id}, {"router", e.router}, {"port", e.port}});
  return out;
}

// A binding's keys (ports[].KEY), its empty strings left out as above.
json ports_json(const Spec& s) {
  json out = json::array();
  for (const PortBinding& p : s.ports) {
    json b = {{"name", p.name},
              {"endpoint", p.endpoint},
              {"vlan", p.vlan},
              {"macs", p.macs},
              {"queue_frames", p.queue_frames}};
    if (!p.device.empty()) b["device"] = p.device;
    if (!p.replay.empty()) {
      b["replay"] = p.replay;
      if (!p.replay_interface.empty()) b["replay_interface"] = p.replay_interface;
      b["replay_speed"] = p.replay_speed;
      b["replay_loops"] = p.replay_loops;
    }
    if (p.name.empty()) b.erase("name");
    out.push_back(std::move(b));
  }
  return out;
}

// clang-format off
const std::vector<std::pair<std::string_view, Writer>>& writers() {
  static const std::vector<std::pair<std::string_view, Writer>> table{
    {"profile", [](const Spec& s) -> json { return s.profile; }},
    {"topology.family", [](const Spec& s) -> json { return s.topology.family; }},
    {"topology.dims", [](const Spec& s) -> json { return s.topology.dims; }},
    {"topology.wrap", [](const Spec& s) -> json { return s.topology.wrap; }},
    {"topology.rank", [](const Spec& s) -> json {
       return s.topology.sidelinks ? json(s.topology.rank + 0.5) : json(s.topology.rank); }},
    {"topology.endpoints", [](const Spec& s) -> json { return s.topology.endpoints; }},
    {"topology.uplinks", [](const Spec& s) -> json { return s.topology.uplinks; }},
    {"topology.slices", [](const Spec& s) -> json { return s.topology.slices; }},
    {"topology.endpoints_per_router", [](const Spec& s) -> json { return s.topology.endpoints_per_router; }},
    {"topology.k", [](const Spec& s) -> json { return s.topology.k; }},
    {"topology.n", [](const Spec& s) -> json { return s.topology.n; }},
    {"topology.meta_n", [](const Spec& s) -> json { return s.topology.meta_n; }},
    {"topology.diagonal", [](const Spec& s) -> json { return s.topology.diagonal; }},
    {"link.lanes", [](const Spec& s) -> json { return s.link.lanes; }},
    {"link.lane_gbps", [](const Spec& s) -> json { return s.link.lane_gbps; }},
    {"link.coding", [](const Spec& s) -> json { return s.link.coding; }},
    {"link.phit_bits", [](const Spec& s) -> json { return s.link.phit_bits; }},
    {"link.phits_per_unit", [](const Spec& s) -> json { return s.link.phits_per_unit; }},
    {"link.wire_ns", [](const Spec& s) -> json { return s.link.wire_ns; }},
    {"link.credit_delay_ns", [](const Spec& s) -> json { return s.link.credit_delay_ns; }},
    {"link.injection_wire_ns", [](const Spec& s) -> json { return s.link.injection_wire_ns; }},
    {"link.ejection_wire_ns", [](const Spec& s) -> json { return s.link.ejection_wire_ns; }},
    {"link.router_rate", [](const Spec& s) -> json { return s.link.router_rate; }},
    {"link.retry", [](const Spec& s) -> json { return s.link.retry; }},
    {"link.retry_window", [](const Spec& s) -> json { return s.link.retry_window; }},
    {"link.retry_timeout_ns", [](const Spec& s) -> json { return s.link.retry_timeout_ns; }},
    {"link.ber", [](const Spec& s) -> json { return s.link.ber; }},
    {"link.retry_limit", [](const Spec& s) -> json { return s.link.retry_limit; }},
    {"link.lane_degrade", [](const Spec& s) -> json { return s.link.lane_degrade; }},
    {"link.recovery", [](const Spec& s) -> json { return s.link.recovery; }},
    {"link.width_negotiation", [](const Spec& s) -> json { return s.link.width_negotiation; }},
    {"link.lane_retry_threshold", [](const Spec& s) -> json { return s.link.lane_retry_threshold; }},
    {"link.lane_retry_window_ns", [](const Spec& s) -> json { return s.link.lane_retry_window_ns; }},
    {"router.latency_ns", [](const Spec& s) -> json { return s.router.latency_ns; }},
    {"router.straight_ns", [](const Spec& s) -> json { return s.router.straight_ns; }},
    {"router.turn_ns", [](const Spec& s) -> json { return s.router.turn_ns; }},
    {"router.endpoint_ns", [](const Spec& s) -> json { return s.router.endpoint_ns; }},
    {"router.radix", [](const Spec& s) -> json { return s.router.radix; }},
    {"router.input_speedup", [](const Spec& s) -> json { return s.router.input_speedup; }},
    {"router.output_speedup", [](const Spec& s) -> json { return s.router.output_speedup; }},
    {"router.output_queue_units", [](const Spec& s) -> json { return s.router.output_queue_units; }},
    {"router.forward_progress_ns", [](const Spec& s) -> json { return s.router.forward_progress_ns; }},
    {"router.allocator", [](const Spec& s) -> json { return s.router.allocator; }},
    {"router.switch_allocator", [](const Spec& s) -> json { return s.router.switch_allocator; }},
    {"router.islip_iterations", [](const Spec& s) -> json { return s.router.islip_iterations; }},
    {"router.flow_control", [](const Spec& s) -> json { return s.router.flow_control; }},
    {"router.wait_for_tail_credit", [](const Spec& s) -> json { return s.router.wait_for_tail_credit; }},
    {"router.hold_switch_for_packet", [](const Spec& s) -> json { return s.router.hold_switch_for_packet; }},
    {"router.vc_allocator", [](const Spec& s) -> json { return s.router.vc_allocator; }},
    {"router.routing_cycles", [](const Spec& s) -> json { return s.router.routing_cycles; }},
    {"router.vc_alloc_cycles", [](const Spec& s) -> json { return s.router.vc_alloc_cycles; }},
    {"router.sw_alloc_cycles", [](const Spec& s) -> json { return s.router.sw_alloc_cycles; }},
    {"router.crossbar_cycles", [](const Spec& s) -> json { return s.router.crossbar_cycles; }},
    {"router.model", [](const Spec& s) -> json { return s.router.model; }},
    {"router.subswitch_degree", [](const Spec& s) -> json { return s.router.subswitch_degree; }},
    {"router.row_buffer_units", [](const Spec& s) -> json { return s.router.row_buffer_units; }},
    {"router.column_buffer_units", [](const Spec& s) -> json { return s.router.column_buffer_units; }},
    {"router.arbitration_ns", [](const Spec& s) -> json { return s.router.arbitration_ns; }},
    {"router.age_period_ns", [](const Spec& s) -> json { return s.router.age_period_ns; }},
    {"router.routing_lanes", [](const Spec& s) -> json { return s.router.routing_lanes; }},
    {"router.deadlock_timeout_ns", [](const Spec& s) -> json { return s.router.deadlock_timeout_ns; }},
    {"router.tail_timeout_ns", [](const Spec& s) -> json { return s.router.tail_timeout_ns; }},
    {"router.virtual_routers", [](const Spec& s) -> json { return s.router.virtual_routers; }},
    {"vcs.count", [](const Spec& s) -> json { return s.vcs.count; }},
    {"vcs.injection", [](const Spec& s) -> json { return s.vcs.injection; }},
    {"vcs.buffer_units", [](const Spec& s) -> json { return s.vcs.buffer_units; }},
    {"vcs.adaptive_buffer_units", [](const Spec& s) -> json { return s.vcs.adaptive_buffer_units; }},
    {"vcs.dateline_assignment", [](const Spec& s) -> json { return s.vcs.dateline_assignment; }},
    {"routing", [](const Spec& s) -> json { return s.routing; }},
    {"packet.max_units", [](const Spec& s) -> json { return s.packet.max_units; }},
    {"packet.header_units", [](const Spec& s) -> json { return s.packet.header_units; }},
    {"traffic.pattern", [](const Spec& s) -> json { return s.traffic.pattern; }},
    {"traffic.load", [](const Spec& s) -> json { return s.traffic.load; }},
    {"traffic.process", [](const Spec& s) -> json { return s.traffic.process; }},
    {"traffic.batch_size", [](const Spec& s) -> json { return s.traffic.batch_size; }},
    {"traffic.slot_units", [](const Spec& s) -> json { return s.traffic.slot_units; }},
    {"traffic.to_self", [](const Spec& s) -> json { return s.traffic.to_self; }},
    {"traffic.numbering", [](const Spec& s) -> json { return s.traffic.numbering; }},
    {"traffic.permutation_seed", [](const Spec& s) -> json { return s.traffic.permutation_seed; }},
    {"traffic.burst_alpha", [](const Spec& s) -> json { return s.traffic.burst_alpha; }},
    {"traffic.burst_beta", [](const Spec& s) -> json { return s.traffic.burst_beta; }},
    {"traffic.sizes", sizes_json},
    {"traffic.reply_fraction", [](const Spec& s) -> json { return s.traffic.reply_fraction; }},
    {"traffic.reply_bytes", [](const Spec& s) -> json { return s.traffic.reply_bytes; }},
    {"traffic.t3e_packets", t3e_packets_json},
    {"traffic.sources", [](const Spec& s) -> json { return s.traffic.sources; }},
    {"traffic.hotspot", [](const Spec& s) -> json { return s.traffic.hotspot; }},
    {"traffic.hotspot_fraction", [](const Spec& s) -> json { return s.traffic.hotspot_fraction; }},
    {"traffic.cc_adapt", [](const Spec& s) -> json { return s.traffic.cc_adapt; }},
    {"traffic.vector_fraction", [](const Spec& s) -> json { return s.traffic.vector_fraction; }},
    {"traffic.route_errors", [](const Spec& s) -> json { return s.traffic.route_errors; }},
    {"traffic.adaptive_fraction", [](const Spec& s) -> json { return s.traffic.adaptive_fraction; }},
    {"traffic.response_priority", [](const Spec& s) -> json { return s.traffic.response_priority; }},
    {"traffic.phases", [](const Spec& s) -> json { return s.traffic.phases; }},
    {"traffic.phase_messages", [](const Spec& s) -> json { return s.traffic.phase_messages; }},
    {"barrier.units", [](const Spec& s) -> json { return s.barrier.units; }},
    {"barrier.hop_ns", [](const Spec& s) -> json { return s.barrier.hop_ns; }},
    {"barrier.endpoint_ns", [](const Spec& s) -> json { return s.barrier.endpoint_ns; }},
    {"barrier.root", [](const Spec& s) -> json { return s.barrier.root; }},
    {"run.mode", [](const Spec& s) -> json { return s.run.mode; }},
    {"run.seed", [](const Spec& s) -> json { return s.run.seed; }},
    {"run.warmup_ns", [](const Spec& s) -> json { return s.run.warmup_ns; }},
    {"run.measure_ns", [](const Spec& s) -> json { return s.run.measure_ns; }},
    {"run.drain_ns", [](const Spec& s) -> json { return s.run.drain_ns; }},
    {"run.sample_period_ns", [](const Spec& s) -> json { return s.run.sample_period_ns; }},
    {"run.workers", [](const Spec& s) -> json { return s.run.workers; }},
    {"run.check_invariants", [](const Spec& s) -> json { return s.run.check_invariants; }},
    {"run.progress_s", [](const Spec& s) -> json { return s.run.progress_s; }},
    {"run.source_queue_packets", [](const Spec& s) -> json { return s.run.source_queue_packets; }},
    {"run.time_scale", [](const Spec& s) -> json { return s.run.time_scale; }},
    {"run.duration_s", [](const Spec& s) -> json { return s.run.duration_s; }},
    {"run.lateness_bound_ns", [](const Spec& s) -> json { return s.run.lateness_bound_ns; }},
    {"run.mac_aging_s", [](const Spec& s) -> json { return s.run.mac_aging_s; }},
    {"run.overload", [](const Spec& s) -> json { return s.run.overload; }},
    {"run.overload_bound_ns", [](const Spec& s) -> json { return s.run.overload_bound_ns; }},
    {"run.cores", [](const Spec& s) -> json { return s.run.cores; }},
    {"run.partition", [](const Spec& s) -> json { return s.run.partition; }},
    {"run.eal", [](const Spec& s) -> json { return s.run.eal; }},
    {"run.control_socket", [](const Spec& s) -> json { return s.run.control_socket; }},
    {"capture.taps", [](const Spec& s) -> json { return s.capture.taps; }},
    {"capture.file", [](const Spec& s) -> json { return s.capture.file; }},
    {"capture.snaplen", [](const Spec& s) -> json { return s.capture.snaplen; }},
    {"capture.file_mb", [](const Spec& s) -> json { return s.capture.file_mb; }},
    {"capture.files", [](const Spec& s) -> json { return s.capture.files; }},
    {"capture.vcs", [](const Spec& s) -> json { return s.capture.vcs; }},
    {"capture.src", [](const Spec& s) -> json { return s.capture.src; }},
    {"capture.dst", [](const Spec& s) -> json { return s.capture.dst; }},
    {"capture.types", [](const Spec& s) -> json { return s.capture.types; }},
    {"capture.queue_records", [](const Spec& s) -> json { return s.capture.queue_records; }},
    {"faults", [](const Spec& s) -> json { return s.faults; }},
    {"endpoints", endpoint_map_json},
    {"ports", ports_json},
  };
  return table;
}
// clang-format on

Writer writer_of(std::string_view path) {
  for (const auto& [key, write] : writers())
    if (key == path) return write;
  return nullptr;
}

// Field::families is one family or a list ("clos, flatfly"); nullptr: all.
bool for_family(const char* families, const std::string& family) {
  if (!families) return true;
  const std::string list = std::string(", ") + families + ",";
  return list.find(", " + family + ",") != std::string::npos;
}

// A key another router model or switch allocator owns (router.islip_iterations
// when the switch allocator is per_output).
template <class Info>
bool foreign(const NamedRegistry<Info>& choices, const std::string& chosen,
             const std::string& key) {
  for (const Info& c : choices.all())
    if (c.name != chosen)
      for (const std::string& own : c.own_keys)
        if (own == key) return true;
  return false;
}

}  // namespace

json resolved_spec_json(const Spec& spec) {
  json out = json::object();
  for (const spec_detail::Field& f : spec_detail::fields()) {
    if (spec_detail::is_item_key(f.path) || !for_family(f.families, spec.topology.family)) continue;
    if (foreign(router_models(), spec.router.model, f.path) ||
        foreign(switch_allocators(), spec.router.switch_allocator, f.path))
      continue;
    // The barrier networks' keys mean nothing to a run without phases.
    if (std::string_view(f.path).rfind("barrier.", 0) == 0 && spec.traffic.phases == "none")
      continue;
    const Writer write = writer_of(f.path);
    if (!write) continue;  // spec_keys_without_writer() names it
    json value = write(spec);
    if (value.is_string() && value.get<std::string>().empty()) continue;
    const std::string_view path(f.path);
    const size_t dot = path.find('.');
    if (dot == std::string_view::npos)
      out[std::string(path)] = std::move(value);
    else
      out[std::string(path.substr(0, dot))][std::string(path.substr(dot + 1))] = std::move(value);
  }
  return out;
}

std::vector<std::string> spec_keys_without_writer() {
  std::vector<std::string> missing;
  for (const spec_detail::Field& f : spec_detail::fields())
    if (!spec_detail::is_item_key(f.path) && !writer_of(f.path)) missing.emplace_back(f.path);
  return missing;
}

}  // namespace fabemu
