#include "dataplane/codec/mesh3d_packet.h"

#include <rte_byteorder.h>

#include <cstring>

#include "dataplane/codec/crc16.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/mesh3d_header.h"

namespace fabemu {

namespace {

// A word as one integer, bit i = line i: the fields are plain shifts (the
// per-packet path stays clear of Word80's bit loops).
__extension__ typedef unsigned __int128 Bits;

constexpr uint32_t kPayloadFirst = kMesh3dHeaderWords * kMesh3dWordBytes;  // byte 20
constexpr uint32_t kMaxPayloadBytes =
    (kMesh3dMaxWords - kMesh3dHeaderWords - kMesh3dTailWords) * kMesh3dWordBytes;  // 290
constexpr uint32_t kStateMask = 0x7f;
constexpr uint32_t kMaxField20 = (1u << 20) - 1;
constexpr uint32_t kMaxField10 = (1u << 10) - 1;

// Word 0 ("Etc." after the route), word 1 and the check word: first bit of each field.
constexpr uint32_t kWordsLsb = 49, kClassLsb = 54, kBytesLsb = 55, kSeqLsb = 64;
constexpr uint32_t kSrcLsb = 7, kDstLsb = 27, kSegLsb = 47, kNsegLsb = 57, kW1ReservedLsb = 67;
constexpr uint32_t kTransmitErrorLsb = 16, kCheckReservedLsb = 17;

Bits load(const uint8_t* p, uint32_t w) {
  const Word80 x = mesh3d_load(p, w);
  return (Bits{x.hi} << 64) | x.lo;
}
void store(uint8_t* p, uint32_t w, Bits b) {
  mesh3d_store(p, w, Word80{static_cast<uint64_t>(b), static_cast<uint16_t>(b >> 64)});
}
uint32_t field(Bits b, uint32_t lsb, uint32_t n) {
  return static_cast<uint32_t>(b >> lsb) & ((1u << n) - 1);
}
Bits put(uint64_t v, uint32_t lsb) { return Bits{v} << lsb; }

uint32_t words_for(uint32_t payload_bytes) {
  return mesh3d_format(kMesh3dHeaderWords, kMesh3dMaxWords).units_for(payload_bytes);
}

// The packet's words: the whole data of a single-segment mbuf, 3..32 of them.
bool span(const rte_mbuf* m, const uint8_t*& p, uint32_t& n) {
  if (m->nb_segs != 1) return false;
  const uint32_t len = m->data_len;
  n = len / kMesh3dWordBytes;
  if (n * kMesh3dWordBytes != len || n < kMesh3dMinWords || n > kMesh3dMaxWords) return false;
  p = rte_pktmbuf_mtod(m, const uint8_t*);
  return true;
}

// CRC over the words before the check word, the state (byte 0, lines 0-6)
// and its complement (byte 10) read as 0, then the check word's lines
// 16-79 (the transmit-error bit and the zero lines: a flip there is caught
// too). rte_net_crc cannot continue a CRC across calls: the masked bytes
// are gathered into one buffer.
uint16_t packet_crc(const uint8_t* p, uint32_t n) {
  constexpr uint32_t kCheckRest = kMesh3dWordBytes - 2;  // check word bytes 2..9
  uint8_t buf[kMesh3dMaxWords * kMesh3dWordBytes];
  const uint32_t len = (n - kMesh3dTailWords) * kMesh3dWordBytes;
  std::memcpy(buf, p, len);
  std::memcpy(buf + len, p + len + 2, kCheckRest);
  buf[0] &= ~kStateMask;
  buf[kMesh3dWordBytes] &= ~kStateMask;
  return crc16_ccitt(buf, len + kCheckRest);
}

uint8_t* check_word(uint8_t* p, uint32_t n) { return p + (n - 1) * kMesh3dWordBytes; }
uint16_t stored_crc(const uint8_t* c) { return static_cast<uint16_t>(c[0] | (c[1] << 8)); }
void store_crc(uint8_t* c, uint16_t crc) {
  c[0] = static_cast<uint8_t>(crc);
  c[1] = static_cast<uint8_t>(crc >> 8);
}

// The route of a first word, as mesh_decode_route reads it, from the
// shifts of Mesh3dHeader.
bool route_of(uint64_t w, MeshRoute* out) {
  MeshRoute r;
  bool ended = false;
  for (uint32_t i = 0; i < kMeshSegments; i++) {
    const uint32_t d = Mesh3dHeader::dir(w, i);
    if (d == 6) return false;
    if (d == 7) {
      ended = true;
      continue;
    }
    if (ended) return false;
    r.seg[r.segments++] = {static_cast<MeshDir>(d), static_cast<uint8_t>(Mesh3dHeader::hops(w, i))};
  }
  *out = r;
  return true;
}

// Every field but the payload; false as mesh3d_decode says.
bool parse(const rte_mbuf* m, Mesh3dDecoded& out, const uint8_t*& p) {
  uint32_t n;
  if (!span(m, p, n)) return false;
  const Bits w0 = load(p, 0), w1 = load(p, 1), wc = load(p, n - 1);
  const uint32_t bytes = field(w0, kBytesLsb, 9);
  if (field(w0, kWordsLsb, 5) + 1 != n || bytes > kMaxPayloadBytes || words_for(bytes) != n ||
      (w1 >> kW1ReservedLsb) != 0 || (wc >> kCheckReservedLsb) != 0 ||
      !route_of(static_cast<uint64_t>(w0), &out.route))
    return false;
  const uint32_t st = field(w0, 0, kMeshStateBits), comp = field(w1, 0, kMeshStateBits);
  out.state = {static_cast<uint8_t>(st & 7), static_cast<uint8_t>(st >> 3)};
  out.state_ok = (st ^ comp) == kStateMask;
  out.words = n;
  out.cls = static_cast<uint8_t>(field(w0, kClassLsb, 1));
  out.payload_bytes = bytes;
  out.seq16 = field(w0, kSeqLsb, 16);
  out.src = field(w1, kSrcLsb, 20);
  out.dst = field(w1, kDstLsb, 20);
  out.seg = field(w1, kSegLsb, 10);
  out.nseg = field(w1, kNsegLsb, 10);
  out.crc_ok = packet_crc(p, n) == field(wc, 0, 16);
  out.transmit_error = field(wc, kTransmitErrorLsb, 1);
  return true;
}

bool intact(const Mesh3dDecoded& d) { return d.crc_ok && !d.transmit_error && d.state_ok; }

}  // namespace

PacketFormat mesh3d_format(uint32_t, uint32_t max_units) {
  // The layout fixes the header: two words, whatever the spec asks.
  PacketFormat f;
  f.header_units = kMesh3dHeaderWords;
  f.tail_units = kMesh3dTailWords;
  f.payload_bits_per_unit = kMesh3dWordBits;
  f.max_units = max_units < kMesh3dMaxWords ? max_units : kMesh3dMaxWords;
  f.min_units = kMesh3dMinWords;
  return f;
}

Word80 mesh3d_load(const uint8_t* p, uint32_t w) {
  const uint8_t* q = p + w * kMesh3dWordBytes;
  uint64_t lo;
  uint16_t hi;
  std::memcpy(&lo, q, sizeof lo);
  std::memcpy(&hi, q + 8, sizeof hi);
  return Word80{rte_le_to_cpu_64(lo), rte_le_to_cpu_16(hi)};
}

void mesh3d_store(uint8_t* p, uint32_t w, const Word80& word) {
  uint8_t* q = p + w * kMesh3dWordBytes;
  const uint64_t lo = rte_cpu_to_le_64(word.lo);
  const uint16_t hi = rte_cpu_to_le_16(word.hi);
  std::memcpy(q, &lo, sizeof lo);
  std::memcpy(q + 8, &hi, sizeof hi);
}

uint16_t mesh3d_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
  const uint32_t n = meta.units, bytes = meta.payload_bytes;
  if (m->nb_segs != 1 || m->pkt_len != 0 || bytes > kMaxPayloadBytes || n != words_for(bytes) ||
      meta.src > kMaxField20 || meta.dst > kMaxField20 || meta.seg > kMaxField10 ||
      meta.nseg > kMaxField10)
    return 0;
  auto* p = reinterpret_cast<uint8_t*>(
      rte_pktmbuf_append(m, static_cast<uint16_t>(n * kMesh3dWordBytes)));
  if (p == nullptr) return 0;

