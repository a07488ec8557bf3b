// Engine<R, Link>, continued: setup. What depends on the routing policy or
// the router model: the cross-core lookahead, the workers, their routers
// and tables; the fabric's checks, placement, links and traffic, and a
// worker's links, endpoints and pools are EngineCore's (engine_core.cpp).
// Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
bool Engine<R, L>::setup(std::string* err) {
  if (!setup_fabric([this](const FabricPort& link) { return cross_core_lookahead(link); }, err))
    return false;
  const int nw = std::max(1, cfg_.workers);
  workers_.clear();
  for (int i = 0; i < nw; i++) {
    workers_.push_back(std::make_unique<Worker>());
    workers_.back()->id = i;
  }
  // Over several ranks this process runs its own workers; the others are
  // stand-ins, set up alike (their links and statistics are numbered as
  // theirs) and filled with their rank's counters at the end.
  local_first_ = cfg_.ranks ? cfg_.first_local_worker : 0;
  local_count_ = cfg_.ranks ? cfg_.local_workers : nw;
  if (local_first_ < 0 || local_count_ < 1 || local_first_ + local_count_ > nw) {
    *err = "this rank's workers (" + std::to_string(local_first_) + " + " +
           std::to_string(local_count_) + ") are not among the run's " + std::to_string(nw);
    return false;
  }
  windows_.init({.workers = nw,
                 .first_local = local_first_,
                 .local = local_count_,
                 .ranks = cfg_.ranks,
                 .window = window_,
                 .sources_end = gen_end_,
                 .drain_end = drain_end_,
                 .check_invariants = cfg_.check_invariants,
                 .stop = cfg_.stop});
  realtime_.init({nw, cfg_.time_scale, cfg_.duration_s, cfg_.progress_s, cfg_.drain_ps,
                  cfg_.lateness_bound_ps, cfg_.overload_bound_ps, cfg_.overload == Overload::shed,
                  cfg_.overload == Overload::stop, cfg_.stop, cfg_.on_overload});
  live_.init(nw, cfg_.ports.size());
  if (!assign_lcores(local_workers(), err)) return false;
  for (auto& w : workers_)
    if (!setup_worker(*w, err)) return false;
  std::vector<unsigned> lcores;
  std::vector<bool> local;
  for (const auto& w : workers_) {
    lcores.push_back(w->lcore);
    local.push_back(is_local(*w));
  }
  // The cross-core rings (between this process's workers only).
  return connect_workers(kernel_workers(), lcores, inst_, err, cfg_.ranks ? &local : nullptr);
}

// How long after a sender on one core does something on a link can it
// matter to the other core: the lookahead of conservative windows.
//  - A packet granted at t arrives at t + wire. With routing that depends
//    only on tables and packet, it can do nothing at the far router before
//    it is through that router's pipeline (t + wire + the shortest pipeline
//    from that input), so the far core may take it that late.
//  - The far router returns credits for it when it sends the packet on: the
//    first at that grant + its output's unit time + the wire back.
// Router pipelines come from the tables the run starts with; tables swapped
// in later change routes, not the routers' timing.
template <class R, class L>
ps_t Engine<R, L>::cross_core_lookahead(const FabricPort& link) const {
  const typename TableSlot<Tables>::Reader reader = [&] {
    typename TableSlot<Tables>::Reader r;
    tables_.attach(r);
    return r;
  }();
  const FabricRouter& far = f_.routers[link.peer_router];
  ps_t pipeline = kNever, unit = kNever;
  for (uint32_t q = 0; q < far.ports.size(); q++) {
    if (!far.ports[q].connected()) continue;
    unit = std::min(unit, far.ports[q].unit_ps);
    pipeline = std::min(
        pipeline, R::pipeline_ps(*reader.tables, f_.table_router(link.peer_router),
                                 static_cast<uint8_t>(link.peer_port), static_cast<uint8_t>(q)));
  }
  if (unit == kNever) unit = 0;
  // How soon the router model sends an arrival's credits back.
  unit = Router::earliest_credit(unit, pipeline);
  if (pipeline == kNever || policy_routes_on_state<R>(*reader.tables)) pipeline = 0;
  return link.wire_ps + std::min(pipeline, unit);
}

