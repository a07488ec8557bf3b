// Engine<R, L>, continued: the engine as the kernel's host for one worker
// (sim/window_kernel.h WindowHost, sim/realtime_kernel.h RealtimeHost): what
// its events mean, what changes at a window edge, what the drain waits for,
// and in real time its ports, housekeeping and live figures. Made on the
// stack of the worker's thread for the whole run. Included from engine.h
// only.
#pragma once

namespace fabemu {

template <class R, class L>
struct Engine<R, L>::KernelHost {
  KernelHost(Engine& engine, Worker& worker) : e(engine), w(worker) {}
  Engine& e;
  Worker& w;

  FABEMU_ALWAYS_INLINE void dispatch(const Event& ev) { e.dispatch(w, ev); }
  void apply_remote(Event& ev) { e.apply_remote(w, ev); }

  // ---- virtual time ----------------------------------------------------------
  using Report = WindowCounts;
  using Publication = WindowPublication<WindowCounts>;

  // Tables published or scheduled by control/ take effect at a window edge,
  // and so do faults; changes while running (the control socket) come with
  // faults_ only.
  void begin_window(ps_t start) {
    e.tables_.refresh(w.route.tables, start, e.faults_ ? w.tables_upto : UINT64_MAX);
    if (e.faults_) [[unlikely]] {
      e.apply_faults(w, start, w.faults.rt_upto);
      if (w.id == 0) e.emulated_now_.store(start, std::memory_order_relaxed);
    }
  }
  ps_t next_change() const { return std::min(e.tables_.next_change(w.route.tables), e.next_fault_at(w)); }
  ps_t next_edge() const { return e.next_fault_at(w); }
  void check_invariants(ps_t t, bool at_edge) {
    const std::string bad = e.check_credits();
    w.st.invariant_checks++;
    if (!bad.empty())
      e.fail(w, std::string("credit conservation broken at ") + (at_edge ? "a window edge " : "") +
                    "t=" + std::to_string(t) + " ps: " + bad);
  }
  // Damaged packets that moved on count until their destination discards them.
  // The capture writer may write what this worker recorded before the edge.
  void report(WindowCounts& r, ps_t edge) {
    if (e.capturing_) w.capture.pass(edge);
    // (Copies two-hop recovery sent again are in flight as packets are.)
    r = WindowCounts{w.st.injected_packets + w.recovery.counters().resent,
                     w.st.delivered_packets,
                     int64_t(w.retry.bad_out) - int64_t(w.st.transmit_error_discards),
                     w.retry.crc_errors,
                     w.retry.retries,
                     w.lanes.dropped(),
                     w.retry.given_up,
                     w.faults.lost,
                     0,
                     0};
    if (e.faults_ && w.id == 0) [[unlikely]] {  // (what worker 0 adopted, else what is new)
      r.rt_faults = w.faults.rt_upto;
      r.tables_generation = w.tables_upto;
      const auto generation = [&] { return e.tables_.generation(); };
      e.fault_inbox_.snapshot(e.change_epoch_, generation, &r.rt_faults, &r.tables_generation);
    }
  }
  void end_window(const Publication* pubs, int n, ps_t end) {
    if (e.faults_) [[unlikely]] {
      w.faults.rt_upto = pubs[0].report.rt_faults;
      w.tables_upto = pubs[0].report.tables_generation;
    }
    if (w.id == 0 && e.cfg_.progress && e.cfg_.progress_s > 0) show_progress(pubs, n, end);
  }
  bool exchange_ranks(Publication* pubs, uint8_t parity) { return e.exchange_ranks(pubs, parity); }
  // Packets lost to faults are counted and not waited for.
  bool all_arrived(const Publication* pubs, int n) const {
    return WindowCounts::sum(pubs, n).all_arrived();
  }
  std::chrono::steady_clock::time_point last_progress = std::chrono::steady_clock::now();
  void show_progress(const Publication* pubs, int n, ps_t end) {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_progress).count() < e.cfg_.progress_s) return;
    last_progress = now;
    const WindowCounts t = WindowCounts::sum(pubs, n);
    EngineConfig::Progress pr;
    pr.fraction = std::min(1.0, double(end) / double(std::max<ps_t>(1, e.gen_end_)));
    pr.now = end;
    pr.retry = e.lcb_;
    pr.delivered = t.delivered;
    pr.crc_errors = t.crc_errors;
    pr.retries = t.retries;
    pr.lanes_dropped = t.lanes_dropped;
    pr.given_up = t.given_up;
    e.cfg_.progress(pr);
  }

  // ---- real time ---------------------------------------------------------------
  // How far its sources got (behind the wall clock when overloaded).
  void draining() {
    if (w.eps.generating()) w.eps.stop_generating(w.now);
  }
  // Receive, catch up to now, then inject what was received at now.
  template <class CatchUp>
  void receive(bool running, CatchUp&& catch_up) {
    if (w.bridge.polls_devices() && running) {
      const uint64_t t = rte_rdtsc();
      if (last_poll) w.st.poll_gap_ps.add(e.realtime_.emulated_span(t - last_poll));
      last_poll = t;
    }
    BridgeHost host{{e, w}};
    w.bridge.receive(host, running, catch_up, w.st);
  }
  // New routing tables and faults take effect here; the devices' link
  // state; the counters worker 0 drains by.
  void keep_house(uint64_t tsc) {
    const ps_t now = e.realtime_.emulated(tsc);
    e.tables_.refresh(w.route.tables, now);
    if (e.faults_) e.apply_faults(w, std::max(w.now, now));
    if (e.faults_ && w.id == 0) e.emulated_now_.store(now, std::memory_order_relaxed);
    w.bridge.check_links(tsc, hz);
    // (Packets lost to faults count as done for the drain.)
    e.live_.publish_counts(w.id, w.st.injected_packets + w.recovery.counters().resent,
                           w.st.delivered_packets + w.faults.lost);
    // Events from other cores run no earlier than now: the capture writer
    // may write what this worker recorded before it.
    if (e.capturing_) w.capture.pass(w.now);
  }
  // Its counters and the frame p99 of the period (before the kernel's tick).
  void publish_live() { e.live_.publish(w.id, w.st, w.bridge.frame_latency_iv()); }
  void show_live(uint64_t tsc) {
    if (!e.cfg_.live) return;
    live.wall_s = double(tsc - e.realtime_.tsc0()) / double(hz);
    live.now_ps = w.now;
    live.port_names.clear();
    for (const auto& pc : e.cfg_.ports) live.port_names.push_back(pc.name);
    live.capturing = e.capturing_;
    e.realtime_.read_live(live);  // (first: it acquires what each worker published)
    e.live_.read(live);
    e.cfg_.live(live);
  }
  bool settled() const { return e.live_.settled(); }
  void finish() { w.bridge.flush_tx(w.st, BridgeHost{{e, w}}.wall_now()); }

  const uint64_t hz = rte_get_tsc_hz();
  uint64_t last_poll = 0;
  LiveStats live;
};

}  // namespace fabemu
