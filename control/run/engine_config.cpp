// The engine's configuration from a validated spec (engine_config.h).
#include "control/run/engine_config.h"

#include <cmath>
#include <map>

#include "control/barrier/barrier_tree.h"
#include "control/spec/spec_fields.h"
#include "control/spec/spec_refuse.h"
#include "control/topology/link_timing.h"
#include "control/topology/mesh3d.h"
#include "control/topology/routing_registration.h"
#include "dataplane/codec/codec.h"
#include "dataplane/codec/t3e_packets.h"

namespace fabemu {

std::vector<int> place_routers(const Fabric& fabric, int workers) {
  std::vector<int> place(fabric.routers.size(), 0);
  if (workers <= 1) return place;
  // Network slices: router r's copies in every slice go with it, so that a
  // processor's ports, which send for one processor, share its worker.
  const size_t per_slice = fabric.slices > 1 ? fabric.slice_routers : fabric.routers.size();
  std::map<int, std::vector<size_t>> by_rank;
  for (size_t r = 0; r < per_slice; r++) by_rank[fabric.routers[r].rank].push_back(r);
  for (auto& [rank, ids] : by_rank)
    for (size_t i = 0; i < ids.size(); i++)
      place[ids[i]] = static_cast<int>(i * workers / ids.size());
  for (size_t r = per_slice; r < place.size(); r++) place[r] = place[r % per_slice];
  return place;
}

EngineConfig make_engine_config(const Spec& spec, const Fabric& fabric) {
  EngineConfig c;
  c.seed = spec.run.seed;
  c.warmup_ps = ns_to_ps(spec.run.warmup_ns);
  c.measure_ps = ns_to_ps(spec.run.measure_ns);
  c.drain_ps = ns_to_ps(spec.run.drain_ns);
  c.sample_period_ps = ns_to_ps(spec.run.sample_period_ns);
  c.workers = spec.run.workers;
  c.check_invariants = spec.run.check_invariants;
  c.retry.enabled = spec.link.retry;
  c.retry.window = static_cast<uint32_t>(spec.link.retry_window);
  c.retry.timeout_ps = ns_to_ps(spec.link.retry_timeout_ns);
  c.retry.ber = spec.link.ber;
  c.retry.limit = static_cast<uint32_t>(spec.link.retry_limit);
  c.retry.lane_degrade = spec.link.lane_degrade && spec.link.retry;
  c.retry.lanes_lower_half = spec.link.width_negotiation == "lower_half";
  c.retry.lane_threshold = static_cast<uint32_t>(spec.link.lane_retry_threshold);
  c.retry.lane_window_ps = ns_to_ps(spec.link.lane_retry_window_ns);
  if (spec.link.recovery == "two_hop") {
    c.recovery.on = true;
    c.recovery.size_words = static_cast<uint64_t>(std::ceil(mesh3d_recovery_memory(spec, fabric).per_output));
    // An ack2 crosses the two links back after its packet arrived.
    c.recovery.keep_ps = 2 * wire_ps(spec) + router_unit_ps(spec);
  }
  c.source_queue_packets = static_cast<uint32_t>(spec.run.source_queue_packets);
  c.router.input_speedup = static_cast<uint32_t>(spec.router.input_speedup);
  c.router.output_speedup = static_cast<uint32_t>(spec.router.output_speedup);
  c.router.cycle_synchronous = engine_model(spec) == "input_queued_islip";
  c.router.islip_iterations = static_cast<uint32_t>(spec.router.islip_iterations);
  c.router.separable_input_first = spec.router.switch_allocator == "separable_input_first";
  c.router.vc_input_first = spec.router.vc_allocator == "separable_input_first";
  c.router.wormhole = spec.router.flow_control == "wormhole";
  c.router.wait_for_tail_credit = spec.router.wait_for_tail_credit;
  c.router.hold_switch_for_packet = spec.router.hold_switch_for_packet;
  c.router.routing_cycles = static_cast<uint32_t>(spec.router.routing_cycles);
  c.router.vc_alloc_cycles = static_cast<uint32_t>(spec.router.vc_alloc_cycles);
  c.router.sw_alloc_cycles = static_cast<uint32_t>(spec.router.sw_alloc_cycles);
  c.router.crossbar_cycles = static_cast<uint32_t>(spec.router.crossbar_cycles);
  c.router.output_queue_units = static_cast<uint32_t>(spec.router.output_queue_units);
  c.router.tiles.on = spec.router.model == "yarc_tiled";
  c.router.tiles.degree = static_cast<uint32_t>(spec.router.subswitch_degree);
  c.router.tiles.row_units = static_cast<uint32_t>(spec.router.row_buffer_units);
  c.router.tiles.column_units = static_cast<uint32_t>(spec.router.column_buffer_units);
  c.router.spider.arbitration_ps = ns_to_ps(spec.router.arbitration_ns);
  c.router.spider.age_period_ps = ns_to_ps(spec.router.age_period_ns);
  c.router.spider.deadlock_timeout_ps = ns_to_ps(spec.router.deadlock_timeout_ns);
  c.router.spider.tail_timeout_ps = ns_to_ps(spec.router.tail_timeout_ns);
  c.router.spider.buffer_units = static_cast<uint32_t>(spec.vcs.buffer_units);
  c.router.spider.longest_units = static_cast<uint32_t>(spec.packet.max_units);
  c.router.mesh3d.straight_ps = ns_to_ps(spec.router.straight_ns);
  c.router.mesh3d.turn_ps = ns_to_ps(spec.router.turn_ns);
  c.router.mesh3d.lanes = static_cast<uint32_t>(spec.router.routing_lanes);
  c.pattern = spec_detail::pattern_of(spec.traffic.pattern);  // a name the loader accepted
  c.load = spec.traffic.load;
  c.slot_units = static_cast<uint32_t>(spec.traffic.slot_units);
  c.to_self = spec.traffic.to_self;
  c.booksim_numbering = spec.traffic.numbering == "booksim";
  c.permutation_seed = spec.traffic.permutation_seed;
  c.batch_size =
      spec.traffic.process != "bernoulli" ? static_cast<uint32_t>(spec.traffic.batch_size) : 1;
  c.single_batch = spec.traffic.process == "single_batch";
  c.on_off = spec.traffic.process == "on_off";
  c.burst_alpha = spec.traffic.burst_alpha;
  c.burst_beta = spec.traffic.burst_beta;
  c.size_bytes.clear();
  c.size_weight.clear();
  for (const auto& s : spec.traffic.sizes) {
    c.size_bytes.push_back(s.bytes);
    c.size_weight.push_back(s.weight);
  }
  c.reply_fraction = spec.traffic.reply_fraction;
  c.reply_bytes = spec.traffic.reply_bytes;
  c.shapes.clear();
  if (!spec.traffic.t3e_packets.empty()) {  // Table 3's types replace the size mix
    c.size_bytes.clear();
    c.size_weight.clear();
    for (const T3ePacketShare& share : spec.traffic.t3e_packets) {
      const T3ePacketType& t = *t3e_packet_type(share.type);  // a name the loader accepted
      c.size_bytes.push_back(t.request_words * kT3eWordBytes);
      c.size_weight.push_back(share.weight);
      c.shapes.push_back(
          {t.request_header_flits, t.response_words * kT3eWordBytes, t.response_header_flits});
    }
    c.reply_fraction = 0;
  }
  c.sources.assign(spec.traffic.sources.begin(), spec.traffic.sources.end());
  c.hotspot = static_cast<uint32_t>(spec.traffic.hotspot);
  c.hotspot_fraction = spec.traffic.hotspot_fraction;
  c.count_out_of_order = counts_out_of_order(spec);
  const CodecKind kind = codec_for(spec.profile, spec.topology.family);
  c.codec = static_cast<uint8_t>(kind);
  c.format = codec_format(kind, static_cast<uint32_t>(spec.packet.header_units),
                          static_cast<uint32_t>(spec.packet.max_units));
  c.router_worker = place_routers(fabric, spec.run.workers);
  c.progress_s = spec.run.progress_s;
  c.realtime = spec.run.mode == "realtime";
  c.time_scale = spec.run.time_scale;
  c.duration_s = spec.run.duration_s;
  c.lateness_bound_ps = ns_to_ps(spec.run.lateness_bound_ns);
  c.overload_bound_ps = ns_to_ps(spec.run.overload_bound_ns);
  c.overload = spec.run.overload == "shed" ? Overload::shed
               : spec.run.overload == "stop" ? Overload::stop
                                             : Overload::warn;
  c.mac_aging_s = spec.run.mac_aging_s;
  c.phases = spec.traffic.phases == "barrier"  ? PhaseSync::barrier
             : spec.traffic.phases == "eureka" ? PhaseSync::eureka
                                               : PhaseSync::none;
  c.phase_messages = static_cast<uint32_t>(spec.traffic.phase_messages);
  c.alternate_injection = spec.traffic.response_priority == "alternate";
  if (spec.vcs.injection == "free") c.inject_free_vcs = static_cast<uint8_t>(fabric.num_vcs);
  c.wormhole = spec.router.flow_control == "wormhole";
  if (c.phases != PhaseSync::none) c.barrier = barrier_config(spec, fabric);
  return c;
}

BarrierConfig barrier_config(const Spec& spec, const Fabric& fabric) {
  BarrierTree tree;
  std::string err;
  if (!build_barrier_tree(fabric, spec.barrier.root, &tree, &err))
    refuse_spec(spec, {"barrier.root", "traffic.phases"}, err);
  BarrierConfig c = std::move(tree.config);
  c.units = static_cast<uint32_t>(spec.barrier.units);
  c.hop_ps = ns_to_ps(spec.barrier.hop_ns);
  c.endpoint_ps = ns_to_ps(spec.barrier.endpoint_ns);
  return c;
}

}  // namespace fabemu