  const uint64_t route = Mesh3dHeader::word(meta);
  const bool response = meta.cls == uint8_t(TrafficClass::response);
  store(p, 0,
        put(route & Mesh3dHeader::kRouteBits & ~uint64_t{kStateMask}, 0) | put(n - 1, kWordsLsb) |
            put(response, kClassLsb) | put(bytes, kBytesLsb) | put(meta.msg_seq & 0xffff, kSeqLsb));
  store(p, 1,
        put(meta.src, kSrcLsb) | put(meta.dst, kDstLsb) | put(meta.seg, kSegLsb) |
            put(meta.nseg, kNsegLsb));
  uint8_t* data = p + kPayloadFirst;
  const uint32_t room = (n - kMesh3dHeaderWords - kMesh3dTailWords) * kMesh3dWordBytes;
  const uint32_t copied = payload != nullptr ? bytes : 0;
  if (copied) std::memcpy(data, payload, copied);
  std::memset(data + copied, 0, room - copied);  // the pad, or all of it (no payload)
  uint8_t* c = check_word(p, n);
  std::memset(c, 0, kMesh3dWordBytes);
  p[0] = static_cast<uint8_t>(p[0] | Mesh3dHeader::state(route));
  p[kMesh3dWordBytes] = static_cast<uint8_t>(p[kMesh3dWordBytes] | Mesh3dHeader::complement(route));
  store_crc(c, packet_crc(p, n));
  return static_cast<uint16_t>(n);
}

