// The low-latency 3D mesh's source route, bit-exact (the petaflops 3D-mesh
// proposal, "Bit Encoding for Low Latency while retaining DC Balance",
// Figure 12). A link is an 80-bit parallel bus; the first word (the first
// bit on each of the 80 lines) carries the whole route, so that a router
// decides after one word:
//
//   bits 0-2    Route   the segment being traversed (0..5)
//   bits 3-6    HowFar  hops already travelled in it as the packet enters
//   bits 7-48   Dir n <3 bits>, Dist n <4 bits> of segments 0..5
//   bits 49-79  payload ("Etc.")
//
// and the second word begins with the complement of the 7-bit state, so
// that a router may rewrite the state and stay DC balanced by writing its
// complement after it; a state that does not match its complement is an
// error. The proposal leaves the codes open; fabemu's choices:
//   Dir   0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z; 7 ends the route (the
//         packet leaves at the router it reaches), 6 is invalid
//   Dist  hops - 1: a segment goes 1 to 16 hops ("up to 16 'hops'")
//   a router writes the state the next router must see: after a
//   segment's last hop, the next segment with HowFar 0 (so HowFar, 4
//   bits, never has to hold 16).
#pragma once
#include <array>
#include <cstdint>

namespace fabemu {

// An 80-bit word of the bus: bit i is the bit on line i.
struct Word80 {
  uint64_t lo = 0;  // bits 0-63
  uint16_t hi = 0;  // bits 64-79
  uint32_t get(uint32_t first, uint32_t n) const {
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; i++) v |= uint32_t(bit(first + i)) << i;
    return v;
  }
  void set(uint32_t first, uint32_t n, uint32_t v) {
    for (uint32_t i = 0; i < n; i++) set_bit(first + i, (v >> i) & 1);
  }
  bool bit(uint32_t i) const { return i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1; }
  void set_bit(uint32_t i, bool b) {
    if (i < 64)
      lo = (lo & ~(uint64_t{1} << i)) | (uint64_t(b) << i);
    else
      hi = static_cast<uint16_t>((hi & ~(1u << (i - 64))) | (uint32_t(b) << (i - 64)));
  }
  void flip(uint32_t i) { set_bit(i, !bit(i)); }
  bool operator==(const Word80&) const = default;
};

enum class MeshDir : uint8_t { xp = 0, xm = 1, yp = 2, ym = 3, zp = 4, zm = 5, end = 7 };
inline constexpr uint32_t kMeshSegments = 6, kMeshMaxSegmentHops = 16;
inline constexpr uint32_t kMeshStateBits = 7, kMeshPayloadFirst = 49, kMeshPayloadBits = 31;

inline uint32_t mesh_dimension(MeshDir d) { return static_cast<uint32_t>(d) / 2; }
inline bool mesh_plus(MeshDir d) { return (static_cast<uint32_t>(d) & 1) == 0; }

struct MeshSegment {
  MeshDir dir = MeshDir::end;
  uint8_t hops = 0;  // 1..16
};

// A source route: up to six straight segments, then the destination.
struct MeshRoute {
  std::array<MeshSegment, kMeshSegments> seg{};
  uint32_t segments = 0;
  uint32_t hops() const {
    uint32_t n = 0;
    for (uint32_t i = 0; i < segments; i++) n += seg[i].hops;
    return n;
  }
  // False when a segment is empty or longer than 16 hops, or there are
  // more than six.
  bool add(MeshDir d, uint32_t hops) {
    if (segments == kMeshSegments || hops == 0 || hops > kMeshMaxSegmentHops || d == MeshDir::end)
      return false;
    seg[segments++] = {d, static_cast<uint8_t>(hops)};
    return true;
  }
};

// Where a packet is along its route, as the router it enters reads it.
struct MeshRouteState {
  uint8_t route = 0;    // segment
  uint8_t how_far = 0;  // hops travelled in it
  bool operator==(const MeshRouteState&) const = default;
};

inline uint32_t mesh_state_bits(MeshRouteState s) { return uint32_t(s.route) | uint32_t(s.how_far) << 3; }

// The first two words of a packet: the route at its start (state 0, 0)
// and 31 bits of payload.
inline void mesh_encode(const MeshRoute& r, uint32_t payload, Word80* w0, Word80* w1) {
  *w0 = Word80{};
  *w1 = Word80{};
  for (uint32_t i = 0; i < kMeshSegments; i++) {
    const bool used = i < r.segments;
    w0->set(7 + 7 * i, 3, used ? static_cast<uint32_t>(r.seg[i].dir) : 7u);
    w0->set(10 + 7 * i, 4, used ? r.seg[i].hops - 1u : 0u);
  }
  w0->set(kMeshPayloadFirst, kMeshPayloadBits, payload);
  w0->set(0, kMeshStateBits, 0);
  w1->set(0, kMeshStateBits, ~0u & 0x7f);
}

// The route a first word carries (segments up to the first end code).
// False: a direction code 6, a segment after the end, or a used segment
// after a free one.
inline bool mesh_decode_route(const Word80& w0, MeshRoute* out) {
  MeshRoute r;
  bool ended = false;
  for (uint32_t i = 0; i < kMeshSegments; i++) {
    const uint32_t d = w0.get(7 + 7 * i, 3);
    if (d == 6) return false;
    if (d == 7) {
      ended = true;
      continue;
    }
    if (ended) return false;
    r.seg[r.segments++] = {static_cast<MeshDir>(d), static_cast<uint8_t>(w0.get(10 + 7 * i, 4) + 1)};
  }
  *out = r;
  return true;
}

// The state and whether its complement matches (false: the packet is in
// error and must be discarded).
inline bool mesh_read_state(const Word80& w0, const Word80& w1, MeshRouteState* s) {
  const uint32_t st = w0.get(0, kMeshStateBits), comp = w1.get(0, kMeshStateBits);
  s->route = static_cast<uint8_t>(st & 7);
  s->how_far = static_cast<uint8_t>(st >> 3);
  return (st ^ comp) == 0x7f;
}

inline void mesh_write_state(MeshRouteState s, Word80* w0, Word80* w1) {
  const uint32_t st = mesh_state_bits(s);
  w0->set(0, kMeshStateBits, st);
  w1->set(0, kMeshStateBits, ~st & 0x7f);
}

// What a router does with a packet in state s: the direction it leaves in
// and the state the next router must read, or the end (it is delivered
// here). invalid: a state no route can be in (a segment past the last, or
// HowFar at or beyond its segment's length): discard it, as a corrupted
// route.
struct MeshStep {
  enum class Kind : uint8_t { hop, deliver, invalid } kind = Kind::invalid;
  MeshDir dir = MeshDir::end;
  MeshRouteState next{};
};

inline MeshStep mesh_step(const MeshRoute& r, MeshRouteState s) {
  MeshStep out;
  if (s.route == r.segments && s.how_far == 0) {
    out.kind = MeshStep::Kind::deliver;
    return out;
  }
  if (s.route >= r.segments || s.how_far >= r.seg[s.route].hops) return out;
  out.kind = MeshStep::Kind::hop;
  out.dir = r.seg[s.route].dir;
  out.next = s.how_far + 1u == r.seg[s.route].hops
                 ? MeshRouteState{static_cast<uint8_t>(s.route + 1), 0}
                 : MeshRouteState{s.route, static_cast<uint8_t>(s.how_far + 1)};
  return out;
}

}  // namespace fabemu
