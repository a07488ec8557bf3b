// Engine<R, L>, continued: two-hop error detection and recovery
// (link/recovery_memory.h; link.recovery: two_hop) where it meets a hop:
//  - an output to a router keeps a copy of each packet it sends (keep);
//  - a router input whose packet leaves acknowledges it to the sender of
//    its link, by the link's channel: an ack2 when it goes on to a router
//    (it comes back once that router has it), an ack when it is consumed
//    or discarded here (ack, ack_gone);
//  - an output whose link dies sends what its memory holds again, from its
//    router along a route from there (take_held -> resend); so do packets
//    waiting at that router for the dead link (they are in transit too);
//  - a destination drops the second arrival of a message sent again
//    (DuplicateFilter, at finish_eject).
// All of it out of line: off by default, one predictable branch a hop.
// Included from engine.h only.
#pragma once
#include <cstring>
#include <string>
#include <vector>

namespace fabemu {

// Output o (to a router) sends packet m now: its copy goes into o's memory
// ("stored in the recovery RAM just before it is put on an output wire").
template <class R, class L>
[[gnu::noinline]] void Engine<R, L>::recovery_keep(Worker& w, uint32_t o, const rte_mbuf* m,
                                                   uint32_t units) {
  if (meta(m)->flags & kPktTransmitError) return;  // a damaged copy: its good one follows
  rte_mbuf* c = nullptr;
  if (!w.pool.alloc_bulk(&c, 1)) {
    fail(w, "no packet buffer left for a recovery memory's copy (" +
                std::to_string(w.pool.capacity()) + " buffers on worker " + std::to_string(w.id) +
                "); give DPDK more memory (FABEMU_DPDK_MEM_MB)");
    return;
  }
  const uint16_t len = rte_pktmbuf_data_len(m);
  std::memcpy(rte_pktmbuf_append(c, len), rte_pktmbuf_mtod(m, const uint8_t*), len);
  *meta(c) = *meta(m);
  w.recovery.keep(o, c, meta(m)->id, units, w.now);
}

// The packet m of `units` leaves input channel c now for output o: its
// sender learns when to let its copy go. Onto a router link, once the
// router beyond has its tail (the ack2 comes back over both links); to the
// processor, once that has it (the neighbour's ack); into a dead link, at
// once (this router sends it again itself).
template <class R, class L>
[[gnu::noinline]] void Engine<R, L>::recovery_ack(Worker& w, uint32_t c, uint32_t o,
                                                  const rte_mbuf* m, uint32_t units) {
  const InLink& in = w.in[nv_div_.div(c)];
  if (in.up_router < 0 || (meta(m)->flags & kPktTransmitError)) return;
  const OutLink& ol = w.out[o];
  ps_t back = w.now + in.up_wire_ps;
  if (!ol.dead) {
    const ps_t tail = w.now + ol.serialize(units) + ol.wire_ps;
    back = tail + (ol.peer_router >= 0 ? ol.wire_ps : 0) + in.up_wire_ps;
  }
  LinkHop host{{*this, w}};
  carry(host, in, RecoveryAck{meta(m)->id, w.now + in.up_wire_ps, back});
}

// The head m of input channel c is discarded, or sent again from here: the
// ack goes back at once.
template <class R, class L>
[[gnu::noinline]] void Engine<R, L>::recovery_ack_gone(Worker& w, uint32_t c, const rte_mbuf* m) {
  const InLink& in = w.in[nv_div_.div(c)];
  if (in.up_router < 0 || (meta(m)->flags & kPktTransmitError)) return;
  LinkHop host{{*this, w}};
  const ps_t back = w.now + in.up_wire_ps;
  carry(host, in, RecoveryAck{meta(m)->id, back, back});
}

// Output o's link died (own_router_dead: with its router): what its memory
// holds is sent again from its router, unless that router is dead too
// (its memories die with it).
template <class R, class L>
void Engine<R, L>::recovery_link_down(Worker& w, uint32_t o, bool own_router_dead) {
  const uint32_t lr = ports_div_.div(o);
  RecoveryCounters& n = w.recovery.counters();
  w.recovery.take_held(o, w.now, [&](rte_mbuf* c) {
    if (own_router_dead) {
      n.freed_dead++;
      rte_pktmbuf_free(c);
      return;
    }
    meta(c)->flags |= kPktResent;
    n.resent++;
    recovery_resend(w, lr, c);
  });
}

// Packet m, at local router lr, goes first in the source queue of lr's
// processor with a route from lr (the tables are those after the fault) and
// its encoding rewritten for it; with no route left it is discarded
// (no_route), counted.
template <class R, class L>
[[gnu::noinline]] void Engine<R, L>::recovery_resend(Worker& w, uint32_t lr, rte_mbuf* m) {
  PacketMeta* pm = meta(m);
  const int32_t r = w.routers[lr];
  if (pm->flags & kPktTransmitError) {  // a damaged copy that moved on: its good one follows
    discard(w, DropReason::dead_port, m);
    return;
  }
  int32_t ep = -1;
  for (const FabricPort& fp : f_.routers[size_t(r)].ports)
    if (fp.endpoint >= 0) {
      ep = fp.endpoint;
      break;
    }
  if (ep < 0 || !policy_reroute<R>(*w.tables.tables, f_.table_router(r), *pm)) {
    discard(w, DropReason::no_route, m);
    return;
  }
  const CodecKind codec = static_cast<CodecKind>(cfg_.codec);
  std::vector<uint8_t> payload(rte_pktmbuf_data_len(m) + 1);
  const int n = decode_payload(codec, m, payload.data(), static_cast<uint32_t>(payload.size()));
  if (n >= 0) {  // (an undecodable copy, damage the CRC missed, keeps its bytes)
    rte_pktmbuf_trim(m, static_cast<uint16_t>(rte_pktmbuf_pkt_len(m)));
    if (encode_packet(codec, m, *pm, payload.data()) == 0) {
      fail(w, "packet " + std::to_string(pm->id) + " could not be encoded again for its resend");
      rte_pktmbuf_free(m);
      return;
    }
    if (lcb_) link_crc_seal(codec, m);
  }
  EndpointHost host{*this, w};
  w.eps.resend(host, static_cast<uint32_t>(ep), m);
}

// A packet at local router lr that the route it carries cannot take on
// after a fault: sent again from here when recovery is on (true), else the
// caller discards it.
template <class R, class L>
bool Engine<R, L>::recovery_reroutes(const Worker& w, DropReason why) const {
  return recovering() && w.duplicates.faulted() &&
         (why == DropReason::no_route || why == DropReason::misrouted ||
          why == DropReason::dead_port);
}

}  // namespace fabemu
