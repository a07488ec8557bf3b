// SGI Spider message encoding: micropackets (Galles, "Spider: A High-Speed
// Network Interconnect", IEEE Micro 17(1), 1997, "Data link layer",
// "Message layer", Figures 2-4).
//
// The paper fixes: a micropacket of 128 data bits and 8 sideband bits, to
// which the link-level protocol (LLP) adds a sequence number, an
// acknowledge sequence number and a CCITT CRC-16, 160 bits on the wire (32
// bits of overhead); the sideband rows of Figure 3 (VC tag, credit VC and
// value, tail bit, error bit); a header micropacket whose 23 routing bits
// are a 9-bit destination, a 4-bit direction (the exit port at the next
// chip, 0 = its administration block), an 8-bit age and 2 congestion-control
// bits, the rest free for the endpoints; a tail bit on a message's last
// micropacket; a stomp code on the CRC of a micropacket that moved on before
// its CRC failed. Bit positions the paper leaves open are fabemu's
// (pcap-tools/FORMAT.md, "Spider micropackets").
//
// One flow unit is one micropacket as on the wire, 20 bytes:
//   bytes 0..15   data, a big-endian 128-bit word (bit 127 = MSB of byte 0)
//   byte 16       sideband, Figure 3's bits 7..0
//   byte 17       LLP: [7:4] sequence number, [3:0] acknowledge number
//   bytes 18..19  CRC-16/X-25 of bytes 0..17, low byte first (crc16.h)
// Bytes go on the wire in order, each least significant bit first, as HDLC
// sends its frames: in that order the 160 bits are one codeword of the
// HDLC frame check sequence, which is what makes every burst of up to 16
// bits detectable (tests/unit/spider_crc_test.cpp). Serial bit p of a
// micropacket is bit p % 8 of byte p / 8.
//
// Stomp: the CRC complemented (stored = CRC ^ 0xFFFF). The next LLP takes
// the micropacket (its CRC is not a link error), the message layer knows it
// is bad and the destination discards its message.
//
// Header micropacket data bits (bit 127 first):
//   [127:104] message sequence [23:0]   [103:95] source endpoint (9)
//   [94:85]   segment [9:0]             [84:75]  segments [9:0]
//   [74] class (1 response)  [73] vector-routed  [72:65] payload bytes
//   [64:25]   vector route: 10 directions, step i in [28+4i:25+4i]
//   [24:23]   reserved 0
//   [22:14]   destination (9)   [13:10] direction   [9:2] age   [1:0] CC
// Data micropackets: 16 payload bytes each, byte 0 first; the last
// zero-padded. A message is a header micropacket and 0..15 data
// micropackets; the tail bit is set on its last.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/routing/spider_header.h"