bool mesh3d_decode(const rte_mbuf* m, Mesh3dDecoded& out) {
  const uint8_t* p;
  if (!parse(m, out, p)) return false;
  std::memcpy(out.payload, p + kPayloadFirst, out.payload_bytes);
  return true;
}

bool mesh3d_check_meta(const rte_mbuf* m, const PacketMeta& meta) {
  Mesh3dDecoded d;
  const uint8_t* p;
  if (!parse(m, d, p) || !intact(d)) return false;
  return d.words == meta.units && d.payload_bytes == meta.payload_bytes && d.src == meta.src &&
         d.dst == meta.dst && d.cls == (meta.cls == uint8_t(TrafficClass::response)) &&
         d.seq16 == (meta.msg_seq & 0xffff) && d.seg == meta.seg && d.nseg == meta.nseg;
}

int mesh3d_decode_payload(const rte_mbuf* m, uint8_t* out, uint32_t room) {
  Mesh3dDecoded d;
  const uint8_t* p;
  if (!parse(m, d, p) || !intact(d) || d.payload_bytes > room) return -1;
  std::memcpy(out, p + kPayloadFirst, d.payload_bytes);
  return static_cast<int>(d.payload_bytes);
}

// What the receiving router checks: the CRC, and the state against its
// complement, which the CRC leaves out (a flip there would otherwise pass
// the link and be lost at the next router's check).
bool mesh3d_link_crc_ok(const rte_mbuf* m) {
  const uint8_t* p;
  uint32_t n;
  if (!span(m, p, n)) return false;
  const bool state_ok = ((p[0] ^ p[kMesh3dWordBytes]) & kStateMask) == kStateMask;
  return state_ok && packet_crc(p, n) == stored_crc(p + (n - 1) * kMesh3dWordBytes);
}

void mesh3d_seal(rte_mbuf* m) {
  const uint8_t* cp;
  uint32_t n;
  if (!span(m, cp, n)) return;
  uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
  store_crc(check_word(p, n), packet_crc(p, n));
}

void mesh3d_stomp(rte_mbuf* m) {
  const uint8_t* cp;
  uint32_t n;
  if (!span(m, cp, n)) return;
  uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
  check_word(p, n)[kTransmitErrorLsb / 8] |= 1u << (kTransmitErrorLsb % 8);
  // Made good for the links after (the complement too: a flipped state is
  // what may have failed), marked for its destination to discard.
  p[kMesh3dWordBytes] = static_cast<uint8_t>((p[kMesh3dWordBytes] & ~kStateMask) | (~p[0] & kStateMask));
  store_crc(check_word(p, n), packet_crc(p, n));
}

void mesh3d_flip_bit(rte_mbuf* m, uint32_t bit) {
  const uint32_t line = bit % kMesh3dWordBits;
  uint8_t* b =
      rte_pktmbuf_mtod(m, uint8_t*) + (bit / kMesh3dWordBits) * kMesh3dWordBytes + line / 8;
  *b = static_cast<uint8_t>(*b ^ (1u << (line % 8)));
}

void mesh3d_refresh(uint8_t* bytes, uint32_t len, const PacketMeta& meta) {
  // Outside the CRC: nothing to reseal.
  const uint64_t w = Mesh3dHeader::word(meta);
  if (len > 0) bytes[0] = static_cast<uint8_t>((bytes[0] & ~kStateMask) | Mesh3dHeader::state(w));
  if (len > kMesh3dWordBytes)
    bytes[kMesh3dWordBytes] =
        static_cast<uint8_t>((bytes[kMesh3dWordBytes] & ~kStateMask) | Mesh3dHeader::complement(w));
}

}  // namespace fabemu
