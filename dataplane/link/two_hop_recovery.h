// Two-hop error detection and recovery as one worker runs it (the
// petaflops 3D-mesh proposal, Figure 21; link.recovery: two_hop): its
// outputs' recovery memories and its destinations' duplicate filter
// (recovery_memory.h), and what happens at a hop:
//  - an output to a router keeps a copy of each packet it sends (keep);
//  - a router input whose packet leaves acknowledges it to the sender of
//    its link by the link's channel: an ack2 when it goes on to a router
//    (it comes back once that router has the tail), an ack when the
//    processor there consumes it, or at once when it is discarded or sent
//    again from there (ack_departure, ack_gone);
//  - an output whose link dies hands what its memory holds to the host to
//    send again from its router (link_down), unless that router died too;
//  - a destination drops the second arrival of a message sent again
//    (duplicate).
// The rest of the run it reaches through a host H (TwoHopHost below; the
// engine's is Engine::LinkHop): every call inlines, nothing virtual.
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_channel.h"
#include "dataplane/link/recovery_memory.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

template <class H>
concept TwoHopHost = LinkChannelHost<H> && requires(H& h, const H& ch, uint32_t i, rte_mbuf* m,
                                                   const std::string& text) {
  { ch.now() } -> std::same_as<ps_t>;
  { h.alloc() } -> std::same_as<rte_mbuf*>;  // a buffer for a copy (nullptr: none)
  h.fail(text);
  h.resend_from(i, m);  // the copy m, sent again from local router i
};

class TwoHopRecovery {
 public:
  void init(size_t outputs, uint64_t size_words, ps_t keep_ps) {
    memory_.init(outputs, size_words);
    duplicates_.init(keep_ps);
  }
  RecoveryMemory& memory() { return memory_; }
  const RecoveryMemory& memory() const { return memory_; }
  RecoveryCounters& counters() { return memory_.counters(); }
  const RecoveryCounters& counters() const { return memory_.counters(); }

  // Output o (to a router) sends packet m of `units` now: its copy goes
  // into o's memory ("stored in the recovery RAM just before it is put on
  // an output wire"). A damaged copy moving on is not kept: its good one
  // follows.
  template <class H>
  void keep(H& h, uint32_t o, const rte_mbuf* m, uint32_t units) {
    if (meta(m)->flags & kPktTransmitError) return;
    rte_mbuf* c = h.alloc();
    if (!c) {
      h.fail("no packet buffer left for a recovery memory's copy; give DPDK more memory "
             "(FABEMU_DPDK_MEM_MB)");
      return;
    }
    const uint16_t len = rte_pktmbuf_data_len(m);
    std::memcpy(rte_pktmbuf_append(c, len), rte_pktmbuf_mtod(m, const uint8_t*), len);
    *meta(c) = *meta(m);
    memory_.keep(o, c, meta(m)->id, units, h.now());
  }

  // Packet m of `units` leaves the buffer of the input whose link is `in`
  // now, for the output whose link is `out`: its sender learns when to let
  // its copy go. Onto a router link, once the router beyond has the tail
  // (the ack2 comes back over both links); to the processor, once that has
  // it; into a dead link, at once (this router sends it again itself).
  template <class H>
  void ack_departure(H& h, const InLink& in, const OutLink& out, const rte_mbuf* m,
                     uint32_t units) {
    if (in.up_router < 0 || (meta(m)->flags & kPktTransmitError)) return;
    const ps_t now = h.now();
    ps_t back = now + in.up_wire_ps;
    if (!out.dead)
      back = now + out.serialize(units) + out.wire_ps + (out.peer_router >= 0 ? out.wire_ps : 0) +
             in.up_wire_ps;
    carry(h, in, RecoveryAck{meta(m)->id, now + in.up_wire_ps, back});
  }
  // ... leaves it discarded, or to be sent again from here: at once.
  template <class H>
  void ack_gone(H& h, const InLink& in, const rte_mbuf* m) {
    if (in.up_router < 0 || (meta(m)->flags & kPktTransmitError)) return;
    const ps_t back = h.now() + in.up_wire_ps;
    carry(h, in, RecoveryAck{meta(m)->id, back, back});
  }
  // The ack of packet id, sent on output o, lets its copy go at `release`.
  void ack(uint32_t o, uint64_t id, ps_t release) { memory_.ack(o, id, release); }

  // Output o's link died (own_router_dead: with its router lr): what its
  // memory holds is sent again from lr, unless lr is dead too (its memories
  // die with it).
  template <class H>
  void link_down(H& h, uint32_t o, uint32_t lr, bool own_router_dead) {
    RecoveryCounters& n = memory_.counters();
    memory_.take_held(o, h.now(), [&](rte_mbuf* c) {
      if (own_router_dead) {
        n.freed_dead++;
        rte_pktmbuf_free(c);
        return;
      }
      meta(c)->flags |= kPktResent;
      n.resent++;
      h.resend_from(lr, c);
    });
  }

  // A fault at `at` may make copies of what is in flight then.
  void fault_at(ps_t at) { duplicates_.fault_at(at); }
  // After a fault, a packet its route cannot take on (why) is in transit:
  // sent again from where it is rather than discarded.
  bool reroutes(DropReason why) const {
    return duplicates_.faulted() && (why == DropReason::no_route ||
                                     why == DropReason::misrouted || why == DropReason::dead_port);
  }
  // Packet m's tail reaches its destination at t: true when it is the
  // second arrival of a message sent again (drop it).
  bool duplicate(const rte_mbuf* m, ps_t t) {
    return duplicates_.duplicate(meta(m)->id, meta(m)->gen_ps, t);
  }

  // Packet m, at local router lr, is sent again from there: on the tables
  // after the fault (the host's reroute: the processor of lr to send it
  // from, -1 when lr has none or there is no route left: discarded,
  // no_route), encoded again for that route, first in that processor's
  // source queue.
  template <class H>
  [[gnu::noinline]] void resend(H& h, uint32_t lr, rte_mbuf* m) {
    PacketMeta* pm = meta(m);
    if (pm->flags & kPktTransmitError) {  // a damaged copy that moved on: its good one follows
      h.discard(DropReason::dead_port, m);
      return;
    }
    const int32_t ep = h.reroute(lr, *pm);
    if (ep < 0) {
      h.discard(DropReason::no_route, m);
      return;
    }
    if (!h.reencode(m, *pm)) {
      h.fail("packet " + std::to_string(pm->id) + " could not be encoded again for its resend");
      rte_pktmbuf_free(m);
      return;
    }
    h.resend_at_source(static_cast<uint32_t>(ep), m);
  }

  // This worker's figures into the run's report (r.recovery on).
  void add_counters(RunStats& r) const {
    const RecoveryCounters& n = memory_.counters();
    r.recovery_kept += n.kept;
    r.recovery_acks += n.acks;
    r.recovery_overflows += n.overflows;
    r.recovery_max_words = std::max(r.recovery_max_words, n.max_words);
    r.recovery_resent += n.resent;
    r.recovery_resent_lost += n.resent_lost;
    r.recovery_freed += n.freed_dead;
    r.recovery_held_at_end += memory_.unacknowledged();
  }

  void release_all() { memory_.release_all(); }

 private:
  RecoveryMemory memory_;
  DuplicateFilter duplicates_;
};

}  // namespace fabemu
