// Engine<R, Link>, continued: the capture taps (dataplane/link/capture_tap.h).
// A packet is recorded where its sender puts it on a tapped link (the grant
// of a router output, the injection of an endpoint); a port's frames where
// the host's frame is received and where the fabric's is queued for
// transmission. The record goes to the writer thread through the worker's
// capture queue; nothing here changes the emulation's state, so a run with
// capture on has the same results as one without.
// Included from engine.h only.
#pragma once
#include <rte_pause.h>

namespace fabemu {

// A free record of worker w's queue: waits for the writer in virtual time;
// in real time nullptr (counted) when the writer is behind.
template <class R, class L>
inline CaptureRecord* Engine<R, L>::capture_slot(Worker& w) {
  CaptureQueue& q = *cfg_.capture.queues[w.id];
  CaptureRecord* r = q.get();
  if (r) return r;
  if (!cfg_.capture.lossless) {
    w.st.capture_drops++;
    return nullptr;
  }
  while (!(r = q.get())) rte_pause();
  return r;
}

// Packet m leaves on link `link` at `t` on VC vc; `seq` packets left on the
// link before it.
template <class R, class L>
void Engine<R, L>::capture_packet(Worker& w, uint32_t link, const rte_mbuf* m, ps_t t, uint8_t vc,
                                  uint64_t seq) {
  const CaptureTaps& ct = cfg_.capture;
  const int32_t iface = ct.link_iface[link];
  if (iface < 0) return;
  const PacketMeta* pm = meta(m);
  const bool response = pm->cls == static_cast<uint8_t>(TrafficClass::response);
  const uint8_t cls = (pm->flags & kPktFrame) ? 4 : response ? 2 : 1;
  if (!(ct.vc_mask >> vc & 1) || !(ct.classes & cls) || (!ct.src.empty() && !ct.src[pm->src]) ||
      (!ct.dst.empty() && !ct.dst[pm->dst]))
    return;
  CaptureRecord* r = capture_slot(w);
  if (!r) return;
  const uint32_t len = rte_pktmbuf_data_len(m);
  const uint32_t n = std::min(len, cfg_.capture.queues[w.id]->data_bytes());
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
  cfg_.capture.queues[w.id]->put(r);
  w.st.captured++;
}

// A host's Ethernet frame at port binding b, `len` bytes long of which
// `avail` are at `frame`: received from the host (inbound) or queued to it
// (outbound).
template <class R, class L>
void Engine<R, L>::capture_frame(Worker& w, uint32_t b, const uint8_t* frame, uint32_t avail,
                                 uint32_t len, CaptureDir dir) {
  const int32_t iface = cfg_.capture.device_iface[b];
  if (iface < 0) return;
  CaptureRecord* r = capture_slot(w);
  if (!r) return;
  const uint32_t n = std::min(avail, cfg_.capture.queues[w.id]->data_bytes());
  std::memset(r, 0, sizeof(*r));
  r->t_ps = w.now;
  r->iface = static_cast<uint32_t>(iface);
  r->orig_bytes = len;
  r->cap_bytes = n;
  r->kind = CaptureKind::frame;
  r->dir = dir;
  std::memcpy(r->data(), frame, n);
  cfg_.capture.queues[w.id]->put(r);
  w.st.captured++;
}

}  // namespace fabemu
