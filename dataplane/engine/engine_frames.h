// Engine<R, Link>, continued: the engine as the bridge's Host
// (ethernet/bridge.h). Included from engine.h only.
#pragma once

namespace fabemu {

// (Time, counters, capture and failure as for the endpoints.)
template <class R, class L>
struct Engine<R, L>::BridgeHost : EndpointHost {
  using EndpointHost::e;
  using EndpointHost::w;
  bool generating() const { return w.eps.generating(); }
  // The wall clock's emulated time (real time; the worker's own otherwise).
  ps_t wall_now() const { return e.cfg_.realtime ? e.realtime_.emulated(rte_rdtsc()) : w.now; }
  Nic& nic(uint32_t ep) { return w.eps.nic(ep); }
  Endpoints::Enqueue enqueue_frame(uint32_t from, uint32_t to, uint32_t len, uint8_t flags,
                                   const uint8_t* bytes, uint16_t flow) {
    return w.eps.enqueue_message(static_cast<EndpointHost&>(*this), from, to, len,
                                 static_cast<uint8_t>(TrafficClass::request), flags, w.now, bytes,
                                 flow);
  }
  void inject(uint32_t from) {
    w.eps.inject_processor(static_cast<EndpointHost&>(*this), from);
  }
  // The other cores learn the address too, through the rings.
  void share_learned(uint64_t mac, uint32_t ep) {
    Event ev{};
    ev.t = w.now;
    ev.kind = event_kind(BridgeEvent::mac_learn);
    ev.a = ep;
    ev.unit_ps = mac;
    for (uint32_t o = 0; o < e.workers_.size(); o++)
      if (o != static_cast<uint32_t>(w.id)) e.send_remote(w, ev, o);
  }
  void capture_frame(uint32_t b, const uint8_t* frame, uint32_t avail, uint32_t len,
                     CaptureDir dir) {
    e.capture_frame(w, b, frame, avail, len, dir);
  }
};

// A packet still in the fabric at the end of a run: a frame's first one is
// counted at the binding it was bound for, on its endpoint's worker.
template <class R, class L>
void Engine<R, L>::note_undelivered(rte_mbuf* m) {
  const PacketMeta* pm = meta(m);
  if (!(pm->flags & kPktFrame) || pm->seg != 0 || pm->dst >= nep_) return;
  Worker& wd = *workers_[router_worker_[f_.endpoints[pm->dst].router]];
  wd.bridge.note_undelivered(*pm, wd.eps, wd.st);
}

}  // namespace fabemu
