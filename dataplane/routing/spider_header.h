// The fields of a Spider message header (Galles, "Spider: A High-Speed
// Network Interconnect", IEEE Micro 1997, "Message layer") that change on
// the way, kept in PacketMeta::route while the message is in the fabric: the
// routing tables write the direction, the router's arbiter ages the message,
// the codec writes both into the header micropacket it captures. The
// destination (9 bits) is PacketMeta::dst.
//
//   route[0]     direction: the exit port at the chip the message is in or
//                entering (0 is the chip's administration block); the table
//                lookup is pipelined one hop ahead, so each chip writes the
//                next chip's direction
//   route[1]     age, 0..255: grows while the message waits; 240..255 are
//                high priority, which aging never reaches (kSpiderAgeCap)
//   route[2]     bits 0-1: the congestion-control bits (bit 0: may adapt
//                between two VCs, and so arrive out of order); bits 2-5: the
//                next step of a vector route; bit 7: vector-routed
//   route[3..7]  a vector route: up to 10 directions, 4 bits each, step i
//                in byte 3 + i / 2, low nibble first
#pragma once
#include <cstdint>

#include "dataplane/core/packet_meta.h"

namespace fabemu {

inline constexpr uint8_t kSpiderAgeCap = 239;           // aging stops here
inline constexpr uint8_t kSpiderHighPriorityAge = 240;  // 240..255: set at the source only
inline constexpr uint8_t kSpiderCcAdapt = 1u << 0;      // CC bit 0
inline constexpr uint8_t kSpiderVectorFlag = 1u << 7;
inline constexpr uint32_t kSpiderMaxVectorSteps = 10;
inline constexpr uint32_t kSpiderMaxEndpoints = 512;  // the 9-bit destination

struct SpiderHeader {
  static uint8_t direction(const PacketMeta& m) { return m.route[0]; }
  static void set_direction(PacketMeta& m, uint8_t d) { m.route[0] = d; }
  static uint8_t age(const PacketMeta& m) { return m.route[1]; }
  static void set_age(PacketMeta& m, uint8_t a) { m.route[1] = a; }
  static uint8_t cc(const PacketMeta& m) { return m.route[2] & 3u; }
  static void set_cc(PacketMeta& m, uint8_t cc) {
    m.route[2] = static_cast<uint8_t>((m.route[2] & ~3u) | (cc & 3u));
  }
  static bool vector_routed(const PacketMeta& m) { return m.route[2] & kSpiderVectorFlag; }
  static uint8_t vector_step(const PacketMeta& m) { return (m.route[2] >> 2) & 0xFu; }
  static void set_vector_step(PacketMeta& m, uint8_t i) {
    m.route[2] = static_cast<uint8_t>((m.route[2] & ~0x3Cu) | ((i & 0xFu) << 2));
  }
  static uint8_t vector_direction(const PacketMeta& m, uint32_t i) {
    const uint8_t b = m.route[3 + i / 2];
    return i % 2 ? b >> 4 : b & 0xFu;
  }
  // Writes a vector route of n <= kSpiderMaxVectorSteps directions and marks
  // the message vector-routed, its first step next.
  static void set_vector(PacketMeta& m, const uint8_t* dirs, uint32_t n) {
    for (uint32_t i = 3; i < 8; i++) m.route[i] = 0;
    for (uint32_t i = 0; i < n && i < kSpiderMaxVectorSteps; i++)
      m.route[3 + i / 2] |= static_cast<uint8_t>((dirs[i] & 0xFu) << (i % 2 ? 4 : 0));
    m.route[2] = static_cast<uint8_t>((m.route[2] & 3u) | kSpiderVectorFlag);
  }
};

}  // namespace fabemu
