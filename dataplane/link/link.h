// The sending end of a link: serialization (a packet occupies the link for
// units x unit time), the wire (SerDes + cable latency), the per-VC credits
// of the buffer at the far end, and where the link ends: an endpoint, or a
// router input at the far end of a channel (link_channel.h: on this core,
// or on another through a ring).
//
// The data-link layer (go-back-N retry with CRC and bit errors,
// dataplane/link/go_back_n.h) attaches where the engine grants a packet
// onto a link and where it reaches the far input (link_retry.h),
// switched on per run: off, a hop pays one predictable branch.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/link/credit_counter.h"
#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"

namespace fabemu {

enum class ChannelKind : uint8_t;  // the channel a link ends in (link_channel.h)

struct alignas(64) OutLink {
  // Hot: read or written at every grant.
  ps_t free_ps = 0;         // the link is serialising until then
  ps_t unit_ps = 0;         // one flow unit on the link
  ps_t wire_ps = 0;         // head leaves -> head arrives
  ps_t busy_ps = 0;         // busy during the measurement window
  uint64_t credit_stalls = 0;
  uint32_t peer_channel0 = 0;  // far end's channel for VC 0 (index on its worker)
  int32_t peer_router = -1; // global router id at the far end (-1: endpoint)
  int32_t peer_endpoint = -1;
  uint16_t peer_port = 0;
  uint16_t peer_worker = 0;
  uint32_t stats = 0;       // index into the link statistics
  ChannelKind channel{};    // where the far end is (zero: on this core)
  bool dead = false;        // a fault: what is granted to it is discarded (link_faults.h)
  // Its forward-progress timer expired (a VC waited router.forward_progress_ns
  // without a packet leaving): what is granted to it is discarded, until
  // credits come back (progress_timer.h).
  bool progress_timeout = false;
  ps_t serialize(uint32_t units) const { return units * unit_ps; }
};
static_assert(sizeof(OutLink) == 64, "a link's sender is one cache line");

// The sender's side of one VC of a link: the credits it holds for the
// downstream buffer (with the units it took and got back) and the packets
// it sent. Packet and unit totals of the link are the sums over its VCs.
struct alignas(128) SenderVc {
  CreditCounter credits;
  uint64_t packets = 0;
  ps_t last_sent = 0;  // when a packet last left (the forward-progress timer)
};

struct InLink {
  int32_t up_router = -1;   // -1: an endpoint's injection link
  int32_t up_endpoint = -1;
  uint16_t up_port = 0;
  uint16_t up_worker = 0;
  uint32_t up_output = 0;   // sender's output index (on its worker)
  ChannelKind channel{};    // where the sender is (zero: on this core)
  ps_t up_wire_ps = 0;      // credits travel the reverse direction of the link (its
                            // wire, plus link.credit_delay_ns)
  ps_t unit_ps = 0;         // one flow unit on the link into this input
  uint32_t stats = 0;       // the link whose occupancy this buffer reports
  bool dead = false;        // a fault: what arrives is discarded (link_faults.h)
};

// What a link's sender tells its far end, in order with its packets: a new
// unit time, down, up (lane_control.h), a sequence number skipped
// (link_retry.h). Sent with send_control (link_channel.h).
enum class LinkControl : uint16_t { width, down, up, skip };

// The engine's link-layer template parameter (Engine<R, L>): the ideal
// link; the data-link layer proper is chosen per run (see above).
struct NoLinkLayer {};

}  // namespace fabemu
