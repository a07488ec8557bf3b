// Engine<R, Link>, continued: the run. Each worker runs on its own core the
// kernel's loop (sim/window_kernel.h, or sim/realtime_kernel.h in real
// time) with the engine as its host (engine_kernel_host.h). Also the end of
// a run: the credit-conservation check, the merge of the workers' counters
// and the release of what they hold. Included from engine.h only.
#pragma once

namespace fabemu {

// An event another worker sent (KernelWorker::take_inbox).
template <class R, class L>
void Engine<R, L>::apply_remote(Worker& w, Event& ev) {
  switch (ev.kind) {
    case event_kind(LinkEvent::remote_arrive):
    case event_kind(LinkEvent::credit):
    case event_kind(LinkEvent::control):
    case event_kind(LinkEvent::recovery_ack): {  // a link's ring channel (link/link_channel.h)
      LinkHop host{{*this, w}};
      RingChannel::receive(host, ev);
      break;
    }
    case event_kind(BridgeEvent::mac_learn):
      w.bridge.learn_remote(ev.unit_ps, ev.a, rte_rdtsc());
      break;
    default:
      w.wheel.push(ev);
      break;
  }
}

// Runs worker w's loop on its thread (sim/worker_threads.h).
template <class R, class L>
void Engine<R, L>::run_worker(Worker& w) {
  KernelHost host{*this, w};
  if (cfg_.realtime) {
    w.st.end_ps = realtime_.run(host, w);
    return;
  }
  const WindowsEnd end = windows_.run(host, w);
  w.st.end_ps = end.end_ps;
  w.st.interrupted = end.interrupted;
  w.st.drained = end.drained;
  w.st.stalled = end.stalled;
}

// Credit conservation (link/credit_audit.h), then the buffers inside the
// routers (the tiled router's).
template <class R, class L>
std::string Engine<R, L>::check_credits() const {
  struct Ends {
    const Engine& e;
    const Worker& at(uint32_t r) const { return *e.workers_[e.router_worker_[r]]; }
    uint32_t output(uint32_t r, uint32_t p) const { return e.router_local_[r] * e.max_ports_ + p; }
    const CreditCounter& sender(uint32_t r, uint32_t p, uint32_t v) const {
      return at(r).vcs[size_t(output(r, p)) * e.nv_ + v].credits;
    }
    const CreditCounter& injector(uint32_t ep, uint32_t v) const {
      return at(e.f_.endpoints[ep].router).eps.credits(ep, v);
    }
    ReceivedUnits receiver(uint32_t r, uint32_t p, uint32_t v) const {
      const Router& rt = at(r).router;
      const uint32_t c = output(r, p) * e.nv_ + v;
      ReceivedUnits u{rt.units_in(c), 0, rt.units_out(c)};
      for (uint32_t i = 0; i < rt.len(c); i++) u.buffered += rt.at(c, i).units;
      return u;
    }
  } ends{*this};
  if (std::string bad = audit_credits(f_, cap_, ends); !bad.empty()) return bad;
  for (const auto& wp : workers_)
    if (std::string bad = wp->router.check_inside(); !bad.empty()) return bad;
  return {};
}

// The workers' hot counters into the link statistics: the outputs'
// (link/link_counters.h) and the inputs' peak occupancy.
template <class R, class L>
void Engine<R, L>::fold_link_counters(Worker& w) {
  fold_output_counters(w.out, w.vcs, nv_, lcb_ ? &w.retry : nullptr, w.faults.down_since(), w.st);
  fold_input_peaks(w.router, w.in, nv_, w.st);
}

// Where packets wait when the fabric stalled (router/stranded.h).
template <class R, class L>
std::string Engine<R, L>::where_stranded() {
  StrandedReport report;
  uint64_t all = 0;
  for (auto& wp : workers_) {
    struct View {
      const Engine& e;
      const Worker& w;
      int32_t router_id(uint32_t lr) const { return w.routers[lr]; }
      bool to_endpoint(uint32_t o) const { return w.out[o].peer_router < 0; }
      const CreditCounter& credits(uint32_t o, uint32_t v) const {
        return w.vcs[size_t(o) * e.nv_ + v].credits;
      }
    } view{*this, *wp};
    find_stranded(wp->router, uint32_t(wp->routers.size()), max_ports_, nv_, view, report);
    for_each_packet_left(*wp, [&](rte_mbuf*) { all++; });
  }
  return report.text(all);
}

template <class R, class L>
RunStats Engine<R, L>::merge() {
  std::vector<WorkerResult> results;
  for (const auto& w : workers_)
    results.push_back({w.get(), &w->st, w->faults.lost, w->eps.gen_stop_ps(),
                       w->recovery.counters().resent});
  RunStats out = EngineCore::merge(results);
  for (const auto& w : workers_) w->router.add_counters(out);  // the router model's own
  if (cfg_.ranks) add_model_counters(rank_models_, &out);  // the other ranks' (gather_ranks)
  if (recovery_) {  // two-hop recovery's memories (link/two_hop_recovery.h)
    out.recovery = true;
    out.recovery_size_words = cfg_.recovery.size_words;
    for (const auto& w : workers_) w->recovery.add_counters(out);
  }
  return out;
}

// Frees what is still in the fabric (after a failed or undrained run), the
// rings and the pools.
template <class R, class L>
void Engine<R, L>::release() {
  for (auto& w : workers_) {
    w->free_later.flush();
    for_each_packet_left(*w, [](rte_mbuf* m) { rte_pktmbuf_free(m); });
    w->inbox.clear();
    w->wheel = TimingWheel{};
    w->recovery.release_all();
  }
  disconnect_workers(kernel_workers());
  for (auto& w : workers_) {
    w->pool.release();
    w->bridge.release();
  }
}

template <class R, class L>
RunStats Engine<R, L>::run() {
  tables_.freeze();
  std::string err;
  if (!setup(&err)) {
    release();
    RunStats s;
    s.error = err;
    return s;
  }
  for (auto& w : workers_) {
    w->eps.seed(w->wheel, event_kind(EndpointEvent::generate), event_kind(EndpointEvent::join));
    w->bridge.seed_replay(w->wheel, event_kind(BridgeEvent::port_replay));
  }
  if (cfg_.realtime) realtime_.start_clock();
  // Emulated time 0 is now: the capture's timestamps count from this wall
  // clock reading (in real time emulated time then follows the TSC).
  if (capturing_ && cfg_.capture.run_start_ns) {
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    cfg_.capture.run_start_ns->store(
        std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count(),
        std::memory_order_release);
  }
  const auto t0 = std::chrono::steady_clock::now();
  // A worker that failed to be placed still enters its loop: the loops tell
  // the other workers that it failed, so that none waits for it.
  const bool launched = run_worker_threads(
      local_workers(), cfg_.worker_cpus,
      [&](KernelWorker& k, const std::string& placement_error) {
        Worker& w = *workers_[k.id];
        if (!placement_error.empty()) fail(w, placement_error);
        run_worker(w);
      },
      &err);
  if (!launched) {
    RunStats s;
    s.error = err;
    return s;
  }
  // Frames that did not make it are counted before their buffers go.
  for (auto& w : workers_) {
    w->drain_inbox();
    for_each_packet_left(*w, [&](rte_mbuf* m) { note_undelivered(m); });
  }
  for (auto& w : workers_) {
    w->bridge.drop_partial_frames(w->eps, w->st);
    fold_link_counters(*w);
  }
  if (cfg_.ranks && !gather_ranks(&err)) {  // rank 0's stand-ins get the other ranks' counters
    release();
    RunStats s;
    s.error = err;
    return s;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunStats out = merge();
  out.wall_s = wall;
  if (out.stalled) out.stranded = where_stranded();
  release();
  return out;
}

}  // namespace fabemu
