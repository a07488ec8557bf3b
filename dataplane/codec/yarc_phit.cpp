#include "dataplane/codec/yarc_phit.h"

#include <rte_byteorder.h>

#include <cstring>

#include "dataplane/codec/crc16.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

namespace {

inline uint32_t rd24(const uint8_t* p) {
  return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2];
}
inline void wr24(uint8_t* p, uint32_t w) {
  p[0] = static_cast<uint8_t>(w >> 16);
  p[1] = static_cast<uint8_t>(w >> 8);
  p[2] = static_cast<uint8_t>(w);
}

// Payload bytes that fill whole phits: 11 bytes, 88 bits, 4 phits.
constexpr uint32_t kBlockBytes = 11;
static_assert(kBlockBytes * 8 == 4 * kYarcDataBits);

// The 4 phit words of an 11-byte block, MSB first.
inline void block_words(const uint8_t* b, uint32_t w[4]) {
  uint64_t hi;  // bytes 0..7: bits 87..24
  std::memcpy(&hi, b, sizeof(hi));
  hi = rte_be_to_cpu_64(hi);
  const uint32_t lo = rd24(b + 8);  // bits 23..0
  w[0] = static_cast<uint32_t>(hi >> 42);
  w[1] = static_cast<uint32_t>(hi >> 20) & kYarcDataMask;
  w[2] = (static_cast<uint32_t>(hi & 0xFFFFF) << 2) | (lo >> 22);
  w[3] = lo & kYarcDataMask;
}

// An 11-byte block as 4 phits: 12 bytes in two stores.
inline void write_block(uint8_t* q, const uint8_t* b) {
  uint32_t w[4];
  block_words(b, w);
  const uint64_t head =
      rte_cpu_to_be_64((uint64_t{w[0]} << 40) | (uint64_t{w[1]} << 16) | (w[2] >> 8));
  const uint32_t tail = rte_cpu_to_be_32(((w[2] & 0xFFu) << 24) | w[3]);
  std::memcpy(q, &head, sizeof(head));
  std::memcpy(q + 8, &tail, sizeof(tail));
}

inline uint32_t payload_phits(uint32_t bytes) {
  return (bytes * 8 + kYarcDataBits - 1) / kYarcDataBits;
}

// The packet is the whole data of a single-segment mbuf.
inline bool span(const rte_mbuf* m, const uint8_t*& p, uint32_t& n) {
  if (m->nb_segs != 1) return false;
  const uint32_t len = m->data_len;
  n = len / kYarcPhitBytes;
  if (n * kYarcPhitBytes != len || n < kYarcMinPhits || n > kYarcMaxPhits) return false;
  p = rte_pktmbuf_mtod(m, const uint8_t*);
  return true;
}

// CRC over the data bits of phits 0..n-2 and the EOP's reserved and pad bits,
// sideband (and the EOP's ok and CRC) as zero. rte_net_crc cannot continue a
// CRC across calls, so the masked bytes are gathered into one buffer.
uint16_t packet_crc(const uint8_t* p, uint32_t n) {
  uint8_t buf[kYarcMaxPhits * kYarcPhitBytes];
  const uint32_t len = (n - 1) * kYarcPhitBytes;
  std::memcpy(buf, p, len);
  for (uint32_t i = 0; i < len; i += kYarcPhitBytes) buf[i] &= 0x3F;
  buf[len] = p[len] & 0x3C;  // EOP data[21:18]: reserved + pad
  return crc16_ccitt(buf, len + 1);
}

void write_crc(uint8_t* p, uint32_t n) {
  const uint16_t crc = packet_crc(p, n);
  uint8_t* eop = p + (n - 1) * kYarcPhitBytes;
  eop[1] = static_cast<uint8_t>(crc >> 8);
  eop[2] = static_cast<uint8_t>(crc);
}

