// The T3E's virtual barrier/eureka networks on one worker (section 6): the
// BSU registers of its routers (bsu.h) and the barrier/eureka packets
// between them, their processors and the neighbouring routers.
//
// A barrier/eureka packet is one flit on a virtual channel of its own, with
// the highest priority and no buffer to wait for: a register always sinks
// it. Sent on a router link it waits at most for the flit being serialised
// there (the next flit boundary of the link), then takes `hop_ps` to the
// neighbour's register (barrier.hop_ns: the 3-clock straight-through
// fall-through of Table 2, wire included); between a processor's shell and
// its router's register it takes `endpoint_ps` (barrier.endpoint_ns). Its
// one flit is not taken from the data packets' link time: a barrier sends
// one flit up and one down each tree link. A packet is an event of the
// worker that owns the receiving register (sent through the ring to
// another worker as a link's packets are; the window is never longer than
// hop_ps, engine_setup.h), so no buffer is involved.
//
// Its host H (the engine's BarrierHost, engine_barrier_host.h):
//   ps_t now(); static EventKind kind(BarrierEvent); void schedule(const Event&);
//   const OutLink& out(uint32_t lr, uint32_t port);  // router lr's output at port
//   uint32_t local_of(int32_t router);  // a router's index on its worker
//   uint16_t worker_id(); void send_remote(const Event&, uint16_t worker);
//   BarrierStats& stats();
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/barrier/barrier_stats.h"
#include "dataplane/barrier/bsu.h"
#include "dataplane/link/link.h"
#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"

namespace fabemu {

enum class BarrierEvent : uint8_t {
  // A barrier/eureka packet reaches a router's register: a = the router's
  // index on this worker, port = the port it comes in at, vc = the BSU,
  // amount = its BarrierSignal, unit_ps = its stamp (bsu.h, BsuSend).
  signal,
  // A notification reaches a processor's BSU: a = the endpoint, vc, amount,
  // unit_ps as above.
  notify,
};

// A run's barrier/eureka networks (EngineConfig::barrier).
struct BarrierConfig {
  uint32_t units = 0;     // BSUs per node the run uses (0: no barrier network)
  ps_t hop_ps = 0;        // one router's register to a neighbour's
  ps_t endpoint_ps = 0;   // a processor's shell to its router's register, and back
  // Every BSU's spanning tree (the same tree for all), per router: the
  // ports that are children and the parent port (kBarrierRoot at the root;
  // children 0 for a router outside the tree).
  std::vector<uint32_t> children;
  std::vector<int8_t> parent;
  bool on() const { return units > 0; }
  bool fits(size_t routers, std::string* err) const {
    if (children.size() == routers && parent.size() == routers) return true;
    *err = "the barrier network's tree does not match the fabric's routers";
    return false;
  }
  // A packet to a router on another worker arrives hop_ps after it leaves:
  // the windows between workers may be no longer.
  ps_t window(ps_t w) const { return w > hop_ps ? hop_ps : w; }
};

class BarrierNetwork {
 public:
  // The registers of the routers of one worker (routers: local -> global).
  void init(const BarrierConfig& c, const std::vector<int32_t>& routers) {
    cfg_ = &c;
    regs_.assign(c.on() ? routers.size() * c.units : 0, BsuRegister{});
    for (size_t lr = 0; c.on() && lr < routers.size(); lr++)
      for (uint32_t b = 0; b < c.units; b++) {
        BsuRegister& r = regs_[lr * c.units + b];
        r.children = c.children[size_t(routers[lr])];
        r.parent = c.parent[size_t(routers[lr])];
      }
  }
  bool on() const { return cfg_ && cfg_->on(); }
  uint32_t units() const { return cfg_ ? cfg_->units : 0; }

  // The processor at port `port` of local router lr sends signal s for BSU
  // `bsu` (an up signal: barrier or eureka) with its stamp, now.
  template <class H>
  void from_processor(H& h, uint32_t lr, uint32_t port, uint32_t bsu, BarrierSignal s, ps_t stamp) {
    Event ev = event_at(h.now() + cfg_->endpoint_ps, H::kind(BarrierEvent::signal), lr);
    ev.port = static_cast<uint16_t>(port);
    ev.vc = static_cast<uint8_t>(bsu);
    ev.amount = static_cast<uint16_t>(s);
    ev.unit_ps = stamp;
    h.stats().signals++;
    h.schedule(ev);
  }

  // A packet reaches a register (BarrierEvent::signal).
  template <class H>
  void on_signal(H& h, const Event& ev) {
    const uint32_t lr = ev.a, bsu = ev.vc;
    const auto s = static_cast<BarrierSignal>(ev.amount);
    BsuRegister& reg = regs_[size_t(lr) * cfg_->units + bsu];
    const BsuSend send = reg.on_signal(ev.port, s, ev.unit_ps);
    if (send.to == BsuSend::To::none) return;
    if (send.to == BsuSend::To::parent) {
      send_on(h, lr, static_cast<uint32_t>(reg.parent), bsu, send);
      return;
    }
    if (signal_goes_up(s)) {  // the root: the barrier completes, or the eureka is known
      if (send.what == BarrierSignal::barrier_done)
        h.stats().barriers++;
      else
        h.stats().eurekas++;
    }
    for (uint32_t c = reg.children; c; c &= c - 1)
      send_on(h, lr, static_cast<uint32_t>(__builtin_ctz(c)), bsu, send);
  }

 private:
  // One packet from router lr's register out of its port `port`.
  template <class H>
  void send_on(H& h, uint32_t lr, uint32_t port, uint32_t bsu, const BsuSend& send) {
    const ps_t now = h.now();
    h.stats().signals++;
    const OutLink& ol = h.out(lr, port);
    if (ol.dead) {  // the tree is the healthy fabric's: what crosses a fault is lost
      h.stats().signals_lost++;
      return;
    }
    const int32_t ep = ol.peer_endpoint;
    Event ev{};
    ev.vc = static_cast<uint8_t>(bsu);
    ev.amount = static_cast<uint16_t>(send.what);
    ev.unit_ps = send.at;
    if (ep >= 0) {
      ev.t = now + cfg_->endpoint_ps;
      ev.kind = H::kind(BarrierEvent::notify);
      ev.a = static_cast<uint32_t>(ep);
      h.schedule(ev);
      return;
    }
    // Highest priority: it takes the link's next flit slot.
    const ps_t wait = ol.free_ps > now && ol.unit_ps ? (ol.free_ps - now) % ol.unit_ps : 0;
    ev.t = now + wait + cfg_->hop_ps;
    ev.kind = H::kind(BarrierEvent::signal);
    ev.a = h.local_of(ol.peer_router);
    ev.port = ol.peer_port;
    if (ol.peer_worker == h.worker_id())
      h.schedule(ev);
    else
      h.send_remote(ev, ol.peer_worker);
  }

  const BarrierConfig* cfg_ = nullptr;
  std::vector<BsuRegister> regs_;  // [local router * units + BSU]
};

}  // namespace fabemu
