// The input-queued virtual cut-through router (the foundation's model): one
// FIFO per (input port, VC) holding whole packets, counted in flow units
// (phits or flits). The packet at the head of a FIFO is routed, crosses the
// router pipeline, then requests its output; the output arbitrates among
// ready requesters and grants a packet only when the downstream buffer has
// credits for all of it (virtual cut-through, checked by the engine's link).
// Allocation is separable: an input port sends at most input_speedup packets
// through the switch at a time (its VCs compete for them), and an output
// link carries one packet at a time.
//
// InputQueuedBuffers holds the state of every router one worker owns, in
// flat arrays: channel c = (local router * max_ports + port) * nv + vc, output
// o = local router * max_ports + port. A queue entry carries what
// arbitration needs (ready time, output, VC, length), so arbitration never
// touches the packet buffer. Packets are entered when the upstream link
// grants them (their arrival time is in the entry): the buffer space is
// theirs from then on, as the upstream credits say. The allocation that
// runs on this state is input_queued_allocation.h's; InputQueuedRouter, the
// model, is the two together.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "dataplane/core/divisor.h"
#include "dataplane/core/fabric.h"
#include "dataplane/router/arbiter/round_robin.h"
#include "dataplane/router/crossing_slots.h"
#include "dataplane/router/output_queues.h"
#include "dataplane/router/router_shape.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct QEntry {
  rte_mbuf* m;
  ps_t arrive;       // the head reaches this input
  ps_t ready;        // routed and through the pipeline (valid once routed)
  uint16_t units;
  uint8_t out_port;
  uint8_t out_vc;
  uint8_t routed;    // out_port/out_vc/ready are set
  uint8_t stalled;   // counted as a credit stall at this hop already
  // router.switch_allocator islip (input_queued_islip.h): [kHoldsVc] its
  // output VC is allocated to it; [1] spare. (Two bytes as the padding they
  // were: the event-driven router's code does not change.)
  uint8_t islip[2];
};
static_assert(sizeof(QEntry) == 32, "queue entries are two per cache line");
inline constexpr int kHoldsVc = 0;  // QEntry::islip[]

// Per VC of one output: the fewest units a requester was short of when the
// output last arbitrated, kNone where no requester was. A credit stream
// coming back wakes the output only once that many credits are there (its
// other requesters wait for wake-ups of their own: pipeline, input, link).
struct alignas(32) BlockedUnits {
  static constexpr uint16_t kNone = 0xFFFF;
  uint16_t units[kMaxVcs];
  BlockedUnits() {
    for (uint16_t& u : units) u = kNone;
  }
};

class InputQueuedBuffers {
 public:
  using Arbiter = RoundRobinArbiter;

  // The routers one worker owns, with their output queues (switch speedup).
  void init(const RouterShape& s) {
    init(s.routers, s.max_ports, s.nv, s.qcap, s.config.input_speedup);
    oq_.init(s.routers * s.max_ports, s.nv, s.output_queue_units, s.config.output_speedup);
  }

  void init(uint32_t routers, uint32_t max_ports, uint32_t nv, uint32_t qcap,
            uint32_t input_speedup = 1) {
    speedup_ = input_speedup < 1 ? 1 : input_speedup;
    in_busy_.assign(speedup_ > 1 ? size_t(routers) * max_ports * speedup_ : 0, 0);
    max_ports_ = max_ports;
    nv_ = nv;
    nv_div_ = Divisor(nv);
    ports_div_ = Divisor(max_ports);
    vc_shift_ = 0;
    while ((1u << vc_shift_) < nv) vc_shift_++;
    qcap_ = qcap;
    qmask_ = qcap - 1;
    req_bits_ = max_ports << vc_shift_;
    req_words_ = (req_bits_ + 63) / 64;
    const size_t nch = size_t(routers) * max_ports * nv;
    const size_t nout = size_t(routers) * max_ports;
    ch_.assign(nch, Channel{});
    // Entries behind the heads are written before they are read; left
    // uninitialised, the pages of queues that never fill are never touched
    // (start-up time and resident memory of large fabrics).
    q_.reset(new QEntry[nch * qcap]);
    req_.assign(req_words_ > 1 ? nout * req_words_ : 0, 0);
    port_.assign(nout, Port{});
    blocked_.assign(nout, BlockedUnits{});
  }

