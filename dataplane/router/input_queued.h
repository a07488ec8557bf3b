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
// This class holds the state of every router one worker owns, in flat
// arrays: channel c = (local router * max_ports + port) * nv + vc, output
// o = local router * max_ports + port. A queue entry carries what
// arbitration needs (ready time, output, VC, length), so arbitration never
// touches the packet buffer. Packets are entered when the upstream link
// grants them (their arrival time is in the entry): the buffer space is
// theirs from then on, as the upstream credits say.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "dataplane/router/arbiter/round_robin.h"
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
  uint8_t pad[2];
};
static_assert(sizeof(QEntry) == 32, "queue entries are two per cache line");

class InputQueuedRouter {
 public:
  using Arbiter = RoundRobinArbiter;

  void init(uint32_t routers, uint32_t max_ports, uint32_t nv, uint32_t qcap,
            uint32_t input_speedup = 1) {
    speedup_ = input_speedup < 1 ? 1 : input_speedup;
    in_busy_.assign(size_t(routers) * max_ports * speedup_, 0);
    max_ports_ = max_ports;
    nv_ = nv;
    vc_shift_ = 0;
    while ((1u << vc_shift_) < nv) vc_shift_++;
    qcap_ = qcap;
    qmask_ = qcap - 1;
    req_bits_ = max_ports << vc_shift_;
    req_words_ = (req_bits_ + 63) / 64;
    const size_t nch = size_t(routers) * max_ports * nv;
    const size_t nout = size_t(routers) * max_ports;
    head_.assign(nch, QEntry{});
    q_.assign(nch * qcap, QEntry{});
    peak_.assign(nch, 0);
    qhead_.assign(nch, 0);
    qlen_.assign(nch, 0);
    occ_.assign(nch, 0);
    req_.assign(nout * req_words_, 0);
    arb_.assign(nout, OutArb{});
  }

  uint32_t nv() const { return nv_; }
  uint32_t max_ports() const { return max_ports_; }
  uint32_t vc_shift() const { return vc_shift_; }
  uint32_t qcap() const { return qcap_; }
  uint32_t output(uint32_t lr, uint32_t p) const { return lr * max_ports_ + p; }
  uint32_t channel(uint32_t lr, uint32_t p, uint32_t v) const { return (lr * max_ports_ + p) * nv_ + v; }
  uint32_t channel_of_output(uint32_t o, uint32_t v) const { return o * nv_ + v; }
  uint32_t router_of_channel(uint32_t c) const { return c / nv_ / max_ports_; }
  uint32_t port_of_channel(uint32_t c) const { return (c / nv_) % max_ports_; }
  uint32_t vc_of_channel(uint32_t c) const { return c % nv_; }
  size_t channels() const { return qlen_.size(); }

  // ---- input FIFOs ------------------------------------------------------------
  uint32_t len(uint32_t c) const { return qlen_[c]; }
  uint32_t occupancy(uint32_t c) const { return occ_[c]; }
  uint32_t peak(uint32_t c) const { return peak_[c]; }
  // The head lives apart from the entries behind it, in a dense array, so
  // arbitration's scan over the heads stays in cache.
  QEntry& head(uint32_t c) { return head_[c]; }
  const QEntry& at(uint32_t c, uint32_t i) const {
    return i == 0 ? head_[c] : q_[size_t(c) * qcap_ + ((qhead_[c] + i - 1) & qmask_)];
  }
  // Appends; returns the new length (1: the entry is the head). The caller
  // has checked the space (credits) and the entry count (qcap).
  uint32_t push(uint32_t c, const QEntry& e) {
    if (qlen_[c] == 0)
      head_[c] = e;
    else
      q_[size_t(c) * qcap_ + ((qhead_[c] + qlen_[c] - 1) & qmask_)] = e;
    occ_[c] += e.units;
    if (occ_[c] > peak_[c]) peak_[c] = occ_[c];
    return ++qlen_[c];
  }
  QEntry pop(uint32_t c) {
    const QEntry e = head_[c];
    if (qlen_[c] > 1) {
      head_[c] = q_[size_t(c) * qcap_ + qhead_[c]];
      qhead_[c] = static_cast<uint16_t>((qhead_[c] + 1) & qmask_);
    }
    qlen_[c]--;
    occ_[c] -= e.units;
    return e;
  }

  // ---- output requests ---------------------------------------------------------
  // Requester index of input (p, v) at an output.
  uint32_t requester(uint32_t p, uint32_t v) const { return (p << vc_shift_) | v; }
  uint32_t requester_port(uint32_t i) const { return i >> vc_shift_; }
  uint32_t requester_vc(uint32_t i) const { return i & ((1u << vc_shift_) - 1); }
  void request(uint32_t o, uint32_t i) {
    req_[size_t(o) * req_words_ + (i >> 6)] |= 1ull << (i & 63);
    arb_[o].nreq++;
  }
  void withdraw(uint32_t o, uint32_t i) {
    req_[size_t(o) * req_words_ + (i >> 6)] &= ~(1ull << (i & 63));
    arb_[o].nreq--;
  }
  uint32_t requests(uint32_t o) const { return arb_[o].nreq; }
  // The arbiter picks among the requesters of output o that accept(i) lets go.
  template <class Accept>
  __attribute__((always_inline)) int32_t arbitrate(uint32_t o, Accept&& accept) {
    OutArb& a = arb_[o];
    return Arbiter::pick(&req_[size_t(o) * req_words_], req_bits_, a.nreq, &a.ptr, accept);
  }

  // ---- the switch's input side (separable allocation: an input port sends
  // at most input_speedup packets through the switch at a time, whatever
  // their VCs and outputs) -----------------------------------------------------
  // When input port `in` (numbered like outputs) has a free crossing.
  ps_t input_free_at(uint32_t in) const {
    const ps_t* b = &in_busy_[size_t(in) * speedup_];
    ps_t t = b[0];
    for (uint32_t k = 1; k < speedup_; k++) t = b[k] < t ? b[k] : t;
    return t;
  }
  // A packet from input `in` crosses the switch until `until`.
  void occupy_input(uint32_t in, ps_t until) {
    ps_t* b = &in_busy_[size_t(in) * speedup_];
    uint32_t best = 0;
    for (uint32_t k = 1; k < speedup_; k++)
      if (b[k] < b[best]) best = k;
    b[best] = until;
  }

  // One pending wake-up per output: the earliest time it must look again.
  ps_t& wake(uint32_t o) { return arb_[o].wake_ps; }

 private:
  struct OutArb {
    ps_t wake_ps = kNever;
    uint16_t nreq = 0;
    uint16_t ptr = 0;
  };
  uint32_t max_ports_ = 0, nv_ = 0, vc_shift_ = 0, qcap_ = 1, qmask_ = 0;
  uint32_t req_bits_ = 0, req_words_ = 1;
  uint32_t speedup_ = 1;
  std::vector<ps_t> in_busy_;  // [input * speedup + k]: crossing k busy until
  std::vector<QEntry> head_;  // [c]
  std::vector<QEntry> q_;     // [c * qcap + i]: the entries behind the head
  std::vector<uint16_t> qhead_, qlen_;
  std::vector<uint32_t> occ_;
  std::vector<uint32_t> peak_;  // peak occupancy (units, counting what is on the wire to it)
  std::vector<uint64_t> req_;
  std::vector<OutArb> arb_;
};

}  // namespace fabemu
