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
    case event_kind(LinkEvent::remote_arrive): {
      const uint32_t c = w.router.channel(router_local_[ev.a], ev.port, ev.vc);
      if (lcb_) {
        LinkHop host{{*this, w}};
        w.retry.receive(host, c, ev.m, ev.t, ev.amount, true);
      } else {
        enter_input(w, c, ev.m, ev.t, true);
      }
      break;
    }
    case event_kind(LinkEvent::credit):
      add_credit_stream(w, router_local_[ev.a] * max_ports_ + ev.port, ev.vc, ev.amount, ev.t,
                        ev.unit_ps);
      break;
    case event_kind(BridgeEvent::mac_learn):
      w.bridge.learn_remote(ev.unit_ps, ev.a, rte_rdtsc());
      break;
    case event_kind(LinkEvent::control):  // in order with the link's packets, as they are taken
      on_link_control(w, ev);
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

template <class R, class L>
std::string Engine<R, L>::check_credits() const {
  // For every link and VC: credits held by the sender (in hand and streaming
  // back) + units in flight forward + units buffered downstream + credits in
  // flight back (not yet written to the sender) = buffer size.
  auto units_queued = [&](const Worker& w, uint32_t c) {
    uint64_t u = 0;
    for (uint32_t i = 0; i < w.router.len(c); i++) u += w.router.at(c, i).units;
    return u;
  };
  for (uint32_t r = 0; r < nrouters_; r++) {
    const Worker& ws = *workers_[router_worker_[r]];
    for (uint32_t p = 0; p < f_.routers[r].ports.size(); p++) {
      const FabricPort& fp = f_.routers[r].ports[p];
      if (!fp.connected()) continue;
      const uint32_t o = router_local_[r] * max_ports_ + p;
      for (uint32_t v = 0; v < nv_; v++) {
        const size_t s = size_t(o) * nv_ + v;
        const CreditCounter& cc = ws.vcs[s].credits;
        const uint32_t held = cc.held();
        int64_t fwd, buffered, back;
        if (fp.peer_router >= 0) {
          const Worker& wr = *workers_[router_worker_[fp.peer_router]];
          const uint32_t c = (router_local_[fp.peer_router] * max_ports_ + uint32_t(fp.peer_port)) * nv_ + v;
          fwd = int64_t(cc.taken()) - int64_t(wr.router.units_in(c));
          buffered = int64_t(units_queued(wr, c));
          back = int64_t(wr.router.units_out(c)) - int64_t(cc.returned());
        } else {
          // The endpoint sinks at line rate: credits leave as units are sent.
          fwd = 0;
          buffered = 0;
          back = int64_t(cc.taken()) - int64_t(cc.returned());
        }
        const int64_t total = int64_t(held) + fwd + buffered + back;
        if (total != int64_t(cap_[v]) || fwd < 0 || back < 0)
          return "router " + std::to_string(r) + " port " + std::to_string(p) + " VC " +
                 std::to_string(v) + ": credits " + std::to_string(held) + " + in flight " +
                 std::to_string(fwd) + " + buffered " + std::to_string(buffered) +
                 " + credits returning " + std::to_string(back) + " != " + std::to_string(cap_[v]);
      }
    }
  }
  for (const auto& wp : workers_)  // buffers inside the routers (the tiled router's)
    if (std::string bad = wp->router.check_inside(); !bad.empty()) return bad;
  for (uint32_t e = 0; e < nep_; e++) {
    const FabricEndpoint& fe = f_.endpoints[e];
    const Worker& w = *workers_[router_worker_[fe.router]];
    for (uint32_t v = 0; v < nv_; v++) {
      const uint32_t c = (router_local_[fe.router] * max_ports_ + uint32_t(fe.port)) * nv_ + v;
      const CreditCounter& cc = w.eps.credits(e, v);
      const int64_t total = int64_t(cc.held()) +
                            (int64_t(cc.taken()) - int64_t(w.router.units_in(c))) +
                            int64_t(units_queued(w, c)) +
                            (int64_t(w.router.units_out(c)) - int64_t(cc.returned()));
      if (total != int64_t(cap_[v]))
        return "injection link of endpoint " + std::to_string(e) + " VC " + std::to_string(v) +
               ": credits do not add up to " + std::to_string(cap_[v]);
    }
  }
  return {};
}

