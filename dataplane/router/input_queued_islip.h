// The input-queued router with a cycle-synchronous separable allocator, as
// BookSim2's `iq` router has it (router.switch_allocator: islip): time is
// cut into cycles of one longest packet on a router link, and at each
// cycle boundary a router allocates in two stages from the state at the
// cycle's start.
//   VC allocation: each free output VC grants one ready head that routed
//   to it (round robin over the requesters) and each head granted accepts
//   one grant (round robin over the router's output VCs from its own
//   pointer), as BookSim's iSLIP VC allocator (router.vc_allocator
//   separable_input_first: each head picks one free VC from its pointer,
//   then each VC one of its pickers); the head holds it
//   until it has crossed, so an output VC carries at most one packet every
//   two cycles (allocated in one, crossing in the next, free again in the
//   one after), as BookSim's vc_alloc_delay = sw_alloc_delay = 1 pipeline
//   does with one-flit packets.
//   Switch allocation: heads that hold their output VC (since an earlier
//   cycle), whose output link and input are free and whose downstream
//   buffer has credits for them, request; iSLIP (arbiter/islip.h) over
//   input and output ports matches them (or, with router.switch_allocator
//   separable_input_first, the separable input-first allocator of
//   arbiter/separable.h); winners cross, losers try again next cycle.
//   router.wait_for_tail_credit: an output VC is given again only once
//   every credit of the packet (or worm) that had it is back, as BookSim2's
//   wait_for_tail_credit = 1: its last flit has left the next router's
//   buffer. Until then, with no credit due, the router looks again each
//   cycle (a credit stream not yet written wakes no one).
//   Pipeline delays (router.routing_cycles, vc_alloc_cycles,
//   sw_alloc_cycles, crossbar_cycles), as BookSim2's routing_delay,
//   vc_alloc_delay, sw_alloc_delay and st_final_delay: a head waits
//   routing_cycles after it reaches the front of its input VC before VC
//   allocation. A VC grant made in cycle T takes the output VC in cycle
//   T + vc_alloc_cycles - 1 (BookSim's VC allocation update): until then the
//   VC still looks free, and a grant another head gets meanwhile is dropped
//   when it falls due; a switch match made in T crosses in T +
//   sw_alloc_cycles - 1, the switch taking other matches meanwhile. A head
//   that asked and got nothing asks again that many cycles on, as BookSim's
//   stages re-queue it. The crossbar (crossbar_cycles) is BookSim's: one
//   queue per router, whose waiting packets are stamped together only once
//   the batch ahead of them is through, each then c cycles on (so at load a
//   packet may wait for the batch in flight), into a per-output queue that
//   the link takes one packet a cycle from. It delays the packet's way to
//   the far end, not its credits (taken at the switch, as BookSim's).
//   Speedup (router.input_speedup, output_speedup), as BookSim2's: the
//   switch has input_speedup inputs per input port, VC v of port p asking
//   from input p * input_speedup + v % input_speedup, and output_speedup
//   outputs per output port, port p asking for output q's q *
//   output_speedup + p % output_speedup; the matcher runs over those, so
//   VCs of one port cross together and an output takes packets from
//   several ports in one cycle. Those wait in the output's queue for its
//   link, one leaving a cycle, their downstream credits taken at the
//   switch (a delay on the way to the far end, as the crossbar's).
//   Wormhole (router.flow_control wormhole): the packets of a message are
//   the flits of one worm, one cycle each; VC allocation is for its head,
//   which keeps the output VC until the tail has crossed; the flits behind
//   it take that VC without routing, straight to switch allocation, so a
//   worm's flits follow each other a cycle apart where credits allow and
//   flits of worms on other VCs interleave with them on a link, as
//   BookSim2's router moves multi-flit packets. Credits are per flit.
//   router.hold_switch_for_packet (wormhole): a worm's flit that crosses
//   keeps its switch input and output for the next flit waiting behind
//   it, which crosses next cycle without allocation if it has credits
//   (hold_stage), as BookSim2's switch hold.
// The buffers, requests and crossings are the input-queued router's; this
// adds the output VC holders and the allocators' pointers, and runs the
// cycle; choosing this model at compile time keeps the event-driven
// router's path untouched.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/core/packet_meta.h"
#include "dataplane/router/arbiter/islip.h"
#include "dataplane/router/arbiter/separable.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/router_event.h"

