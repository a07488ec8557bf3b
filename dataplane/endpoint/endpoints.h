// The endpoints of one worker: their network interfaces (nic.h) and what
// they do. Traffic sources generate messages, which are segmented into
// packets in the source queues; the injection link sends one packet at a
// time when the router input has credits for it; at egress packets are
// delivered, messages reassembled and requests answered.
//
// The engine is their Host (a template parameter, so that every call
// inlines; no virtual call per packet). What a Host provides:
//   ps_t now(); ps_t measure_start(), measure_end(), gen_end(); int worker_id();
//   bool shedding();                      // real time, run.overload: shed
//   RunStats& stats(); PacketPool& pool();
//   void schedule(const Event&);          // on this worker's wheel
//   static EventKind kind(EndpointEvent);  // its kinds as the run numbers them
//   void on_inject(PacketMeta&);          // the routing's source-side lookup
//   void enter_router(uint32_t e, rte_mbuf*, uint8_t vc, ps_t arrive);
//   void defer_credits(uint32_t e, uint32_t vc, uint32_t units, ps_t first, ps_t every);
//   void add_busy(ps_t& busy, ps_t start, ps_t dur);  // measured link time
//   bool capturing(); void capture(uint32_t link, const rte_mbuf*, ps_t, uint8_t vc, uint64_t seq);
//   void free_later(rte_mbuf*);           // a delivered packet
//   void frame_segment(uint32_t e, rte_mbuf*);  // a frame's packet: the bridge's
//   void fail(const std::string&);
//   void barrier_signal(uint32_t e, uint32_t bsu, BarrierSignal, ps_t stamp);  // phases.h
#pragma once
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/rng.h"
#include "dataplane/endpoint/delivery_order.h"
#include "dataplane/endpoint/endpoint_event.h"
#include "dataplane/endpoint/nic.h"
#include "dataplane/endpoint/packet_pool.h"
#include "dataplane/endpoint/phases.h"
#include "dataplane/endpoint/traffic.h"
#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"
#include "dataplane/sim/timing_wheel.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// Bytes that fill synthetic payloads (a fixed, recognisable pattern);
// compared by address on every packet, so a constant, not a call.
inline constexpr auto kSyntheticPayload = [] {
  std::array<uint8_t, 4096> b{};
  for (size_t i = 0; i < b.size(); i++) b[i] = static_cast<uint8_t>(i * 7 + 0x5a);
  return b;
}();
inline const uint8_t* synthetic_payload() { return kSyntheticPayload.data(); }

// What every worker's endpoints share in a run, read-only while it runs.
struct EndpointParams {
  using DeliveryHook = std::function<void(uint64_t packet_id, uint32_t src, uint32_t dst,
                                          ps_t latency_ps, uint32_t hops)>;
  // Given by the engine:
  const Fabric* fabric = nullptr;
  const TrafficConfig* traffic = nullptr;
  PacketFormat format;
  CodecKind codec = CodecKind::yarc;
  uint64_t seed = 1;
  uint32_t nv = 1;
  uint32_t source_queue_packets = 256;
  bool check_deliveries = false;  // decode every delivered packet against its metadata
  bool link_crc = false;          // seal each packet with the link CRC (link-level retry)
  uint32_t reassembly_slots = 0;  // per processor; 0: no message spans packets
  uint32_t barrier_units = 0;     // BSUs per node the phases rotate over (traffic.phases)
  bool alternate_injection = false;  // TrafficConfig's, here beside the hot path's other reads
  uint8_t inject_free_vcs = 0;       // TrafficConfig's (vcs.injection free), likewise
  bool wormhole = false;             // TrafficConfig's (router.flow_control wormhole), likewise
  const DeliveryHook* on_deliver = nullptr;  // tests' per-packet hook (may be empty)
  // Traffic: Bernoulli trials, one per injection-link unit time (gen_slot_ps),
  // each succeeding with p = load / (mean units per message), so that the
  // offered load is the configured fraction of the injection bandwidth. The
  // engine gives p (traffic.h, generation_probability).
  Geometric gen;  // slots to the next message (per-slot probability)
  // traffic.process on_off: slots until an off source turns on; until an on
  // source turns off or generates, and the share of those that turn it off;
  // its chance to generate (set_generation).
  Geometric burst_wake, burst_event;
  double burst_off_share = 0, burst_r1 = 0;
  // gen, and the on_off figures, from p (traffic.h, generation_probability).
  void set_generation(double p);
  // Derived by init(): destinations, message sizes, the trials' slot and
  // the payload one packet carries.
  TrafficPattern pattern;
  std::vector<double> size_cdf;
  std::vector<uint8_t> generates;  // per processor: 1 if it is a source (traffic.sources)
  ps_t gen_slot_ps = 0;
  uint32_t max_payload = 0;
  bool init(std::string* err);
};

class Endpoints {
 public:
  enum class Enqueue : uint8_t { ok, queue_full, no_mbuf };

  // Every endpoint's interface (only those in `owned` are used), the
  // credits of the router inputs they feed (cap[v] units per VC) and the
  // statistics slot of each injection link (link[e]).
  void init(const EndpointParams& p, const std::vector<uint32_t>& owned,
            const std::vector<uint32_t>& cap, const std::vector<uint32_t>& link);
  // The first generation of every owned synthetic source (a port-bound
  // processor's traffic comes from its port), as events of kind `generate`
  // (the host's number for EndpointEvent::generate); with phases, the
  // joins at time 0 of processors that have nothing to send (`join`).
  void seed(TimingWheel& wheel, EventKind generate, EventKind join);

