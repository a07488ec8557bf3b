// Cray T3E packet encoding: 70-bit flits (Hot Interconnects 1996).
//
// The paper fixes: 14-bit phits, a flit of 5 phits = 70 bits carrying one
// 64-bit word plus control, packets of 1 to 10 flits, and the packet lengths
// of Table 3 (most packets have two header flits; the single-word Get
// response one, the single-word Put request three): single-word Get 2/2,
// vector Get 2/10, single-word Put 4/2, vector Put 10/2 flits (request /
// response). A request carries its source's logical node number for the
// response, and the source table lookup yields a routing tag. Bit positions
// are not given; this is fabemu's layout.
//
// On the wire (mbuf data, pcap) each flit is 9 bytes, the 70 bits as a
// big-endian 72-bit number whose top 2 bits are 0: byte 0 holds the 6 control
// bits, bytes 1..8 the 64-bit word, MSB first. Byte-aligned flits keep flit i
// at offset 9i, which routers, captures and dissectors can index directly.
//
//   control  bit 69 head (first flit of the packet)
//            bit 68 tail (last flit; a 1-flit packet has both)
//            bit 67 header flit (1) or payload word (0)
//            bit 66 class: 0 request, 1 response (the request/response VC pair)
//            bits 65..64 link sideband (piggybacked credit acks; 0 unless set)
//   header flit 0 (always)
//            [63:48] dst logical node   [47:42] command (T3eCmd)
//            [41:35] payload bytes (0..72)   [34:32] header flits (1..7)
//            [31:0]  routing tag from the source table lookup (opaque here:
//                    the routing policy's meta.route[0..3], byte 0 in [31:24])
//   header flit 1 (if present)
//            [63:48] src logical node   [47:24] msg_seq[23:0]
//            [23:12] seg[11:0]           [11:0]  nseg[11:0]
//   header flit 2 (if present)  [63:0] address (fabemu: the packet id)
//   header flits 3..6           0
//   payload flits  8 bytes each, byte 0 in [63:56]; the last zero-padded.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

namespace fabemu {

struct PacketFormat;  // dataplane/engine/engine_base.h
struct PacketMeta;    // dataplane/core/packet_meta.h

inline constexpr uint32_t kT3eFlitBytes = 9;
inline constexpr uint32_t kT3eWordBytes = 8;
inline constexpr uint32_t kT3eMaxFlits = 10;
inline constexpr uint32_t kT3eMaxHeaderFlits = 7;
inline constexpr uint32_t kT3eMaxPayloadBytes = (kT3eMaxFlits - 1) * kT3eWordBytes;  // 72

// Control bits, as positions within byte 0 (flit bit 64 + n).
inline constexpr uint8_t kT3eCtlHead = 1u << 5;
inline constexpr uint8_t kT3eCtlTail = 1u << 4;
inline constexpr uint8_t kT3eCtlHeader = 1u << 3;
inline constexpr uint8_t kT3eCtlResponse = 1u << 2;
inline constexpr uint8_t kT3eCtlSideband = 0x3;

enum class T3eCmd : uint8_t {
  data_req = 0,   // fabemu: generic request (a segment of an emulated frame)
  data_resp = 1,  // fabemu: generic response
  get = 2,        // single-word Get request   (2 header flits)
  get_resp = 3,   //   and response            (1 header + 1 word)
  vget = 4,       // vector (8-word) Get request (2)
  vget_resp = 5,  //   and response            (2 + 8 words)
  put = 6,        // single-word Put request   (3 + 1 word)
  vput = 7,       // vector Put request        (2 + 8 words)
  put_ack = 8,    // Put response              (2)
};

struct T3eHead {
  uint16_t dst = 0;  // logical destination node
  uint16_t src = 0;  // logical source node (header flit 1)
  T3eCmd cmd = T3eCmd::data_req;
  bool response = false;   // class
  uint32_t route_tag = 0;  // header flit 0 [31:0]
  uint32_t msg_seq = 0;    // 24 bits sent
  uint16_t seg = 0;        // 12 bits sent
  uint16_t nseg = 0;       // 12 bits sent
  uint64_t addr = 0;       // header flit 2
};

struct T3eDecoded {
  T3eHead head;  // fields of absent header flits are 0
  uint8_t header_flits = 0;
  uint8_t flits = 0;
  uint8_t payload_bytes = 0;
  uint8_t payload[kT3eMaxPayloadBytes];  // first payload_bytes valid
};

// Flow-control format: header_units = header flits (2 for most packets),
// no tail, 64 payload bits per flit, 1 to max_flits (10) flits.
PacketFormat t3e_format(uint32_t header_flits, uint32_t max_flits);

// Flits a packet will take, or 0 if it exceeds kT3eMaxFlits or header_flits
// is not 1..7.
uint32_t t3e_flits_for(uint32_t header_flits, uint32_t payload_bytes);

// Writes the packet into m, which must be an empty single-segment mbuf.
// payload may be nullptr (zero words). Returns the flit count, or 0 (m
// untouched) if the packet would exceed 10 flits, header_flits is not 1..7,
// msg_seq/seg/nseg do not fit their fields, or the mbuf lacks tailroom.
uint16_t t3e_encode(rte_mbuf* m, const T3eHead& head, const uint8_t* payload,
                    uint32_t payload_bytes, uint32_t header_flits);

// Parses the packet occupying m's data: false unless the length is a whole
// number of 1..10 flits, the control bits mark head, tail and header flits
// consistently, reserved bits are 0 and the byte count matches the payload
// flits.
bool t3e_decode(const rte_mbuf* m, T3eDecoded& out);

// Link sideband bits (2) of flit i.
bool t3e_set_sideband(rte_mbuf* m, uint32_t flit, uint8_t bits);
uint8_t t3e_get_sideband(const rte_mbuf* m, uint32_t flit);

// The engine's mapping from PacketMeta (codec.h dispatches here): header
// flits = meta.units - payload words; dst, src (< 65536), cls, route tag =
// meta.route[0..3], msg_seq, seg, nseg, addr = id; command data_req or
// data_resp by class. Returns the flit count (= meta.units) or 0.
uint16_t t3e_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload);
// Decodes m and checks it agrees with meta: length, payload bytes, dst,
// class, and src/msg_seq/seg/nseg/id where their flits are present. The
// route tag is not compared (the routing policy updates meta.route per hop).
bool t3e_check_meta(const rte_mbuf* m, const PacketMeta& meta);

}  // namespace fabemu