  // Bytes init() allocates: the state written at once (channels, ports,
  // requests) and the FIFO entries behind the heads (touched only as queues
  // fill). For the memory estimate of control/run/run_memory.h.
  static size_t state_bytes(uint32_t routers, uint32_t max_ports, uint32_t nv,
                            uint32_t input_speedup) {
    const size_t nout = size_t(routers) * max_ports;
    uint32_t shift = 0;
    while ((1u << shift) < nv) shift++;
    const size_t req_words = ((max_ports << shift) + 63) / 64;
    return nout * nv * sizeof(Channel) + nout * sizeof(Port) +
           (req_words > 1 ? nout * req_words * sizeof(uint64_t) : 0) +
           (input_speedup > 1 ? nout * input_speedup * sizeof(ps_t) : 0);
  }
  static size_t fifo_bytes(uint32_t routers, uint32_t max_ports, uint32_t nv, uint32_t qcap) {
    return size_t(routers) * max_ports * nv * qcap * sizeof(QEntry);
  }

  uint32_t nv() const { return nv_; }
  uint32_t max_ports() const { return max_ports_; }
  uint32_t vc_shift() const { return vc_shift_; }
  uint32_t qcap() const { return qcap_; }
  uint32_t output(uint32_t lr, uint32_t p) const { return lr * max_ports_ + p; }
  uint32_t channel(uint32_t lr, uint32_t p, uint32_t v) const { return (lr * max_ports_ + p) * nv_ + v; }
  uint32_t channel_of_output(uint32_t o, uint32_t v) const { return o * nv_ + v; }
  uint32_t router_of_channel(uint32_t c) const { return ports_div_.div(nv_div_.div(c)); }
  uint32_t port_of_channel(uint32_t c) const { return ports_div_.mod(nv_div_.div(c)); }
  uint32_t vc_of_channel(uint32_t c) const { return nv_div_.mod(c); }
  // The input (router input port, a global index like an output's) of channel c.
  uint32_t input_of_channel(uint32_t c) const { return nv_div_.div(c); }
  uint32_t router_of_output(uint32_t o) const { return ports_div_.div(o); }
  // Output (and input) 0 of the router output o belongs to.
  uint32_t first_output(uint32_t o) const { return o - ports_div_.mod(o); }
  uint32_t port_of_output(uint32_t o) const { return ports_div_.mod(o); }
  size_t channels() const { return ch_.size(); }

  // ---- input FIFOs ------------------------------------------------------------
  uint32_t len(uint32_t c) const { return ch_[c].qlen; }
  uint32_t occupancy(uint32_t c) const { return ch_[c].occ; }
  uint32_t peak(uint32_t c) const { return ch_[c].peak; }
  // Units ever entered into / sent out of channel c (credit conservation).
  uint64_t units_in(uint32_t c) const { return ch_[c].units_in; }
  uint64_t units_out(uint32_t c) const { return ch_[c].units_out; }
  // The head lives with the channel's counters, apart from the entries
  // behind it: one cache line per channel serves entering, routing,
  // arbitration and the grant.
  QEntry& head(uint32_t c) { return ch_[c].head; }
  const QEntry& at(uint32_t c, uint32_t i) const {
    return i == 0 ? ch_[c].head : q_[size_t(c) * qcap_ + ((ch_[c].qhead + i - 1) & qmask_)];
  }
  // Appends; returns the new length (1: the entry is the head). The caller
  // has checked the space (credits) and the entry count (qcap).
  uint32_t push(uint32_t c, const QEntry& e) {
    Channel& ch = ch_[c];
    if (ch.qlen == 0)
      ch.head = e;
    else
      q_[size_t(c) * qcap_ + ((ch.qhead + ch.qlen - 1) & qmask_)] = e;
    ch.occ += e.units;
    ch.units_in += e.units;
    uint32_t occ = ch.occ;
    if (ch.late_fed) [[unlikely]]
      occ = occupancy_when_granted(c);
    if (occ > ch.peak) ch.peak = occ;
    return ++ch.qlen;
  }

