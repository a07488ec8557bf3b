// A hop's link, as the router model's grant drives it: the link of a router
// output starts sending a packet (it serialises, the far buffer's credits
// are taken, it is counted), the packet reaches the far end (a router input
// by the link's channel, link_channel.h, through its retry sender under
// link-level retry; or its endpoint, ejection.h), and the credits of a
// buffer the packet leaves stream back to the sender's counter.
//
// The rest of the run is the host H's (the engine's is Engine::LinkHop):
// every call inlines, nothing virtual. On a hop with retry, recovery,
// faults and capture off each of them costs one predictable branch.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/credit_counter.h"
#include "dataplane/link/ejection.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_channel.h"

namespace fabemu {

// Output link ol starts sending a packet of `units` on the VC whose sender
// sv is, at now: the link serialises it and the far buffer's credits are
// the packet's. The serialization time.
__attribute__((always_inline)) inline ps_t start_packet(OutLink& ol, SenderVc& sv, uint32_t units,
                                                        ps_t now) {
  const ps_t dur = ol.serialize(units);
  sv.credits.take(units);
  sv.packets++;
  sv.last_sent = now;
  ol.free_ps = now + dur;  // requesters arriving meanwhile schedule the wake-up
  return dur;
}

// The packet m of `units` that output o's link (ol; of local router lr)
// started sending now on VC vc reaches the far end (delay later: a stage
// between the switch and the link, whose credits the packet took now).
template <class H>
__attribute__((always_inline)) inline void send_to_far_end(H& h, const OutLink& ol, uint32_t lr,
                                                           uint32_t o, rte_mbuf* m, uint32_t units,
                                                           uint8_t vc, ps_t delay = 0) {
  const ps_t now = h.now();
  PacketMeta* pm = meta(m);
  h.forwarded(lr, o, *pm);  // the routing's last word on it at this router (R::on_forward)
  pm->vc = vc;
  if (h.capturing()) [[unlikely]]
    h.capture(ol.stats, m, now, vc, h.packets_sent(o) - 1);
  if (ol.peer_router >= 0) {
    pm->hops++;
    if (h.recovery_on()) [[unlikely]]
      h.recovery_keep(o, m, units);
    if (h.retry_on()) [[unlikely]]
      h.retry_send(o, m, units, vc, now);
    else
      carry(h, ol, LinkPacket{m, now + delay + ol.wire_ps, vc, 0});
  } else {
    eject(h, ol, o, m, now + delay, ol.serialize(units));
  }
}

// `units` of VC v leave the buffer the link `in` feeds: their credits go
// back to its sender (by the link's channel) or to its endpoint, the first
// reaching it at `first`, then one every `every`.
template <class H>
__attribute__((always_inline)) inline void return_credits(H& h, const InLink& in, uint32_t v,
                                                          uint32_t units, ps_t first, ps_t every) {
  if (in.up_router < 0) {
    h.endpoint_credits(static_cast<uint32_t>(in.up_endpoint), v, units, first, every);
    return;
  }
  carry(h, in, CreditStream{v, units, first, every});
}

// A credit stream reaches VC v of output o (its link ol, its counter cc).
// resumed: one that waited for room in the counter's queue (the streams
// before it have arrived by now); otherwise a full queue defers it to its
// first credit. The router model then wakes what waits for the credits.
template <class H>
__attribute__((always_inline)) inline void credits_arrive(H& h, OutLink& ol, CreditCounter& cc,
                                                          uint32_t o, uint32_t v, uint32_t units,
                                                          ps_t first, ps_t every, bool resumed) {
  // Credits back: what is beyond the port accepts again (progress_timer.h).
  if (h.faults_on() && ol.progress_timeout) [[unlikely]]
    ol.progress_timeout = false;
  h.credits_change(o, v);
  if (resumed) {
    cc.add_resumed(units, first, every);
  } else if (!cc.add_stream(units, first, every)) {
    h.defer_credits(o, v, units, first, every);
    return;
  }
  h.credits_back(o, v, cc);
}

}  // namespace fabemu
