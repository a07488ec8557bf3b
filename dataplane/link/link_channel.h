// The channel a link ends in: how what one end of a router-to-router link
// sends reaches the other end. The sender's packets and link-control
// messages go one way, the receiver's credits the other, each by the
// channel of its direction, stamped with the emulated time it arrives:
//
//   LocalChannel  both ends on this core: the far end takes it there and
//                 then (its time may be ahead of now: the buffer space is
//                 already the packet's, as the credits say)
//   RingChannel   the far end on another core (SPSC ring, STYLE.md 4): an
//                 event staged for the ring to that core (the host's
//                 send_remote, sim/kernel_worker.h) and taken there, in the
//                 order sent, at the next window edge (receive below)
//
// The indices a channel carries are those of the far end's worker (where
// a router's outputs and inputs are numbered by its index on that worker),
// so the receiving end maps nothing.
//
// A channel reaches the run through a host H (LinkChannelHost: the engine's
// is Engine::LinkHop) with plain calls: every call inlines, nothing virtual,
// nothing allocated. A link carries its channel's kind, a byte chosen at
// setup (channel_kind); carry() below turns it into the type, one
// predictable branch per packet.
//
// A third kind (Ethernet 0x88B5 to another server): a file of its own with
// a type that is a LinkChannel (of(link), carry(h, what) for the three
// things carried) and its receiving half, and its registration here: a
// ChannelKind, its choice in channel_kind and its case in carry()
// (-Wswitch names a kind left out).
#pragma once
#include <rte_mbuf.h>

#include <concepts>
#include <cstdint>

#include "dataplane/link/go_back_n.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_event.h"
#include "dataplane/sim/event.h"

namespace fabemu {

enum class ChannelKind : uint8_t { local, ring };

// The kind of channel between a link's end on `worker` and its far end.
inline ChannelKind channel_kind(uint32_t worker, uint32_t far_worker) {
  return far_worker == worker ? ChannelKind::local : ChannelKind::ring;
}

// What a channel asks of the run at either end (one worker).
template <class H>
concept LinkChannelHost = requires(H& h, const Event& ev, uint32_t i, uint8_t vc, uint32_t units,
                                   ps_t t, rte_mbuf* m, LinkSeq seq) {
  { H::kind(LinkEvent::remote_arrive) } -> std::same_as<EventKind>;  // as the run numbers them
  { h.now() } -> std::same_as<ps_t>;
  h.granted_upstream(i, t);       // the packet about to reach input channel i was sent at t
  h.arrive(i, m, t, seq, true);   // m's head reaches input channel i at t (seq: its link
                                  // sequence number; late: taken after t, at a window edge)
  h.credits(i, vc, units, t, t);  // a credit stream reaches output i's VC (first, every)
  h.control(ev);                  // a link-control message reaches input ev.a
  h.send_remote(ev, i);           // staged for the ring to worker i
  h.recovery_ack(i, uint64_t{0}, t);  // two-hop recovery: output i's copy of a packet goes at t
};

// A stream of `units` credits for VC v of output (or endpoint) a, the first
// at `first`, then one every `every` ps; an event of `kind` (the run's
// number for LinkEvent::credit).
inline Event credit_event(EventKind kind, uint32_t a, uint16_t port, uint32_t v, uint32_t units,
                          ps_t first, ps_t every) {
  Event ev = event_at(first, kind, a);
  ev.unit_ps = every;
  ev.port = port;
  ev.vc = static_cast<uint8_t>(v);
  ev.amount = static_cast<uint16_t>(units);
  return ev;
}

// What a channel carries: a packet (its head reaches the far end at `head`
// on VC vc; seq: its link sequence number under link-level retry, else 0),
// a stream of credits back to the sender (`units` of VC vc, the first
// reaching it at `first`, then one every `every`), a link-control message
// to the far input (an event: send_control), and two-hop recovery's acks
// back to the sender.
struct LinkPacket {
  rte_mbuf* m;
  ps_t head;
  uint8_t vc;
  LinkSeq seq;
};
struct CreditStream {
  uint32_t vc;
  uint32_t units;
  ps_t first, every;
};
// Two-hop recovery (recovery_memory.h): the ack of packet `id`, back to the
// sender at `arrive`, lets its copy go at `release` (an ack2: later).
struct RecoveryAck {
  uint64_t id;
  ps_t arrive, release;
};

// The far end on this core. far: from a sender, the far input's channel of
// VC 0; from a receiver, the sender's output.
struct LocalChannel {
  uint32_t far = 0;

  static LocalChannel of(const OutLink& ol) { return {ol.peer_channel0}; }
  static LocalChannel of(const InLink& in) { return {in.up_output}; }

