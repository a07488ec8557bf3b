// The iSLIP router's cycle (input_queued_islip.h): every output wake-up of
// a router becomes one allocation of the whole router at the first cycle
// boundary at or after it: VC allocation, then switch allocation by iSLIP,
// both on the state at the cycle's start. Included from
// input_queued_islip.h only.
#pragma once

namespace fabemu {

// Local router lr allocates at the first cycle boundary at or after t. The
// router's wake-up slot is that of its output 0.
template <class H>
inline void IslipRouter::arm_cycle(H& h, uint32_t lr, ps_t t) {
  const ps_t cyc = h.cycle_ps();
  const uint32_t o0 = output(lr, 0);
  ps_t& wake = this->wake(o0);
  // A pending wake-up is a cycle boundary: the one t rounds up to is no
  // earlier exactly when t > wake - cyc, so a router already armed for
  // that cycle or an earlier one (the common case) costs no division.
  if (wake != kNever && t + cyc > wake) return;
  t = (t + cyc - 1) / cyc * cyc;
  if (t >= wake) return;
  wake = t;
  h.schedule(event_at(t, H::kind(RouterEvent::out_wake), o0));
}

template <class H>
inline void IslipRouter::cycle(H& h, uint32_t lr) {
  {
    IslipRouter& rt = *this;
    const ps_t now = h.now();
    // Another wake-up in a cycle already allocated (credits or a head that
    // came after it): VCs freed by its crossings must not be given again,
    // nor losers matched again, so what woke it waits for the next cycle.
    if (rt.ran_at(lr) == now) {
      arm_cycle(h, lr, now + h.cycle_ps());
      return;
    }
    rt.ran_at(lr) = now;
    ps_t next = kNever;
    const uint32_t sa = sa_cycles_;
    allocate_vcs(h, lr, &next);
    // router.hold_switch_for_packet: the switch inputs and outputs held at
    // the cycle's start take no requests this cycle.
    const SwitchHolds held = hold_ ? holds_[lr] : SwitchHolds{};
    const uint32_t eligible = switch_requests(h, lr, &next);
    const uint32_t si = in_speedup_, so = out_speedup_;
    // Held connections send first, as BookSim's hold stage updates before
    // its switch allocation.
    if (held.in) [[unlikely]] hold_stage(h, lr, held, &next);
    const uint32_t nports = max_ports() * std::max(si, so);  // switch inputs and outputs
    const uint32_t nv_ = nv();
    const uint32_t asking = static_cast<uint32_t>(__builtin_popcountll(rt.req_inputs));
    if (asking) {
      const uint32_t matched = rt.match_switch(lr, nports);
      rt.cycles++;
      rt.requesting_inputs += asking;
      rt.matched_inputs += matched;
      // Losers retry next cycle: unmatched inputs, and the other heads of a
      // matched input (another VC, to the same output or another one).
      if (matched < eligible && sa == 1) next = std::min(next, now + h.cycle_ps());
      const uint32_t o0 = rt.output(lr, 0);
      for (uint64_t b = rt.req_inputs; b; b &= b - 1) {  // only an asking input is matched
        const uint32_t p = static_cast<uint32_t>(__builtin_ctzll(b));  // switch input
        if (rt.match[p] < 0) continue;
        const uint32_t q = static_cast<uint32_t>(rt.match[p]);  // switch output
        const uint32_t v = rt.req_vc[p * IslipRouter::kMaxPorts + q];
        const uint32_t po = so == 1 ? q : q / so;
        const uint32_t c = rt.channel(lr, si == 1 ? p : p / si, v);
        // Its switch input favours the VC input_speedup on, round the VCs
        // (BookSim's _sw_rr_offset); no division when that is below nv_.
        const uint32_t nx = v + si;
        rt.vc_pointer(o0 * si + p) = static_cast<uint8_t>(nx < nv_ ? nx : nx % nv_);
        if (sa > 1) [[unlikely]] {  // it crosses when its stage is done (its head asks no more)
          const ps_t due = now + (sa - 1) * h.cycle_ps();
          sw_stage_[size_t(lr) * sw_cap_ + sw_staged_[lr]++] = SwitchGrant{due, c, o0 + po};
          next = std::min(next, due);
          continue;
        }
        if (cross(h, lr, o0 + po, c) && hold_) [[unlikely]]
          hold(lr, p, q, v);
      }
    }
    // Matches of earlier cycles cross after this cycle's allocation, as
    // BookSim's stage updates follow its evaluations.
    if (sa > 1) [[unlikely]] switch_stage(h, lr, &next);
    if (next != kNever) arm_cycle(h, lr, next);
  }
}

// Of the VCs in `vcs` (a bit each, one output port whose first output VC
// index is base), the first at or after accept pointer ap over the
// router's output VCs: within the port from its VC, before or past it
// from VC 0.
inline uint32_t IslipRouter::first_from(uint32_t vcs, uint32_t ap, uint32_t base) const {
  const uint32_t n = nv();
  const uint32_t from = ap >= base && ap < base + n ? ap - base : 0;
  const uint32_t rot = ((vcs >> from) | (vcs << (n - from))) & ((1u << n) - 1);
  uint32_t v = from + static_cast<uint32_t>(__builtin_ctz(rot));
  return v >= n ? v - n : v;
}

template <class H>
inline bool IslipRouter::cross(H& h, uint32_t lr, uint32_t o, uint32_t c) {
  const QEntry& crossing = head(c);
  // (A worm keeps its output VC until its last flit crosses.)
  const bool last = !wormhole_ || (meta(crossing.m)->flags & kPktLastSegment);
  if (last) {
    holder(o, crossing.out_vc) = kFree;
    if (wormhole_) worm_[c].open = 0;
  }
  // (What a dead output discards never enters the crossbar.)
  iq::grant(*this, h, o, c, queued_ && !h.discards(o) ? crossbar_wait(h, lr, o) : 0);
  return !last && len(c);
}

inline void IslipRouter::hold(uint32_t lr, uint32_t p, uint32_t q, uint32_t v) {
  SwitchHolds& hs = holds_[lr];
  hs.in |= uint64_t{1} << p;
  hs.out |= uint64_t{1} << q;
  hold_vc_[size_t(lr) * kMaxPorts + p] = static_cast<uint8_t>(v);
  hold_out_[size_t(lr) * kMaxPorts + p] = static_cast<uint8_t>(q);
}

// router.hold_switch_for_packet, as BookSim2's _SWHoldEvaluate and
// _SWHoldUpdate: each connection held since the last cycle sends its VC's
// next flit if that is there and its downstream buffer has credits for it,
// keeping the connection while the worm goes on and a flit waits behind;
// otherwise the connection is let go and the flit asks for the switch
// from the next cycle, as any.
template <class H>
inline void IslipRouter::hold_stage(H& h, uint32_t lr, SwitchHolds held, ps_t* next) {
  const ps_t now = h.now(), cyc = h.cycle_ps();
  const uint32_t si = in_speedup_, so = out_speedup_, o0 = output(lr, 0);
  SwitchHolds& hs = holds_[lr];
  hs.in &= ~held.in;
  hs.out &= ~held.out;
  for (uint64_t b = held.in; b; b &= b - 1) {
    const uint32_t p = static_cast<uint32_t>(__builtin_ctzll(b));
    const uint32_t v = hold_vc_[size_t(lr) * kMaxPorts + p];
    const uint32_t q = hold_out_[size_t(lr) * kMaxPorts + p];
    const uint32_t c = channel(lr, p / si, v), o = o0 + q / so;
    if (!len(c)) continue;
    const QEntry& e = head(c);
    *next = std::min(*next, now + cyc);  // sent or let go: it asks again
    if (!e.routed || e.islip[kHoldsVc] != 1 || e.ready > now || h.out(o).free_ps > now ||
        input_free_at(o0 + p / si) > now ||
        !h.vcs(o)[e.out_vc].credits.available(e.units, now, next))
      continue;
    if (cross(h, lr, o, c)) hold(lr, p, q, v);
  }
}

// BookSim's crossbar (iq_router.cpp, _SwitchEvaluate and _SwitchUpdate): a
// packet that leaves its input buffer in cycle X waits in the router's
// crossbar queue, whose front entries are stamped "through in c - 1 cycles"
// only at a cycle whose evaluation finds no stamped entry ahead: from X + 1,
// or the cycle after the batch in flight is through; packets waiting then
// go in one batch. Through in cycle B, a packet joins its output's queue,
// which sends one a cycle. With c = 1 every packet is through at X + 1,
// and only output speedup makes the queue longer than one.
template <class H>
inline ps_t IslipRouter::crossbar_wait(H& h, uint32_t lr, uint32_t o) {
  const ps_t cyc = h.cycle_ps();
  const uint64_t x = static_cast<uint64_t>(h.now() / cyc);
  CrossbarBatch& b = xbar_[lr];
  if (b.stamped < x + 1) {  // else it goes with the batch stamped next (pushed before it)
    b.stamped = b.through < x + 1 ? x + 1 : b.through + 1;
    b.through = b.stamped + crossbar_ - 1;
  }
  const uint64_t out = std::max(b.through, emit_next_[o]);
  emit_next_[o] = out + 1;
  return static_cast<ps_t>(out - (x + 1)) * cyc;
}

inline bool IslipRouter::vc_held(uint32_t o0, uint32_t o, uint32_t v) {
  int32_t& hd = holder(o, v);
  if (hd == kFree) return false;
  const uint32_t hc = static_cast<uint32_t>(hd);
  if (wormhole_) {  // held by a worm until its tail crosses, arrived or not
    const Worm& w = worm_[hc];
    if (w.open && w.vc == v && o0 + w.port == o) return true;
  } else {
    const QEntry& he = head(hc);
    if (len(hc) && he.islip[kHoldsVc] == 1 && he.out_vc == v && o0 + he.out_port == o)
      return true;
  }
  hd = kFree;  // (a fault may have dropped the holder since)
  return false;
}

inline void IslipRouter::take_vc(uint32_t o, uint32_t v, uint32_t c, QEntry& e) {
  e.islip[kHoldsVc] = 1;
  holder(o, v) = static_cast<int32_t>(c);
  if (wormhole_) {  // the worm's flits behind it follow on this VC
    Worm& w = worm_[c];
    w.port = e.out_port;
    w.vc = static_cast<uint8_t>(v);
    w.note = meta(e.m)->out_note;
    w.open = 1;
  }
}

template <class H>
inline void IslipRouter::vc_stage(H& h, uint32_t lr, ps_t* next) {
  const ps_t now = h.now(), cyc = h.cycle_ps();
  const uint32_t nv_ = nv();
  const uint32_t o0 = output(lr, 0), ch0 = o0 * nv_, words = (request_bit_count() + 63) / 64;
  for (uint64_t act = active_outputs(lr); act; act &= act - 1) {
    const uint32_t o = o0 + static_cast<uint32_t>(__builtin_ctzll(act));
    const uint64_t* bits = request_bits(o);
    for (uint32_t wd = 0; wd < words; wd++) {
      for (uint64_t b = bits[wd]; b; b &= b - 1) {
        const uint32_t i = wd * 64 + static_cast<uint32_t>(__builtin_ctzll(b));
        const uint32_t c = ch0 + requester_port(i) * nv_ + requester_vc(i);
        QEntry& e = head(c);
        if (e.islip[kHoldsVc] == kVcGranted) {
          const ps_t due = e.ready - cyc;
          if (due > now) {
            *next = std::min(*next, due);
            continue;
          }
          // Due: the VC is taken if it is still free (and, with
          // wait_for_tail_credit, all its credits back); else the grant is
          // dropped and the head asks again next cycle.
          const uint32_t v = e.out_vc;
          bool free = !vc_held(o0, o, v);
          if (free && wait_tail_) {
            const CreditCounter& cc = h.vcs(o)[v].credits;
            ps_t back = kNever;
            free = cc.available(cc.initial(), now, &back);
          }
          if (free)
            take_vc(o, v, c, e);
          else
            e.islip[kHoldsVc] = 0;
          *next = std::min(*next, e.ready);
        } else if (!e.islip[kHoldsVc] && e.routed && e.ready <= now) {
          e.ready = now + va_cycles_ * cyc;  // asked and got nothing
          *next = std::min(*next, e.ready);
        }
      }
    }
  }
}

template <class H>
inline void IslipRouter::switch_stage(H& h, uint32_t lr, ps_t* next) {
  const ps_t now = h.now();
  SwitchGrant* g = &sw_stage_[size_t(lr) * sw_cap_];
  uint32_t kept = 0;
  const uint32_t n = sw_staged_[lr];
  for (uint32_t k = 0; k < n; k++) {
    if (g[k].due > now) {
      *next = std::min(*next, g[k].due);
      g[kept++] = g[k];
      continue;
    }
    cross(h, lr, g[k].o, g[k].c);
  }
  sw_staged_[lr] = kept;
}

// VC allocation, as BookSim2's iSLIP VC allocator runs one iteration over
// input VCs and output VCs: each free output VC of router lr grants one
// ready head routed to its port that holds no VC yet and may take that VC
// (round robin from the VC's grant pointer over the output's requesters);
// each head granted accepts one of its grants (round robin from its accept
// pointer over the router's output VCs); both pointers move past an
// accepted grant only, and a grant not accepted leaves its VC free this
// cycle. With router.vc_allocator separable_input_first (BookSim's
// SeparableInputFirstAllocator) a head's grant can only be the one free VC
// it picks itself from its pointer, so each output VC chooses among the
// heads that picked it. The head may cross from the next cycle on.
template <class H>
inline void IslipRouter::allocate_vcs(H& h, uint32_t lr, ps_t* next) {
  if (vc_input_first_) [[unlikely]]
    allocate_vcs_as<true>(h, lr, next);
  else
    allocate_vcs_as<false>(h, lr, next);
  if (va_cycles_ > 1) [[unlikely]] vc_stage(h, lr, next);
}

template <bool kInputFirst, class H>
inline void IslipRouter::allocate_vcs_as(H& h, uint32_t lr, ps_t* next) {
  {
    IslipRouter& rt = *this;
    const ps_t now = h.now();
    const uint32_t nv_ = nv();
    const uint32_t o0 = rt.output(lr, 0), ch0 = o0 * nv_, nbits = rt.request_bit_count();
    const uint32_t va = va_cycles_;  // (read once, as in switch_requests)
    constexpr bool input_first = kInputFirst;
    for (uint64_t act = rt.active_outputs(lr); act; act &= act - 1) {
      const uint32_t o = o0 + static_cast<uint32_t>(__builtin_ctzll(act)), n = rt.requests(o);
      // Grants: per output VC the requester granted and the grant pointer an
      // accept would leave.
      uint16_t grant_to[kMaxVcs], grant_ptr[kMaxVcs];
      uint32_t granted = 0;  // a bit per output VC that granted
      // Whether output VC v may be given now (not held; with
      // wait_for_tail_credit, all its credits back).
      const auto may_give = [&](uint32_t v) {
        if (vc_held(o0, o, v)) return false;
        if (wait_tail_) {  // the last packet's credits must all be back first
          const CreditCounter& cc = h.vcs(o)[v].credits;
          ps_t back = kNever;
          if (!cc.available(cc.initial(), now, &back)) {
            *next = std::min(*next, back != kNever ? back : now + h.cycle_ps());
            return false;
          }
        }
        return true;
      };
      // separable input-first: the heads pick among all the free VCs first.
      uint32_t free = 0;  // a bit per output VC that may be given
      if constexpr (input_first)
        for (uint32_t v = 0; v < nv_; v++) free |= may_give(v) ? 1u << v : 0;
      for (uint32_t v = 0; v < nv_; v++) {
        if (input_first ? !((free >> v) & 1) : !may_give(v)) continue;
        uint16_t ptr = rt.va_pointer(o, v);
        const auto waiting = [&](uint32_t c, const QEntry& e) {
          return !e.islip[kHoldsVc] && ((vc_mask_[c] >> v) & 1) && e.ready <= now;
        };
        const int32_t won = RoundRobinArbiter::pick(
            rt.request_bits(o), nbits, n, &ptr, [&](uint32_t i) {
              const uint32_t c = ch0 + rt.requester_port(i) * nv_ + rt.requester_vc(i);
              const QEntry& e = rt.head(c);
              if constexpr (input_first)  // only the heads whose own pick is v
                return waiting(c, e) &&
                       first_from(vc_mask_[c] & free, accept_ptr_[c], e.out_port * nv_) == v;
              else
                return waiting(c, e);
            });
        if (won < 0) continue;
        grant_to[v] = static_cast<uint16_t>(won);
        grant_ptr[v] = ptr;
        granted |= 1u << v;
      }
      while (granted) {  // accepts: one per head granted
        const uint32_t i = grant_to[__builtin_ctz(granted)];
        uint32_t mine = granted;  // the VCs that granted head i
        if (granted & (granted - 1)) {
          mine = 0;
          for (uint32_t b = granted; b; b &= b - 1)
            if (grant_to[__builtin_ctz(b)] == i) mine |= 1u << __builtin_ctz(b);
        }
        granted &= ~mine;
        const uint32_t c = ch0 + rt.requester_port(i) * nv_ + rt.requester_vc(i);
        QEntry& e = rt.head(c);
        // Its accept pointer over the router's output VCs (port * nv + vc):
        // within this port it starts at its VC; before or past it, at VC 0.
        const uint32_t base = uint32_t{e.out_port} * nv_;
        // (granted by several: the first at or after the pointer)
        const uint32_t v = mine & (mine - 1) ? first_from(mine, accept_ptr_[c], base)
                                             : static_cast<uint32_t>(__builtin_ctz(mine));
        accept_ptr_[c] = static_cast<uint16_t>(base + v + 1);
        rt.va_pointer(o, v) = grant_ptr[v];
        if (e.out_vc != v) {  // another VC than selection picked: it counts there now
          h.unroute_units(o, e.out_vc, e.units);
          h.route_units(o, v, e.units);
          e.out_vc = static_cast<uint8_t>(v);
          meta(e.m)->out_vc = static_cast<uint8_t>(v);
        }
        if (va > 1) [[unlikely]] {  // granted: its stage takes the VC va - 1 cycles on
          e.islip[kHoldsVc] = kVcGranted;
          e.ready = now + va * h.cycle_ps();
          *next = std::min(*next, e.ready - h.cycle_ps());
          continue;
        }
        take_vc(o, v, c, e);
        e.ready = now + h.cycle_ps();
        *next = std::min(*next, e.ready);
      }
    }
  }
}

// Switch requests of router lr into rt.req (outputs per input port) and
// rt.req_vc: heads holding their output VC since an earlier cycle whose
// input and output link are free and whose downstream buffer has credits
// for them. What waits gives the next cycle worth allocating in. Returns
// how many heads could cross now (one each per input and output is matched;
// the rest must try again).
template <class H>
inline uint32_t IslipRouter::switch_requests(H& h, uint32_t lr, ps_t* next) {
  // (Without speedup a switch port is a router port: a branch per cycle,
  // not per request.)
  if (in_speedup_ > 1 || out_speedup_ > 1 || hold_) [[unlikely]]
    return switch_requests_as<true>(h, lr, next);
  return switch_requests_as<false>(h, lr, next);
}

template <bool kSpeedup, class H>
inline uint32_t IslipRouter::switch_requests_as(H& h, uint32_t lr, ps_t* next) {
  uint32_t eligible = 0;
  {
    IslipRouter& rt = *this;
    const ps_t now = h.now(), cyc = h.cycle_ps();
    const uint32_t nv_ = nv();
    const uint32_t o0 = rt.output(lr, 0), ch0 = o0 * nv_;
    // (Read once: the stores to the heads below could alias the member.)
    const ps_t staged = sa_cycles_ > 1 ? sa_cycles_ * cyc : 0;
    const uint32_t si = kSpeedup ? in_speedup_ : 1, so = kSpeedup ? out_speedup_ : 1;
    // Switch inputs and outputs a held connection has (hold_switch_for_packet).
    const SwitchHolds held = kSpeedup && hold_ ? holds_[lr] : SwitchHolds{};
    for (uint64_t b = rt.req_inputs; b; b &= b - 1) rt.req[__builtin_ctzll(b)] = 0;
    rt.req_inputs = 0;
    for (uint64_t act = rt.active_outputs(lr); act; act &= act - 1) {
      const uint32_t po = static_cast<uint32_t>(__builtin_ctzll(act)), o = o0 + po;
      OutLink& ol = h.out(o);
      const SenderVc* cr = h.vcs(o);
      uint16_t* short_units = rt.blocked(o).units;
      rt.blocked(o) = BlockedUnits{};
      const uint64_t* bits = rt.request_bits(o);
      const uint32_t words = (rt.request_bit_count() + 63) / 64;
      for (uint32_t wd = 0; wd < words; wd++) {
        for (uint64_t b = bits[wd]; b; b &= b - 1) {
          const uint32_t i = wd * 64 + static_cast<uint32_t>(__builtin_ctzll(b));
          const uint32_t ip = rt.requester_port(i), iv = rt.requester_vc(i);
          QEntry& e = rt.head(ch0 + ip * nv_ + iv);
          if (e.ready > now) {  // through the pipeline, or allocated its VC, later
            *next = std::min(*next, e.ready);
            continue;
          }
          if (!e.islip[kHoldsVc]) {  // its output VC is someone else's: ask again next cycle
            *next = std::min(*next, now + cyc);
            continue;
          }
          if (staged) [[unlikely]] {  // asked now: its match, or its next request, that many cycles on
            e.ready = now + staged;
            *next = std::min(*next, e.ready);
          }
          if (ol.free_ps > now) {
            *next = std::min(*next, ol.free_ps);
            continue;
          }
          const ps_t in_free = rt.input_free_at(o0 + ip);
          if (in_free > now) {
            *next = std::min(*next, in_free);
            continue;
          }
          const uint32_t v = e.out_vc;
          const bool discard = h.progress_timed_out(o);  // needs no credits
          if (!discard && !cr[v].credits.available(e.units, now, next)) {
            if (e.units < short_units[v]) short_units[v] = e.units;  // its credits wake us
            if (!e.stalled) {
              e.stalled = 1;
              ol.credit_stalls++;
            }
            continue;
          }
          // Its switch input and output (BookSim's expanded ports).
          const uint32_t sin = kSpeedup ? ip * si + iv % si : ip;
          const uint32_t sout = kSpeedup ? po * so + ip % so : po;
          if (kSpeedup && (((held.in >> sin) | (held.out >> sout)) & 1)) continue;
          eligible++;
          const uint64_t bit = 1ull << sout;
          uint8_t& rv = rt.req_vc[sin * IslipRouter::kMaxPorts + sout];
          if (rt.req[sin] & bit) {
            // Two VCs of one switch input for one output: its VC pointer
            // says which goes first (the nearer at or after it, going round;
            // all three are below nv_, so no modulo).
            const uint32_t from = rt.vc_pointer(o0 * si + sin);
            const auto after = [&](uint32_t x) { return x >= from ? x - from : x + nv_ - from; };
            if (after(iv) >= after(rv)) continue;
          }
          rt.req[sin] |= bit;
          rt.req_inputs |= uint64_t{1} << sin;
          rv = static_cast<uint8_t>(iv);
        }
      }
    }
  }
  return eligible;
}

}  // namespace fabemu
