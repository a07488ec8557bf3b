// The end of a run (run_merge.h): the workers' counters into one report.
#include "dataplane/stats/run_merge.h"

#include <rte_cycles.h>

#include <algorithm>

namespace fabemu {

void merge_workers(RunStats& out, const std::vector<WorkerResult>& workers) {
  out.drained = true;
  for (const WorkerResult& wr : workers) {
    const KernelWorker* wp = wr.kernel;
    const RunStats& s = *wr.st;
    out.end_ps = std::max(out.end_ps, s.end_ps);
    out.worker_cpus.push_back(wp->cpus);
    out.worker_preempted.push_back(wp->preempted);
    out.worker_events.push_back(wp->events);
    out.worker_packet_hops.push_back(s.packet_hops);
    out.worker_edge_wait_s.push_back(double(wp->edge_wait_tsc) / double(rte_get_tsc_hz()));
    out.worker_busy_s.push_back(double(wp->busy_tsc) / double(rte_get_tsc_hz()));
    out.drained = out.drained && s.drained;
    out.interrupted = out.interrupted || s.interrupted;
    out.stalled = out.stalled || s.stalled;
    out.generated_messages += s.generated_messages;
    out.injected_packets += s.injected_packets;
    out.delivered_packets += s.delivered_packets;
    out.delivered_messages += s.delivered_messages;
    out.out_of_order_packets += s.out_of_order_packets;
    out.measured_injected += s.measured_injected;
    out.measured_delivered += s.measured_delivered;
    out.offered_units += s.offered_units;
    out.refused_units += s.refused_units;
    out.max_behind_ps = std::max(out.max_behind_ps, wp->max_behind_ps);
    out.overload_episodes += wp->overload_episodes;
    out.overload_stopped = out.overload_stopped || wp->overload_stopped;
    out.accepted_units += s.accepted_units;
    out.accepted_payload_bytes += s.accepted_payload_bytes;
    for (int i = 0; i < static_cast<int>(DropReason::count); i++) out.drops[i] += s.drops[i];
    out.packet_hops += s.packet_hops;
    out.transmit_error_discards += s.transmit_error_discards;
    out.events += wp->events;
    out.windows = std::max(out.windows, wp->windows);
    out.captured += s.captured;
    out.capture_drops += s.capture_drops;
    out.latency_ps.merge(s.latency_ps);
    out.network_latency_ps.merge(s.network_latency_ps);
    out.message_latency_ps.merge(s.message_latency_ps);
    out.message_network_latency_ps.merge(s.message_network_latency_ps);
    out.hops.merge(s.hops);
    out.periods.merge(s.periods);
    out.barrier.merge(s.barrier);
    out.invariant_checks += s.invariant_checks;
    out.lateness_ps.merge(wp->lateness_ps);
    out.poll_gap_ps.merge(s.poll_gap_ps);
    out.worker_lateness_ps.push_back(wp->lateness_ps);
    out.events_over_bound += wp->events_over_bound;
    for (size_t b = 0; b < out.ports.size(); b++) out.ports[b].merge(s.ports[b]);
    if (out.invariant_failure.empty() && s.error.rfind("credit", 0) == 0)
      out.invariant_failure = s.error;
    if (out.error.empty()) out.error = s.error;
    for (size_t l = 0; l < out.links.size(); l++) out.links[l].merge(s.links[l]);
  }
  for (LinkStats& l : out.links)
    if (l.down_at_end && out.end_ps > l.down_since) l.down_ps += out.end_ps - l.down_since;
  // Packets lost to faults are counted under their own reasons.
  uint64_t lost = 0, resent = 0;
  for (const WorkerResult& wr : workers) {
    lost += wr.fault_lost;
    resent += wr.resent;
  }
  if (out.realtime) {
    // Measured until the sources stopped: when the run was behind, that is
    // earlier than the wall clock's end.
    ps_t gen_stop = 0;
    for (const WorkerResult& wr : workers)
      gen_stop = std::max(gen_stop, std::min(wr.gen_stop_ps, out.end_ps));
    out.measure_end_ps = std::max(gen_stop, out.measure_start_ps);
    // Packets cross cores: only the totals say whether the fabric emptied.
    out.drained = out.injected_packets + resent == out.delivered_packets + lost;
  }
  if (out.injected_packets + resent > out.delivered_packets + lost)
    out.drops[static_cast<int>(DropReason::undelivered_at_end)] =
        out.injected_packets + resent - out.delivered_packets - lost;
}

}  // namespace fabemu