  // ---- a buffer fed from another worker ------------------------------------
  // Its packets enter at the window edge, after their upstream grant: the
  // packets that left it since were still there when the grant gave the
  // new one its space, and count towards its peak as they would have with
  // both routers on one worker. The last few departures are kept for that.
  void track_late_entries(uint32_t c) {
    if (departures_.empty()) departures_.resize(ch_.size());
    ch_[c].late_fed = 1;
  }
  // The next packet to enter channel c was granted upstream at t (set just
  // before it enters).
  void granted_upstream_at(uint32_t c, ps_t t) {
    if (ch_[c].late_fed) departures_[c].granted = t;
  }
  // An empty channel's head slot remembers the last packet that left it:
  // when it was granted and when its tail is out of the buffer (a packet
  // entered late, from another core, that had arrived by then must wait
  // for that tail as it would have in the FIFO).
  void remember_departure(uint32_t c, ps_t granted, ps_t tail_out) {
    Channel& ch = ch_[c];
    if (ch.qlen) return;
    ch.head.arrive = granted;
    ch.head.ready = tail_out;
  }
  ps_t last_granted(uint32_t c) const { return ch_[c].head.arrive; }
  ps_t last_tail_out(uint32_t c) const { return ch_[c].head.ready; }

  // now: when (a buffer fed from another worker keeps its departures).
  QEntry pop(uint32_t c, ps_t now = kNever) {
    Channel& ch = ch_[c];
    const QEntry e = ch.head;
    if (ch.late_fed) [[unlikely]]
      departures_[c].add(now, e.units);
    if (ch.qlen > 1) {
      ch.head = q_[size_t(c) * qcap_ + ch.qhead];
      ch.qhead = static_cast<uint16_t>((ch.qhead + 1) & qmask_);
    }
    ch.qlen--;
    ch.occ -= e.units;
    ch.units_out += e.units;
    return e;
  }

  // ---- link-level retry (dataplane/link/go_back_n.h) ------------------------
  // The last entry of channel c (len(c) > 0).
  QEntry& back(uint32_t c) {
    Channel& ch = ch_[c];
    return ch.qlen == 1 ? ch.head : q_[size_t(c) * qcap_ + ((ch.qhead + ch.qlen - 2) & qmask_)];
  }
  // Removes the last entry as if it had never entered (BlackWidow §4.3: the
  // input queue excises a packet whose CRC failed "by setting the tail
  // pointer of the queue to the tail of the previous packet").
  QEntry pop_back(uint32_t c) {
    Channel& ch = ch_[c];
    const QEntry e = back(c);
    ch.qlen--;
    ch.occ -= e.units;
    ch.units_in -= e.units;
    return e;
  }
  // ---- faults (router/input_discard.h, link/link_faults.h) ------------------------
  // Removes the last entry as lost: as far as credits go it left (they go
  // back to the sender), though it was never sent on.
  QEntry drop_back(uint32_t c) {
    const QEntry e = pop_back(c);
    ch_[c].units_in += e.units;
    ch_[c].units_out += e.units;
    return e;
  }
  // A packet discarded as it arrived (its input is dead): in and out at once.
  void pass_through(uint32_t c, uint32_t units) {
    ch_[c].units_in += units;
    ch_[c].units_out += units;
  }
  // A damaged packet that left before its CRC failed: its units are owed no
  // credits, so they count neither in nor out (conservation).
  void forget(uint32_t c, uint32_t units) {
    ch_[c].units_in -= units;
    ch_[c].units_out -= units;
  }

  // ---- output requests ---------------------------------------------------------
  // Requester index of input (p, v) at an output.
  uint32_t requester(uint32_t p, uint32_t v) const { return (p << vc_shift_) | v; }
  uint32_t requester_port(uint32_t i) const { return i >> vc_shift_; }
  uint32_t requester_vc(uint32_t i) const { return i & ((1u << vc_shift_) - 1); }
  void request(uint32_t o, uint32_t i) {
    req_words(o)[i >> 6] |= 1ull << (i & 63);
    port_[o].nreq++;
  }
  void withdraw(uint32_t o, uint32_t i) {
    req_words(o)[i >> 6] &= ~(1ull << (i & 63));
    port_[o].nreq--;
  }
  uint32_t requests(uint32_t o) const { return port_[o].nreq; }
  // Output o's requester bits, request_bit_count() of them in 64-bit words
  // (the cycle-synchronous allocator, router/input_queued_islip.h, scans them).
  const uint64_t* request_bits(uint32_t o) { return req_words(o); }
  uint32_t request_bit_count() const { return req_bits_; }
  // The arbiter picks among the requesters of output o that accept(i) lets go.
  template <class Accept>
  __attribute__((always_inline)) int32_t arbitrate(uint32_t o, Accept&& accept) {
    Port& a = port_[o];
    return Arbiter::pick(req_words(o), req_bits_, a.nreq, &a.ptr, accept);
  }

