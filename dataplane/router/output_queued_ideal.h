// The ideal output-queued router (router.model output_queued_ideal): a
// packet crosses the switch the moment it is routed and through the
// pipeline, whatever else crosses then (a switch with full speedup, no
// arbitration: Dally & Towles, "Principles and Practices of Interconnection
// Networks", 17.1, the output-queued switch input queueing is measured
// against; Karol, Hluchyj & Morgan, IEEE Trans. Commun. 1987), and queues at
// its output, one FIFO per output VC. The output link takes the heads of its
// VC queues round robin when the downstream buffer has credits for a whole
// packet (virtual cut-through). No head-of-line blocking: the packet behind
// a head is routed as soon as the head has crossed.
//
// Flow control upstream stays per (input port, VC): a packet holds its input
// buffer's credits until it leaves the router, so the router holds no more
// packets than its input buffers can (as a shared-memory switch accounts its
// memory per input), and its credits stream back as it leaves on the output
// link, after those of the packet of that input buffer that left before it
// (a credit counter's streams never overlap, link/credit_counter.h: the
// packets the engine discards at a fault keep to the same horizon through
// input_free_at and occupy_input).
//
// Built on the input buffers (input_queued.h) for arrival, routing at the
// head and credit accounting; its own operations are the crossing and the
// link. (Its outputs' forward-progress timers see no requesters: packets
// wait in the output queues, not at the inputs.)
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/router/input_queued.h"
#include "dataplane/router/router_event.h"

