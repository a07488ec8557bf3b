#include "dataplane/codec/t3e_flit.h"

#include <rte_byteorder.h>

#include <cstring>

#include "dataplane/codec/packet_format.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

namespace {

// Flit words are big-endian on the wire.
inline uint64_t rd64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return rte_be_to_cpu_64(w);
}
inline void wr64(uint8_t* p, uint64_t w) {
  w = rte_cpu_to_be_64(w);
  std::memcpy(p, &w, sizeof(w));
}
inline void wr_flit(uint8_t* p, uint8_t ctl, uint64_t word) {
  p[0] = ctl;
  wr64(p + 1, word);
}

inline uint32_t payload_flits(uint32_t bytes) {
  return (bytes + kT3eWordBytes - 1) / kT3eWordBytes;
}

// Header flit 0 fields.
constexpr int kDstShift = 48;
constexpr int kCmdShift = 42;
constexpr int kBytesShift = 35;
constexpr int kHdrShift = 32;
// Header flit 1 fields.
constexpr int kSrcShift = 48;
constexpr int kSeqShift = 24;
constexpr int kSegShift = 12;
constexpr uint32_t kSeqMask = 0xFFFFFF;
constexpr uint32_t kSegMask = 0xFFF;

bool parse(const rte_mbuf* m, T3eDecoded& out, bool copy_payload) {
  if (m->nb_segs != 1) return false;
  const uint32_t len = m->data_len;
  const uint32_t n = len / kT3eFlitBytes;
  if (n * kT3eFlitBytes != len || n == 0 || n > kT3eMaxFlits) return false;
  const uint8_t* p = rte_pktmbuf_mtod(m, const uint8_t*);

  const uint64_t h0 = rd64(p + 1);
  const uint32_t hdr = (h0 >> kHdrShift) & 0x7;
  const uint32_t bytes = (h0 >> kBytesShift) & 0x7F;
  if (hdr == 0 || hdr > n || payload_flits(bytes) != n - hdr) return false;
  const bool response = p[0] & kT3eCtlResponse;
  // Control bytes: head on flit 0 only, tail on the last only, header bit on
  // the first hdr flits, one class throughout, top 2 bits zero.
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t want = (i == 0 ? kT3eCtlHead : 0) | (i == n - 1 ? kT3eCtlTail : 0) |
                         (i < hdr ? kT3eCtlHeader : 0) | (response ? kT3eCtlResponse : 0);
    if ((p[i * kT3eFlitBytes] & ~kT3eCtlSideband) != want) return false;
  }

  T3eHead& h = out.head;
  h.dst = static_cast<uint16_t>(h0 >> kDstShift);
  h.cmd = static_cast<T3eCmd>((h0 >> kCmdShift) & 0x3F);
  h.response = response;
  h.route_tag = static_cast<uint32_t>(h0);
  const uint64_t h1 = hdr > 1 ? rd64(p + kT3eFlitBytes + 1) : 0;
  h.src = static_cast<uint16_t>(h1 >> kSrcShift);
  h.msg_seq = static_cast<uint32_t>(h1 >> kSeqShift) & kSeqMask;
  h.seg = static_cast<uint16_t>((h1 >> kSegShift) & kSegMask);
  h.nseg = static_cast<uint16_t>(h1 & kSegMask);
  h.addr = hdr > 2 ? rd64(p + 2 * kT3eFlitBytes + 1) : 0;
  out.header_flits = static_cast<uint8_t>(hdr);
  out.flits = static_cast<uint8_t>(n);
  out.payload_bytes = static_cast<uint8_t>(bytes);
  if (!copy_payload) return true;
  // Bytes 1..8 of each payload flit are the word, MSB (payload byte 0) first.
  const uint8_t* q = p + hdr * kT3eFlitBytes;
  for (uint32_t i = 0; i < bytes; i++)
    out.payload[i] = q[(i / kT3eWordBytes) * kT3eFlitBytes + 1 + i % kT3eWordBytes];
  return true;
}

}  // namespace

PacketFormat t3e_format(uint32_t header_flits, uint32_t max_flits) {
  PacketFormat f;
  f.header_units = header_flits;
  f.tail_units = 0;
  f.payload_bits_per_unit = kT3eWordBytes * 8;
  f.max_units = max_flits;
  f.min_units = 1;
  return f;
}

uint32_t t3e_flits_for(uint32_t header_flits, uint32_t payload_bytes) {
  if (header_flits == 0 || header_flits > kT3eMaxHeaderFlits || payload_bytes > kT3eMaxPayloadBytes)
    return 0;
  const uint32_t n = header_flits + payload_flits(payload_bytes);
  return n <= kT3eMaxFlits ? n : 0;
}

