// The JSON report of a run: figures over the measurement window, per link
// and VC, ports, real time, where the workers ran.
#include "control/run/report.h"

#include <algorithm>

#include "control/run/runner.h"
#include "control/spec/spec_json.h"
#include "control/version.h"
#include "dataplane/core/eal.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

double ps_to_ns(double ps) { return ps / 1000.0; }

nlohmann::json histogram_ns(const LatencyHistogram& h) {
  nlohmann::json j;
  j["count"] = h.count;
  j["mean"] = ps_to_ns(h.mean());
  j["min"] = h.count ? ps_to_ns(double(h.min)) : 0.0;
  j["p50"] = ps_to_ns(double(h.percentile(50)));
  j["p99"] = ps_to_ns(double(h.percentile(99)));
  j["p999"] = ps_to_ns(double(h.percentile(99.9)));
  j["max"] = ps_to_ns(double(h.max));
  return j;
}

RealtimeTiming realtime_timing(const RunStats& st) {
  RealtimeTiming t;
  if (!st.realtime) return t;
  for (const PortStats& p : st.ports) {
    t.frame_lateness_ps.merge(p.frame_lateness_ps);
    t.frames += p.tx_frames;
    t.frame_bytes += p.tx_bytes;
    t.frames_over_bound += p.frames_over_bound;
  }
  if (st.lateness_ps.count)
    t.late_events = double(st.events_over_bound) / double(st.lateness_ps.count);
  if (t.frame_lateness_ps.count)
    t.late_frames = double(t.frames_over_bound) / double(t.frame_lateness_ps.count);
  if (st.wall_s > 0) {
    for (double b : st.worker_busy_s) {
      t.worker_busy.push_back(std::min(1.0, b / st.wall_s));
      t.busiest = std::max(t.busiest, t.worker_busy.back());
    }
    t.frames_per_s = double(t.frames) / st.wall_s;
    t.messages_per_s = double(st.delivered_messages) / st.wall_s;
    if (t.busiest > 0) {
      t.frame_capacity_per_s = t.frames_per_s / t.busiest;
      t.message_capacity_per_s = t.messages_per_s / t.busiest;
    }
  }
  t.faithful = t.late_events <= kFaithfulLateFraction && t.late_frames <= kFaithfulLateFraction &&
               !host_fell_behind(st);
  return t;
}

// A link's (or every link's) link-level retry counters, by their declared names.
static nlohmann::json retry_json(const LinkRetryCounters& r) {
  nlohmann::json j;
#define FABEMU_X(name, help) j[#name] = r.name;
  FABEMU_LINK_RETRY_COUNTERS(FABEMU_X)
#undef FABEMU_X
  return j;
}

// A router link's lanes (dataplane/link/lanes.h): its width now and at its
// narrowest, its unit time now, and each lane that went or came back.
static nlohmann::json lanes_json(const LinkStats& l) {
  nlohmann::json log = nlohmann::json::array();
  for (const LaneChange& c : l.lane_log)
    log.push_back({{"at_ns", ps_to_ns(double(c.at))},
                   {"lane", c.lane},
                   {"cause", lane_cause_name(c.cause)},
                   {"width", c.width}});
  return {{"lanes", l.lanes},
          {"width", l.width},
          {"lowest_width", l.lowest_width},
          {"unit_ns", ps_to_ns(double(l.unit_ps))},
          {"changes", std::move(log)}};
}