namespace fabemu {

class IslipRouter : public InputQueuedBuffers, public InputQueuedOps<IslipRouter> {
 public:
  static constexpr int32_t kFree = -1;
  static constexpr uint32_t kMaxPorts = 64;  // one bit per port in the matcher
  static_assert(kMaxVcs <= 16, "vc_mask_ keeps a bit per VC in 16");
  // Greedy selection decides on the state at the cycle's start, kept lazily
  // (routing/greedy_snapshot.h, GreedySnapshot::kLazyDecisions).
  static constexpr bool kLazySnapshot = true;

  using InputQueuedBuffers::init;
  void init(const RouterShape& s) {
    // Its speedups are its switch's (BookSim's expanded ports), with no
    // output VC queues: the base router's are off.
    RouterShape base = s;
    base.config.input_speedup = base.config.output_speedup = 1;
    InputQueuedBuffers::init(base);
    in_speedup_ = std::max<uint32_t>(1, s.config.input_speedup);
    out_speedup_ = std::max<uint32_t>(1, s.config.output_speedup);
    init_islip(s.routers, s.max_ports, s.nv, s.config.islip_iterations, in_speedup_);
    wormhole_ = s.config.wormhole;
    input_first_ = s.config.separable_input_first;
    vc_input_first_ = s.config.vc_input_first;
    wait_tail_ = s.config.wait_for_tail_credit;
    routing_cycles_ = s.config.routing_cycles;
    va_cycles_ = s.config.vc_alloc_cycles < 1 ? 1 : s.config.vc_alloc_cycles;
    sa_cycles_ = s.config.sw_alloc_cycles < 1 ? 1 : s.config.sw_alloc_cycles;
    // Matches still in the switch allocation stage: at most one per input
    // port and cycle, for sa_cycles_ - 1 cycles.
    sw_cap_ = sa_cycles_ > 1 ? s.max_ports * sa_cycles_ : 0;
    sw_stage_.assign(size_t(s.routers) * sw_cap_, SwitchGrant{});
    sw_staged_.assign(sa_cycles_ > 1 ? s.routers : 0, 0);
    crossbar_ = s.config.crossbar_cycles < 1 ? 1 : s.config.crossbar_cycles;
    // A crossbar of more than a cycle, or an output taking several packets
    // a cycle, queues them for the link.
    queued_ = crossbar_ > 1 || out_speedup_ > 1;
    xbar_.assign(queued_ ? s.routers : 0, CrossbarBatch{});
    emit_next_.assign(queued_ ? size_t(s.routers) * s.max_ports : 0, 0);
    worm_.assign(wormhole_ ? channels() : 0, Worm{});
    accept_ptr_.assign(channels(), 0);
    vc_mask_.assign(channels(), 0);
    hold_ = s.config.hold_switch_for_packet && wormhole_;
    holds_.assign(hold_ ? s.routers : 0, SwitchHolds{});
    hold_vc_.assign(hold_ ? size_t(s.routers) * kMaxPorts : 0, 0);
    hold_out_.assign(hold_ ? size_t(s.routers) * kMaxPorts : 0, 0);
  }

  void init_islip(uint32_t routers, uint32_t max_ports, uint32_t nv, uint32_t iterations,
                  uint32_t input_speedup = 1) {
    iterations_ = iterations < 1 ? 1 : iterations;
    in_speedup_ = input_speedup < 1 ? 1 : input_speedup;
    ptr_.assign(routers, IslipPointers{});
    holder_.assign(size_t(routers) * max_ports * nv, kFree);
    va_ptr_.assign(size_t(routers) * max_ports * nv, 0);
    // Switch input k of a port starts at VC k, as BookSim's _sw_rr_offset.
    vc_ptr_.resize(size_t(routers) * max_ports * in_speedup_);
    for (size_t k = 0; k < vc_ptr_.size(); k++) vc_ptr_[k] = static_cast<uint8_t>(k % in_speedup_);
    ran_at_.assign(routers, kNever);
    active_.assign(size_t(routers) * max_ports / 64 + 2, 0);
  }