// The workers' hot counters into the link statistics: the outputs'
// (EngineCore::fold_output_counters) and the inputs' peak occupancy.
template <class R, class L>
void Engine<R, L>::fold_link_counters(Worker& w) {
  fold_output_counters(w.out, w.vcs, w.retry, w.down_since, w.st);
  for (size_t c = 0; c < w.router.channels(); c++) {
    const InLink& in = w.in[c / nv_];
    if (in.up_router < 0 && in.up_endpoint < 0) continue;
    uint32_t& peak = w.st.links[in.stats].vc_peak_occupancy[c % nv_];
    peak = std::max(peak, w.router.peak(static_cast<uint32_t>(c)));
  }
}

// Where packets wait when the fabric stalled: the router input channels
// holding packets, with what their heads wait for.
template <class R, class L>
std::string Engine<R, L>::where_stranded() {
  // The causes first: heads that could have gone (a lost wake-up), then
  // heads waiting for an endpoint's credits (a sink that stopped taking),
  // then those waiting behind other routers' buffers.
  enum Rank { lost_wake, at_sink, behind, unrouted };
  std::vector<std::pair<Rank, std::string>> found;
  uint64_t packets = 0;
  using std::to_string;
  for (auto& wp : workers_) {
    Worker& w = *wp;
    for (uint32_t lr = 0; lr < w.routers.size(); lr++)
      for (uint32_t p = 0; p < max_ports_; p++)
        for (uint32_t v = 0; v < nv_; v++) {
          const uint32_t c = w.router.channel(lr, p, v), n = w.router.len(c);
          if (n == 0) continue;
          packets += n;
          std::string at = "router " + to_string(w.routers[lr]) + " input port " + to_string(p) +
                           " VC " + to_string(v) + ": " + to_string(n) +
                           (n == 1 ? " packet" : " packets");
          const QEntry& e = w.router.head(c);
          if (!e.routed) {
            found.emplace_back(unrouted, at + ", its head not routed");
            continue;
          }
          const uint32_t o = w.router.output(lr, e.out_port);
          const bool sink = w.out[o].peer_router < 0;
          at += ", its head (" + to_string(e.units) + " units) for output port " +
                to_string(e.out_port) + (sink ? " (an endpoint)" : "");
          if constexpr (Router::kInternalBuffers) {  // it waits for room inside, not for credits
            found.emplace_back(sink ? at_sink : behind, at + " across the tiles");
            continue;
          }
          const CreditCounter& cc = w.vcs[size_t(o) * nv_ + e.out_vc].credits;
          // With no event left, every credit stream the counter holds comes.
          const bool enough = cc.held() >= e.units;
          at += " VC " + to_string(e.out_vc) + " with " + to_string(cc.held()) + " credits" +
                (enough ? " (enough: a lost wake-up)" : " (short: waiting for credits)");
          found.emplace_back(enough ? lost_wake : sink ? at_sink : behind, std::move(at));
        }
  }
  uint64_t all = 0;
  for (auto& wp : workers_) for_each_packet_left(*wp, [&](rte_mbuf*) { all++; });
  const std::string elsewhere =
      all > packets ? "; " + to_string(all - packets) +
                          " more in other buffers (tiles, output queues, sources, retransmit "
                          "buffers) or on links"
                    : "";
  if (packets == 0) return "no packet waits in a router input buffer" + elsewhere;
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  constexpr size_t kShown = 4;
  std::string out = to_string(packets) + " packets in " + to_string(found.size()) +
                    " router input channels: ";
  for (size_t i = 0; i < std::min(kShown, found.size()); i++)
    out += (i ? "; " : "") + found[i].second;
  if (found.size() > kShown) out += "; and " + to_string(found.size() - kShown) + " more channels";
  return out + elsewhere;
}

template <class R, class L>
RunStats Engine<R, L>::merge() {
  std::vector<WorkerResult> results;
  for (const auto& w : workers_)
    results.push_back({w.get(), &w->st, w->fault_lost, w->eps.gen_stop_ps()});
  RunStats out = EngineCore::merge(results);
  for (const auto& w : workers_) w->router.add_counters(out);  // the router model's own
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
    w->eps.seed(w->wheel, event_kind(EndpointEvent::generate));
    w->bridge.seed_replay(w->wheel, event_kind(BridgeEvent::port_replay));
  }
  if (cfg_.realtime) realtime_.start_clock();
  const auto t0 = std::chrono::steady_clock::now();
  // A worker that failed to be placed still enters its loop: the loops tell
  // the other workers that it failed, so that none waits for it.
  const bool launched = run_worker_threads(
      kernel_workers(), cfg_.worker_cpus,
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
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunStats out = merge();
  out.wall_s = wall;
  if (out.stalled) out.stranded = where_stranded();
  release();
  return out;
}

}  // namespace fabemu
