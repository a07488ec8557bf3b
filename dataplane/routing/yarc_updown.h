// Cray BlackWidow / YARC up/down routing of a folded Clos (Scott et al.,
// ISCA 2006, sections 5 and 7.8.2) as a routing policy for Engine<R>
// (dataplane/routing/routing_policy.h).
//
// Each router (every tile of a YARC is programmed alike, so one copy per
// router here) holds:
//  - a root-detect register: 15-bit location + 15-bit mask; a destination
//    whose unmasked bits equal the location is inside this router's subtree
//    and the packet turns down (mask bits are "don't care": the rank-1 router
//    over destinations 96..127 has location 0x0060, mask 0x001F);
//  - an 8-entry up-routing table of (location, mask, 64-bit allowed-uplink
//    mask); every matching entry is a candidate and the highest index wins
//    (entry 0 matches everything in a healthy network; fault entries above it
//    constrain the uplinks for the subtree in a fault's shadow);
//  - a hash-bit select register: which 8 of the 15 optional hash bits this
//    rank hashes on (rank 1: bits 0..7, rank 2: bits 5..12, rank 3: 10..14);
//  - the down-route register (shift s, mask m: logical port = (dst >> s) & m)
//    and the 64-entry logical-to-physical port map;
//  - which ports are uplinks (or sidelinks): a packet that came in by one
//    came from above and may only go down (the down-routing invariant of
//    up*/down* routing; section 5: "there is only a single path down the
//    tree"). One routed up again is flagged (RouteCandidates::up_after_down)
//    for the engine to count with the router and port.
//
// Deterministic up routing (a = 0): hash = in_port ^ dst ^ (h ? selected hash
// bits : 0); the uplink is the (hash mod n)-th set bit of the winning entry's
// mask, n = its popcount, computed exactly (a multiply by the precomputed
// reciprocal of n, no division per packet; exact for every n in 1..64, a
// superset of the 1..8,10,..,32 the YARC supports by factoring n).
// Adaptive up routing (a = 1, responses when Tables::adaptive_responses): all
// allowed uplinks are candidates (adaptive = true; the router picks by
// credits), listed from the hashed choice on so that following c[0] — as
// trace_route() does — gives the deterministic path. Down routing is always
// deterministic. The VC is the head phit's v bit at every hop.
//
// Route state in PacketMeta::route[]: [0] head-phit flags (kYarcV, kYarcH,
// kYarcA, kYarcR). The destination is PacketMeta::dst (15 bits used), the
// optional hash bits PacketMeta::hash (15 bits).
//
// Hot path: header-only, no allocation, no exceptions, no division.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/sim/time.h"

namespace fabemu {

inline constexpr uint16_t kYarcDestMask = 0x7FFF;  // 15-bit destination / location / mask
inline constexpr int kYarcUpEntries = 8;
inline constexpr int kYarcPorts = 64;
inline constexpr uint8_t kYarcV = 1u << 0;  // head phit: virtual channel (0 request, 1 response)
inline constexpr uint8_t kYarcH = 1u << 1;  // hash phit present, hash on its bits
inline constexpr uint8_t kYarcA = 1u << 2;  // route adaptively
inline constexpr uint8_t kYarcR = 1u << 3;  // source routed (maintenance only; not used)

// Exact a mod d for 32-bit a and 1 <= d, via d's precomputed 64-bit
// reciprocal (Lemire, Kaser, Kurz 2019): one multiply, one high-half multiply.
constexpr uint64_t yarc_mod_reciprocal(uint32_t d) { return ~uint64_t{0} / d + 1; }
inline uint32_t yarc_mod(uint32_t a, uint64_t reciprocal, uint32_t d) {
  const uint64_t low = reciprocal * a;
  return static_cast<uint32_t>((static_cast<unsigned __int128>(low) * d) >> 64);
}

// A location/mask pair matches dst when every bit outside the mask agrees.
inline bool yarc_match(uint16_t location, uint16_t mask, uint32_t dst) {
  return ((dst ^ location) & ~static_cast<uint32_t>(mask) & kYarcDestMask) == 0;
}

struct YarcUpEntry {
  bool valid = false;
  uint16_t location = 0;
  uint16_t mask = 0;
  uint64_t ports = 0;  // allowed uplink/sidelink physical ports
  // Derived when the entry is programmed (set()): the set ports in
  // ascending order, their count and the reciprocal of the count.
  uint8_t n = 0;
  uint64_t reciprocal = 0;
  std::array<uint8_t, kYarcPorts> list{};

