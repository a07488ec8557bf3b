// The SGI Spider router (router.model spider; Galles, "Spider: A High-Speed
// Network Interconnect", IEEE Micro 1997): a receive buffer per (input port,
// VC) that keeps a list of messages per output port (spider_lists.h), and a
// central crossbar arbiter that each arbitration cycle picks up to one winner
// per input and per output among every (input, VC, output) list head, oldest
// first (arbiter/age.h): up to six winners among up to 120 candidates on the
// 6-port, 4-VC chip.
//
// A message is routed as it arrives (the chip's table lookup is pipelined
// one hop ahead, so its exit port is known on arrival; here the engine's
// routing gives it, RouterHost::route_head) into the list of its output, and
// may cross when it is through the pipeline (the profile's router latency),
// its output link is free, its input is not sending another message, and the
// output's VC has credits for all of it (virtual cut-through, as fabemu's
// other models). It then streams out of the buffer onto the link, holding its
// input's crossbar connection until its tail is read out.
//
// The arbiter runs at most once per arbitration cycle (router.arbitration_ns,
// the 100 MHz core clock's 10 ns): when contention leaves candidates behind,
// it looks again a cycle later. An idle arbiter looks the moment a message is
// ready ("when there is no output port contention, the arbiter falls into a
// bypass mode ... for minimal arbitration time"), so a lone message takes
// exactly the router latency, as in the input-queued router.
//
// Age (spider_header.h): a message's header age grows by one every
// router.age_period_ns it waits in a chip, from its arrival to its crossing,
// up to 239; ages 240..255 (high priority, set at the source) never change.
// The arbiter compares the ages of the moment; the grant writes the new age
// into the header the next chip reads.
//
// Time-outs ("Error handling"; off at 0): the deadlock time-out
// (router.deadlock_timeout_ns: a VC buffer full, no message leaving it for
// that long: the chip resets it, its messages are discarded, counted
// deadlock_timeout, and their credits go back) and the tail time-out
// (router.tail_timeout_ns: a message cut off mid-way by its link dying waits
// that long for data, then the chip ends it: spider_timeouts.h).
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/link.h"
#include "dataplane/router/arbiter/age.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/router_event.h"
#include "dataplane/router/spider_lists.h"
#include "dataplane/routing/spider_header.h"
#include "dataplane/sim/event.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

class SpiderRouter : public InputQueuedBuffers, public InputQueuedOps<SpiderRouter> {
 public:
  // What a RouterEvent::model_own event is about (Event::port).
  enum SpiderEvent : uint16_t {
    kArbitrate,      // a router's arbiter looks at its candidates (a = local router)
    kDeadlockCheck,  // a full VC buffer's deadlock timer expires (a = channel)
    kTailTimeout,    // a cut-off message's tail timer expires (a = channel)
  };
  // The model's counters, whole run (add_counters).
  struct Counters {
    uint64_t arbitrations = 0, candidates = 0, winners = 0;
    uint64_t deadlock_resets = 0;
  };
  static constexpr uint32_t kMaxPorts = 15;  // a 4-bit direction: 15 exit ports

