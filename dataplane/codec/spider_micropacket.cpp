#include "dataplane/codec/spider_micropacket.h"

#include <cstring>

#include "dataplane/codec/crc16.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/spider_header.h"

namespace fabemu {

namespace {

__extension__ typedef unsigned __int128 Word;  // a micropacket's 128 data bits

Word rd128(const uint8_t* p) {
  Word w = 0;
  for (uint32_t i = 0; i < kSpiderDataBytes; i++) w = (w << 8) | p[i];
  return w;
}
void wr128(uint8_t* p, Word w) {
  for (int i = kSpiderDataBytes - 1; i >= 0; i--, w >>= 8) p[i] = static_cast<uint8_t>(w);
}
uint64_t field(Word w, uint32_t lsb, uint32_t bits) {
  return static_cast<uint64_t>(w >> lsb) & ((uint64_t{1} << bits) - 1);
}
Word put(uint64_t v, uint32_t lsb) { return Word{v} << lsb; }

constexpr uint32_t kVectorBits = 40;
constexpr uint32_t kReservedLsb = 23, kReservedBits = 2;

uint16_t stored_crc(const uint8_t* p) {
  return static_cast<uint16_t>(p[kSpiderCrcByte] | (p[kSpiderCrcByte + 1] << 8));
}
void store_crc(uint8_t* p, uint16_t crc) {
  p[kSpiderCrcByte] = static_cast<uint8_t>(crc);
  p[kSpiderCrcByte + 1] = static_cast<uint8_t>(crc >> 8);
}

Word header_word(const SpiderHead& h, uint32_t payload_bytes) {
  return put(h.msg_seq, kSpiderHdrMsgSeq) | put(h.src, kSpiderHdrSrc) | put(h.seg, kSpiderHdrSeg) |
         put(h.nseg, kSpiderHdrNseg) | put(h.response, kSpiderHdrClass) |
         put(h.vector, kSpiderHdrVector) | put(payload_bytes, kSpiderHdrBytes) |
         put(h.vector_route, kSpiderHdrVectorRoute) | put(h.dst, kSpiderHdrDest) |
         put(h.direction, kSpiderHdrDir) | put(h.age, kSpiderHdrAge) | put(h.cc, kSpiderHdrCc);
}

bool fits(const SpiderHead& h) {
  return h.dst < kSpiderMaxEndpoints && h.src < kSpiderMaxEndpoints && h.direction <= 0xF &&
         h.cc <= 3 && h.msg_seq <= kSpiderMsgSeqMask && h.seg <= kSpiderSegMask &&
         h.nseg <= kSpiderSegMask && h.vector_route < (uint64_t{1} << kVectorBits);
}

uint8_t llp_byte(uint32_t seq, uint32_t ack) {
  return static_cast<uint8_t>(((seq & kSpiderSeqMask) << 4) | (ack & kSpiderSeqMask));
}

}  // namespace

uint8_t spider_sideband_byte(const SpiderSideband& s) {
  const uint32_t vch = s.vch & 3u, vcr = s.vcr & 3u;
  switch (s.row) {
    case SpiderSbRow::credit:
      if (!s.error)
        return static_cast<uint8_t>((s.tail << 6) | (vcr << 4) | ((s.credit & 3u) << 2) | vch);
      return static_cast<uint8_t>(0x80 | (s.tail << 5) | (vcr << 3) | ((s.credit & 1u) << 2) | vch);
    case SpiderSbRow::no_credit:
      return static_cast<uint8_t>(0xC0 | (s.error << 4) | (s.tail << 3) | (s.reserved << 2) | vch);
    case SpiderSbRow::credit_only:
      return static_cast<uint8_t>(0xE0 | (vcr << 3) | (s.credit & 7u));
  }
  return 0;
}

SpiderSideband spider_sideband(uint8_t b) {
  SpiderSideband s;
  if ((b & 0x80) == 0) {  // 0 T Vcr1 Vcr0 Cr1 Cr0 Vch1 Vch0
    s.row = SpiderSbRow::credit;
    s.tail = b & 0x40;
    s.vcr = (b >> 4) & 3;
    s.credit = (b >> 2) & 3;
  } else if ((b & 0xC0) == 0x80) {  // 1 0 T Vcr1 Vcr0 Cr0 Vch1 Vch0
    s.row = SpiderSbRow::credit;
    s.error = true;
    s.tail = b & 0x20;
    s.vcr = (b >> 3) & 3;
    s.credit = (b >> 2) & 1;
  } else if ((b & 0xE0) == 0xC0) {  // 1 1 0 Er T R Vch1 Vch0
    s.row = SpiderSbRow::no_credit;
    s.error = b & 0x10;
    s.tail = b & 0x08;
    s.reserved = b & 0x04;
  } else {  // 1 1 1 Vcr1 Vcr0 Cr2 Cr1 Cr0
    s.row = SpiderSbRow::credit_only;
    s.vcr = (b >> 3) & 3;
    s.credit = b & 7;
    return s;
  }
  s.vch = b & 3;
  return s;
}

SpiderCrc spider_mp_crc(const uint8_t* p) {
  const uint16_t crc = crc16_ccitt(p, kSpiderCoveredBytes);
  const uint16_t got = stored_crc(p);
  if (got == crc) return SpiderCrc::good;
  return got == (crc ^ kSpiderStomp) ? SpiderCrc::stomped : SpiderCrc::bad;
}

void spider_mp_seal(uint8_t* p, bool stomp) {
  store_crc(
      p, static_cast<uint16_t>(crc16_ccitt(p, kSpiderCoveredBytes) ^ (stomp ? kSpiderStomp : 0)));
}

PacketFormat spider_format(uint32_t header_units, uint32_t max_units) {
  // No tail unit (the tail is a sideband bit), 128 payload bits a unit.
  return PacketFormat{header_units, 0, kSpiderDataBytes * 8, max_units, 1};
}

uint32_t spider_micropackets_for(uint32_t payload_bytes) {
  if (payload_bytes > kSpiderMaxPayloadBytes) return 0;
  return 1 + (payload_bytes + kSpiderDataBytes - 1) / kSpiderDataBytes;
}

uint16_t spider_encode(rte_mbuf* m, const SpiderHead& head, const uint8_t* payload,
                       uint32_t payload_bytes, uint8_t vc) {
  if (m->nb_segs != 1 || m->pkt_len != 0 || !fits(head) || vc > 3) return 0;
  const uint32_t n = spider_micropackets_for(payload_bytes);
  if (n == 0) return 0;
  auto* p =
      reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(n * kSpiderMpBytes)));
  if (p == nullptr) return 0;
  wr128(p, header_word(head, payload_bytes));
  for (uint32_t i = 1, off = 0; i < n; i++, off += kSpiderDataBytes) {
    uint8_t* d = p + i * kSpiderMpBytes;
    const uint32_t left = payload_bytes - off;
    std::memset(d, 0, kSpiderDataBytes);
    if (payload != nullptr)
      std::memcpy(d, payload + off, left < kSpiderDataBytes ? left : kSpiderDataBytes);
  }
  SpiderSideband sb;
  sb.vch = vc;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t* q = p + i * kSpiderMpBytes;
    sb.tail = i == n - 1;
    q[kSpiderSidebandByte] = spider_sideband_byte(sb);
    q[kSpiderLlpByte] = llp_byte(i, 0);
    spider_mp_seal(q, false);
  }
  return static_cast<uint16_t>(n);
}