  template <class H>
  void carry(H& h, const LinkPacket& p) const {
    h.arrive(far + p.vc, p.m, p.head, p.seq, false);
  }
  template <class H>
  void carry(H& h, const CreditStream& c) const {
    h.credits(far, c.vc, c.units, c.first, c.every);
  }
  template <class H>
  void carry(H& h, const Event& control) const {
    h.control(control);
  }
  template <class H>
  void carry(H& h, const RecoveryAck& a) const {
    h.recovery_ack(far, a.id, a.release);
  }
};

// The far end on another core: `far` as LocalChannel's, on `worker`.
struct RingChannel {
  uint32_t far = 0;
  uint16_t worker = 0;

  static RingChannel of(const OutLink& ol) { return {ol.peer_channel0, ol.peer_worker}; }
  static RingChannel of(const InLink& in) { return {in.up_output, in.up_worker}; }

  // ---- the sending half: an event for the ring --------------------------
  template <class H>
  void carry(H& h, const LinkPacket& p) const {
    Event ev = event_at(p.head, H::kind(LinkEvent::remote_arrive), far + p.vc);
    ev.m = p.m;
    ev.vc = p.vc;
    ev.amount = p.seq;
    // When it was sent, as its time on the way plus one (0: not known), for
    // the far buffer's occupancy (router/input_queued.h).
    const ps_t on_way = p.head - h.now();
    ev.seq = on_way < UINT32_MAX ? static_cast<uint32_t>(on_way + 1) : 0;
    h.send_remote(ev, worker);
  }
  template <class H>
  void carry(H& h, const CreditStream& c) const {
    h.send_remote(credit_event(H::kind(LinkEvent::credit), far, 0, c.vc, c.units, c.first, c.every),
                  worker);
  }
  template <class H>
  void carry(H& h, const Event& control) const {
    h.send_remote(control, worker);
  }
  template <class H>
  void carry(H& h, const RecoveryAck& a) const {
    Event ev = event_at(a.arrive, H::kind(LinkEvent::recovery_ack), far);
    ev.unit_ps = a.id;
    const ps_t later = a.release - a.arrive;  // (a few links' time: far below 2^32 ps)
    ev.port = static_cast<uint16_t>(later >> 16);
    ev.amount = static_cast<uint16_t>(later);
    h.send_remote(ev, worker);
  }

  // ---- the receiving half: an event taken from the ring -----------------
  // (KernelWorker::take_inbox, in the order its sender sent them; a packet
  // arrives late, its head time already past). False: not a channel's.
  template <class H>
  static bool receive(H& h, const Event& ev) {
    switch (ev.kind) {
      case H::kind(LinkEvent::remote_arrive):
        if (ev.seq) h.granted_upstream(ev.a, ev.t - (ev.seq - 1));
        h.arrive(ev.a, ev.m, ev.t, static_cast<LinkSeq>(ev.amount), true);
        return true;
      case H::kind(LinkEvent::credit):
        h.credits(ev.a, ev.vc, ev.amount, ev.t, ev.unit_ps);
        return true;
      case H::kind(LinkEvent::control):
        h.control(ev);
        return true;
      case H::kind(LinkEvent::recovery_ack):
        h.recovery_ack(ev.a, ev.unit_ps, ev.t + ((ps_t(ev.port) << 16) | ev.amount));
        return true;
      default:
        return false;
    }
  }
};

// What every kind of channel is (H: a LinkChannelHost).
template <class C, class H>
concept LinkChannel = requires(const C& c, H& h, const OutLink& ol, const InLink& in,
                               const LinkPacket& p, const CreditStream& s, const Event& ev) {
  { C::of(ol) } -> std::same_as<C>;  // the channel output link ol sends by
  { C::of(in) } -> std::same_as<C>;  // the one input link in returns credits by
  c.carry(h, p);
  c.carry(h, s);
  c.carry(h, ev);
  c.carry(h, RecoveryAck{});
};

// The registration point: `what` (a LinkPacket or a link-control message
// from an OutLink, a CreditStream from an InLink) by the channel `link`
// ends in. (Most links end on their own core, however many workers: the
// same-core path is the one laid out straight.)
template <class H, class Link, class What>
__attribute__((always_inline)) inline void carry(H& h, const Link& link, const What& what) {
  switch (link.channel) {
    case ChannelKind::local: [[likely]]
      return LocalChannel::of(link).carry(h, what);
    case ChannelKind::ring:
      return RingChannel::of(link).carry(h, what);
  }
  __builtin_unreachable();  // (a kind is one of the above)
}

// What output link ol tells its far input at `now` (nv: VCs a link), in
// order with its packets: op, with the VC, sequence number or unit time it
// is about (LinkControl); it reaches the far end a wire later.
template <class H>
void send_control(H& h, const OutLink& ol, uint32_t nv, ps_t now, LinkControl op, uint8_t vc,
                  uint16_t seq, ps_t unit) {
  Event ev = event_at(now + ol.wire_ps, H::kind(LinkEvent::control), ol.peer_channel0 / nv);
  ev.unit_ps = unit;
  ev.port = static_cast<uint16_t>(op);
  ev.vc = vc;
  ev.amount = seq;
  carry(h, ol, ev);
}

}  // namespace fabemu