namespace fabemu {

struct PacketFormat;  // dataplane/codec/packet_format.h
struct PacketMeta;    // dataplane/core/packet_meta.h

inline constexpr uint32_t kSpiderMpBytes = 20;
inline constexpr uint32_t kSpiderMpBits = kSpiderMpBytes * 8;  // 160
inline constexpr uint32_t kSpiderDataBytes = 16;
inline constexpr uint32_t kSpiderSidebandByte = 16;
inline constexpr uint32_t kSpiderLlpByte = 17;
inline constexpr uint32_t kSpiderCrcByte = 18;
inline constexpr uint32_t kSpiderCoveredBytes = 18;  // the CRC covers bytes 0..17
inline constexpr uint32_t kSpiderMaxMicropackets = 16;
inline constexpr uint32_t kSpiderMaxPayloadBytes = (kSpiderMaxMicropackets - 1) * kSpiderDataBytes;
inline constexpr uint16_t kSpiderStomp = 0xFFFF;  // XORed into the CRC
inline constexpr uint32_t kSpiderSeqMask = 0xF;
inline constexpr uint32_t kSpiderMsgSeqMask = 0xFFFFFF;
inline constexpr uint32_t kSpiderSegMask = 0x3FF;

// Header data bit positions (least significant bit of each field).
inline constexpr uint32_t kSpiderHdrMsgSeq = 104;
inline constexpr uint32_t kSpiderHdrSrc = 95;
inline constexpr uint32_t kSpiderHdrSeg = 85;
inline constexpr uint32_t kSpiderHdrNseg = 75;
inline constexpr uint32_t kSpiderHdrClass = 74;
inline constexpr uint32_t kSpiderHdrVector = 73;
inline constexpr uint32_t kSpiderHdrBytes = 65;
inline constexpr uint32_t kSpiderHdrVectorRoute = 25;
inline constexpr uint32_t kSpiderHdrDest = 14;
inline constexpr uint32_t kSpiderHdrDir = 10;
inline constexpr uint32_t kSpiderHdrAge = 2;
inline constexpr uint32_t kSpiderHdrCc = 0;

// One sideband byte (Figure 3). Rows: credit (a credit for VC vcr rides
// along; 2 credit bits, 1 when the error bit is set), no credit, credit
// only (no message data: no VC tag, no tail; 3 credit bits).
enum class SpiderSbRow : uint8_t { credit, no_credit, credit_only };
struct SpiderSideband {
  SpiderSbRow row = SpiderSbRow::no_credit;
  bool error = false;  // Er: the chip fabricated this tail (tail time-out)
  bool tail = false;
  uint8_t vch = 0;        // VC of this micropacket
  uint8_t vcr = 0;        // VC credited
  uint8_t credit = 0;     // credit value, micropackets freed (fabemu's reading)
  bool reserved = false;  // R of the no-credit rows
};
uint8_t spider_sideband_byte(const SpiderSideband& s);
SpiderSideband spider_sideband(uint8_t b);

enum class SpiderCrc : uint8_t { good, stomped, bad };

struct SpiderHead {
  uint16_t dst = 0;       // 9 bits
  uint8_t direction = 0;  // 4 bits
  uint8_t age = 0;
  uint8_t cc = 0;        // 2 bits
  uint16_t src = 0;      // 9 bits
  uint32_t msg_seq = 0;  // 24 bits
  uint16_t seg = 0;      // 10 bits
  uint16_t nseg = 0;     // 10 bits
  bool response = false;
  bool vector = false;
  uint64_t vector_route = 0;  // 40 bits: step i in bits [4i+3:4i]
};

struct SpiderDecoded {
  SpiderHead head;
  uint8_t micropackets = 0;
  uint8_t payload_bytes = 0;
  uint8_t vc = 0;                           // the VC tag (Vch) every micropacket carries
  bool intact = false;                      // every CRC good
  bool stomped = false;                     // some micropacket carries the stomp code
  uint8_t payload[kSpiderMaxPayloadBytes];  // first payload_bytes valid
};

// The CRC of micropacket p: good, stomped, or bad (neither).
SpiderCrc spider_mp_crc(const uint8_t* p);
// Writes micropacket p's CRC (stomp: complemented).
void spider_mp_seal(uint8_t* p, bool stomp);

// Flow-control format: one header micropacket (header_units), 128 payload
// bits per micropacket, no tail unit, 1 to max_units.
PacketFormat spider_format(uint32_t header_units, uint32_t max_units);
// Micropackets a message of payload_bytes takes, 0 when over 16.
uint32_t spider_micropackets_for(uint32_t payload_bytes);

// Writes the message into m, an empty single-segment mbuf, every
// micropacket tagged VC vc (no-credit rows), LLP sequence numbers 0, 1, ...
// from the header, acknowledge 0, sealed. payload may be nullptr (zeros).
// Returns the micropacket count, 0 (m untouched) when a field does not fit,
// the message exceeds 16 micropackets or m lacks room.
uint16_t spider_encode(rte_mbuf* m, const SpiderHead& head, const uint8_t* payload,
                       uint32_t payload_bytes, uint8_t vc);
// Parses m: false unless it is 1..16 whole micropackets, the tail bit is on
// the last only, every sideband is a credit or no-credit row with one VC
// tag, the reserved bits are 0 and the payload length matches the data
// micropackets. CRC status goes to intact/stomped.
bool spider_decode(const rte_mbuf* m, SpiderDecoded& out);

// Every micropacket good or stomped: what the next LLP takes.
bool spider_link_crc_ok(const rte_mbuf* m);
// Stomps the micropackets whose CRC fails (the last one when none does).
void spider_stomp(rte_mbuf* m);

// The engine's mapping from PacketMeta: dst, src, class, msg_seq, seg,
// nseg, payload bytes; direction, age, CC and the vector route from
// SpiderHeader (dataplane/routing/spider_header.h); VC tag meta.vc.
uint16_t spider_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload);
// Decodes m: intact and agreeing with meta (micropackets, payload bytes,
// dst, src, class, msg_seq, seg, nseg). Direction, age and VC change per hop
// without the bytes changing (the capture refreshes them): not compared.
bool spider_check_meta(const rte_mbuf* m, const PacketMeta& meta);

// The capture's copy of a message (len bytes, whole micropackets first) as
// it is on the link where it is captured: the header's direction, age and
// CC from meta (SpiderHeader), every VC tag vc, LLP sequence numbers
// first_seq, first_seq + 1, ... (mod 16). Each micropacket is resealed
// keeping its CRC status (good, stomped or bad stay so).
void spider_refresh(uint8_t* bytes, uint32_t len, const PacketMeta& meta, uint8_t vc,
                    uint32_t first_seq);

}  // namespace fabemu
