// The capture tap of a link or port: what a worker records when a packet is
// put on a tapped fabric link or a frame crosses a tapped port
// (CaptureRecorder), and the queue that takes the record off the worker
// core to the writer thread (pcap-tools/capture_writer.h), which turns it
// into a pcapng block (pcap-tools/FORMAT.md).
//
// Records are fixed-size slots in an arena; two single-producer,
// single-consumer rte_rings pass them between the worker and the writer
// (full: worker -> writer, free: writer -> worker), so the worker allocates
// nothing and copies only the packet's encoding (cut to the snapshot
// length) and a few metadata words. Beside them each worker publishes how
// far its emulated time has gone (CaptureQueue::pass, once per window or
// housekeeping round, not per packet): the writer merges the workers'
// records by time and writes one only when no worker can still record an
// earlier one.
#pragma once
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/sim/time.h"

namespace fabemu {

enum class CaptureKind : uint8_t { packet = 0, frame = 1 };
enum class CaptureDir : uint8_t { unknown = 0, inbound = 1, outbound = 2 };  // pcapng epb_flags

// fabemu header flag bits (pcap-tools/FORMAT.md).
enum CaptureFlags : uint8_t {
  kCapRetransmit = 1u << 0,
  kCapBadCrc = 1u << 1,
  kCapTruncated = 1u << 2,
  kCapLastSegment = 1u << 3,
  kCapFrameSegment = 1u << 4,
  kCapResponse = 1u << 5,
  kCapMeasured = 1u << 6,
};

struct CaptureRecord {
  ps_t t_ps;            // emulated time (a packet: its head leaves the sender)
  uint64_t packet_id;
  uint32_t iface;       // interface index in the capture file
  uint32_t link;        // link id (packets)
  uint32_t seq;         // packets sent on the link before this one
  uint32_t src, dst, msg_seq;
  uint32_t orig_bytes;  // the encoding's (a frame's) full length
  uint32_t cap_bytes;   // bytes in data()
  uint16_t seg, nseg, units;
  CaptureKind kind;
  CaptureDir dir;
  uint8_t vc;
  uint8_t flags;        // CaptureFlags
  uint8_t pad[2];
  uint8_t* data() { return reinterpret_cast<uint8_t*>(this + 1); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this + 1); }
};
static_assert(sizeof(CaptureRecord) == 64, "a record's header is one cache line");

// One worker's records and the two rings between it and the writer.
class CaptureQueue {
 public:
  CaptureQueue() = default;
  CaptureQueue(const CaptureQueue&) = delete;
  CaptureQueue& operator=(const CaptureQueue&) = delete;

  // `records` slots (a power of two) of a header plus data_bytes each.
  bool init(uint32_t records, uint32_t data_bytes, std::string* err) {
    data_bytes_ = data_bytes;
    slot_ = (sizeof(CaptureRecord) + data_bytes + 63) / 64 * 64;
    arena_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, size_t(records) * slot_)));
    if (!arena_) {
      *err = "out of memory for " + std::to_string(records) + " capture records";
      return false;
    }
    if (!make_ring(&free_, &free_mem_, records, err) || !make_ring(&full_, &full_mem_, records, err))
      return false;
    for (uint32_t i = 0; i < records; i++) {
      void* r = arena_.get() + size_t(i) * slot_;
      rte_ring_sp_enqueue(free_, r);
    }
    return true;
  }
  uint32_t data_bytes() const { return data_bytes_; }

  // Worker side.
  CaptureRecord* get() {
    void* r = nullptr;
    return rte_ring_sc_dequeue(free_, &r) == 0 ? static_cast<CaptureRecord*>(r) : nullptr;
  }
  void put(CaptureRecord* r) { rte_ring_sp_enqueue(full_, r); }  // never full: same count

  // Writer side.
  unsigned take(CaptureRecord** out, unsigned n) {
    return rte_ring_sc_dequeue_burst(full_, reinterpret_cast<void**>(out), n, nullptr);
  }
  void give_back(CaptureRecord* const* rs, unsigned n) {
    rte_ring_sp_enqueue_bulk(free_, reinterpret_cast<void* const*>(rs), n, nullptr);
  }
  bool idle() const { return rte_ring_empty(full_) != 0; }

  // Worker side: every record this worker puts from now on has t_ps >= t
  // (its emulated time only moves forward). After the records put before.
  void pass(ps_t t) { passed_.store(t, std::memory_order_release); }
  // Writer side: read before taking records, so that every record put
  // before this bound was published is taken with it.
  ps_t passed() const { return passed_.load(std::memory_order_acquire); }

 private:
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  using Mem = std::unique_ptr<uint8_t, FreeDeleter>;
  // A ring in ordinary memory (rte_ring_init): no DPDK memory zone, so a
  // capture does not change the EAL memory a run is sized for. One slot
  // more than records: a ring of count N holds N - 1.
  static bool make_ring(rte_ring** ring, Mem* mem, uint32_t records, std::string* err) {
    const uint32_t count = records * 2;
    const ssize_t bytes = rte_ring_get_memsize(count);
    if (bytes < 0) {
      *err = "capture queue of " + std::to_string(records) + " records is not a valid ring size";
      return false;
    }
    mem->reset(static_cast<uint8_t*>(std::aligned_alloc(RTE_CACHE_LINE_SIZE,
                                                        (size_t(bytes) + 63) / 64 * 64)));
    if (!*mem) {
      *err = "out of memory for a capture ring";
      return false;
    }
    *ring = reinterpret_cast<rte_ring*>(mem->get());
    if (rte_ring_init(*ring, "fabemu_capture", count, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
      *err = "cannot set up a capture ring";
      return false;
    }
    return true;
  }
  uint32_t data_bytes_ = 0;
  size_t slot_ = 0;
  Mem arena_, free_mem_, full_mem_;
  rte_ring* free_ = nullptr;
  rte_ring* full_ = nullptr;
  alignas(64) std::atomic<ps_t> passed_{0};  // its own line: the writer polls it
};