  void init(const RouterShape& s) {
    RouterShape b = s;
    b.config.input_speedup = 1;  // one crossbar connection per input
    b.config.output_speedup = 1;
    InputQueuedBuffers::init(b);
    lists_.init(channels(), max_ports(), s.qcap);
    const RouterConfig::Spider& sc = s.config.spider;
    cycle_ = sc.arbitration_ps;
    age_period_ = sc.age_period_ps;
    deadlock_ = sc.deadlock_timeout_ps;
    tail_ = sc.tail_timeout_ps;
    // Full: no room for the longest message. The chip's VC is full when its
    // sender has no credit left, micropacket by micropacket; here a message
    // crosses whole, so a sender whose next message is longer than the room
    // left waits as on a full buffer (with Spider's 16-micropacket messages
    // and buffers, a buffer holding anything).
    const uint32_t longest = std::min(std::max(sc.longest_units, s.min_units), sc.buffer_units);
    full_at_ = sc.buffer_units + 1 - longest;
    rb_ = request_bit_count();
    nbits_ = std::min(max_ports() * rb_,
                      AgeArbiter::kMaxCandidates);  // the spec checked AgeArbiter::slots
    in_of_.assign(AgeArbiter::kMaxCandidates, 0);
    out_of_.assign(AgeArbiter::kMaxCandidates, 0);
    for (uint32_t k = 0; k < nbits_; k++) {
      out_of_[k] = static_cast<uint8_t>(k / rb_);
      in_of_[k] = static_cast<uint8_t>(requester_port(k % rb_));
    }
    arb_wake_.assign(s.routers, kNever);
    next_arb_.assign(s.routers, 0);
    out_ptr_.assign(size_t(s.routers) * max_ports(), 0);
    first_.assign(s.routers, 0);
    credit_short_.assign(size_t(s.routers) * max_ports(), 0);
    progress_.assign(channels(), 0);
    dl_armed_.assign(channels(), 0);
    n_ = Counters{};
  }
  static size_t state_bytes(uint32_t routers, uint32_t ports, uint32_t nv, uint32_t qcap) {
    const size_t channels = size_t(routers) * ports * nv;
    return SpiderLists::bytes(channels, ports, qcap) + channels * (sizeof(ps_t) + 1) +
           size_t(routers) * (2 * sizeof(ps_t) + 1 + ports * (sizeof(uint16_t) + 1));
  }

  // ---- the buffers as the engine sees them (InputQueuedBuffers' names) ---------
  uint32_t len(uint32_t c) const { return lists_.len(c); }
  uint32_t occupancy(uint32_t c) const { return lists_.occupancy(c); }
  uint32_t peak(uint32_t c) const { return lists_.peak(c); }
  uint64_t units_in(uint32_t c) const { return lists_.units_in(c); }
  uint64_t units_out(uint32_t c) const { return lists_.units_out(c); }
  QEntry& head(uint32_t c) { return lists_.head(c); }
  const QEntry& at(uint32_t c, uint32_t i) const { return lists_.at(c, i); }
  QEntry& back(uint32_t c) { return lists_.slot(c, lists_.last(c)).e; }
  // Link-level retry (link/link_retry.h) excises a damaged copy, the last
  // message to have entered channel c, as if it had not come: out of its
  // output's list, its routed units withdrawn. Messages leave out of
  // arrival order here, so the last may be anywhere in its output's list.
  template <class H>
  rte_mbuf* remove_last(H& h, uint32_t c) {
    if (len(c) == 0) return nullptr;
    const uint16_t s = lists_.last(c);
    const QEntry e = lists_.slot(c, s).e;
    if (e.routed) h.unroute_units(output(router_of_channel(c), e.out_port), e.out_vc, e.units);
    take(c, s);
    lists_.uncount_in(c, e.units);
    return e.m;
  }
  // The message grant() is sending from channel c, if it is the last to
  // have entered (only that one can be a damaged copy).
  QEntry* sending_last(uint32_t c) {
    return sending_ != SpiderLists::kNil && sending_ == lists_.last(c) ? &lists_.slot(c, sending_).e
                                                                       : nullptr;
  }
  void pass_through(uint32_t c, uint32_t units) { lists_.pass_through(c, units); }
  // A message lost from channel c's buffer; as far as credits go it left.
  template <class H>
  QEntry lose(H& h, uint32_t c, uint16_t s) {
    const QEntry e = lists_.slot(c, s).e;
    if (e.routed) h.unroute_units(output(router_of_channel(c), e.out_port), e.out_vc, e.units);
    take(c, s);
    lists_.count_out(c, e.units);
    return e;
  }
  SpiderLists& lists() { return lists_; }
  const Counters& counters() const { return n_; }