namespace {

// run.sample_period_ns: a cell per period from time 0 to the last one
// anything happened in (dataplane/stats/sample_periods.h), times in ns.
nlohmann::json sample_periods_json(const SamplePeriods& sp) {
  using nlohmann::json;
  const std::vector<PeriodCell>& cells = sp.cells();
  size_t n = cells.size();
  while (n > 0 && cells[n - 1].generated == 0 && cells[n - 1].arrived == 0 && cells[n - 1].sent == 0)
    n--;
  const auto ns = [](double ps) { return ps_to_ns(ps); };
  const auto extremes = [&](double sum, ps_t min, ps_t max, uint64_t count) {
    return json{{"sum", ns(sum)},
                {"min", count ? ns(double(min)) : 0.0},
                {"max", count ? ns(double(max)) : 0.0}};
  };
  json out = json::array();
  for (size_t i = 0; i < n; i++) {
    const PeriodCell& c = cells[i];
    json later = json::array();
    for (uint32_t d = 0; d < SamplePeriods::kDelays; d++) {
      const PeriodDelay& pd = sp.delays()[i * SamplePeriods::kDelays + d];
      later.push_back(json::array({pd.messages, ns(pd.latency_ps_sum)}));
    }
    out.push_back({{"generated", c.generated},
                   {"generated_ns_sum", ns(c.generated_ps_sum)},
                   {"generated_messages", c.generated_messages},
                   {"sent", c.sent},
                   {"arrived", c.arrived},
                   {"arrived_generated_ns_sum", ns(c.arrived_gen_ps_sum)},
                   {"flit_latency_ns", extremes(c.flat_ps_sum, c.flat_min_ps, c.flat_max_ps, c.arrived)},
                   {"messages_arrived", c.messages_arrived},
                   {"arrived_latency_ns_sum", ns(c.latency_ps_sum)},
                   {"messages", c.messages},
                   {"latency_ns", extremes(c.plat_ps_sum, c.plat_min_ps, c.plat_max_ps, c.messages)},
                   {"network_latency_ns",
                    extremes(c.nlat_ps_sum, c.nlat_min_ps, c.nlat_max_ps, c.messages)},
                   {"hops_sum", c.hops_sum},
                   {"last_arrival_ns", ns(double(c.last_arrival_ps))},
                   {"arrived_later", later}});
  }
  return {{"period_ns", ns(double(sp.period_ps()))},
          {"note", "per period from time 0: packets generated / sent / arrived in it; messages "
                   "arrived in it and their latency; messages generated in "
                   "it: their latency, hops and last arrival, and arrived_later[d] = [messages, "
                   "latency sum] of those arriving d periods later (the last: d or more)"},
          {"cells", out}};
}

// Network slices: what each slice carried. Its share of the packets the
// processors sent (their injection ports in it), the load it entered as a
// fraction of its ports' bandwidth, and how busy its router channels were.
nlohmann::json slices_json(const Fabric& fabric, const RunStats& st, double window) {
  struct Slice {
    uint64_t packets = 0;
    double injection_ps = 0, channel_ps = 0;
    uint64_t channels = 0, ports = 0;
  };
  std::vector<Slice> per(fabric.slices);
  const uint32_t P = fabric.processors(), R = fabric.slice_routers;
  for (const LinkStats& l : st.links) {
    if (l.router < 0 && l.endpoint >= 0) {  // an injection port
      Slice& s = per[uint32_t(l.endpoint) / P];
      s.packets += l.packets;
      s.injection_ps += double(l.busy_ps);
      s.ports++;
    } else if (l.router >= 0 && l.peer_router >= 0) {
      Slice& s = per[uint32_t(l.router) / R];
      s.channel_ps += double(l.busy_ps);
      s.channels++;
    }
  }
  uint64_t all = 0;
  for (const Slice& s : per) all += s.packets;
  nlohmann::json out = nlohmann::json::array();
  for (uint32_t i = 0; i < per.size(); i++) {
    const Slice& s = per[i];
    out.push_back(
        {{"slice", i},
         {"injected_packets", s.packets},
         {"packet_share", all ? double(s.packets) / double(all) : 0.0},
         {"entered_load",
          s.ports && window > 0 ? s.injection_ps / (double(s.ports) * window) : 0.0},
         {"channel_utilisation",
          s.channels && window > 0 ? s.channel_ps / (double(s.channels) * window) : 0.0}});
  }
  return out;
}
}  // namespace

