// Ethernet framing as a learning bridge needs it: 48-bit addresses held in
// the low bits of a uint64_t (first octet most significant), 802.1Q tags and
// a flow key that keeps each flow on one fabric path.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace fabemu {

inline constexpr uint32_t kEthHeaderBytes = 14;
inline constexpr uint32_t kVlanTagBytes = 4;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;
inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeIpv6 = 0x86dd;

inline uint64_t mac_at(const uint8_t* p) {
  return (uint64_t{p[0]} << 40) | (uint64_t{p[1]} << 32) | (uint64_t{p[2]} << 24) |
         (uint64_t{p[3]} << 16) | (uint64_t{p[4]} << 8) | uint64_t{p[5]};
}
// Group (multicast and broadcast) addresses have the I/G bit, the low bit of
// the first octet.
inline bool mac_is_group(uint64_t mac) { return (mac >> 40) & 1; }
inline uint16_t be16_at(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }

// "02:00:00:00:00:01" (hex, either case) -> true and *mac; false otherwise.
bool parse_mac(std::string_view text, uint64_t* mac);
std::string format_mac(uint64_t mac);

// A 15-bit key of the frame's flow: the addresses and, for IPv4/IPv6, the IP
// addresses, protocol and TCP/UDP ports. Packets of one flow carry the same
// YARC hash, so hashed routing keeps them on one path and in order.
uint16_t flow_hash(const uint8_t* frame, uint32_t len);

}  // namespace fabemu