  // Requests as the base router keeps them, and a bit per output that has
  // any: a cycle looks only at those (a radix-63 router at low load has one
  // or two), not at every port. The bits are numbered like outputs, so that
  // keeping them takes no division by the router's radix.
  void request(uint32_t o, uint32_t i) {
    InputQueuedBuffers::request(o, i);
    if (requests(o) == 1) active_[o >> 6] |= uint64_t{1} << (o & 63);
  }
  void withdraw(uint32_t o, uint32_t i) {
    InputQueuedBuffers::withdraw(o, i);
    if (requests(o) == 0) active_[o >> 6] &= ~(uint64_t{1} << (o & 63));
  }
  // Ports of local router lr whose output has a requester, a bit each (its
  // max_ports <= 64 outputs span at most two words).
  uint64_t active_outputs(uint32_t lr) const {
    const uint32_t o0 = output(lr, 0), s = o0 & 63;
    const uint64_t* a = &active_[o0 >> 6];
    const uint64_t bits = s ? (a[0] >> s) | (a[1] << (64 - s)) : a[0];
    return max_ports() == 64 ? bits : bits & ((uint64_t{1} << max_ports()) - 1);
  }
  uint32_t iterations() const { return iterations_; }
  // The switch matched this cycle over nports switch inputs and outputs
  // (ports times the larger speedup): iSLIP, or separable input-first.
  uint32_t match_switch(uint32_t lr, uint32_t nports) {
    return input_first_
               ? separable_input_first_match(req, nports, req_inputs, pointers(lr), match)
               : islip_match_asking(req, nports, req_inputs, pointers(lr), iterations_, match);
  }

  // The input channel that holds output VC (o, v), or kFree.
  int32_t& holder(uint32_t o, uint32_t v) { return holder_[size_t(o) * nv() + v]; }
  uint16_t& va_pointer(uint32_t o, uint32_t v) { return va_ptr_[size_t(o) * nv() + v]; }
  // Switch input `in` (output 0's index times input_speedup plus the
  // switch input's, as BookSim's expanded inputs): the VC it favours next
  // when two of its VCs want the same output.
  uint8_t& vc_pointer(uint32_t in) { return vc_ptr_[in]; }
  IslipPointers& pointers(uint32_t lr) { return ptr_[lr]; }
  // The cycle local router lr last allocated in (a second wake-up in the
  // same cycle must not allocate again).
  ps_t& ran_at(uint32_t lr) { return ran_at_[lr]; }

  // Per cycle scratch of one router: requested switch outputs per switch
  // input, the VC each (input, output) request comes from, the match. With
  // speedup these are BookSim's expanded ports: input port p's VC v asks
  // from switch input p * input_speedup + v % input_speedup, for switch
  // output q * output_speedup + p % output_speedup of output port q.
  uint64_t req[kMaxPorts] = {};
  uint64_t req_inputs = 0;  // the input ports whose req is not 0, a bit each
  uint8_t req_vc[kMaxPorts * kMaxPorts];
  int8_t match[kMaxPorts];

  // Matching efficiency: cycles allocated, input ports that requested the
  // switch in them, and those matched.
  uint64_t cycles = 0, requesting_inputs = 0, matched_inputs = 0;

