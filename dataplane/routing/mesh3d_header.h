// The low-latency 3D mesh's route word as it travels in PacketMeta::route
// (8 bytes, little-endian uint64): the first 80-bit word's bits 0-48
// (Figure 12: Route<0:2>, HowFar<3:6>, Dir n / Dist n of six segments;
// dataplane/codec/mesh3d_route.h) and, in bits 49-55, the complement of the
// state that begins the second word. The routers read and rewrite it at
// every hop; the codec writes it into the packet's bytes
// (dataplane/codec/mesh3d_packet.h). Plain shifts: the hot path decodes it
// without Word80's bit loops.
#pragma once
#include <cstdint>
#include <cstring>

#include "dataplane/codec/mesh3d_route.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

struct Mesh3dHeader {
  static constexpr uint32_t kComplementShift = 49;
  static constexpr uint64_t kRouteBits = (uint64_t{1} << 49) - 1;  // state + six segments

  static uint64_t word(const PacketMeta& m) {
    uint64_t w;
    std::memcpy(&w, m.route, sizeof w);
    return w;
  }
  static void set_word(PacketMeta& m, uint64_t w) { std::memcpy(m.route, &w, sizeof w); }

  static uint32_t state(uint64_t w) { return static_cast<uint32_t>(w & 0x7f); }
  static uint32_t complement(uint64_t w) { return static_cast<uint32_t>((w >> kComplementShift) & 0x7f); }
  static bool state_ok(uint64_t w) { return (state(w) ^ complement(w)) == 0x7f; }
  static uint32_t dir(uint64_t w, uint32_t seg) { return static_cast<uint32_t>((w >> (7 + 7 * seg)) & 7); }
  static uint32_t hops(uint64_t w, uint32_t seg) {
    return static_cast<uint32_t>((w >> (10 + 7 * seg)) & 15) + 1;
  }
  // The word with state s (Route = s & 7, HowFar = s >> 3) and its complement.
  static uint64_t with_state(uint64_t w, uint32_t s) {
    w &= ~(uint64_t{0x7f} | (uint64_t{0x7f} << kComplementShift));
    return w | s | (uint64_t(~s & 0x7f) << kComplementShift);
  }
  // The route word of r at its start (state 0), every free segment ended (Dir 7).
  static uint64_t of_route(const MeshRoute& r) {
    uint64_t w = 0;
    for (uint32_t i = 0; i < kMeshSegments; i++) {
      const bool used = i < r.segments;
      w |= uint64_t(used ? static_cast<uint32_t>(r.seg[i].dir) : 7u) << (7 + 7 * i);
      w |= uint64_t(used ? r.seg[i].hops - 1u : 0u) << (10 + 7 * i);
    }
    return with_state(w, 0);
  }
};

// What a router does with a route word (mesh_step, on the word): leave
// going `dir` with state `next`, deliver here, or refuse an impossible
// state (a segment past the route's end, HowFar at or beyond its length).
struct Mesh3dStep {
  enum Kind : uint8_t { hop, deliver, invalid } kind;
  uint8_t dir;
  uint8_t next;
};

inline Mesh3dStep mesh3d_step(uint64_t w) {
  const uint32_t s = Mesh3dHeader::state(w), seg = s & 7, far = s >> 3;
  // The route ends at the first free segment (or after the sixth).
  if (seg >= kMeshSegments || Mesh3dHeader::dir(w, seg) == 7)
    return {far == 0 && seg <= kMeshSegments ? Mesh3dStep::deliver : Mesh3dStep::invalid, 7, 0};
  const uint32_t d = Mesh3dHeader::dir(w, seg), n = Mesh3dHeader::hops(w, seg);
  if (d == 6 || far >= n) return {Mesh3dStep::invalid, 7, 0};
  const uint32_t next = far + 1 == n ? (seg + 1) : (seg | (far + 1) << 3);
  return {Mesh3dStep::hop, static_cast<uint8_t>(d), static_cast<uint8_t>(next)};
}

}  // namespace fabemu
