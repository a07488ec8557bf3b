// Engine<R, Link>, continued: the dispatch of a worker's events to their
// components, and the two entries of a hop more than one component calls:
// a packet entering a router input (router/router_input.h; from a link, an
// endpoint or the retry receiver) and credits reaching an output's counter
// (link/link_send.h; by a link's channel or a deferred stream's event).
// Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
inline void Engine<R, L>::dispatch(Worker& w, const Event& e) {
  switch (e.kind) {
    case event_kind(RouterEvent::out_wake):
    case event_kind(RouterEvent::link_wake):
    case event_kind(RouterEvent::tile): {  // the router model's own
      Hop host{*this, w};
      w.router.on_event(host, e);
      break;
    }
    case event_kind(RouterEvent::route): {  // (link-level retry or a fault may have taken it)
      Hop host{*this, w};
      w.route.on_route_event(host, e.a, lcb_ || faults_);
      break;
    }
    case event_kind(EndpointEvent::generate): {
      EndpointHost host{*this, w};
      w.eps.on_generate(host, e.a);
      break;
    }
    case event_kind(EndpointEvent::wake): {
      EndpointHost host{*this, w};
      w.eps.on_wake(host, e);
      break;
    }
    case event_kind(EndpointEvent::deliver): {
      EndpointHost host{*this, w};
      w.eps.on_deliver(host, e.a, e.m, e.t);
      break;
    }
    case event_kind(EndpointEvent::join): {
      EndpointHost host{*this, w};
      w.eps.on_join(host, e.a);
      break;
    }
    case event_kind(BarrierEvent::signal): {
      BarrierHost host{*this, w};
      w.barriers.on_signal(host, e);
      break;
    }
    case event_kind(BarrierEvent::notify): {
      EndpointHost host{*this, w};
      w.eps.on_barrier(host, e);
      break;
    }
    case event_kind(LinkEvent::credit):
      // A stream that had to wait for room in the counter's queue: the
      // streams before it have arrived by now.
      if (e.port == kEndpointPort)
        add_ep_credit_stream(w, e.a, e.vc, e.amount, e.t, e.unit_ps, true);
      else
        add_credit_stream(w, e.a, e.vc, e.amount, e.t, e.unit_ps, true);
      break;
    case event_kind(BridgeEvent::port_replay): {
      BridgeHost host{{*this, w}};
      w.bridge.on_replay(host, e.a);
      break;
    }
    case event_kind(LinkEvent::retry_timeout): {
      static_assert(LinkRetryHost<LinkHop> && LaneControlHost<LinkHop>);
      LinkHop host{{*this, w}};
      w.retry.go_back(host, e.a);
      break;
    }
    case event_kind(LinkEvent::progress_check):
      check_progress(w);
      break;
    case event_kind(LinkEvent::remote_arrive):
    case event_kind(BridgeEvent::mac_learn):
    case event_kind(LinkEvent::control):
      break;  // applied when taken from the ring (apply_remote)
    default:
      if (owner_of(e.kind) == EventOwner::router) {  // a model's own kind (RouterEvent::model_own)
        Hop host{*this, w};
        w.router.on_event(host, e);
      }
      break;
  }
}

// Packet m enters input channel c (router/router_input.h).
template <class R, class L>
__attribute__((always_inline)) inline void Engine<R, L>::enter_input(Worker& w, uint32_t c,
                                                                     rte_mbuf* m, ps_t arrive,
                                                                     bool late) {
  Hop host{*this, w};
  fabemu::enter_input(w.router, host, c, m, arrive, late, cap_.data(), qcap_);
}

// A credit stream reaches output o's VC v (link/link_send.h).
template <class R, class L>
inline void Engine<R, L>::add_credit_stream(Worker& w, uint32_t o, uint32_t v, uint32_t units,
                                            ps_t first, ps_t every, bool resumed) {
  LinkHop host{{*this, w}};
  credits_arrive(host, w.out[o], w.vcs[size_t(o) * nv_ + v].credits, o, v, units, first, every,
                 resumed);
}

}  // namespace fabemu