bool spider_decode(const rte_mbuf* m, SpiderDecoded& out) {
  if (m->nb_segs != 1) return false;
  const uint32_t len = m->data_len;
  const uint32_t n = len / kSpiderMpBytes;
  if (n * kSpiderMpBytes != len || n == 0 || n > kSpiderMaxMicropackets) return false;
  const uint8_t* p = rte_pktmbuf_mtod(m, const uint8_t*);
  const Word w = rd128(p);
  const uint32_t bytes = static_cast<uint32_t>(field(w, kSpiderHdrBytes, 8));
  if (spider_micropackets_for(bytes) != n || field(w, kReservedLsb, kReservedBits) != 0)
    return false;
  const uint8_t vc = spider_sideband(p[kSpiderSidebandByte]).vch;
  out.intact = true;
  out.stomped = false;
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t* q = p + i * kSpiderMpBytes;
    const SpiderSideband s = spider_sideband(q[kSpiderSidebandByte]);
    if (s.row == SpiderSbRow::credit_only || s.reserved || s.tail != (i == n - 1) || s.vch != vc)
      return false;
    const SpiderCrc c = spider_mp_crc(q);
    out.intact &= c == SpiderCrc::good;
    out.stomped |= c == SpiderCrc::stomped;
  }
  SpiderHead& h = out.head;
  h.msg_seq = static_cast<uint32_t>(field(w, kSpiderHdrMsgSeq, 24));
  h.src = static_cast<uint16_t>(field(w, kSpiderHdrSrc, 9));
  h.seg = static_cast<uint16_t>(field(w, kSpiderHdrSeg, 10));
  h.nseg = static_cast<uint16_t>(field(w, kSpiderHdrNseg, 10));
  h.response = field(w, kSpiderHdrClass, 1);
  h.vector = field(w, kSpiderHdrVector, 1);
  h.vector_route = field(w, kSpiderHdrVectorRoute, kVectorBits);
  h.dst = static_cast<uint16_t>(field(w, kSpiderHdrDest, 9));
  h.direction = static_cast<uint8_t>(field(w, kSpiderHdrDir, 4));
  h.age = static_cast<uint8_t>(field(w, kSpiderHdrAge, 8));
  h.cc = static_cast<uint8_t>(field(w, kSpiderHdrCc, 2));
  out.micropackets = static_cast<uint8_t>(n);
  out.payload_bytes = static_cast<uint8_t>(bytes);
  out.vc = vc;
  for (uint32_t i = 0; i < bytes; i++)
    out.payload[i] = p[(1 + i / kSpiderDataBytes) * kSpiderMpBytes + i % kSpiderDataBytes];
  return true;
}

