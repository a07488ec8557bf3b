// Per-packet metadata kept in the mbuf private area: the decoded fields a
// router needs at every hop. The bytes in the mbuf data are the encoding.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/sim/time.h"

namespace fabemu {

enum class TrafficClass : uint8_t { request = 0, response = 1 };

enum PacketFlags : uint8_t {
  kPktMeasured = 1u << 0,  // generated during the measurement phase
  kPktLastSegment = 1u << 1,
  kPktNeedsReply = 1u << 2,  // a request whose destination answers with a response
  kPktFrame = 1u << 3,       // a segment of a host's Ethernet frame (payload is real)
  // (1u << 4 is free: a packet stalled for credits at its injection link is
  // marked at its source queue's head, dataplane/endpoint/nic.h.)
  // Link-level retry (dataplane/link/go_back_n.h): damaged on a link, it
  // moved on before its CRC failed, marked transmit error; its destination
  // discards it.
  kPktTransmitError = 1u << 5,
  // Link-level retry: a copy that crossed a link with bits flipped. The
  // receiver runs the CRC over such copies only: an intact crossing is the
  // sealed bytes themselves (go_back_n.h: the sender drew the errors when it
  // sent), so its CRC would pass; a flipped one is judged by the CRC alone.
  kPktFlippedBits = 1u << 6,
  // Two-hop recovery (dataplane/link/recovery_memory.h): a copy sent again
  // from a recovery memory after a link or router died.
  kPktResent = 1u << 7,
};

struct alignas(8) PacketMeta {
  uint64_t id;            // unique per run: (source endpoint << 40) | sequence
  ps_t gen_ps;            // when the message was generated at the source
  ps_t inj_ps;            // when the head left the source endpoint
  uint32_t src;           // source endpoint
  uint32_t dst;           // destination endpoint
  uint32_t msg_seq;       // message sequence number at the source
  uint16_t units;         // length in flow-control units (phits or flits)
  uint16_t payload_bytes; // payload carried by this packet
  uint16_t seg;           // segment index within the message
  uint16_t nseg;          // segments in the message
  uint16_t hash;          // optional hash bits (YARC h bit)
  uint8_t cls;            // TrafficClass
  uint8_t vc;             // VC the packet occupies at the current input
  uint8_t hops;           // router-to-router links crossed so far
  uint8_t out_port;       // routing decision at the current router
  uint8_t out_vc;
  uint8_t flags;          // PacketFlags
  uint8_t route[8];       // topology-specific route state (T3E tag, ...)
  uint16_t out_note;      // the granted candidate's RouteCandidate::note
  uint16_t link_crc;      // T3E: the link CRC-16 over the flits (the encoding has no field)
};
static_assert(sizeof(PacketMeta) <= 64, "PacketMeta must fit the mbuf private area");
inline constexpr uint16_t kMbufPrivSize = 64;

inline PacketMeta* meta(rte_mbuf* m) {
  return static_cast<PacketMeta*>(rte_mbuf_to_priv(m));
}
inline const PacketMeta* meta(const rte_mbuf* m) {
  return static_cast<const PacketMeta*>(rte_mbuf_to_priv(const_cast<rte_mbuf*>(m)));
}

}  // namespace fabemu
