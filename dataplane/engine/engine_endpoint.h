// Engine<R, Link>, continued: the engine as the endpoints' Host
// (endpoint/endpoints.h). Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
struct Engine<R, L>::EndpointHost {
  Engine& e;
  Worker& w;
  ps_t now() const { return w.now; }
  ps_t measure_start() const { return e.measure_start_; }
  ps_t measure_end() const { return e.measure_end_; }
  ps_t gen_end() const { return e.gen_end_; }
  int worker_id() const { return w.id; }
  bool shedding() const { return w.shedding; }
  RunStats& stats() { return w.st; }
  PacketPool& pool() { return w.pool; }
  void schedule(const Event& ev) { w.wheel.push(ev); }
  // The components' event kinds as this run numbers them (event_kinds.h).
  template <class K>
  static constexpr EventKind kind(K k) {
    return event_kind(k);
  }
  void on_inject(PacketMeta& pm) { R::on_inject(w.route.t(), e.f_, pm); }
  // Endpoint ep's packet enters VC v of the router input its link feeds.
  void enter_router(uint32_t ep, rte_mbuf* m, uint8_t v, ps_t arrive) {
    const FabricEndpoint& fe = e.f_.endpoints[ep];
    const uint32_t c =
        w.router.channel(e.router_local_[fe.router], static_cast<uint32_t>(fe.port), v);
    e.enter_input(w, c, m, arrive);
  }
  void defer_credits(uint32_t ep, uint32_t v, uint32_t units, ps_t first, ps_t every) {
    e.defer_credit_stream(w, ep, kEndpointPort, v, units, first, every);
  }
  void add_busy(ps_t& busy, ps_t start, ps_t dur) const { e.add_busy(busy, start, dur); }
  bool capturing() const { return e.capturing_; }
  void capture(uint32_t link, const rte_mbuf* m, ps_t t, uint8_t v, uint64_t seq) {
    e.capture_packet(w, link, m, t, v, seq);
  }
  void free_later(rte_mbuf* m) { w.free_later.push(m); }
  void frame_segment(uint32_t ep, rte_mbuf* m) {
    BridgeHost host{{e, w}};
    w.bridge.frame_segment(host, ep, m);
  }
  void fail(const std::string& why) { e.fail(w, why); }
  // Processor ep's shell sends a barrier/eureka signal to its router.
  void barrier_signal(uint32_t ep, uint32_t bsu, BarrierSignal s, ps_t stamp) {
    const FabricEndpoint& fe = e.f_.endpoints[ep];
    BarrierHost host{e, w};
    w.barriers.from_processor(host, e.router_local_[fe.router], static_cast<uint32_t>(fe.port), bsu,
                              s, stamp);
  }
};

template <class R, class L>
inline void Engine<R, L>::add_ep_credit_stream(Worker& w, uint32_t e, uint32_t v, uint32_t units,
                                               ps_t first, ps_t every, bool resumed) {
  EndpointHost host{*this, w};
  w.eps.add_credit_stream(host, e, v, units, first, every, resumed);
}

}  // namespace fabemu