  // ---- the router-model operations (router_model.h) that differ -------------
  // Its VC allocator may give any VC of the port the routing allows.
  template <class H>
  void head_routed(H& h, const RoutedHead& at, QEntry& e, const RouteCandidates& rc, ps_t ready,
                   ps_t not_before) {
    uint32_t mask = 0;
    for (uint32_t i = 0; i < rc.count; i++)
      if (rc.c[i].port == e.out_port) mask |= 1u << rc.c[i].vc;
    // Into an endpoint any VC will do (it depends on no other channel), as
    // BookSim's routings eject on any.
    if (h.out(output(at.router, e.out_port)).peer_router < 0) mask = (1u << nv()) - 1;
    vc_mask_[at.channel] = static_cast<uint16_t>(mask);
    if (wormhole_) worm_[at.channel].pipeline = ready - e.arrive;  // its flits' too
    // BookSim's routing stage: routing_delay cycles from the head's arrival,
    // or from the cycle the packet ahead left (its next head is routed then).
    if (routing_cycles_) [[unlikely]]
      ready = std::max(ready, not_before) + routing_cycles_ * h.cycle_ps();
    iq::head_routed(*this, h, at, e, ready, not_before);
  }
  // router.flow_control wormhole: the new head e of input channel c follows
  // its worm's head, which holds an output VC, onto that VC with no routing
  // and no VC allocation (BookSim2's body flits go straight to switch
  // allocation). False: e is a worm's head, for the routing.
  template <class H>
  bool route_follower(H& h, uint32_t c, QEntry& e, ps_t not_before) {
    if (!wormhole_ || !worm_[c].open) return false;
    const Worm& w = worm_[c];
    PacketMeta* pm = meta(e.m);
    pm->out_port = w.port;
    pm->out_vc = w.vc;
    pm->out_note = w.note;  // the routing's state moves on as the head's did
    e.out_port = w.port;
    e.out_vc = w.vc;
    e.routed = 1;
    e.islip[kHoldsVc] = 1;
    vc_mask_[c] = static_cast<uint16_t>(1u << w.vc);
    iq::head_routed(*this, h,
                    RoutedHead{c, router_of_channel(c), port_of_channel(c), vc_of_channel(c)}, e,
                    e.arrive + w.pipeline, not_before);
    return true;
  }
  // It looks at every output of a router at once, on a cycle.
  template <class H>
  void arm_output(H& h, uint32_t o, ps_t t) {
    arm_cycle(h, router_of_output(o), t);
  }
  template <class H>
  void on_event(H& h, const Event& ev) {
    if (ev.kind != H::kind(RouterEvent::out_wake))
      return InputQueuedOps<IslipRouter>::on_event(h, ev);
    ps_t& w = wake(ev.a);
    if (w == ev.t) w = kNever;
    // ev.a: the router's output 0. (The division stays: a router index
    // stored per output, read instead, measured 3% slower.)
    cycle(h, router_of_output(ev.a));
  }
  template <class Stats>
  void add_counters(Stats& st) const {
    st.islip_cycles += cycles;
    st.islip_requesting += requesting_inputs;
    st.islip_matched += matched_inputs;
  }