nlohmann::json report_json(const Spec& spec, const Fabric& fabric, const EngineConfig& cfg,
                           const RunStats& st, bool per_link) {
  using nlohmann::json;
  json j;
  const double E = double(fabric.endpoints.size());
  const ps_t inj_unit = fabric.endpoints.empty() ? 1 : fabric.endpoints[0].unit_ps;
  const double window = double(st.measure_end_ps - st.measure_start_ps);
  const double capacity_units = E * window / double(inj_unit);  // injection bandwidth, in units
  j["schema_version"] = kReportSchemaVersion;
  j["fabemu"] = {{"version", FABEMU_VERSION}, {"commit", fabemu_commit()}};
  j["spec"] = {
      {"path", spec.file}, {"overrides", spec.overrides}, {"resolved", resolved_spec_json(spec)}};
  j["fabric"] = {{"name", fabric.name},
                 {"topology", fabric.topology},
                 {"routing", fabric.routing},
                 {"profile", spec.profile},
                 {"routers", fabric.routers.size()},
                 {"endpoints", fabric.endpoints.size()},
                 {"vcs", fabric.num_vcs},
                 {"unit", fabric.unit_name},
                 {"unit_bits", fabric.unit_bits},
                 {"unit_ns", ps_to_ns(double(inj_unit))}};
  if (fabric.slices > 1) {
    j["fabric"]["slices"] = fabric.slices;
    j["fabric"]["processors"] = fabric.processors();
    j["slices"] = slices_json(fabric, st, window);
  }
  j["run"] = {{"mode", spec.run.mode},
              {"seed", spec.run.seed},
              {"workers", spec.run.workers},
              {"warmup_ns", spec.run.warmup_ns},
              {"measure_ns", spec.run.measure_ns},
              {"drain_ns", spec.run.drain_ns},
              {"end_ns", ps_to_ns(double(st.end_ps))},
              {"drained", st.drained},
              {"interrupted", st.interrupted},
              {"stalled", st.stalled}};
  if (st.stalled) j["run"]["stranded"] = st.stranded;
  if (cfg.ranks) j["run"]["ranks"] = cfg.ranks->ranks();  // (run.workers each)
  if (st.realtime)
    j["run"]["overload"] = {{"policy", spec.run.overload},
                            {"bound_ns", spec.run.overload_bound_ns},
                            {"max_behind_ns", ps_to_ns(double(st.max_behind_ps))},
                            {"episodes", st.overload_episodes},
                            {"stopped", st.overload_stopped}};
  j["traffic"] = {{"pattern", spec.traffic.pattern},
                  {"load", spec.traffic.load},
                  {"process", spec.traffic.process},
                  {"reply_fraction", spec.traffic.reply_fraction}};
  // Load as a fraction of injection bandwidth: what the sources generated
  // (offered), what of it the source queues refused, and what actually
  // entered the fabric (injection links busy) during the measurement window.
  auto load = [&](double units) { return capacity_units > 0 ? units / capacity_units : 0.0; };
  double entered_ps = 0;
  for (const auto& l : st.links)
    if (l.router < 0) entered_ps += double(l.busy_ps);
  j["offered_load"] = load(double(st.offered_units + st.refused_units));
  j["refused_load"] = load(double(st.refused_units));
  j["entered_load"] = E > 0 && window > 0 ? entered_ps / (E * window) : 0.0;
  j["accepted_load"] = capacity_units > 0 ? double(st.accepted_units) / capacity_units : 0.0;
  // The payload those units carried (headers left out): the T3E paper's
  // Table 4 payload bandwidth, MB/s of 10^6 bytes.
  j["accepted_payload"] = {
      {"bytes", st.accepted_payload_bytes},
      {"mb_per_s", window > 0 ? double(st.accepted_payload_bytes) / (window * 1e-12) / 1e6 : 0.0}};
  {
    const double offered = j["offered_load"].get<double>();
    const double accepted = j["accepted_load"].get<double>();
    // Not judged when the host fell behind real time (host_fell_behind).
    const bool judged = !host_fell_behind(st);
    j["saturation"] = {
        {"saturated", judged && offered > 0 && accepted < kSaturatedFraction * offered},
        {"judged", judged},
        {"rule_accepted_below_offered_times", kSaturatedFraction}};
  }
  j["generated_messages"] = st.generated_messages;
  j["injected_packets"] = st.injected_packets;
  j["delivered_packets"] = st.delivered_packets;
  j["delivered_messages"] = st.delivered_messages;
  if (counts_out_of_order(spec)) j["out_of_order_packets"] = st.out_of_order_packets;
  j["measured_packets"] = {{"injected", st.measured_injected}, {"delivered", st.measured_delivered}};
  uint64_t dropped = 0;
  json reasons = json::object();
  for (int i = 0; i < static_cast<int>(DropReason::count); i++) {
    reasons[drop_reason_name(static_cast<DropReason>(i))] = st.drops[i];
    dropped += st.drops[i];
  }
  j["dropped_packets"] = {{"total", dropped}, {"reasons", reasons}};
  j["latency_ns"] = histogram_ns(st.latency_ps);
  j["network_latency_ns"] = histogram_ns(st.network_latency_ps);
  if (st.message_latency_ps.count) {  // messages of several packets
    j["message_latency_ns"] = histogram_ns(st.message_latency_ps);
    j["message_network_latency_ns"] = histogram_ns(st.message_network_latency_ps);
  }
  j["hops"] = {{"mean", st.hops.mean()}, {"max", st.hops.count ? st.hops.max : 0}};
  if (st.periods.on()) j["sample_periods"] = sample_periods_json(st.periods);
  if (st.islip_cycles)  // router.switch_allocator islip: how well the matching did
    j["switch_allocation"] = {
        {"cycles", st.islip_cycles},
        {"requesting_inputs_per_cycle", double(st.islip_requesting) / double(st.islip_cycles)},
        {"matched_inputs_per_cycle", double(st.islip_matched) / double(st.islip_cycles)},
        {"matching_efficiency",
         st.islip_requesting ? double(st.islip_matched) / double(st.islip_requesting) : 0.0}};
  if (spec.traffic.phases != "none") {  // the barrier/eureka networks (dataplane/barrier/)
    const BarrierStats& b = st.barrier;
    j["barrier"] = {{"phases", spec.traffic.phases},
                    {"barriers", b.barriers},
                    {"eurekas", b.eurekas},
                    {"signals", b.signals},
                    {"signals_lost", b.signals_lost},
                    {"latency_ns", histogram_ns(b.latency_ps)},
                    {"wait_ns", histogram_ns(b.wait_ps)},
                    {"eureka_latency_ns", histogram_ns(b.eureka_ps)}};
  }
  if (st.spider_arbitrations)  // router.model spider: its arbiter's cycles and time-outs
    j["spider_arbiter"] = {
        {"arbitrations", st.spider_arbitrations},
        {"candidates_per_arbitration",
         double(st.spider_candidates) / double(st.spider_arbitrations)},
        {"winners_per_arbitration", double(st.spider_winners) / double(st.spider_arbitrations)},
        {"deadlock_resets", st.deadlock_resets}};
  if (const uint64_t n = st.mesh3d_straight_through + st.mesh3d_queued)  // router.model mesh3d
    j["mesh3d_router"] = {
        {"straight_through", st.mesh3d_straight_through},
        {"queued", st.mesh3d_queued},
        {"straight_through_fraction", double(st.mesh3d_straight_through) / double(n)},
        {"lane_crossings", st.mesh3d_lane_crossings},
        {"lane_wait_ns_mean", st.mesh3d_lane_crossings ? double(st.mesh3d_lane_wait_ps) / 1000.0 /
                                                             double(st.mesh3d_lane_crossings)
                                                       : 0.0}};
  if (st.recovery) {  // link.recovery two_hop (dataplane/link/recovery_memory.h)
    const uint64_t dup = st.drops[static_cast<int>(DropReason::duplicate)];
    // A copy sent again ends delivered first, as a duplicate, or lost: the
    // first of those whose original was lost is a message recovered.
    const uint64_t recovered = st.recovery_resent - std::min(st.recovery_resent, dup + st.recovery_resent_lost);
    j["recovery"] = {
        {"scheme", "two_hop"},
        {"memory_words", st.recovery_size_words},
        {"max_occupancy_words", st.recovery_max_words},
        {"max_occupancy_fraction", st.recovery_size_words ? double(st.recovery_max_words) /
                                                                double(st.recovery_size_words)
                                                          : 0.0},
        {"overflows", st.recovery_overflows},
        {"copies_kept", st.recovery_kept},
        {"acks", st.recovery_acks},
        {"resent", st.recovery_resent},
        {"duplicates_dropped", dup},
        {"resent_lost", st.recovery_resent_lost},
        {"recovered", recovered},
        {"freed_with_router", st.recovery_freed},
        {"unacknowledged_at_end", st.recovery_held_at_end}};
  }
  // Per link and per VC.
  json links = json::array();
  std::vector<uint64_t> vc_packets(fabric.num_vcs, 0), vc_units(fabric.num_vcs, 0);
  std::vector<uint32_t> vc_peak(fabric.num_vcs, 0);
  std::vector<uint64_t> vc_stall(fabric.num_vcs, 0);
  uint64_t total_stalls = 0;
  for (const auto& l : st.links) {
    total_stalls += l.credit_stalls;
    for (int v = 0; v < fabric.num_vcs; v++) {
      vc_packets[v] += l.vc_packets[v];
      vc_units[v] += l.vc_units[v];
      vc_peak[v] = std::max(vc_peak[v], l.vc_peak_occupancy[v]);
    }
    if (!per_link) continue;
    json lj;
    if (l.router >= 0) {
      lj["from"] = {{"router", l.router}, {"port", l.port}};
      if (l.peer_router >= 0)
        lj["to"] = {{"router", l.peer_router}, {"port", l.peer_port}};
      else
        lj["to"] = {{"endpoint", l.endpoint}};
    } else {
      lj["from"] = {{"endpoint", l.endpoint}};
      lj["to"] = {{"router", l.peer_router}, {"port", l.peer_port}};
    }
    lj["packets"] = l.packets;
    lj["units"] = l.units;
    lj["utilisation"] = window > 0 ? double(l.busy_ps) / window : 0.0;
    lj["credit_stalls"] = l.credit_stalls;
    if (st.link_retry && l.router >= 0 && l.peer_router >= 0) lj["retry"] = retry_json(l.retry);
    if (l.lanes) lj["lanes"] = lanes_json(l);
    if (cfg.faults_possible)
      lj["state"] = {{"went_down", l.went_down},
                     {"down_ns", double(l.down_ps) / 1e3},
                     {"down_at_end", l.down_at_end}};
    json vcs = json::array();
    for (int v = 0; v < fabric.num_vcs; v++)
      vcs.push_back({{"vc", v},
                     {"packets", l.vc_packets[v]},
                     {"units", l.vc_units[v]},
                     {"peak_occupancy", l.vc_peak_occupancy[v]}});
    lj["vcs"] = std::move(vcs);
    links.push_back(std::move(lj));
  }
  j["links"] = std::move(links);
  json vcs = json::array();
  uint64_t all_units = 0;
  for (int v = 0; v < fabric.num_vcs; v++) all_units += vc_units[v];
  for (int v = 0; v < fabric.num_vcs; v++)
    vcs.push_back({{"vc", v},
                   {"packets", vc_packets[v]},
                   {"units", vc_units[v]},
                   {"share", all_units ? double(vc_units[v]) / double(all_units) : 0.0},
                   {"buffer_units", fabric.vc_buffer_units[v]},
                   {"peak_occupancy", vc_peak[v]}});
  j["vcs"] = vcs;
  j["credit_stalls"] = total_stalls;
  // The down-routing invariant (a packet that came down by an uplink goes
  // on down): where it was broken, at the receiving router and port.
  uint64_t violations = 0;
  json where = json::array();
  for (const auto& l : st.links)
    if (l.down_route_violations) {
      violations += l.down_route_violations;
      where.push_back(
          {{"router", l.peer_router}, {"port", l.peer_port}, {"packets", l.down_route_violations}});
    }
  j["down_route_violations"] = {{"total", violations}, {"where", std::move(where)}};
  // Forward-progress time-outs (BlackWidow 7.7): the ports the router
  // reported, as the maintenance controller would hear of them.
  if (cfg.forward_progress_ps) {
    json timeouts = json::array();
    for (const auto& l : st.links)
      if (l.progress_timeouts) {
        json vcs = json::array();
        for (int v = 0; v < kMaxVcs; v++)
          if ((l.progress_timeout_vcs >> v) & 1) vcs.push_back(v);
        json t = {{"router", l.router},
                  {"port", l.port},
                  {"timeouts", l.progress_timeouts},
                  {"first_at_ns", double(l.first_progress_timeout) / 1e3},
                  {"vcs", std::move(vcs)}};
        if (l.endpoint >= 0) t["endpoint"] = l.endpoint;
        timeouts.push_back(std::move(t));
      }
    j["forward_progress_timeouts"] = std::move(timeouts);
  }
  // Lanes, where they could change: link directions that ran narrower, lanes
  // dropped for their retries, and directions that lost every lane.
  uint64_t tracked = 0, narrowed = 0, lanes_dropped = 0, lost_all = 0;
  for (const auto& l : st.links) {
    if (!l.lanes) continue;
    tracked++;
    narrowed += l.lowest_width < l.lanes;
    lost_all += l.lowest_width == 0;
    for (const LaneChange& c : l.lane_log) lanes_dropped += c.cause == LaneCause::retries;
  }
  if (tracked)
    j["link_lanes"] = {{"lanes", fabric.lanes},
                       {"links_narrowed", narrowed},
                       {"lanes_dropped", lanes_dropped},
                       {"links_lost_all_lanes", lost_all}};
  if (st.link_retry) {
    LinkRetryCounters all;
    for (const auto& l : st.links) all.merge(l.retry);
    json r = retry_json(all);
    r["transmit_error_discards"] = st.transmit_error_discards;
    j["link_retry"] = std::move(r);
  }
  j["invariants"] = {{"checks", st.invariant_checks},
                     {"credit_conservation", st.invariant_failure.empty() ? "ok" : st.invariant_failure}};
  if (!st.ports.empty() || st.realtime) {
    json ports = json::array();
    for (const PortStats& p : st.ports) {
      json drops = json::object();
      uint64_t total = 0;
      for (int i = 0; i < static_cast<int>(FrameDrop::count); i++) {
        drops[frame_drop_name(static_cast<FrameDrop>(i))] = p.drops[i];
        total += p.drops[i];
      }
      json frame_lateness = histogram_ns(p.frame_lateness_ps);  // real time
      frame_lateness["over_bound"] = p.frames_over_bound;
      ports.push_back({{"name", p.name},
                       {"device", p.device},
                       {"dpdk_port", p.port_id},
                       {"endpoint", p.endpoint},
                       {"vlan", p.vlan},
                       {"rx_frames", p.rx_frames},
                       {"rx_bytes", p.rx_bytes},
                       {"tx_frames", p.tx_frames},
                       {"tx_bytes", p.tx_bytes},
                       {"flooded", p.flooded},
                       {"fabric_frames", p.fabric_frames},
                       {"macs_learned", p.macs_learned},
                       {"mac_moves", p.mac_moves},
                       {"mac_table_full", p.mac_table_full},
                       {"dropped", total},
                       {"drops", drops},
                       {"frame_latency_ns", histogram_ns(p.frame_latency_ps)},
                       {"frame_lateness_ns", frame_lateness},
                       {"frame_hops", {{"mean", p.frame_hops.mean()},
                                       {"max", p.frame_hops.count ? p.frame_hops.max : 0}}}});
      const size_t b = ports.size() - 1;
      if (b < cfg.ports.size() && cfg.ports[b].replay) {
        const PortEndpointConfig& pc = cfg.ports[b];
        ports.back()["replay"] = {{"file_frames", pc.replay->frames()},
                                  {"speed", pc.replay_speed},
                                  {"loops", pc.replay_loops},
                                  {"sent", p.replay_sent},
                                  {"unsent", p.replay_unsent}};
      }
    }
    j["ports"] = ports;
  }
  if (st.realtime) {
    json workers = json::array();
    for (size_t w = 0; w < st.worker_lateness_ps.size(); w++) {
      json h = histogram_ns(st.worker_lateness_ps[w]);
      h["worker"] = w;
      workers.push_back(h);
    }
    const RealtimeTiming timing = realtime_timing(st);
    json late = histogram_ns(st.lateness_ps);
    late["bound"] = ps_to_ns(double(st.lateness_bound_ps));
    late["over_bound"] = st.events_over_bound;
    late["over_bound_fraction"] = timing.late_events;
    json frame_late = histogram_ns(timing.frame_lateness_ps);
    frame_late["bound"] = late["bound"];
    frame_late["over_bound"] = timing.frames_over_bound;
    frame_late["over_bound_fraction"] = timing.late_frames;
    j["realtime"] = {{"time_scale", st.time_scale},
                     {"wall_s", st.wall_s},
                     {"emulated_ns", ps_to_ns(double(st.end_ps))},
                     {"faithful", timing.faithful},
                     {"lateness_ns", late},
                     {"frame_lateness_ns", frame_late},
                     {"poll_gap_ns", histogram_ns(st.poll_gap_ps)},
                     {"worker_lateness_ns", workers},
                     {"worker_busy", timing.worker_busy},
                     {"carried", {{"frames_per_s", timing.frames_per_s},
                                  {"frame_bytes_mean", timing.frames ? double(timing.frame_bytes) / double(timing.frames) : 0.0},
                                  {"messages_per_s", timing.messages_per_s},
                                  {"busiest_worker", timing.busiest},
                                  {"frame_capacity_per_s", timing.frame_capacity_per_s},
                                  {"message_capacity_per_s", timing.message_capacity_per_s}}}};
  }
  json workers = json::array();
  for (size_t i = 0; i < st.worker_cpus.size(); i++)
    workers.push_back(
        {{"cpus", cpu_list_text(st.worker_cpus[i])},
         {"preempted", i < st.worker_preempted.size() ? st.worker_preempted[i] : 0},
         {"events", i < st.worker_events.size() ? st.worker_events[i] : 0},
         {"packet_hops", i < st.worker_packet_hops.size() ? st.worker_packet_hops[i] : 0},
         {"edge_wait_s", i < st.worker_edge_wait_s.size() ? st.worker_edge_wait_s[i] : 0.0}});
  j["performance"] = {{"workers", workers},
                      {"dpdk_memory_mb", dpdk_memory_mb(spec, cfg, fabric)},
                      {"wall_s", st.wall_s},
                      {"events", st.events},
                      {"packet_hops", st.packet_hops},
                      {"packet_hops_per_s", st.wall_s > 0 ? double(st.packet_hops) / st.wall_s : 0.0},
                      {"packet_hops_per_s_per_worker",
                       st.wall_s > 0 ? double(st.packet_hops) / st.wall_s / cfg.workers : 0.0}};
  if (!st.realtime) {  // the conservative windows: how often the workers (and ranks) met
    j["performance"]["windows"] = st.windows;
    j["performance"]["windows_per_emulated_us"] =
        st.end_ps ? double(st.windows) / (double(st.end_ps) / 1e6) : 0.0;
    j["performance"]["wall_us_per_window"] = st.windows ? st.wall_s * 1e6 / double(st.windows) : 0.0;
  }
  if (!spec.capture.taps.empty())
    j["capture"] = {{"files", st.capture_files},
                    {"interfaces", st.capture_interfaces},
                    {"records", st.captured},
                    {"written", st.capture_written},
                    {"bytes", st.capture_bytes},
                    {"drops", st.capture_drops},
                    {"error", st.capture_error.empty() ? json() : json(st.capture_error)}};
  if (!st.error.empty()) j["error"] = st.error;
  return j;
}


}  // namespace fabemu
