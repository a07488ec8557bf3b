// Engine<R, Link>, continued: the real-time worker loop.
//
// Emulated time follows the TSC: now = (TSC - tsc0) / time_scale. A worker
// runs every event whose emulated time has come, then takes the frames its
// ports received and injects them at the current emulated time, so events run
// in time order on each core. An event that runs after its emulated time is
// late; lateness is recorded per worker and the run warns when it exceeds
// the bound (the fabric's timing is then no longer what the spec says). Cores
// exchange events through the same rings as in virtual time but without
// barriers: an event that arrives after its time runs at once, late.
#pragma once

namespace fabemu {

// Included from engine.h only.

// Runs the events due by `until`. It gives up at tsc_limit with events still
// due and returns false (this core is behind the wall clock), so that the
// loop still polls its ports, keeps house and sees a stop or a signal however
// large the backlog.
template <class R, class L>
bool Engine<R, L>::run_due_events(Worker& w, ps_t until, uint64_t tsc_limit) {
  while (w.wheel.next_time() <= until) {
    Event ev = w.wheel.pop();
    const uint64_t tsc = rte_rdtsc();
    const ps_t real = static_cast<ps_t>(double(tsc - tsc0_) * ps_per_cycle_);
    const ps_t late = real > ev.t ? real - ev.t : 0;
    w.st.lateness_ps.add(late);
    w.lateness_iv.add(late);
    if (late > cfg_.lateness_bound_ps) {
      w.st.events_over_bound++;
      w.over_bound_iv++;
    }
    w.now = ev.t;
    dispatch(w, ev);
    w.st.events++;
    if (w.failed) return true;
    if (tsc >= tsc_limit) return w.wheel.next_time() > until;
  }
  return true;
}

// After a round of events: a core that caught up moves its clock to the wall
// clock's emulated time; one that did not stays at its last event (frames it
// receives meanwhile enter then) and is as far behind as its oldest due event.
template <class R, class L>
void Engine<R, L>::note_behind(Worker& w, ps_t now, bool caught_up) {
  if (caught_up) {
    if (now > w.now) w.now = now;
    w.behind = 0;
  } else {
    const ps_t oldest = w.wheel.next_time();
    w.behind = now > oldest ? now - oldest : 0;
    if (w.behind > w.st.max_behind_ps) w.st.max_behind_ps = w.behind;
  }
  w.shedding = cfg_.overload == Overload::shed && w.behind > cfg_.overload_bound_ps;
}

// Every progress period each core publishes its counters and the p99s of
// the period; worker 0 prints them.
template <class R, class L>
void Engine<R, L>::publish_live(Worker& w, uint64_t tick) {
  LivePub& lp = live_[w.id];
  for (size_t b = 0; b < cfg_.ports.size(); b++) {
    lp.rx[b].store(w.st.ports[b].rx_frames, std::memory_order_relaxed);
    lp.tx[b].store(w.st.ports[b].tx_frames, std::memory_order_relaxed);
  }
  lp.lateness_p99.store(w.lateness_iv.count ? w.lateness_iv.percentile(99) : 0, std::memory_order_relaxed);
  lp.lateness_max.store(w.lateness_iv.count ? w.lateness_iv.max : 0, std::memory_order_relaxed);
  LatencyHistogram& frame_iv = w.bridge.frame_latency_iv();
  lp.frame_p99.store(frame_iv.count ? frame_iv.percentile(99) : 0,
                     std::memory_order_relaxed);
  lp.over_bound.store(w.over_bound_iv, std::memory_order_relaxed);
  lp.captured.store(w.st.captured, std::memory_order_relaxed);
  lp.capture_drops.store(w.st.capture_drops, std::memory_order_relaxed);
  lp.tick.store(tick, std::memory_order_release);
  w.lateness_iv = LatencyHistogram{};
  frame_iv = LatencyHistogram{};
  w.over_bound_iv = 0;
}

template <class R, class L>
void Engine<R, L>::worker_loop_realtime(Worker& w) {
  const int nw = static_cast<int>(workers_.size());
  const uint64_t hz = rte_get_tsc_hz();
  const uint64_t house_cycles = std::max<uint64_t>(1, hz / 2000);  // every 0.5 ms
  const uint64_t progress_cycles =
      cfg_.progress_s > 0 ? static_cast<uint64_t>(cfg_.progress_s * double(hz)) : 0;
  const uint64_t duration_cycles = static_cast<uint64_t>(cfg_.duration_s * double(hz));
  auto emu_now = [&](uint64_t tsc) { return static_cast<ps_t>(double(tsc - tsc0_) * ps_per_cycle_); };
  constexpr uint16_t kBurst = 32;
  rte_mbuf* rx[kBurst];
  uint64_t next_house = tsc0_ + house_cycles;
  uint64_t next_progress = progress_cycles ? tsc0_ + progress_cycles : ~uint64_t{0};
  uint64_t tick = 0;
  uint32_t quiet_checks = 0;
  bool overloaded = false;  // worker 0: behind by more than the bound, this episode
  LiveStats live;
  std::vector<uint64_t> link_check(bridge_.devices.size(), 0);
  uint64_t last_poll = 0;

  for (;;) {
    const int phase = phase_.load(std::memory_order_acquire);
    if (w.failed) phase_.store(kDone, std::memory_order_release);  // the others stop too
    if (phase == kDone || w.failed) break;
    // How far its sources got (behind the wall clock when overloaded).
    if (phase == kDraining && w.eps.generating()) w.eps.stop_generating(w.now);

    // Events that came from other cores: they cannot run before what this
    // core has already run, so a late one runs now (and counts as late).
    if (nw > 1) {
      drain_inbox(w);
      take_inbox(w, true);
    }

    // Receive, catch up to now, then inject what was received at now: the
    // frames arrived by now, so they enter no earlier than they came.
    if (w.bridge.polls_devices() && phase == kRunning) {
      const uint64_t t = rte_rdtsc();
      if (last_poll) w.st.poll_gap_ps.add(static_cast<uint64_t>(double(t - last_poll) * ps_per_cycle_));
      last_poll = t;
    }
    const uint64_t tsc_limit = rte_rdtsc() + house_cycles;
    for (uint32_t d : w.bridge.polled()) {
      const uint16_t port = bridge_.devices[d].port_id;
      const uint16_t n = phase == kRunning ? rte_eth_rx_burst(port, 0, rx, kBurst) : 0;
      const ps_t now = emu_now(rte_rdtsc());
      note_behind(w, now, run_due_events(w, now, tsc_limit));
      for (uint16_t i = 0; i < n; i++) {
        BridgeHost host{{*this, w}};
        w.bridge.ingest_frame(host, d, rx[i]);
        rte_pktmbuf_free(rx[i]);
      }
    }
    if (!w.bridge.polls_devices()) {
      const ps_t now = emu_now(rte_rdtsc());
      note_behind(w, now, run_due_events(w, now, tsc_limit));
    }
    w.bridge.flush_tx(w.st);
    if (nw > 1) flush_outbox(w);

    const uint64_t tsc = rte_rdtsc();
    if (tsc < next_house) continue;
    next_house = tsc + house_cycles;
    tables_.refresh(w.tables, emu_now(tsc));  // new routing tables take effect here
    if (faults_) apply_faults(w, std::max(w.now, emu_now(tsc)));  // and faults
    if (faults_ && w.id == 0) emulated_now_.store(emu_now(tsc), std::memory_order_relaxed);
    // Housekeeping: link state, counters for the others, phase changes.
    for (uint32_t d : w.bridge.polled()) {
      if (tsc - link_check[d] < hz / 10) continue;
      link_check[d] = tsc;
      bridge_.devices[d].link_up = eth_port_link_up(bridge_.devices[d].port_id);
    }
    live_[w.id].behind.store(w.behind, std::memory_order_relaxed);
    live_[w.id].injected.store(w.st.injected_packets, std::memory_order_relaxed);
    // (Packets lost to faults count as done for the drain.)
    live_[w.id].delivered.store(w.st.delivered_packets + w.fault_lost, std::memory_order_release);
    if (tsc >= next_progress) {
      tick++;
      next_progress += progress_cycles;
      publish_live(w, tick);
      if (w.id == 0 && cfg_.live) {
        live.wall_s = double(tsc - tsc0_) / double(hz);
        live.now_ps = w.now;
        live.rx_frames.assign(cfg_.ports.size(), 0);
        live.tx_frames.assign(cfg_.ports.size(), 0);
        live.port_names.clear();
        for (const auto& pc : cfg_.ports) live.port_names.push_back(pc.name);
        live.frame_latency_p99_ps = live.lateness_p99_ps = live.lateness_max_ps = 0;
        live.events_over_bound = 0;
        live.captured = live.capture_drops = 0;
        live.capturing = capturing_;
        for (int i = 0; i < nw; i++) {
          const LivePub& lp = live_[i];
          lp.tick.load(std::memory_order_acquire);
          for (size_t b = 0; b < cfg_.ports.size(); b++) {
            live.rx_frames[b] += lp.rx[b].load(std::memory_order_relaxed);
            live.tx_frames[b] += lp.tx[b].load(std::memory_order_relaxed);
          }
          live.frame_latency_p99_ps = std::max(live.frame_latency_p99_ps, lp.frame_p99.load(std::memory_order_relaxed));
          live.lateness_p99_ps = std::max(live.lateness_p99_ps, lp.lateness_p99.load(std::memory_order_relaxed));
          live.lateness_max_ps = std::max(live.lateness_max_ps, lp.lateness_max.load(std::memory_order_relaxed));
          live.events_over_bound += lp.over_bound.load(std::memory_order_relaxed);
          live.captured += lp.captured.load(std::memory_order_relaxed);
          live.capture_drops += lp.capture_drops.load(std::memory_order_relaxed);
        }
        cfg_.live(live);
      }
    }
    if (w.id != 0) continue;
    // Worker 0 watches how far the cores are behind and applies run.overload;
    // it decides when the run stops and when the fabric has drained.
    ps_t behind = 0;
    for (int i = 0; i < nw; i++) behind = std::max<ps_t>(behind, live_[i].behind.load(std::memory_order_relaxed));
    if (behind > cfg_.overload_bound_ps) {
      if (!overloaded) {
        overloaded = true;
        w.st.overload_episodes++;
        if (cfg_.on_overload) cfg_.on_overload(behind);
      }
    } else if (behind <= cfg_.overload_bound_ps / 2) {
      overloaded = false;  // caught up well inside the bound: a new episode may start
    }
    if (phase == kRunning) {
      const bool signalled = cfg_.stop && cfg_.stop->load(std::memory_order_relaxed);
      const bool overload_stop = overloaded && cfg_.overload == Overload::stop;
      if (signalled || overload_stop || (duration_cycles && tsc - tsc0_ >= duration_cycles)) {
        drain_deadline_ = emu_now(tsc) + cfg_.drain_ps;
        // A user (or the overload policy) who stops the run gets it back
        // within a second of wall time, whatever is still in flight.
        if (signalled || overload_stop) drain_deadline_ = std::min(drain_deadline_, emu_now(tsc + hz));
        w.st.overload_stopped = overload_stop && !signalled;
        phase_.store(kDraining, std::memory_order_release);
      }
      continue;
    }
    uint64_t inj = 0, del = 0;
    for (int i = 0; i < nw; i++) {
      del += live_[i].delivered.load(std::memory_order_acquire);
      inj += live_[i].injected.load(std::memory_order_relaxed);
    }
    // Two quiet looks in a row: a packet crossing between cores is counted
    // injected on one side before it is delivered on the other.
    quiet_checks = inj == del ? quiet_checks + 1 : 0;
    if (quiet_checks >= 2 || emu_now(tsc) >= drain_deadline_) phase_.store(kDone, std::memory_order_release);
  }
  w.bridge.flush_tx(w.st);
  w.st.end_ps = w.now;
}

}  // namespace fabemu