  // ---- the router-model operations (router_model.h) ------------------------------
  template <class H>
  FABEMU_ALWAYS_INLINE void arrive(H& h, uint32_t c, const QEntry& e, bool /*late*/) {
    // (A message entered late from another core waits for nothing of the
    // one before it but its input's crossbar connection: input_free_at.)
    const uint16_t s = lists_.add(c, e, SpiderHeader::age(*meta(e.m)));
    if (deadlock_ && lists_.occupancy(c) >= full_at_) [[unlikely]]
      note_full(h, c);
    if (lists_.unrouted(c) == s) h.route_head(c, 0);
  }
  // The first unrouted message of channel at.channel has its output: into
  // that output's list, a candidate when through the pipeline; the next
  // unrouted one (if any) is routed in turn.
  template <class H>
  FABEMU_ALWAYS_INLINE void head_routed(H& h, const RoutedHead& at, QEntry& e,
                                        const RouteCandidates& /*rc*/, ps_t ready,
                                        ps_t not_before) {
    const uint32_t o = output(at.router, e.out_port);
    h.route_units(o, e.out_vc, e.units);
    e.ready = std::max(ready, not_before);
    if (lists_.file_routed(at.channel)) request(o, requester(at.port, at.vc));
    // (It can cross no sooner than its output's link is free.)
    arm(h, at.router, std::max(e.ready, h.out(o).free_ps));
    if (lists_.unrouted(at.channel) != SpiderLists::kNil) h.route_head(at.channel, 0);
  }
  template <class H>
  FABEMU_ALWAYS_INLINE void arm_output(H& h, uint32_t o, ps_t t) {
    arm(h, router_of_output(o), t);
  }
  template <class H>
  void on_event(H& h, const Event& ev) {
    if (ev.kind != H::kind(RouterEvent::model_own)) {  // (another kind's wake-up: look now)
      arm(h, router_of_output(ev.a), ev.t);
      return;
    }
    switch (ev.port) {
      case kArbitrate:
        if (arb_wake_[ev.a] != ev.t) return;  // superseded by an earlier look
        arb_wake_[ev.a] = kNever;
        look(h, ev.a);
        break;
      case kDeadlockCheck:
        deadlock_check(h, ev.a);
        break;
      case kTailTimeout:
        tail_timeout(h, ev.a);
        break;
    }
  }
  // Output o's list of channel c loses its head without crossing: the
  // removal itself (take) withdraws the requester when the list empties.
  void withdraw_head(uint32_t /*o*/, uint32_t /*c*/) {}
  // What requester i of output o offers: the head of channel c's list for o.
  QEntry& offered(uint32_t o, uint32_t /*i*/, uint32_t c) {
    return lists_.slot(c, lists_.list_head(c, port_of_output(o))).e;
  }
  // Credits for output o's VC v came back: its arbiter looks again if a
  // candidate was short of them there.
  template <class H>
  FABEMU_ALWAYS_INLINE void credits_back(H& h, uint32_t o, uint32_t v,
                                         const CreditCounter& /*cc*/) {
    uint8_t& shortv = credit_short_[o];
    if (!((shortv >> v) & 1)) return;
    shortv = static_cast<uint8_t>(shortv & ~(1u << v));
    arm(h, router_of_output(o), h.now());
  }
  template <class H>
  void output_dead(H& h, uint32_t o) {
    if (requests(o)) arm(h, router_of_output(o), h.now());
  }
  template <class H>
  void link_ready(H& h, uint32_t o, ps_t t) {
    if (requests(o)) arm(h, router_of_output(o), t);
  }
  // The lists are the input buffers: the engine's loss of each channel
  // (lose_all, spider_timeouts.h) empties them; nothing else is inside.
  template <class H, class Lost>
  void flush_inside(H& /*h*/, uint32_t /*lr*/, Lost&& /*lost*/) {}
  template <class H, class Lost>
  void flush_output(H& /*h*/, uint32_t /*o*/, uint32_t /*v*/, Lost&& /*lost*/) {}
  template <class F>
  void for_each_packet(F&& f) {
    for (uint32_t c = 0; c < channels(); c++)
      for (uint16_t s = lists_.first(c); s != SpiderLists::kNil; s = lists_.slot(c, s).next)
        f(lists_.slot(c, s).e.m);
  }
  template <class Stats>
  void add_counters(Stats& st) const {
    st.spider_arbitrations += n_.arbitrations;
    st.spider_candidates += n_.candidates;
    st.spider_winners += n_.winners;
    st.deadlock_resets += n_.deadlock_resets;
  }

