// The packet codecs, one list. Each codec is a struct in its own header
// (yarc_codec.h, t3e_codec.h) that describes itself (CodecInfo: name, unit
// bytes, limits, capture profile, the profiles and families that choose
// it) and implements the fast path's calls; adding one is its header, a
// CodecKind value and an entry in Codecs below. The engine keeps the kind
// chosen once at start-up (codec_for, the one selection rule) and every
// call below dispatches on it at compile time over the list (no virtual
// call per packet, STYLE 7). encode_packet at injection writes the
// profile's bit-level encoding into the mbuf; decode_check at delivery
// checks the bytes that crossed the fabric still say what the packet's
// metadata says.
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

#include "dataplane/codec/codec_info.h"
#include "dataplane/codec/mesh3d_codec.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/codec/spider_codec.h"
#include "dataplane/codec/t3e_codec.h"
#include "dataplane/codec/yarc_codec.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

template <class... C>
struct CodecList {};
// The last is the fallback: the codec of every fabric no other one claims,
// and of an unknown kind.
using Codecs = CodecList<T3eFlitCodec, SpiderCodec, Mesh3dCodec, YarcPhitCodec>;

namespace codec_detail {
template <class F, class First, class... Rest>
__attribute__((always_inline)) inline decltype(auto) dispatch(CodecKind k, F&& f) {
  if constexpr (sizeof...(Rest) == 0) {
    static_assert(First::info.fallback, "the last codec of Codecs is the fallback");
    return f(First{});
  } else {
    if (k == First::info.kind) return f(First{});
    return dispatch<F, Rest...>(k, static_cast<F&&>(f));
  }
}
template <class F, class... C>
__attribute__((always_inline)) inline decltype(auto) dispatch_list(CodecList<C...>, CodecKind k,
                                                                 F&& f) {
  return dispatch<F, C...>(k, static_cast<F&&>(f));
}
}  // namespace codec_detail

// Calls f with the codec of kind k (a default-constructed codec struct,
// whose static members f uses).
template <class F>
__attribute__((always_inline)) inline decltype(auto) with_codec(CodecKind k, F&& f) {
  return codec_detail::dispatch_list(Codecs{}, k, static_cast<F&&>(f));
}

// What the codec of kind k says about itself.
inline const CodecInfo& codec_info(CodecKind k) {
  return with_codec(k, [](auto c) -> const CodecInfo& { return decltype(c)::info; });
}

// Every codec's CodecInfo, in list order (the fallback last).
template <class... C>
constexpr std::array<const CodecInfo*, sizeof...(C)> codec_infos(CodecList<C...>) {
  return {&C::info...};
}

// The one selection rule: the codec that lists the profile; for a profile
// none lists (custom), the one that lists the topology family; else the
// fallback. t3e: T3E flits (and a custom torus); spider: Spider
// micropackets; mesh3d: 80-bit words (and a custom mesh3d); yarc, flatfly and the
// rest: YARC phits (the flattened butterfly paper's packets are abstract;
// its authors built YARC).
inline CodecKind codec_for(std::string_view profile, std::string_view family) {
  constexpr auto all = codec_infos(Codecs{});
  auto lists = [](const std::string_view(&names)[4], std::string_view name) {
    return !name.empty() && std::find(std::begin(names), std::end(names), name) != std::end(names);
  };
  for (const CodecInfo* c : all)
    if (lists(c->profiles, profile)) return c->kind;
  for (const CodecInfo* c : all)
    if (lists(c->families, family)) return c->kind;
  return all.back()->kind;
}

inline const char* codec_name(CodecKind k) { return codec_info(k).name.data(); }

// The profile's flow-control format. header_units: YARC head + hash +
// transport header phits (6 for a 32-byte write); T3E header flits (2).
// max_units: YARC 19, T3E 10.
inline PacketFormat codec_format(CodecKind k, uint32_t header_units, uint32_t max_units) {
  return with_codec(k, [&](auto c) { return c.format(header_units, max_units); });
}

// Bytes one flow unit takes in a packet buffer: a T3E flit 9, a YARC phit 3,
// a Spider micropacket 20.
inline uint32_t codec_unit_bytes(CodecKind k) { return codec_info(k).unit_bytes; }

// Data room of a packet buffer (rte_pktmbuf_pool_create's data_room_size):
// DPDK's headroom, which the data room includes, plus the longest encoded
// packet. The engine's pools use it; codec_check.h encodes into it.
inline uint16_t packet_data_room(CodecKind k, uint32_t max_units) {
  return static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + max_units * codec_unit_bytes(k));
}