// Which links and ports a run taps, and which of their packets it keeps
// (filled by control/ from the spec's capture section).
struct CaptureTaps {
  std::vector<int32_t> link_iface;    // [link id]: interface index, -1: not tapped
  std::vector<int32_t> device_iface;  // [port binding]: interface of its device, -1: not tapped
  uint16_t vc_mask = 0xFFFF;          // VCs kept (bit per VC)
  std::vector<uint8_t> src, dst;      // [endpoint] kept (empty: all)
  uint8_t classes = 0x7;              // bit 0 requests, 1 responses, 2 frame segments
  uint32_t snaplen = 65535;           // bytes of each Ethernet frame in the file
  // The run's codec: a recorded packet's copy is refreshed to show the
  // fields that change per hop as they are on the tapped link
  // (refresh_capture, codec.h).
  CodecKind codec = CodecKind::yarc;
  // Virtual time waits for the writer when the queue is full (nothing is
  // lost); real time cannot wait and counts the record as a capture drop.
  bool lossless = true;
  std::vector<CaptureQueue*> queues;  // [worker] (owned by the writer); empty: no capture
  // Set once by the engine when emulated time 0 is now (the workers start):
  // the wall clock then, in ns since the Unix epoch. The file's timestamps
  // count from it (pcap-tools/FORMAT.md).
  std::atomic<int64_t>* run_start_ns = nullptr;
};

// The services of the run a worker's tap uses.
template <class H>
concept CaptureRecorderHost = requires(H& h, const H& ch) {
  { ch.now() } -> std::same_as<ps_t>;
  h.stats().captured++;       // records handed to the writer
  h.stats().capture_drops++;  // records lost because the writer was behind (real time)
};

// What one worker records of the links and ports the run taps
// (CaptureTaps): a packet is recorded where its sender puts it on a tapped link (the grant of
// a router output, the injection of an endpoint); a port's frames where the
// host's frame is received and where the fabric's is queued for
// transmission. The record goes to the writer thread through the worker's
// queue; nothing here changes the emulation's state, so a run with capture
// on has the same results as one without. Its host H is given to each call
// (CaptureRecorderHost): nothing virtual.
class CaptureRecorder {
 public:
  // Worker `worker` of a run that taps `taps` (their queues not empty).
  void init(const CaptureTaps& taps, uint32_t worker) {
    taps_ = &taps;
    queue_ = taps.queues[worker];
    link_units_.assign(taps.link_iface.size(), 0);
  }
  // Everything this worker records from now on is at t or later: at a
  // window edge (virtual time) or a housekeeping round (real time).
  void pass(ps_t t) { queue_->pass(t); }