  // ---- the arbiter ---------------------------------------------------------------
  // The age message slot s of channel c has by now.
  uint8_t age_now(const SpiderLists::Slot& s, ps_t now) const {
    const uint8_t a = s.age;
    if (a >= kSpiderAgeCap || age_period_ == 0) return a;
    const uint64_t steps = now > s.e.arrive ? (now - s.e.arrive) / age_period_ : 0;
    return steps >= uint64_t(kSpiderAgeCap - a) ? kSpiderAgeCap : static_cast<uint8_t>(a + steps);
  }
  // Local router lr's arbiter looks at t, or as soon after as its cycle allows.
  template <class H>
  FABEMU_ALWAYS_INLINE void arm(H& h, uint32_t lr, ps_t t) {
    t = std::max({t, next_arb_[lr], h.now()});
    if (t >= arb_wake_[lr]) return;
    arb_wake_[lr] = t;
    Event ev = event_at(t, H::kind(RouterEvent::model_own), lr);
    ev.port = kArbitrate;
    h.schedule(ev);
  }

 private:
  // One arbitration of local router lr: the candidates that could cross now,
  // each the head of an (input, VC, output) list; the age arbiter's winners
  // cross; the arbiter looks again a cycle later while some lost, or when
  // the first of the others could cross.
  template <class H>
  void look(H& h, uint32_t lr) {
    const ps_t now = h.now();
    next_arb_[lr] = now + cycle_;
    const uint32_t ports = max_ports(), o0 = output(lr, 0);
    uint64_t req[AgeArbiter::kWords] = {};
    uint8_t age[AgeArbiter::kMaxCandidates];
    ps_t wake = kNever;
    uint32_t eligible = 0;
    uint32_t in_busy = 0;
    for (uint32_t p = 0; p < ports; p++)
      if (input_free_at(o0 + p) > now) in_busy |= 1u << p;
    for (uint32_t q = 0; q < ports; q++) {
      const uint32_t o = o0 + q;
      if (requests(o) == 0) continue;
      OutLink& ol = h.out(o);
      if (ol.free_ps > now) {
        wake = std::min(wake, ol.free_ps);
        continue;
      }
      if (ps_t until; h.retry_window_full(o, &until)) [[unlikely]] {
        wake = std::min(wake, until);
        continue;
      }
      const bool discard = h.discards(o);
      const SenderVc* cr = h.vcs(o);
      const uint64_t* bits = request_bits(o);
      for (uint32_t w = 0; w * 64 < rb_; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) {
          const uint32_t i = w * 64 + static_cast<uint32_t>(__builtin_ctzll(b));
          const uint32_t p = requester_port(i);
          if ((in_busy >> p) & 1) {
            wake = std::min(wake, input_free_at(o0 + p));
            continue;
          }
          const uint32_t c = channel_of_output(o0 + p, requester_vc(i));
          SpiderLists::Slot& s = lists_.slot(c, lists_.list_head(c, q));
          QEntry& e = s.e;
          if (s.cut) [[unlikely]]
            continue;  // waits for its tail time-out
          if (e.ready > now) {
            wake = std::min(wake, e.ready);
            continue;
          }
          if (!discard && !cr[e.out_vc].credits.available(e.units, now, &wake)) {
            credit_short_[o] = static_cast<uint8_t>(credit_short_[o] | 1u << e.out_vc);
            if (!e.stalled) {  // ready, link free, credits short: once per message and hop
              e.stalled = 1;
              ol.credit_stalls++;
            }
            continue;
          }
          const uint32_t k = q * rb_ + i;
          req[k >> 6] |= uint64_t{1} << (k & 63);
          age[k] = age_now(s, now);
          eligible++;
        }
    }
    n_.arbitrations++;
    n_.candidates += eligible;
    if (eligible) {
      uint16_t won[AgeArbiter::kMaxPorts];
      const uint32_t n = AgeArbiter::pick(req, nbits_, in_of_.data(), out_of_.data(), age,
                                          &out_ptr_[size_t(lr) * ports], &first_[lr], ports, won);
      for (uint32_t k = 0; k < n; k++) {
        const uint32_t q = out_of_[won[k]], i = won[k] - q * rb_;
        grant(h, lr, q, requester_port(i), requester_vc(i));
        // What waits for this output now (the winner's list behind it, and
        // the others) may go when its link frees.
        if (requests(o0 + q)) wake = std::min(wake, std::max(now, h.out(o0 + q).free_ps));
      }
      n_.winners += n;
      if (eligible > n) wake = now;  // the losers try again next cycle
    }
    if (wake != kNever) arm(h, lr, wake);
  }