// Writes the encoding of the packet described by meta (meta.units long,
// carrying meta.payload_bytes of payload, which may be nullptr for synthetic
// traffic) into the empty mbuf m. Returns the units written (= meta.units),
// 0 if meta does not fit the format or m lacks room (m then untouched).
inline uint16_t encode_packet(CodecKind k, rte_mbuf* m, const PacketMeta& meta,
                              const uint8_t* payload) {
  return with_codec(k, [&](auto c) { return c.encode(m, meta, payload); });
}

// True when m decodes, is intact (YARC: CRC good and ok = healthy) and
// agrees with meta (length, payload bytes, destination, class, source and
// sequence fields where the header carries them).
inline bool decode_check(CodecKind k, const rte_mbuf* m, const PacketMeta& meta) {
  return with_codec(k, [&](auto c) { return c.check(m, meta); });
}

// Copies the payload carried by the packet in m to out (room bytes) and
// returns its length; -1 when m does not decode, is damaged (YARC: CRC bad or
// ok not healthy) or the payload does not fit. Frames crossing the fabric
// are rebuilt from this at their egress endpoint.
inline int decode_payload(CodecKind k, const rte_mbuf* m, uint8_t* out, uint32_t room) {
  return with_codec(k, [&](auto c) { return c.decode_payload(m, out, room); });
}

// ---- link-level protection (dataplane/link/go_back_n.h) --------------------
// The bits a link's CRC checks in a packet of `units`, where bit errors are
// drawn (each codec says which).
inline uint32_t packet_checked_bits(CodecKind k, uint32_t units) {
  return with_codec(k, [&](auto c) { return c.checked_bits(units); });
}

// Flips checked bit `bit` (counted from the least significant bit of the
// first unit's word; units are big-endian words) of the packet in m.
inline void flip_checked_bit(CodecKind k, rte_mbuf* m, uint32_t units, uint32_t bit) {
  with_codec(k, [&](auto c) { c.flip_checked_bit(m, units, bit); });
}

// The CRC the receiving link control block checks (YARC: the EOP CRC-16 in
// the packet; T3E: the link's CRC-16 over the flits, sealed where the
// packet is made).
inline void link_crc_seal(CodecKind k, rte_mbuf* m) {
  with_codec(k, [&](auto c) { c.link_crc_seal(m); });
}
inline bool link_crc_ok(CodecKind k, const rte_mbuf* m) {
  return with_codec(k, [&](auto c) { return c.link_crc_ok(m); });
}

// Packet m's encoding written again from its metadata (a changed route) and
// its own payload, sealed with the link CRC when `seal`; false when it
// could not be (a copy whose damage the CRC missed keeps its bytes: true).
inline bool reencode_packet(CodecKind k, rte_mbuf* m, const PacketMeta& meta, bool seal) {
  std::vector<uint8_t> payload(rte_pktmbuf_data_len(m) + 1u);
  const int n = decode_payload(k, m, payload.data(), static_cast<uint32_t>(payload.size()));
  if (n < 0) return true;
  rte_pktmbuf_trim(m, static_cast<uint16_t>(rte_pktmbuf_pkt_len(m)));
  if (encode_packet(k, m, meta, payload.data()) == 0) return false;
  if (seal) link_crc_seal(k, m);
  return true;
}

// A packet moved on before its CRC failed (speculative forwarding): it is
// marked transmit error with a corrected CRC (BlackWidow §4.3; YARC: the EOP
// ok field) so that later links take it, and its destination discards it.
inline void mark_transmit_error(CodecKind k, rte_mbuf* m) {
  meta(m)->flags |= kPktTransmitError;
  with_codec(k, [&](auto c) { c.mark_transmit_error(m); });
}

// ---- capture (dataplane/link/capture_tap.h) ---------------------------------
// The capture's copy of a packet (len bytes at `bytes`) made to show the
// fields that change per hop as they are on the link where it is captured
// (Spider: the header's direction and age, the VC tags, the LLP sequence
// numbers from `first_seq`, units counted on the link). Only captures pay
// for it; codecs whose bytes do not change per hop leave the copy alone.
inline void refresh_capture(CodecKind k, uint8_t* bytes, uint32_t len, const PacketMeta& pm,
                            uint8_t vc, uint32_t first_seq) {
  with_codec(k, [&](auto c) {
    if constexpr (requires { c.refresh_capture(bytes, len, pm, vc, first_seq); })
      c.refresh_capture(bytes, len, pm, vc, first_seq);
  });
}

}  // namespace fabemu