bool spider_link_crc_ok(const rte_mbuf* m) {
  const uint8_t* p = rte_pktmbuf_mtod(m, const uint8_t*);
  const uint32_t n = rte_pktmbuf_data_len(m) / kSpiderMpBytes;
  for (uint32_t i = 0; i < n; i++)
    if (spider_mp_crc(p + i * kSpiderMpBytes) == SpiderCrc::bad) return false;
  return true;
}

void spider_stomp(rte_mbuf* m) {
  uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
  const uint32_t n = rte_pktmbuf_data_len(m) / kSpiderMpBytes;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t* q = p + i * kSpiderMpBytes;
    if (spider_mp_crc(q) != SpiderCrc::bad) continue;
    spider_mp_seal(q, true);
    any = true;
  }
  if (!any && n > 0) spider_mp_seal(p + (n - 1) * kSpiderMpBytes, true);
}

uint16_t spider_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
  if (spider_micropackets_for(meta.payload_bytes) != meta.units) return 0;
  SpiderHead h;
  if (meta.dst >= kSpiderMaxEndpoints || meta.src >= kSpiderMaxEndpoints) return 0;
  h.dst = static_cast<uint16_t>(meta.dst);
  h.src = static_cast<uint16_t>(meta.src);
  h.direction = SpiderHeader::direction(meta) & 0xF;
  h.age = SpiderHeader::age(meta);
  h.cc = SpiderHeader::cc(meta);
  h.msg_seq = meta.msg_seq & kSpiderMsgSeqMask;
  h.seg = meta.seg & kSpiderSegMask;
  h.nseg = meta.nseg & kSpiderSegMask;
  h.response = meta.cls == uint8_t(TrafficClass::response);
  h.vector = SpiderHeader::vector_routed(meta);
  for (uint32_t i = 0; i < kSpiderMaxVectorSteps; i++)
    h.vector_route |= uint64_t{SpiderHeader::vector_direction(meta, i)} << (4 * i);
  return spider_encode(m, h, payload, meta.payload_bytes, meta.vc & 3);
}

bool spider_check_meta(const rte_mbuf* m, const PacketMeta& meta) {
  SpiderDecoded d;
  if (!spider_decode(m, d) || !d.intact) return false;
  const SpiderHead& h = d.head;
  return d.micropackets == meta.units && d.payload_bytes == meta.payload_bytes &&
         h.dst == meta.dst && h.src == meta.src &&
         h.response == (meta.cls == uint8_t(TrafficClass::response)) &&
         h.msg_seq == (meta.msg_seq & kSpiderMsgSeqMask) && h.seg == (meta.seg & kSpiderSegMask) &&
         h.nseg == (meta.nseg & kSpiderSegMask);
}

void spider_refresh(uint8_t* bytes, uint32_t len, const PacketMeta& meta, uint8_t vc,
                    uint32_t first_seq) {
  const uint32_t n = len / kSpiderMpBytes;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t* q = bytes + i * kSpiderMpBytes;
    // The CRC's error (stored ^ computed) before the change is kept after it.
    const uint16_t syndrome = stored_crc(q) ^ crc16_ccitt(q, kSpiderCoveredBytes);
    if (i == 0) {
      const Word keep =
          ~(put(0xF, kSpiderHdrDir) | put(0xFF, kSpiderHdrAge) | put(3, kSpiderHdrCc));
      wr128(q, (rd128(q) & keep) | put(SpiderHeader::direction(meta) & 0xF, kSpiderHdrDir) |
                   put(SpiderHeader::age(meta), kSpiderHdrAge) |
                   put(SpiderHeader::cc(meta), kSpiderHdrCc));
    }
    SpiderSideband s = spider_sideband(q[kSpiderSidebandByte]);
    if (s.row != SpiderSbRow::credit_only) {
      s.vch = vc & 3;
      q[kSpiderSidebandByte] = spider_sideband_byte(s);
    }
    q[kSpiderLlpByte] = llp_byte(first_seq + i, q[kSpiderLlpByte]);
    store_crc(q, static_cast<uint16_t>(crc16_ccitt(q, kSpiderCoveredBytes) ^ syndrome));
  }
}

}  // namespace fabemu