  // The head of (input p, VC v)'s list for output q crosses: onto the link,
  // its credits streaming back as it is read out, its new age in its header.
  template <class H>
  FABEMU_ALWAYS_INLINE void grant(H& h, uint32_t lr, uint32_t q, uint32_t p, uint32_t v) {
    const uint32_t o = output(lr, q), in = output(lr, p), c = channel_of_output(in, v);
    bool withhold = false;  // link-level retry: a damaged copy moves on owed no credits
    const uint16_t s = lists_.list_head(c, q);
    sending_ = s;
    const bool excised = h.damaged_head(c, &withhold);
    sending_ = SpiderLists::kNil;
    if (excised) [[unlikely]]
      return;  // nothing crosses
    const ps_t now = h.now();
    const uint8_t age = age_now(lists_.slot(c, s), now);
    const QEntry e = lists_.slot(c, s).e;
    take(c, s);
    if (!withhold) [[likely]]
      lists_.count_out(c, e.units);
    else
      lists_.uncount_in(c, e.units);
    SpiderHeader::set_age(*meta(e.m), age);
    OutLink& ol = h.out(o);
    const ps_t unit = ol.unit_ps, dur = e.units * unit;
    const bool dead = h.discards(o);
    if (!dead) [[likely]]
      h.take_link(o, e.units, e.out_vc);
    occupy_input(in, now + dur);
    if (!withhold) [[likely]]
      h.return_credits(c, e.units, now + unit + h.in(in).up_wire_ps, unit);
    progress_[c] = now;
    if (dead) [[unlikely]]
      h.discard_at_output(o, e.m, e.units, e.out_vc);
    else
      h.deliver(lr, o, e.m, e.units, e.out_vc);
  }

  // Slot s leaves channel c's buffer; its output loses a requester when
  // its list empties.
  void take(uint32_t c, uint16_t s) {
    const QEntry& e = lists_.slot(c, s).e;
    const bool routed = e.routed;
    const uint32_t o = output(router_of_channel(c), e.out_port);
    if (lists_.remove(c, s) && routed) withdraw(o, requester(port_of_channel(c), vc_of_channel(c)));
  }

  // ---- the time-outs (spider_timeouts.h) -----------------------------------------
  template <class H>
  void note_full(H& h, uint32_t c);
  template <class H>
  void deadlock_check(H& h, uint32_t c);
  template <class H>
  void tail_timeout(H& h, uint32_t c);

 public:
  // Input i's link died: what had not wholly arrived is lost, or (tail
  // time-out on) a message whose head had arrived waits for its tail.
  template <class H>
  void lose_arriving(H& h, uint32_t i);

 private:
  SpiderLists lists_;
  uint16_t sending_ = SpiderLists::kNil;  // the slot grant() is sending (sending_last)
  ps_t cycle_ = 0, age_period_ = 0, deadlock_ = 0, tail_ = 0;
  uint32_t full_at_ = 1;
  uint32_t rb_ = 1, nbits_ = 0;          // requester bits per output; candidate slots
  std::vector<uint8_t> in_of_, out_of_;  // [candidate]: its input and output port
  std::vector<ps_t> arb_wake_;           // [local router]: its arbiter's pending look
  std::vector<ps_t> next_arb_;           // [local router]: its next arbitration cycle
  std::vector<uint16_t> out_ptr_;        // [local router, output port]: its arbiter's rotation
  std::vector<uint8_t> first_;           // [local router]: the output its arbiter asks first
  std::vector<uint8_t> credit_short_;    // [output]: VCs a candidate found short of credits
  std::vector<ps_t> progress_;           // [channel]: a message last left it (or it filled)
  std::vector<uint8_t> dl_armed_;        // [channel]: its deadlock timer runs
  Counters n_;
};

}  // namespace fabemu

#include "dataplane/router/spider_timeouts.h"