template <class R, class L>
bool Engine<R, L>::setup_worker(Worker& w, std::string* err) {
  static_assert(RouterModel<Router, Hop>, "the router model lacks an operation (router_model.h)");
  for (uint32_t r = 0; r < nrouters_; r++)
    if (router_worker_[r] == w.id) w.routers.push_back(static_cast<int32_t>(r));
  const uint32_t nlr = static_cast<uint32_t>(w.routers.size());
  tables_.attach(w.route.tables);
  w.tables_upto = w.route.tables.generation;  // changes while running: WindowCounts
  w.route.init({&f_, nv_, max_ports_, cap_.data(), alloc_cycle_ps_, cfg_.seed}, w.routers);
  RouterShape shape = router_shape(nlr);
  shape.pipeline_ps = nlr ? w.route.pipeline_ps(w.routers[0], 0, 0) : 0;
  w.router.init(shape);
  w.barriers.init(cfg_.barrier, w.routers);
  w.st = RunStats{};
  w.st.links = links_.links;
  if (!cfg_.realtime) w.st.periods.init(cfg_.sample_period_ps, gen_end_);
  w.route.mixed_rates =  // link/link_wiring.h
      wire_links({&f_, &links_, &router_worker_, &router_local_, &cap_, max_ports_, nv_}, w.id,
                 w.routers, w.out, w.in, w.vcs);
  for (uint32_t o = 0; o < w.out.size(); o++)  // the links' unit times, for models that mind them
    w.router.set_link_units(o, w.in[o].unit_ps, w.out[o].unit_ps);
  // Buffers fed from another worker keep their occupancy as on one worker.
  if constexpr (requires { w.router.track_late_entries(0u); })
    for (uint32_t i = 0; i < w.in.size(); i++)
      if (w.in[i].up_router >= 0 && w.in[i].up_worker != w.id)
        for (uint32_t v = 0; v < nv_; v++) w.router.track_late_entries(i * nv_ + v);
  setup_endpoints(w.id, w.eps);
  // Port-bound endpoints: a frame queue, reassembly slots, the bridge table.
  w.bridge.init(bridge_, w.id, double(rte_get_tsc_hz()), w.eps, w.st, cfg_.lateness_bound_ps);
  if (w.bridge.polls_devices() &&
      !w.bridge.make_tx_pool("ft" + std::to_string(inst_) + "_" + std::to_string(w.id),
                             static_cast<int>(rte_lcore_to_socket_id(w.lcore)), err))
    return false;
  if (lcb_ && !w.retry.init(w.out, w.routers, max_ports_, nv_, cfg_.retry, cfg_.format.max_units,
                            cfg_.format.min_units, cfg_.seed, static_cast<CodecKind>(cfg_.codec),
                            err))
    return false;
  if (recovery_) {
    if (!kRecovery) {
      *err = "two-hop recovery (link.recovery: two_hop) sends packets again from the router "
             "where they were, and this routing routes only from a packet's source: use the 3D "
             "mesh's source_route, or set link.recovery: none";
      return false;
    }
    w.recovery.init(w.out.size(), cfg_.recovery.size_words, cfg_.recovery.keep_ps);
  }
  if (capturing_) w.capture.init(cfg_.capture, static_cast<uint32_t>(w.id));
  if (lanes_) {
    LinkHop host{{*this, w}};
    w.lanes.init(host, w.out.size(), f_.lanes, cfg_.retry, cfg_.format.max_units);
  }
  if (faults_) {
    w.faults.init({.fabric = &f_,
                   .router_worker = &router_worker_,
                   .router_local = &router_local_,
                   .worker = w.id,
                   .max_ports = max_ports_,
                   .nv = nv_,
                   .scheduled = &cfg_.faults,
                   .inbox = &fault_inbox_},
                  w.out.size());
    LinkHop host{{*this, w}};
    w.progress.init(host, w.out.size(), nv_, cfg_.forward_progress_ps);
  }
  return setup_pool(w, w.pool, w.bridge.polls_devices(), err);
}


}  // namespace fabemu
