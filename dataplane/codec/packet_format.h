// How payload bytes map to flow units for the profile's packet format.
#pragma once
#include <cstdint>

namespace fabemu {

struct PacketFormat {
  uint32_t header_units = 2;     // head (+hash, +transport header) units
  uint32_t tail_units = 0;       // EOP/tail units (YARC: 1)
  uint32_t payload_bits_per_unit = 64;  // usable payload bits per unit
  uint32_t max_units = 10;       // longest packet
  uint32_t min_units = 1;        // shortest packet
  uint32_t units_for(uint32_t payload_bytes) const {
    return units_with_header(payload_bytes, header_units);
  }
  // The same with `header` header units (a packet type of its own: the
  // T3E's single-word Get response has one, its single-word Put three).
  uint32_t units_with_header(uint32_t payload_bytes, uint32_t header) const {
    uint32_t pu = (payload_bytes * 8 + payload_bits_per_unit - 1) / payload_bits_per_unit;
    uint32_t u = header + pu + tail_units;
    return u < min_units ? min_units : u;
  }
  // Largest payload one packet carries (whole bytes).
  uint32_t max_payload_bytes() const {
    return (max_units - header_units - tail_units) * payload_bits_per_unit / 8;
  }
};

// Flow units of one message of `bytes` payload: its segments' units, each
// with its header (a 0-byte message is one packet).
inline uint32_t message_units(const PacketFormat& f, uint32_t bytes) {
  const uint32_t max_payload = f.max_payload_bytes();
  if (max_payload == 0) return 0;
  const uint32_t full = bytes / max_payload, rest = bytes % max_payload;
  return full * f.units_for(max_payload) + (rest || bytes == 0 ? f.units_for(rest) : 0);
}

}  // namespace fabemu