namespace fabemu {

class IdealOutputQueuedRouter : public InputQueuedBuffers,
                                public InputQueuedOps<IdealOutputQueuedRouter> {
 public:
  using InputQueuedBuffers::init;
  void init(const RouterShape& s) {
    RouterShape buffers = s;
    buffers.config.output_speedup = 1;  // the output queues are this model's own
    InputQueuedBuffers::init(buffers);
    const size_t nout = size_t(s.routers) * s.max_ports;
    queues_.assign(nout * s.nv, Fifo{});
    nonempty_.assign(nout, 0);
    rr_.assign(nout, 0);
    link_wake_.assign(nout, kNever);
    read_out_.assign(nout * s.nv, 0);
    // Never more packets than the input buffers hold (above): reserved now,
    // the queues never allocate while running (pages touched only as used).
    pool_.clear();
    pool_.reserve(size_t(nout) * s.nv * s.qcap);
    free_ = kNil;
  }

  // ---- the router-model operations (router_model.h) ---------------------------
  template <class H>
  void head_routed(H& h, const RoutedHead& at, QEntry& e, const RouteCandidates& /*rc*/,
                   ps_t ready, ps_t not_before) {
    const uint32_t o = output(at.router, e.out_port);
    h.route_units(o, e.out_vc, e.units);
    e.ready = std::max(ready, not_before);
    request(o, requester(at.port, at.vc));
    arm_output(h, o, e.ready);
  }
  template <class H>
  void on_event(H& h, const Event& ev) {
    if (ev.kind == H::kind(RouterEvent::link_wake)) {
      if (link_wake_[ev.a] == ev.t) link_wake_[ev.a] = kNever;
      try_link(h, ev.a);
      return;
    }
    if (wake(ev.a) == ev.t) wake(ev.a) = kNever;
    cross(h, ev.a);
  }
  template <class H>
  void arm_link(H& h, uint32_t o, ps_t t) {
    if (t >= link_wake_[o]) return;
    link_wake_[o] = t;
    h.schedule(event_at(t, H::kind(RouterEvent::link_wake), o));
  }
  template <class H>
  void credits_back(H& h, uint32_t o, uint32_t v, const CreditCounter& cc) {
    if (!((nonempty_[o] >> v) & 1)) return;
    ps_t at = kNever;
    if (cc.available(pool_[queue(o, v).head].units, h.now(), &at)) at = h.now();
    if (at != kNever) arm_link(h, o, std::max(at, h.out(o).free_ps));
  }
  template <class H>
  void output_dead(H& h, uint32_t o) {
    if (requests(o)) arm_output(h, o, h.now());
    if (nonempty_[o]) arm_link(h, o, h.now());
  }
  template <class H>
  void link_ready(H& h, uint32_t o, ps_t t) {
    if (nonempty_[o]) arm_link(h, o, t);
  }
  // Router lr stopped: its queued packets are lost, and their input
  // buffers' credits go back to the senders, before those of the packets
  // still in the input buffers (which came after them).
  template <class H, class Lost>
  void flush_inside(H& h, uint32_t lr, Lost&& lost) {
    for (uint32_t o = output(lr, 0); o < output(lr, 0) + max_ports(); o++)
      for (uint32_t v = 0; v < nv(); v++)
        while ((nonempty_[o] >> v) & 1) {
          const Entry e = dequeue(o, v);
          if (e.c != kNil) release_input(h, e, h.in(e.c / nv()).unit_ps);
          lost(e.m, o, static_cast<uint8_t>(v), e.units);
        }
  }
  template <class H, class Lost>
  void flush_output(H& /*h*/, uint32_t /*o*/, uint32_t /*v*/, Lost&& /*lost*/) {}
  // The engine reads a discarded packet out of input port `in` no earlier
  // than this, and says until when it does: one horizon per input buffer.
  ps_t input_free_at(uint32_t in) const {
    ps_t t = 0;
    for (uint32_t v = 0; v < nv(); v++) t = std::max(t, read_out_[size_t(in) * nv() + v]);
    return t;
  }
  void occupy_input(uint32_t in, ps_t until) {
    for (uint32_t v = 0; v < nv(); v++) {
      ps_t& r = read_out_[size_t(in) * nv() + v];
      r = std::max(r, until);
    }
  }
  template <class F>
  void for_each_packet(F&& f) {
    InputQueuedOps<IdealOutputQueuedRouter>::for_each_packet(f);
    for (const Fifo& q : queues_)
      for (uint32_t n = q.head, i = 0; i < q.len; i++, n = pool_[n].next) f(pool_[n].m);
  }

 private:
  static constexpr uint32_t kNil = ~0u;
  struct Entry {
    rte_mbuf* m;
    uint32_t c;     // the input channel whose credits it holds
    uint32_t next;  // the next entry of its queue, or of the free list
    uint16_t units;
    uint8_t stalled;  // counted as a credit stall at this hop already
  };
  struct Fifo {
    uint32_t head = kNil, tail = kNil, len = 0;
  };
  Fifo& queue(uint32_t o, uint32_t v) { return queues_[size_t(o) * nv() + v]; }

  // Output o: every requester through the pipeline crosses into its VC's
  // queue now (round robin order among those that cross together); the
  // others are looked at again when the first is through.
  template <class H>
  void cross(H& h, uint32_t o) {
    const ps_t now = h.now();
    const uint32_t ch0 = (o - o % max_ports()) * nv();
    ps_t later = kNever;
    for (;;) {
      uint32_t won_c = 0;
      const int32_t won = arbitrate(o, [&](uint32_t i) FABEMU_ALWAYS_INLINE {
        const uint32_t c = ch0 + requester_port(i) * nv() + requester_vc(i);
        const ps_t ready = head(c).ready;
        if (ready > now) {
          later = std::min(later, ready);
          return false;
        }
        won_c = c;
        return true;
      });
      if (won < 0) break;
      bool withhold = false;  // link-level retry: a damaged copy moves on owed no credits
      if (h.damaged_head(won_c, &withhold)) continue;  // excised (and withdrawn): nothing crosses
      withdraw(o, static_cast<uint32_t>(won));
      const QEntry e = pop(won_c);
      if (withhold) forget(won_c, e.units);
      enqueue(o, e.out_vc, Entry{e.m, withhold ? kNil : won_c, kNil, e.units, 0});
      if (len(won_c))
        h.route_head(won_c, 0);
      else
        remember_departure(won_c, now, now);
    }
    if (later != kNever) arm_output(h, o, later);
    try_link(h, o);
  }

  // Output o's link takes the head of one of its VC queues (round robin)
  // whose packet the downstream buffer has credits for (or that is
  // discarded: its link is dead or its progress timer expired).
  template <class H>
  void try_link(H& h, uint32_t o) {
    const uint32_t ne = nonempty_[o];
    if (ne == 0) return;
    OutLink& ol = h.out(o);
    const ps_t now = h.now();
    if (ol.free_ps > now) {
      arm_link(h, o, ol.free_ps);
      return;
    }
    if (ps_t until; h.retry_window_full(o, &until)) [[unlikely]] {
      if (until != kNever) arm_link(h, o, until);
      return;
    }
    const uint32_t nv = this->nv();
    const SenderVc* cr = h.vcs(o);
    const bool discard = h.discards(o);
    ps_t wake = kNever;
    for (uint32_t k = 0, v = rr_[o]; k < nv; k++, v = v + 1 == nv ? 0 : v + 1) {
      if (!((ne >> v) & 1)) continue;
      Entry& hd = pool_[queue(o, v).head];
      if (discard || cr[v].credits.available(hd.units, now, &wake)) {
        rr_[o] = static_cast<uint8_t>(v + 1 == nv ? 0 : v + 1);
        const Entry e = dequeue(o, v);
        if (discard) [[unlikely]] {
          if (e.c != kNil) release_input(h, e, h.in(e.c / nv).unit_ps);
          h.discard_at_output(o, e.m, e.units, static_cast<uint8_t>(v));
        } else {
          h.take_link(o, e.units, static_cast<uint8_t>(v));
          release_input(h, e, ol.unit_ps);
          h.deliver(o / max_ports(), o, e.m, e.units, static_cast<uint8_t>(v));
        }
        if (nonempty_[o]) arm_link(h, o, std::max(now, ol.free_ps));
        return;
      }
      if (!hd.stalled) {  // at the head, link free, credits short: once per packet and hop
        hd.stalled = 1;
        ol.credit_stalls++;
      }
    }
    if (wake != kNever) arm_link(h, o, wake);
  }

  // The packet leaves the router one unit per `unit`: its input buffer's
  // credits stream back to the sender, after those of the packet from the
  // same buffer that left before it. (A damaged copy is owed none.)
  template <class H>
  void release_input(H& h, const Entry& e, ps_t unit) {
    if (e.c == kNil) return;
    ps_t& free = read_out_[e.c];
    const ps_t start = std::max(h.now(), free);
    free = start + e.units * unit;
    h.return_credits(e.c, e.units, start + unit + h.in(e.c / nv()).up_wire_ps, unit);
  }

  void enqueue(uint32_t o, uint32_t v, const Entry& e) {
    uint32_t n = free_;
    if (n == kNil) {  // up to the most packets ever queued (reserved), then reuses
      n = static_cast<uint32_t>(pool_.size());
      pool_.push_back(e);
    } else {
      free_ = pool_[n].next;
      pool_[n] = e;
    }
    Fifo& q = queue(o, v);
    if (q.len++ == 0)
      q.head = n;
    else
      pool_[q.tail].next = n;
    q.tail = n;
    nonempty_[o] |= 1u << v;
  }
  Entry dequeue(uint32_t o, uint32_t v) {
    Fifo& q = queue(o, v);
    const uint32_t n = q.head;
    const Entry e = pool_[n];
    q.head = e.next;
    pool_[n].next = free_;
    free_ = n;
    if (--q.len == 0) nonempty_[o] &= ~(1u << v);
    return e;
  }

  std::vector<Fifo> queues_;        // [output * nv + vc]
  std::vector<uint32_t> nonempty_;  // [output]: VCs whose queue holds a packet, a bit each
  std::vector<uint8_t> rr_;         // [output]: the VC the link looks at first
  std::vector<ps_t> link_wake_;     // [output]: its link's pending wake-up
  std::vector<ps_t> read_out_;      // [input channel]: its buffer's last read-out ends
  std::vector<Entry> pool_;
  uint32_t free_ = kNil;
};

}  // namespace fabemu