  // Packet m leaves on link `link` at `t` on VC vc; `seq` packets left on
  // the link before it.
  template <class H>
  void packet(H& h, uint32_t link, const rte_mbuf* m, ps_t t, uint8_t vc, uint64_t seq);
  // A host's Ethernet frame at port binding b, `len` bytes long of which
  // `avail` are at `frame`: received from the host (inbound) or queued to
  // it (outbound).
  template <class H>
  void frame(H& h, uint32_t b, const uint8_t* frame, uint32_t avail, uint32_t len,
             CaptureDir dir);

 private:
  template <class H>
  CaptureRecord* slot(H& h);

  const CaptureTaps* taps_ = nullptr;
  CaptureQueue* queue_ = nullptr;
  // [link id]: units put on the tapped link so far (a link's packets are
  // all sent by one worker), the LLP sequence numbers of a Spider capture.
  std::vector<uint32_t> link_units_;
};

// A free record of the queue: waits for the writer in virtual time; in real
// time nullptr (counted) when the writer is behind.
template <class H>
inline CaptureRecord* CaptureRecorder::slot(H& h) {
  CaptureRecord* r = queue_->get();
  if (r) return r;
  if (!taps_->lossless) {
    h.stats().capture_drops++;
    return nullptr;
  }
  while (!(r = queue_->get())) rte_pause();
  return r;
}

template <class H>
void CaptureRecorder::packet(H& h, uint32_t link, const rte_mbuf* m, ps_t t, uint8_t vc,
                        uint64_t seq) {
  const CaptureTaps& ct = *taps_;
  const int32_t iface = ct.link_iface[link];
  if (iface < 0) return;
  const PacketMeta* pm = meta(m);
  const uint32_t first_unit = link_units_[link];
  link_units_[link] += pm->units;
  const bool response = pm->cls == static_cast<uint8_t>(TrafficClass::response);
  const uint8_t cls = (pm->flags & kPktFrame) ? 4 : response ? 2 : 1;
  if (!(ct.vc_mask >> vc & 1) || !(ct.classes & cls) || (!ct.src.empty() && !ct.src[pm->src]) ||
      (!ct.dst.empty() && !ct.dst[pm->dst]))
    return;
  CaptureRecord* r = slot(h);
  if (!r) return;
  const uint32_t len = rte_pktmbuf_data_len(m);
  const uint32_t n = std::min(len, queue_->data_bytes());
  r->t_ps = t;
  r->packet_id = pm->id;
  r->iface = static_cast<uint32_t>(iface);
  r->link = link;
  r->seq = static_cast<uint32_t>(seq);
  r->src = pm->src;
  r->dst = pm->dst;
  r->msg_seq = pm->msg_seq;
  r->orig_bytes = len;
  r->cap_bytes = n;
  r->seg = pm->seg;
  r->nseg = pm->nseg;
  r->units = pm->units;
  r->kind = CaptureKind::packet;
  r->dir = CaptureDir::outbound;
  r->vc = vc;
  r->flags = static_cast<uint8_t>((n < len ? kCapTruncated : 0) |
                                  ((pm->flags & kPktLastSegment) ? kCapLastSegment : 0) |
                                  ((pm->flags & kPktFrame) ? kCapFrameSegment : 0) |
                                  (response ? kCapResponse : 0) |
                                  ((pm->flags & kPktMeasured) ? kCapMeasured : 0));
  std::memcpy(r->data(), rte_pktmbuf_mtod(m, const uint8_t*), n);
  refresh_capture(ct.codec, r->data(), n, *pm, vc, first_unit);
  queue_->put(r);
  h.stats().captured++;
}

template <class H>
void CaptureRecorder::frame(H& h, uint32_t b, const uint8_t* frame, uint32_t avail, uint32_t len,
                       CaptureDir dir) {
  const int32_t iface = taps_->device_iface[b];
  if (iface < 0) return;
  CaptureRecord* r = slot(h);
  if (!r) return;
  const uint32_t n = std::min(avail, queue_->data_bytes());
  std::memset(r, 0, sizeof(*r));
  r->t_ps = h.now();
  r->iface = static_cast<uint32_t>(iface);
  r->orig_bytes = len;
  r->cap_bytes = n;
  r->kind = CaptureKind::frame;
  r->dir = dir;
  std::memcpy(r->data(), frame, n);
  queue_->put(r);
  h.stats().captured++;
}

}  // namespace fabemu
