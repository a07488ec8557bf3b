// The low-latency 3D mesh's packets, bit-exact in the packet buffer (the
// petaflops 3D-mesh proposal, Figure 12 "Bit Encoding for Low Latency while
// retaining DC Balance"). A link is an 80-bit parallel bus; a packet is a
// run of 80-bit words, one per bus clock, each word 10 bytes in the buffer
// (line i of the bus is bit i % 8 of byte i / 8). The proposal fixes the
// first word (the route, dataplane/codec/mesh3d_route.h) and that the state
// field's complement follows it; the rest is fabemu's layout:
//
//   word 0      bits 0-6 state, 7-48 six (Dir, Dist) segments (Figure 12);
//               "Etc." 49-53 words - 1 (3..32), 54 class (1: response),
//               55-63 payload bytes, 64-79 message sequence (low 16 bits)
//   word 1      bits 0-6 the state's complement; 7-26 source endpoint,
//               27-46 destination endpoint, 47-56 segment index, 57-66
//               segments in the message, 67-79 zero
//   words 2..   payload, 10 bytes a word, the last one zero-padded
//   last word   check word: bits 0-15 CRC-16 (crc16.h) over every word
//               before it, with the state and its complement read as 0 (a
//               router rewrites them at every hop and the complement
//               guards them), and over this word's bits 16-79; bit 16
//               transmit error (a router forwarded it before its CRC
//               failed; its destination discards it), 17-79 zero
//
// Packets are 3 to 32 words: 2 header words, up to 29 payload words (290
// bytes), the check word. Endpoints are 20-bit numbers (1,048,576).
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/codec/mesh3d_route.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

inline constexpr uint32_t kMesh3dWordBytes = 10;
inline constexpr uint32_t kMesh3dWordBits = 80;
inline constexpr uint32_t kMesh3dHeaderWords = 2;
inline constexpr uint32_t kMesh3dTailWords = 1;
inline constexpr uint32_t kMesh3dMinWords = 3;
inline constexpr uint32_t kMesh3dMaxWords = 32;
inline constexpr uint32_t kMesh3dMaxEndpoints = 1u << 20;
inline constexpr uint32_t kMesh3dMaxSegments = 1u << 10;  // of one message (10 bits)

PacketFormat mesh3d_format(uint32_t header_units, uint32_t max_units);

// Word w of the packet at p, and back.
Word80 mesh3d_load(const uint8_t* p, uint32_t w);
void mesh3d_store(uint8_t* p, uint32_t w, const Word80& word);

struct Mesh3dDecoded {
  MeshRoute route;
  MeshRouteState state;
  bool state_ok = false;  // the complement matches
  uint32_t words = 0;
  uint32_t src = 0, dst = 0;
  uint32_t seq16 = 0;  // message sequence, low 16 bits
  uint32_t seg = 0, nseg = 0;
  uint32_t payload_bytes = 0;
  uint8_t cls = 0;
  bool crc_ok = false;
  bool transmit_error = false;
  uint8_t payload[29 * kMesh3dWordBytes];
};

// Writes the packet of meta (its route word from Mesh3dHeader, meta.units
// words) into the empty mbuf m, sealed. payload may be nullptr (zeros).
// Returns the words written, 0 (m untouched) when a field does not fit or
// m lacks room.
uint16_t mesh3d_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload);
// Parses m: false unless it is 3..32 whole words whose length field says
// so, the route decodes, the reserved bits are 0 and the payload length
// fits the words. State, complement and CRC go to the fields above.
bool mesh3d_decode(const rte_mbuf* m, Mesh3dDecoded& out);
// Decodes, intact (CRC good, no transmit error, state matches its
// complement), and agrees with meta (words, payload bytes, source,
// destination, class, sequence, segment fields).
bool mesh3d_check_meta(const rte_mbuf* m, const PacketMeta& meta);
int mesh3d_decode_payload(const rte_mbuf* m, uint8_t* out, uint32_t room);

bool mesh3d_link_crc_ok(const rte_mbuf* m);
void mesh3d_seal(rte_mbuf* m);
void mesh3d_stomp(rte_mbuf* m);  // sets the transmit-error bit, CRC made good
// Flips line `bit % 80` of word `bit / 80`.
void mesh3d_flip_bit(rte_mbuf* m, uint32_t bit);
// The capture's copy as it is on its link: the route state (and its
// complement) the packet carries there, from meta's route word.
void mesh3d_refresh(uint8_t* bytes, uint32_t len, const PacketMeta& meta);

}  // namespace fabemu