bool parse(const rte_mbuf* m, YarcDecoded& out, bool copy_payload) {
  const uint8_t* p;
  uint32_t n;
  if (!span(m, p, n)) {
    out.crc_ok = false;
    out.ok = YarcOk::reserved;
    return false;
  }
  const uint32_t eop = rd24(p + (n - 1) * kYarcPhitBytes) & kYarcDataMask;
  out.phits = static_cast<uint16_t>(n);
  out.crc = static_cast<uint16_t>(eop & kYarcEopCrcMask);
  out.ok = static_cast<YarcOk>((eop >> kYarcEopOkShift) & 3);
  out.crc_ok = packet_crc(p, n) == out.crc;
  const uint32_t pad = (eop >> kYarcEopPadShift) & 3;
  if ((eop >> 20) != 0 || pad > 2) return false;

  const uint32_t head = rd24(p) & kYarcDataMask;
  YarcHead& h = out.head;
  h.dest = static_cast<uint16_t>((head >> kYarcHeadDestShift) & kYarcHeadDestMask);
  h.v = (head >> kYarcHeadVBit) & 1;
  h.h = (head >> kYarcHeadHBit) & 1;
  h.a = (head >> kYarcHeadABit) & 1;
  h.r = (head >> kYarcHeadRBit) & 1;
  const uint32_t hlen = head & kYarcHeadHlenMask;
  out.hlen = static_cast<uint8_t>(hlen);
  const uint32_t fixed = 2 + h.h + hlen;  // head, hash, transport, EOP
  if (fixed > n) return false;
  uint32_t i = 1;
  h.hash = 0;
  if (h.h) {
    const uint32_t hash = rd24(p + kYarcPhitBytes) & kYarcDataMask;
    if (hash > kYarcHashMask) return false;
    h.hash = static_cast<uint16_t>(hash);
    i++;
  }
  for (uint32_t k = 0; k < kYarcMaxHlen; k++)
    h.xhdr[k] = k < hlen ? rd24(p + (i + k) * kYarcPhitBytes) & kYarcDataMask : 0;
  i += hlen;

  const uint32_t np = n - fixed;
  const uint32_t cap = np * kYarcDataBits / 8;
  if (pad > cap) return false;
  const uint32_t bytes = cap - pad;
  if (payload_phits(bytes) != np) return false;  // only the shortest encoding is valid
  out.payload_phits = static_cast<uint16_t>(np);
  out.payload_bytes = static_cast<uint16_t>(bytes);
  if (!copy_payload) return true;

  // Unpack the 22-bit stream MSB first. acc never holds more than 29 bits.
  uint64_t acc = 0;
  uint32_t bits = 0, o = 0;
  for (uint32_t k = 0; k < np; k++) {
    acc = (acc << kYarcDataBits) | (rd24(p + (i + k) * kYarcPhitBytes) & kYarcDataMask);
    bits += kYarcDataBits;
    while (bits >= 8 && o < bytes) {
      bits -= 8;
      out.payload[o++] = static_cast<uint8_t>(acc >> bits);
    }
    acc &= (uint64_t{1} << bits) - 1;
  }
  return true;
}

}  // namespace

PacketFormat yarc_format(uint32_t header_units, uint32_t max_units) {
  PacketFormat f;
  f.header_units = header_units;
  f.tail_units = 1;
  f.payload_bits_per_unit = kYarcDataBits;
  f.max_units = max_units;
  f.min_units = kYarcMinPhits;
  return f;
}

uint32_t yarc_phits_for(bool h, uint32_t extra_header_phits, uint32_t payload_bytes) {
  if (extra_header_phits > kYarcMaxHlen || payload_bytes > kYarcMaxPayloadBytes) return 0;
  uint32_t n = 2 + h + extra_header_phits + payload_phits(payload_bytes);
  if (n < kYarcMinPhits) n = kYarcMinPhits;  // padded with transport header phits
  return n <= kYarcMaxPhits ? n : 0;
}