uint16_t t3e_encode(rte_mbuf* m, const T3eHead& head, const uint8_t* payload,
                    uint32_t payload_bytes, uint32_t header_flits) {
  if (m->nb_segs != 1 || m->pkt_len != 0) return 0;
  const uint32_t n = t3e_flits_for(header_flits, payload_bytes);
  if (n == 0) return 0;
  if (header_flits > 1 && (head.msg_seq > kSeqMask || head.seg > kSegMask || head.nseg > kSegMask))
    return 0;
  auto* p =
      reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(n * kT3eFlitBytes)));
  if (p == nullptr) return 0;

  const uint8_t cls = head.response ? kT3eCtlResponse : 0;
  auto ctl = [&](uint32_t i) -> uint8_t {
    return static_cast<uint8_t>((i == 0 ? kT3eCtlHead : 0) | (i == n - 1 ? kT3eCtlTail : 0) |
                                (i < header_flits ? kT3eCtlHeader : 0) | cls);
  };
  wr_flit(p, ctl(0),
          (uint64_t{head.dst} << kDstShift) | (uint64_t(uint8_t(head.cmd) & 0x3F) << kCmdShift) |
              (uint64_t{payload_bytes} << kBytesShift) | (uint64_t{header_flits} << kHdrShift) |
              head.route_tag);
  if (header_flits > 1)
    wr_flit(p + kT3eFlitBytes, ctl(1),
            (uint64_t{head.src} << kSrcShift) | (uint64_t{head.msg_seq} << kSeqShift) |
                (uint64_t{head.seg} << kSegShift) | head.nseg);
  if (header_flits > 2) wr_flit(p + 2 * kT3eFlitBytes, ctl(2), head.addr);
  for (uint32_t i = 3; i < header_flits; i++) wr_flit(p + i * kT3eFlitBytes, ctl(i), 0);

  // Payload words, payload byte 0 first; the last zero-filled. (A whole
  // word is one 8-byte copy: a copy of a variable length per flit is a call.)
  for (uint32_t i = header_flits, off = 0; i < n; i++, off += kT3eWordBytes) {
    uint8_t* f = p + i * kT3eFlitBytes;
    f[0] = ctl(i);
    uint8_t word[kT3eWordBytes] = {};
    const uint32_t left = payload_bytes - off;
    if (payload != nullptr && left >= kT3eWordBytes)
      std::memcpy(word, payload + off, kT3eWordBytes);
    else if (payload != nullptr)
      std::memcpy(word, payload + off, left);
    std::memcpy(f + 1, word, kT3eWordBytes);
  }
  return static_cast<uint16_t>(n);
}

bool t3e_decode(const rte_mbuf* m, T3eDecoded& out) { return parse(m, out, true); }

bool t3e_set_sideband(rte_mbuf* m, uint32_t flit, uint8_t bits) {
  if (m->nb_segs != 1 || (flit + 1) * kT3eFlitBytes > m->data_len) return false;
  uint8_t* b = rte_pktmbuf_mtod(m, uint8_t*) + flit * kT3eFlitBytes;
  *b = static_cast<uint8_t>((*b & ~kT3eCtlSideband) | (bits & kT3eCtlSideband));
  return true;
}

uint8_t t3e_get_sideband(const rte_mbuf* m, uint32_t flit) {
  if (m->nb_segs != 1 || (flit + 1) * kT3eFlitBytes > m->data_len) return 0;
  return rte_pktmbuf_mtod(m, const uint8_t*)[flit * kT3eFlitBytes] & kT3eCtlSideband;
}

uint16_t t3e_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
  const uint32_t bytes = meta.payload_bytes;
  const uint32_t words = payload_flits(bytes);
  if (meta.units <= words || meta.dst > 0xFFFF || meta.src > 0xFFFF) return 0;
  const bool response = meta.cls == uint8_t(TrafficClass::response);
  T3eHead h;
  h.dst = static_cast<uint16_t>(meta.dst);
  h.src = static_cast<uint16_t>(meta.src);
  h.cmd = response ? T3eCmd::data_resp : T3eCmd::data_req;
  h.response = response;
  h.route_tag = (uint32_t{meta.route[0]} << 24) | (uint32_t{meta.route[1]} << 16) |
                (uint32_t{meta.route[2]} << 8) | meta.route[3];
  h.msg_seq = meta.msg_seq & kSeqMask;
  h.seg = meta.seg & kSegMask;
  h.nseg = meta.nseg & kSegMask;
  h.addr = meta.id;
  return t3e_encode(m, h, payload, bytes, meta.units - words);
}

bool t3e_check_meta(const rte_mbuf* m, const PacketMeta& meta) {
  T3eDecoded d;
  if (!parse(m, d, false)) return false;
  const T3eHead& h = d.head;
  bool good = d.flits == meta.units && d.payload_bytes == meta.payload_bytes && h.dst == meta.dst &&
              h.response == (meta.cls == uint8_t(TrafficClass::response));
  if (d.header_flits > 1)
    good &= h.src == meta.src && h.msg_seq == (meta.msg_seq & kSeqMask) &&
            h.seg == (meta.seg & kSegMask) && h.nseg == (meta.nseg & kSegMask);
  if (d.header_flits > 2) good &= h.addr == meta.id;
  return good;
}

}  // namespace fabemu