  void set(uint16_t loc, uint16_t msk, uint64_t port_mask) {
    valid = true;
    location = loc & kYarcDestMask;
    mask = msk & kYarcDestMask;
    ports = port_mask;
    n = 0;
    for (int p = 0; p < kYarcPorts; ++p)
      if ((port_mask >> p) & 1u) list[n++] = static_cast<uint8_t>(p);
    reciprocal = n ? yarc_mod_reciprocal(n) : 0;
  }
  void clear() { *this = YarcUpEntry{}; }
};

struct YarcRouterTable {
  // Virtual routers (control/topology/virtual_routers.h): this table routes
  // the packets that enter on in_ports; the others go to next_table, the
  // chip's next virtual router (the last one's in_ports cover the rest).
  // First, on the cache line route() reads anyway.
  uint64_t in_ports = ~uint64_t{0};
  uint32_t next_table = 0;
  uint16_t root_location = 0;
  uint16_t root_mask = 0;
  uint8_t hash_shift = 0;                      // first of the 8 optional hash bits this router uses
  uint8_t down_shift = 0;                      // s
  uint8_t down_mask = 0x1F;                    // m as a bit mask (m = 5 bits -> 0x1F)
  std::array<uint8_t, kYarcPorts> port_map{};  // logical -> physical port
  std::array<YarcUpEntry, kYarcUpEntries> up{};
  uint64_t uplinks = 0;  // ports leading up or over (the down-routing invariant)
};

struct YarcTables {
  // One per router, then the second and later virtual routers of each chip.
  std::vector<YarcRouterTable> routers;
  ps_t latency_ps = 31250;         // pipeline latency, every hop
  bool adaptive_responses = true;  // responses set a = 1 (the BlackWidow policy)
  // How the adaptive decisions of one router's inputs see each other
  // (routing_policy.h; read by YarcAdaptive, yarc_adaptive.h).
  Allocator allocator = Allocator::sequential;
};

struct YarcUpDown {
  using Tables = YarcTables;

  // Head-phit fields: v = class, h = 1 for requests (hash bits travel in
  // PacketMeta::hash), a = 1 for responses when adaptive, r = 0.
  // With a single VC (min_vcs 1) responses share v = 0 with requests.
  static void on_inject(const Tables& t, const Fabric& f, PacketMeta& m) {
    const bool response = m.cls == static_cast<uint8_t>(TrafficClass::response);
    uint8_t flags = response ? 0 : kYarcH;
    if (response && f.num_vcs > 1) flags |= kYarcV;
    if (response && t.adaptive_responses) flags |= kYarcA;
    m.route[0] = flags;
    m.vc = flags & kYarcV;
  }

  // The up-routing entry that wins for dst (highest matching index), or -1.
  // An entry with no ports still wins: after a fault, its subtree is
  // unreachable from here.
  static int up_entry(const YarcRouterTable& rt, uint32_t dst) {
    for (int e = kYarcUpEntries - 1; e >= 0; --e) {
      const YarcUpEntry& u = rt.up[e];
      if (u.valid && yarc_match(u.location, u.mask, dst)) return e;
    }
    return -1;
  }

  static uint32_t hash(const YarcRouterTable& rt, uint8_t in_port, const PacketMeta& m) {
    uint32_t h = in_port ^ (m.dst & kYarcDestMask);
    if (m.route[0] & kYarcH) h ^= ((m.hash & kYarcDestMask) >> rt.hash_shift) & 0xFFu;
    return h;
  }

  static void route(const Tables& t, RoutingContext& /*ctx*/, int32_t router, uint8_t in_port,
                    const PacketMeta& m, RouteCandidates& out) {
    const YarcRouterTable* vr = &t.routers[static_cast<size_t>(router)];
    // A chip split into virtual routers: the input port's table.
    while (!((vr->in_ports >> in_port) & 1u)) [[unlikely]] vr = &t.routers[vr->next_table];
    const YarcRouterTable& rt = *vr;
    const uint32_t dst = m.dst & kYarcDestMask;
    const uint8_t vc = m.route[0] & kYarcV;
    out.adaptive = false;
    if (yarc_match(rt.root_location, rt.root_mask, dst)) {
      out.add(rt.port_map[(dst >> rt.down_shift) & rt.down_mask], vc);
      return;
    }
    // Not in this subtree: up again, which a packet that came down must not.
    if ((rt.uplinks >> in_port) & 1u) [[unlikely]]
      out.up_after_down = true;
    const int e = up_entry(rt, dst);
    // No route: a broken table (trace_route reports it), or an entry with no
    // uplinks left after a fault (the engine discards and counts the packet).
    if (e < 0 || rt.up[e].n == 0) return;
    const YarcUpEntry& u = rt.up[e];
    const uint32_t pick = yarc_mod(hash(rt, in_port, m), u.reciprocal, u.n);
    if (!(m.route[0] & kYarcA)) {
      out.add(u.list[pick], vc);
      return;
    }
    out.adaptive = true;
    for (uint32_t i = pick; i < u.n; ++i) out.add(u.list[i], vc);
    for (uint32_t i = 0; i < pick; ++i) out.add(u.list[i], vc);
  }

  // Responses choose their uplink by the credits of the moment.
  static bool routes_on_state(const Tables& t) { return t.adaptive_responses; }

  static ps_t pipeline_ps(const Tables& t, int32_t /*router*/, uint8_t /*in_port*/,
                          uint8_t /*out_port*/) {
    return t.latency_ps;
  }

  static void on_forward(const Tables& /*t*/, int32_t /*router*/, uint8_t /*out_port*/,
                         PacketMeta& /*m*/) {}
};

}  // namespace fabemu

// Its engines (FABEMU_ENGINES, route.h).
FABEMU_ENGINES(YarcUpDown, input_queued, input_queued_islip, yarc_tiled, output_queued_ideal)