  Nic& nic(uint32_t e) { return ep_[e]; }
  const Nic& nic(uint32_t e) const { return ep_[e]; }
  const CreditCounter& credits(uint32_t e, uint32_t v) const { return credits_[size_t(e) * p_.nv + v]; }
  const std::vector<uint32_t>& owned() const { return owned_; }
  uint32_t size() const { return static_cast<uint32_t>(ep_.size()); }
  const Fabric& fabric() const { return *p_.fabric; }
  uint32_t source_queue_packets() const { return p_.source_queue_packets; }
  // Real time: the sources stop when the run drains; when they did.
  bool generating() const { return generating_; }
  void stop_generating(ps_t now) {
    generating_ = false;
    gen_stop_ps_ = now;
  }
  ps_t gen_stop_ps() const { return gen_stop_ps_; }
  // The packets queued that have their buffer.
  template <class F>
  void for_each_queued(F&& f) const {
    for (uint32_t e : owned_)
      for (const auto& q : ep_[e].srcq) q.for_each_built(f);
  }

  template <class H> void on_generate(H& h, uint32_t e);
  template <class H> void on_wake(H& h, const Event& ev) {
    Nic& ep = ep_[ev.a];
    if (ep.wake_ps == ev.t) ep.wake_ps = kNever;
    try_inject(h, ev.a);
  }
  template <class H> void inject_processor(H& h, uint32_t p);
  // Two-hop recovery (link/recovery_memory.h): packet m, built and routed
  // from endpoint e's router, goes first in e's source queue.
  template <class H> void resend(H& h, uint32_t e, rte_mbuf* m);
  // header_units 0: the format's (else a packet type's own, MessageShape).
  template <class H>
  Enqueue enqueue_message(H& h, uint32_t e, uint32_t dst, uint32_t bytes, uint8_t cls,
                          uint8_t flags, ps_t gen_ps, const uint8_t* payload, int32_t flow,
                          uint32_t header_units = 0);
  template <class H>
  void add_credit_stream(H& h, uint32_t e, uint32_t v, uint32_t units, ps_t first, ps_t every,
                         bool resumed = false);
  // Packet m's tail reaches endpoint e at t (its credits on their way back).
  template <class H> void arrive(H& h, uint32_t e, rte_mbuf* m, ps_t t);
  template <class H> void on_deliver(H& h, uint32_t e, rte_mbuf* m, ps_t t);
  // Phases (phases.h): processor e joins its phase's barrier now
  // (EndpointEvent::join); a barrier/eureka notification reaches it
  // (BarrierEvent::notify: vc the BSU, amount the signal, unit_ps its stamp).
  template <class H> void on_join(H& h, uint32_t e);
  template <class H> void on_barrier(H& h, const Event& ev);

 private:
  template <class H> void end_phase(H& h, uint32_t e);
  template <class H> void start_phase(H& h, uint32_t e, ps_t t);
  template <class H>
  void make_message(H& h, uint32_t e, uint32_t dst, uint32_t bytes, uint8_t cls, bool needs_reply,
                    bool measured, ps_t gen_ps, uint32_t header_units = 0);
  template <class H> void build_packet(H& h, rte_mbuf* m, const uint8_t* payload);
  template <class H> void try_inject(H& h, uint32_t e);
  static constexpr uint8_t kNoVc = 0xFF;
  uint8_t free_vc(const Nic& ep, uint32_t e, uint32_t units, ps_t now, ps_t* wake,
                  uint8_t held = kNoVc) const;
  uint8_t worm_vc(const Nic& ep, uint32_t e, int qi, uint32_t units, ps_t now, ps_t* wake) const;
  uint64_t burst_slots(Nic& ep) const;
  uint32_t choose_slice(uint32_t p, uint8_t cls, uint16_t hash, const uint32_t* placed) const;
  template <class H> void arm_wake(H& h, uint32_t e, ps_t t) {
    Nic& ep = ep_[e];
    if (t >= ep.wake_ps) return;
    ep.wake_ps = t;
    h.schedule(event_at(t, H::kind(EndpointEvent::wake), e));
  }

  EndpointParams p_;  // a copy: one load from here per use, on every packet
  std::vector<Nic> ep_;                // all endpoints; only owned ones used
  std::vector<CreditCounter> credits_; // [endpoint * nv + vc]: its router input's, flat
  std::vector<uint32_t> owned_;
  std::vector<rte_mbuf*> seg_scratch_ = std::vector<rte_mbuf*>(64);  // a message's segments
  std::vector<uint8_t> seg_slice_ = std::vector<uint8_t>(64);        // and their slices
  DeliveryOrder order_;  // counts only when traffic asks (count_out_of_order)
  std::vector<PhaseState> phase_;  // [endpoint], with traffic.phases only
  bool generating_ = true;
  ps_t gen_stop_ps_ = kNever;
};

}  // namespace fabemu

#include "dataplane/endpoint/endpoints_hot.h"
#include "dataplane/endpoint/endpoints_phases.h"
