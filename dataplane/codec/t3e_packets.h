// The T3E's packet types (Scott & Thorson 1996, Table 3): single-word and
// vector Gets and Puts, each a request answered by a response, with their
// lengths in flits. A single-word access moves one 64-bit word, a vector
// access eight. Most packets have two header flits; the single-word Get
// response has one, the single-word Put request three (section 11).
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace fabemu {

struct T3ePacketType {
  std::string_view name;   // traffic.t3e_packets
  std::string_view paper;  // the paper's row name
  uint32_t request_words;
  uint32_t request_header_flits;
  uint32_t response_words;
  uint32_t response_header_flits;
  uint32_t request_flits() const { return request_words + request_header_flits; }
  uint32_t response_flits() const { return response_words + response_header_flits; }
  // The 64-bit words the access moves (in its request for a Put, in its
  // response for a Get).
  uint32_t payload_words() const { return request_words + response_words; }
};

inline constexpr std::array<T3ePacketType, 4> kT3ePacketTypes{{
    {"word_get", "Single-word Gets", 0, 2, 1, 1},  // 2 / 2 flits
    {"vector_get", "Vector Gets", 0, 2, 8, 2},     // 2 / 10
    {"word_put", "Single word Puts", 1, 3, 0, 2},  // 4 / 2
    {"vector_put", "Vector Puts", 8, 2, 0, 2},     // 10 / 2
}};

// The type called `name`, or nullptr.
inline const T3ePacketType* t3e_packet_type(std::string_view name) {
  for (const T3ePacketType& t : kT3ePacketTypes)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace fabemu
