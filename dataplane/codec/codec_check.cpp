#include "dataplane/codec/codec_check.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "dataplane/core/packet_meta.h"

namespace fabemu {

namespace {

// An mbuf outside any pool, laid out as rte_pktmbuf_pool_create lays out
// the engine's: private area, then `room` bytes of data room whose first
// RTE_PKTMBUF_HEADROOM are headroom. Enough for the encoders, which only
// append to it.
class ScratchMbuf {
 public:
  explicit ScratchMbuf(uint16_t room)
      : size_(sizeof(rte_mbuf) + kMbufPrivSize + room),
        m_(static_cast<rte_mbuf*>(::operator new (size_, std::align_val_t{RTE_CACHE_LINE_SIZE}))),
        room_(room) {}
  ~ScratchMbuf() { ::operator delete (m_, std::align_val_t{RTE_CACHE_LINE_SIZE}); }
  ScratchMbuf(const ScratchMbuf&) = delete;
  ScratchMbuf& operator=(const ScratchMbuf&) = delete;

  // As rte_pktmbuf_alloc hands it out: empty, one segment.
  rte_mbuf* fresh() {
    std::memset(static_cast<void*>(m_), 0, size_);
    m_->priv_size = kMbufPrivSize;
    m_->buf_addr = reinterpret_cast<char*>(m_) + sizeof(rte_mbuf) + kMbufPrivSize;
    m_->buf_len = room_;
    m_->data_off = std::min<uint16_t>(RTE_PKTMBUF_HEADROOM, room_);
    m_->nb_segs = 1;
    return m_;
  }

 private:
  size_t size_;
  rte_mbuf* m_;
  uint16_t room_;
};

CodecProblem problem(CodecProblem::Limit limit, std::string message, uint32_t bytes = 0) {
  CodecProblem p;
  p.limit = limit;
  p.message = std::move(message);
  p.message_bytes = bytes;
  return p;
}

}  // namespace

CodecProblem codec_check_messages(CodecKind kind, const PacketFormat& f, uint32_t endpoints,
                                  const std::vector<uint32_t>& message_bytes,
                                  uint32_t reply_bytes) {
  using Limit = CodecProblem::Limit;
  const CodecInfo& info = codec_info(kind);
  const std::string codec(info.label);
  const std::string unit(info.unit);
  // The limits of the header formats first, each with its own answer.
  const uint32_t max_units = info.max_units;
  if (f.max_units > max_units)
    return problem(Limit::max_units,
                   "a " + codec + " packet is at most " + std::to_string(max_units) + " " + unit +
                       "s long: set packet.max_units to at most " + std::to_string(max_units));
  if (info.max_header_units > 0 && f.header_units > info.max_header_units)
    return problem(Limit::header_units, "a " + codec + " packet has at most " +
                                            std::to_string(info.max_header_units) + " header " +
                                            unit + "s: lower packet.header_units");
  const uint32_t max_endpoints = info.max_endpoints;
  if (endpoints > max_endpoints)
    return problem(Limit::endpoints, "the " + codec + " header addresses " +
                                         std::to_string(max_endpoints) +
                                         " endpoints, and this fabric has " +
                                         std::to_string(endpoints) + ": build a smaller fabric");
  const uint32_t max_payload =
      f.max_units > f.header_units + f.tail_units ? f.max_payload_bytes() : 0;
  if (max_payload == 0)
    return problem(Limit::header_units,
                   std::to_string(f.header_units) + " header " + unit + "s" +
                       (f.tail_units ? " and " + std::to_string(f.tail_units) + " tail" : "") +
                       " leave no room for payload in a packet of at most " +
                       std::to_string(f.max_units) + " " + unit +
                       "s: lower packet.header_units or raise packet.max_units");

  // Then every kind of packet the sources make, encoded for real.
  ScratchMbuf scratch(packet_data_room(kind, f.max_units));
  struct Message {
    uint32_t bytes;
    TrafficClass cls;
  };
  std::vector<Message> messages;
  for (uint32_t b : message_bytes) messages.push_back({b, TrafficClass::request});
  if (reply_bytes) messages.push_back({reply_bytes, TrafficClass::response});
  for (const Message& msg : messages) {
    const uint32_t b = msg.bytes;
    const uint32_t nseg = b == 0 ? 1 : (b + max_payload - 1) / max_payload;
    const uint32_t max_seg = info.max_segments(f.header_units);
    if (nseg > max_seg)
      return problem(Limit::segments,
                     "a " + std::to_string(b) + "-byte message is " + std::to_string(nseg) +
                         " packets of at most " + std::to_string(max_payload) +
                         " payload bytes, more than the " + std::to_string(max_seg) + " the " +
                         codec +
                         " header can count: raise packet.max_units or send smaller "
                         "messages",
                     b);
    for (uint32_t s : {0u, nseg - 1}) {
      const uint32_t off = std::min(b, s * max_payload);
      const uint32_t sb = std::min(max_payload, b - off);
      PacketMeta pm{};
      pm.id = (uint64_t(endpoints - 1) << 40) | 0xFFFFFFFFFFull;
      pm.src = endpoints - 1;
      pm.dst = endpoints - 1;
      pm.msg_seq = 0xFFFFFFFFu;
      pm.units = static_cast<uint16_t>(f.units_for(sb));
      pm.payload_bytes = static_cast<uint16_t>(sb);
      pm.seg = static_cast<uint16_t>(s);
      pm.nseg = static_cast<uint16_t>(nseg);
      pm.hash = 0x7fff;
      pm.cls = static_cast<uint8_t>(msg.cls);
      pm.flags = kPktLastSegment | kPktNeedsReply;
      if (encode_packet(kind, scratch.fresh(), pm, nullptr) == 0)
        return problem(Limit::message_bytes,
                       "packet " + std::to_string(s + 1) + " of " + std::to_string(nseg) +
                           " of a " + std::to_string(b) + "-byte " +
                           (msg.cls == TrafficClass::response ? "response" : "request") + " (" +
                           std::to_string(sb) + " payload bytes, " + std::to_string(pm.units) +
                           " " + unit + "s of which " + std::to_string(f.header_units) +
                           " header) cannot be encoded as a " + codec +
                           " packet: change packet.header_units or packet.max_units",
                       b);
    }
  }
  return {};
}

}  // namespace fabemu