  // ---- the switch's input side (separable allocation: an input port sends
  // at most input_speedup packets through the switch at a time, whatever
  // their VCs and outputs) -----------------------------------------------------
  // When input port `in` (numbered like outputs) has a free crossing.
  ps_t input_free_at(uint32_t in) const {
    if (speedup_ == 1) return port_[in].in_busy;
    return crossing_free_at(&in_busy_[size_t(in) * speedup_], speedup_);
  }
  // A packet from input `in` crosses the switch until `until`.
  void occupy_input(uint32_t in, ps_t until) {
    if (speedup_ == 1) {
      port_[in].in_busy = until;
      return;
    }
    occupy_crossing(&in_busy_[size_t(in) * speedup_], speedup_, until);
  }

  // One pending wake-up per output: the earliest time it must look again.
  ps_t& wake(uint32_t o) { return port_[o].wake_ps; }
  BlockedUnits& blocked(uint32_t o) { return blocked_[o]; }
  // Switch speedup (router.output_speedup > 1): the outputs' VC queues.
  OutputQueues& output_queues() { return oq_; }
  const OutputQueues& output_queues() const { return oq_; }

 private:
  // What the switch keeps per port index: the output's arbitration state
  // and the input's crossing, together (the common case of one request word
  // and no input speedup in 32 bytes; the rest in req_ and in_busy_).
  struct alignas(32) Port {
    ps_t wake_ps = kNever;
    ps_t in_busy = 0;     // input: its crossing is busy until (speedup 1)
    uint64_t req = 0;     // output: requesters (<= 64 of them)
    uint16_t nreq = 0;
    uint16_t ptr = 0;  // round-robin position
  };
  static_assert(sizeof(Port) == 32, "two ports per cache line");
  uint64_t* req_words(uint32_t o) {
    return req_words_ == 1 ? &port_[o].req : &req_[size_t(o) * req_words_];
  }
  uint32_t max_ports_ = 0, nv_ = 0, vc_shift_ = 0, qcap_ = 1, qmask_ = 0;
  Divisor nv_div_, ports_div_;  // nv_, max_ports_ (hot index splits)
  uint32_t req_bits_ = 0, req_words_ = 1;
  uint32_t speedup_ = 1;
  std::vector<ps_t> in_busy_;  // [input * speedup + k]: crossing k busy until (speedup > 1)
  // One (input port, VC) FIFO's state, a cache line.
  struct alignas(64) Channel {
    QEntry head;
    uint64_t units_in = 0, units_out = 0;
    uint32_t occ = 0;    // units held (counting what is on the wire to it)
    uint32_t peak = 0;   // the most it ever held
    uint16_t qhead = 0;  // first entry behind the head in q_
    uint16_t qlen = 0;   // entries, the head included
    uint8_t late_fed = 0;  // its upstream router runs on another worker (departures_)
  };
  static_assert(sizeof(Channel) == 64, "a channel is one cache line");
  // The last departures of a channel fed from another worker, and when the
  // packet about to enter was granted upstream.
  struct Departures {
    static constexpr uint32_t kKept = 8;  // more than leave a buffer in one window
    ps_t at[kKept] = {};
    uint16_t units[kKept] = {};
    uint32_t next = 0;
    ps_t granted = kNever;
    void add(ps_t t, uint16_t u) {
      at[next % kKept] = t;
      units[next % kKept] = u;
      next++;
    }
  };
  // Units of channel c when its entering packet was granted upstream: those
  // held now and those that left after that grant.
  uint32_t occupancy_when_granted(uint32_t c) {
    Departures& d = departures_[c];
    uint32_t occ = ch_[c].occ;
    if (d.granted == kNever) return occ;
    const uint32_t kept = d.next < Departures::kKept ? d.next : Departures::kKept;
    for (uint32_t k = 0; k < kept; k++) {
      const uint32_t i = (d.next - 1 - k) % Departures::kKept;
      if (d.at[i] == kNever || d.at[i] <= d.granted) break;
      occ += d.units[i];
    }
    d.granted = kNever;
    return occ;
  }
  std::vector<Departures> departures_;  // [c], for channels fed from another worker
  std::vector<Channel> ch_;   // [c]
  std::unique_ptr<QEntry[]> q_;  // [c * qcap + i]: the entries behind the head
  std::vector<uint64_t> req_;  // [output * req_words + w] (more than 64 requesters)
  std::vector<Port> port_;
  std::vector<BlockedUnits> blocked_;  // [output]
  OutputQueues oq_;
};

}  // namespace fabemu

#include "dataplane/router/input_queued_allocation.h"