uint16_t yarc_encode(rte_mbuf* m, const YarcHead& head, const uint8_t* payload,
                     uint32_t payload_bytes, uint32_t extra_header_phits) {
  if (m->nb_segs != 1 || m->pkt_len != 0) return 0;
  if (head.dest > kYarcHeadDestMask || (head.h && head.hash > kYarcHashMask)) return 0;
  const uint32_t n = yarc_phits_for(head.h, extra_header_phits, payload_bytes);
  if (n == 0) return 0;
  for (uint32_t k = 0; k < extra_header_phits; k++)
    if (head.xhdr[k] > kYarcDataMask) return 0;
  const uint32_t np = payload_phits(payload_bytes);
  const uint32_t hlen = n - 2 - head.h - np;  // >= extra_header_phits when padded to 4

  auto* p =
      reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(n * kYarcPhitBytes)));
  if (p == nullptr) return 0;

  wr24(p, (uint32_t{head.dest} << kYarcHeadDestShift) | (uint32_t{head.v} << kYarcHeadVBit) |
              (uint32_t{head.h} << kYarcHeadHBit) | (uint32_t{head.a} << kYarcHeadABit) |
              (uint32_t{head.r} << kYarcHeadRBit) | hlen);
  uint8_t* q = p + kYarcPhitBytes;
  if (head.h) {
    wr24(q, head.hash);
    q += kYarcPhitBytes;
  }
  for (uint32_t k = 0; k < hlen; k++, q += kYarcPhitBytes)
    wr24(q, k < extra_header_phits ? head.xhdr[k] : 0);

  // Pack the payload MSB first into 22-bit words: 11 bytes fill exactly 4
  // phits, so it goes a block at a time; the last block is zero-filled (the
  // last phit is left-aligned, zero-filled) and writes only the phits the
  // payload has.
  uint32_t k = 0, i = 0;
  if (payload != nullptr)
    for (; i + kBlockBytes <= payload_bytes; i += kBlockBytes, k += 4, q += 4 * kYarcPhitBytes)
      write_block(q, payload + i);
  if (payload == nullptr)  // no payload to pack (the codec check): zero phits
    for (; k < np; k++, q += kYarcPhitBytes) wr24(q, 0);
  if (k < np) {
    uint8_t last[kBlockBytes] = {};
    std::memcpy(last, payload + i, payload_bytes - i);
    uint32_t w[4];
    block_words(last, w);
    for (uint32_t j = 0; k < np; j++, k++, q += kYarcPhitBytes) wr24(q, w[j]);
  }

  const uint32_t pad = np * kYarcDataBits / 8 - payload_bytes;
  // The CRC covers the data bits of every phit but the EOP and the EOP's
  // reserved and pad bits (packet_crc). A fresh encoding has no sideband
  // bits, so it is taken over the bytes in place, the EOP holding its pad
  // alone meanwhile: no masked copy.
  wr24(q, pad << kYarcEopPadShift);
  const uint16_t crc = crc16_ccitt(p, (n - 1) * kYarcPhitBytes + 1);
  wr24(q, (pad << kYarcEopPadShift) | (uint32_t(YarcOk::healthy) << kYarcEopOkShift) | crc);
  return static_cast<uint16_t>(n);
}

bool yarc_decode(const rte_mbuf* m, YarcDecoded& out) { return parse(m, out, true); }

bool yarc_crc_ok(const rte_mbuf* m) {
  const uint8_t* p;
  uint32_t n;
  if (!span(m, p, n)) return false;
  const uint8_t* eop = p + (n - 1) * kYarcPhitBytes;
  return packet_crc(p, n) == ((uint32_t{eop[1]} << 8) | eop[2]);
}

YarcOk yarc_get_ok(const rte_mbuf* m) {
  const uint8_t* p;
  uint32_t n;
  if (!span(m, p, n)) return YarcOk::reserved;
  return static_cast<YarcOk>((p[(n - 1) * kYarcPhitBytes] >> (kYarcEopOkShift - 16)) & 3);
}

