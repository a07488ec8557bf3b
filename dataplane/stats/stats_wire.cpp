// A worker's counters as bytes (stats_wire.h).
#include "dataplane/stats/stats_wire.h"

namespace fabemu {

namespace {

// The fields of one link's statistics that a worker counts (its identity,
// router and port, is the fabric's, the same on every rank).
template <class Io>
void link_fields(Io& io, auto& l) {
  io(l.packets);
  io(l.units);
  io(l.busy_ps);
  io(l.credit_stalls);
  io(l.down_route_violations);
  io(l.vc_packets);
  io(l.vc_units);
  io(l.vc_peak_occupancy);
  io(l.retry);
  io(l.went_down);
  io(l.down_ps);
  io(l.down_at_end);
  io(l.down_since);
  io(l.progress_timeouts);
  io(l.first_progress_timeout);
  io(l.progress_timeout_vcs);
  io(l.lanes);
  io(l.width);
  io(l.lowest_width);
  io(l.unit_ps);
}

// merge_workers' fields of a worker's RunStats (dataplane/stats/run_merge.cpp).
template <class Io>
void worker_fields(Io& io, auto& s) {
  io(s.end_ps);
  io(s.drained);
  io(s.interrupted);
  io(s.stalled);
  io(s.generated_messages);
  io(s.injected_packets);
  io(s.delivered_packets);
  io(s.delivered_messages);
  io(s.out_of_order_packets);
  io(s.measured_injected);
  io(s.measured_delivered);
  io(s.offered_units);
  io(s.refused_units);
  io(s.accepted_units);
  io(s.accepted_payload_bytes);
  io(s.drops);
  io(s.packet_hops);
  io(s.transmit_error_discards);
  io(s.captured);
  io(s.capture_drops);
  io(s.latency_ps);
  io(s.network_latency_ps);
  io(s.message_latency_ps);
  io(s.message_network_latency_ps);
  io(s.hops);
  io(s.barrier);
  io(s.invariant_checks);
  io(s.poll_gap_ps);
}

template <class Io>
void kernel_fields(Io& io, auto& k) {
  io(k.preempted);
  io(k.events);
  io(k.windows);
  io(k.edge_wait_tsc);
  io(k.busy_tsc);
  io(k.max_behind_ps);
  io(k.overload_episodes);
  io(k.overload_stopped);
  io(k.lateness_ps);
  io(k.events_over_bound);
}

template <class Io>
void model_fields(Io& io, auto& s) {
  io(s.islip_cycles);
  io(s.islip_requesting);
  io(s.islip_matched);
  io(s.spider_arbitrations);
  io(s.spider_candidates);
  io(s.spider_winners);
  io(s.deadlock_resets);
  io(s.mesh3d_straight_through);
  io(s.mesh3d_queued);
  io(s.mesh3d_lane_crossings);
  io(s.mesh3d_lane_wait_ps);
}

struct Put {
  WireWriter& w;
  template <class T>
  void operator()(const T& v) {
    w.put(v);
  }
};
struct Get {
  WireReader& r;
  template <class T>
  void operator()(T& v) {
    r.get(&v);
  }
};
struct Add {
  WireReader& r;
  void operator()(uint64_t& v) { v += r.get<uint64_t>(); }
};

}  // namespace

void put_kernel_counters(WireWriter& w, const KernelWorker& k) {
  Put io{w};
  kernel_fields(io, k);
  w.put_vector(k.cpus);
}

void get_kernel_counters(WireReader& r, KernelWorker* k) {
  Get io{r};
  kernel_fields(io, *k);
  r.get_vector(&k->cpus);
}

bool put_worker_stats(WireWriter& w, const RunStats& s) {
  if (s.periods.on() || !s.ports.empty()) return false;
  Put io{w};
  worker_fields(io, s);
  w.put_string(s.error);
  w.put<uint64_t>(s.links.size());
  for (const LinkStats& l : s.links) {
    link_fields(io, l);
    w.put_vector(l.lane_log);
  }
  return true;
}

void get_worker_stats(WireReader& r, RunStats* s) {
  Get io{r};
  worker_fields(io, *s);
  r.get_string(&s->error);
  const uint64_t n = r.get<uint64_t>();
  if (n != s->links.size()) {  // (the same fabric on every rank)
    r.fail();
    return;
  }
  for (LinkStats& l : s->links) {
    link_fields(io, l);
    r.get_vector(&l.lane_log);
  }
}

void put_model_counters(WireWriter& w, const RunStats& s) {
  Put io{w};
  model_fields(io, s);
}

void add_model_counters(WireReader& r, RunStats* s) {
  Add io{r};
  model_fields(io, *s);
}

void add_model_counters(const RunStats& from, RunStats* to) {
  std::string bytes;
  WireWriter w(&bytes);
  put_model_counters(w, from);
  WireReader r(bytes);
  add_model_counters(r, to);
}

}  // namespace fabemu
