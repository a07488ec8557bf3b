// Engine<R, Link>, continued: the engine as the barrier/eureka networks'
// host (dataplane/barrier/barrier_network.h). Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
struct Engine<R, L>::BarrierHost {
  Engine& e;
  Worker& w;
  ps_t now() const { return w.now; }
  template <class K>
  static constexpr EventKind kind(K k) {
    return event_kind(k);
  }
  void schedule(const Event& ev) { w.wheel.push(ev); }
  const OutLink& out(uint32_t lr, uint32_t port) const { return w.out[size_t(lr) * e.max_ports_ + port]; }
  uint32_t local_of(int32_t router) const { return e.router_local_[size_t(router)]; }
  uint16_t worker_id() const { return static_cast<uint16_t>(w.id); }
  void send_remote(const Event& ev, uint16_t worker) { w.send_remote(ev, worker); }
  BarrierStats& stats() { return w.st.barrier; }
};

}  // namespace fabemu