bool yarc_mark(rte_mbuf* m, YarcOk ok) {
  const uint8_t* cp;
  uint32_t n;
  if (!span(m, cp, n)) return false;
  uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
  uint8_t* eop = p + (n - 1) * kYarcPhitBytes;
  eop[0] = static_cast<uint8_t>((eop[0] & ~0x03u) | (uint32_t(ok) & 3));
  write_crc(p, n);
  return true;
}

bool yarc_set_sideband(rte_mbuf* m, uint32_t phit, uint8_t bits) {
  const uint8_t* cp;
  uint32_t n;
  if (!span(m, cp, n) || phit >= n) return false;
  uint8_t* b = rte_pktmbuf_mtod(m, uint8_t*) + phit * kYarcPhitBytes;
  *b = static_cast<uint8_t>((*b & 0x3F) | ((bits & 3u) << 6));
  return true;
}

uint8_t yarc_get_sideband(const rte_mbuf* m, uint32_t phit) {
  const uint8_t* p;
  uint32_t n;
  if (!span(m, p, n) || phit >= n) return 0;
  return p[phit * kYarcPhitBytes] >> 6;
}

uint32_t yarc_phit_data(const rte_mbuf* m, uint32_t phit) {
  const uint8_t* p;
  uint32_t n;
  if (!span(m, p, n) || phit >= n) return UINT32_MAX;
  return rd24(p + phit * kYarcPhitBytes) & kYarcDataMask;
}

uint16_t yarc_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
  const uint32_t units = meta.units;
  const uint32_t bytes = meta.payload_bytes;
  if (bytes > kYarcMaxPayloadBytes || meta.dst > kYarcHeadDestMask || meta.src > kYarcHeadDestMask)
    return 0;
  const uint32_t np = payload_phits(bytes);
  if (units < kYarcMinPhits || units < np + 2) return 0;
  const uint32_t hdr = units - np - 1;  // head + hash + transport header
  const bool response = meta.cls == uint8_t(TrafficClass::response);
  YarcHead h;
  h.dest = static_cast<uint16_t>(meta.dst);
  h.v = response;
  // Requests go deterministically, hashed on address bits, to keep
  // same-address ordering; responses route adaptively (section 5).
  h.h = !response && hdr >= 2;
  h.a = response;
  h.hash = static_cast<uint16_t>(meta.hash & kYarcHashMask);
  const uint32_t x = hdr - 1 - h.h;
  if (x > kYarcMaxHlen) return 0;
  h.xhdr[0] = (meta.src << 7) | (meta.flags & 0x7Fu);
  h.xhdr[1] = meta.msg_seq & kYarcDataMask;
  h.xhdr[2] = ((meta.seg & 0x7FFu) << 11) | (meta.nseg & 0x7FFu);
  h.xhdr[3] = static_cast<uint32_t>(meta.id) & kYarcDataMask;
  return yarc_encode(m, h, payload, bytes, x);
}

bool yarc_check_meta(const rte_mbuf* m, const PacketMeta& meta) {
  YarcDecoded d;
  if (!parse(m, d, false) || !d.crc_ok || d.ok != YarcOk::healthy) return false;
  const YarcHead& h = d.head;
  bool good = d.phits == meta.units && d.payload_bytes == meta.payload_bytes &&
              h.dest == meta.dst && h.v == (meta.cls == uint8_t(TrafficClass::response)) &&
              (!h.h || h.hash == (meta.hash & kYarcHashMask));
  if (d.hlen > 0) good &= (h.xhdr[0] >> 7) == meta.src;
  if (d.hlen > 1) good &= h.xhdr[1] == (meta.msg_seq & kYarcDataMask);
  if (d.hlen > 2) good &= h.xhdr[2] == (((meta.seg & 0x7FFu) << 11) | (meta.nseg & 0x7FFu));
  if (d.hlen > 3) good &= h.xhdr[3] == (static_cast<uint32_t>(meta.id) & kYarcDataMask);
  return good;
}

}  // namespace fabemu