 private:
  // router.flow_control wormhole: per input channel, the worm whose head
  // was allocated an output VC and whose tail has not crossed yet.
  struct Worm {
    ps_t pipeline = 0;  // the head's time through the router's pipeline
    uint16_t note = 0;  // the head's route note
    uint8_t port = 0, vc = 0;
    uint8_t open = 0;
  };
  bool wormhole_ = false;
  bool input_first_ = false;  // router.switch_allocator separable_input_first
  bool vc_input_first_ = false;  // router.vc_allocator separable_input_first
  bool wait_tail_ = false;    // router.wait_for_tail_credit
  // router.input_speedup, output_speedup: switch inputs per input port and
  // switch outputs per output port.
  uint32_t in_speedup_ = 1, out_speedup_ = 1;
  bool queued_ = false;  // packets wait for the link: crossbar_cycles > 1 or output_speedup > 1
  // router.hold_switch_for_packet: per local router the switch inputs and
  // outputs held (a bit each), and per switch input its held VC and output.
  bool hold_ = false;
  struct SwitchHolds {
    uint64_t in = 0, out = 0;
  };
  std::vector<SwitchHolds> holds_;      // [local router]
  std::vector<uint8_t> hold_vc_, hold_out_;  // [local router * kMaxPorts + switch input]
  // router.routing_cycles, vc_alloc_cycles, sw_alloc_cycles
  uint32_t routing_cycles_ = 0, va_cycles_ = 1, sa_cycles_ = 1;
  // QEntry::islip[kHoldsVc] of a head granted an output VC that its VC
  // allocation stage has not taken yet (vc_alloc_cycles > 1).
  static constexpr uint8_t kVcGranted = 2;
  // A switch match still in its allocation stage (sw_alloc_cycles > 1): the
  // head of input channel c crosses to output o at `due`.
  struct SwitchGrant {
    ps_t due = 0;
    uint32_t c = 0, o = 0;
  };
  // router.crossbar_cycles > 1: per router, the crossbar's latest batch
  // (the cycle it was stamped in, the cycle it is through), and per output
  // the first cycle its link can take the next packet out of the crossbar.
  struct CrossbarBatch {
    uint64_t stamped = 0, through = 0;
  };
  uint32_t crossbar_ = 1;
  std::vector<CrossbarBatch> xbar_;   // [local router]
  std::vector<uint64_t> emit_next_;   // [output]
  uint32_t sw_cap_ = 0;                 // per router
  std::vector<SwitchGrant> sw_stage_;   // [local router * sw_cap_ + k]
  std::vector<uint32_t> sw_staged_;     // [local router]: how many
  std::vector<Worm> worm_;    // [input channel]; empty without wormhole
  uint32_t iterations_ = 1;
  std::vector<IslipPointers> ptr_;  // [local router]
  std::vector<int32_t> holder_;     // [output * nv + vc]
  std::vector<uint16_t> va_ptr_;    // [output * nv + vc]: over requester indices
  // [input channel]: its VC allocation accept pointer, over its router's
  // output VCs (port * nv + vc), as BookSim's iSLIP VC allocator's.
  std::vector<uint16_t> accept_ptr_;
  std::vector<uint8_t> vc_ptr_;     // [input]
  // [input channel]: the VCs of its head's output port that its routing
  // allows, a bit each (kMaxVcs of them).
  std::vector<uint16_t> vc_mask_;
  std::vector<ps_t> ran_at_;        // [local router]
  std::vector<uint64_t> active_;    // bit o: output o has requests (one spare word)

  template <class H>
  void arm_cycle(H& h, uint32_t lr, ps_t t);
  template <class H>
  void cycle(H& h, uint32_t lr);
  template <class H>
  void allocate_vcs(H& h, uint32_t lr, ps_t* next);
  template <bool kInputFirst, class H>
  void allocate_vcs_as(H& h, uint32_t lr, ps_t* next);
  template <class H>
  uint32_t switch_requests(H& h, uint32_t lr, ps_t* next);
  template <bool kSpeedup, class H>
  uint32_t switch_requests_as(H& h, uint32_t lr, ps_t* next);
  uint32_t first_from(uint32_t vcs, uint32_t ap, uint32_t base) const;
  // Whether output VC (o, v) of the router whose output 0 is o0 is held (a
  // holder whose packet a fault took since is forgotten).
  bool vc_held(uint32_t o0, uint32_t o, uint32_t v);
  // The crossing of channel c's head to output o of local router lr (its
  // match's stage done). True: a worm goes on with a flit waiting behind.
  template <class H>
  bool cross(H& h, uint32_t lr, uint32_t o, uint32_t c);
  // router.hold_switch_for_packet: switch input p of local router lr keeps
  // switch output q for its VC v's worm; hold_stage sends on the held ones.
  void hold(uint32_t lr, uint32_t p, uint32_t q, uint32_t v);
  template <class H>
  void hold_stage(H& h, uint32_t lr, SwitchHolds held, ps_t* next);
  // crossbar_cycles > 1: how much later than through a one-cycle crossbar
  // a packet leaving its input buffer now for output o reaches o's link.
  template <class H>
  ps_t crossbar_wait(H& h, uint32_t lr, uint32_t o);
  // Output VC (o, v) goes to channel c's head e.
  void take_vc(uint32_t o, uint32_t v, uint32_t c, QEntry& e);
  // vc_alloc_cycles > 1: grants that fall due take their VC or are
  // dropped; heads that asked and got nothing ask again that many cycles on.
  template <class H>
  void vc_stage(H& h, uint32_t lr, ps_t* next);
  // sw_alloc_cycles > 1: the matches that fall due cross.
  template <class H>
  void switch_stage(H& h, uint32_t lr, ps_t* next);
};

}  // namespace fabemu

#include "dataplane/router/input_queued_islip_cycle.h"
