// The link from a router output to its endpoint: the endpoint sinks what
// arrives at line rate, so the tail is delivered at now + wire +
// serialization and the credits stream back as the units arrive. A sink
// the forward-progress timer stopped holds the packet in its receive
// buffer instead (progress_timer.h); a damaged copy that moved on under
// link-level retry, or a second arrival of a packet two-hop recovery sent
// again, goes no further.
//
// The rest of the run is the host H's (the engine's is Engine::LinkHop).
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/link.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// Packet m, whose credits are on their way back, reaches its endpoint (the
// far end of ol; it started across the link at now and takes dur).
template <class H>
inline void finish_eject(H& h, const OutLink& ol, rte_mbuf* m, ps_t now, ps_t dur) {
  if (meta(m)->flags & kPktTransmitError) [[unlikely]] {
    // Damaged on a link and moved on before its CRC failed: its good copy
    // comes after it (BlackWidow §4.3: "eventually discarded by the network
    // interface at the destination").
    h.stats().transmit_error_discards++;
    rte_pktmbuf_free(m);
    return;
  }
  const ps_t tail = now + ol.wire_ps + dur;
  if (h.recovery_on() && h.recovery_duplicate(m, tail)) [[unlikely]] {
    h.discard(DropReason::duplicate, m);  // two-hop recovery sent it again: the second arrival
    return;
  }
  h.reach_endpoint(static_cast<uint32_t>(ol.peer_endpoint), m, tail);
}

// Output o's link (ol) hands packet m to its endpoint.
template <class H>
inline void eject(H& h, const OutLink& ol, uint32_t o, rte_mbuf* m, ps_t now, ps_t dur) {
  const PacketMeta* pm = meta(m);
  if (h.faults_on() && h.progress().sink_stopped(o)) [[unlikely]] {  // waits in its receive buffer
    h.progress().hold(o, m);
    return;
  }
  h.credits(o, pm->vc, pm->units, now + ol.wire_ps + ol.unit_ps + ol.wire_ps, ol.unit_ps);
  finish_eject(h, ol, m, now, dur);
}

}  // namespace fabemu
