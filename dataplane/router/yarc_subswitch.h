// The YARC subswitch and its column channels (Scott et al., ISCA 2006,
// sections 3 and 6): the p x p switch at the junction of an input row and
// an output column takes the packets at the heads of its row's row buffers
// and switches each onto the column channel of its output, which delivers
// it into that output's column buffer for this row. The first stage of the
// router's two-stage arbitration is here: each column channel picks among
// the row buffers whose head packet wants it (8-to-1 in YARC, and 2-to-1
// between the VCs: one round robin over the (input, VC) pairs), granting one
// whose column buffer has room for it (wormhole: see yarc_wormhole.h).
// The column buffer is allocated as the packet is switched.
//
// A column channel carries one phit per cycle. Channel cc = output * k/p +
// row group (output numbered as InputQueuedRouter does); its requesters are
// numbered place-in-row * nv + vc.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/router/arbiter/round_robin.h"
#include "dataplane/router/yarc_tile_geometry.h"
#include "dataplane/sim/time.h"

namespace fabemu {

class Subswitches {
 public:
  void init(uint32_t outputs, const TileGeometry& g) {
    groups_ = g.groups;
    nv_ = g.nv;
    bits_ = g.degree * g.nv;
    ch_.assign(size_t(outputs) * groups_, Channel{});
  }
  static size_t bytes(uint32_t outputs, const TileGeometry& g) {
    return size_t(outputs) * g.groups * sizeof(Channel);
  }

  uint32_t channel(uint32_t out, uint32_t row_group) const { return out * groups_ + row_group; }
  uint32_t output_of(uint32_t cc) const { return cc / groups_; }
  uint32_t row_group_of(uint32_t cc) const { return cc % groups_; }
  uint32_t requester(uint32_t slot, uint32_t v) const { return slot * nv_ + v; }
  uint32_t requester_slot(uint32_t i) const { return i / nv_; }
  uint32_t requester_vc(uint32_t i) const { return i % nv_; }

  void request(uint32_t cc, uint32_t i) {
    ch_[cc].req |= uint64_t{1} << i;
    ch_[cc].nreq++;
  }
  void withdraw(uint32_t cc, uint32_t i) {
    ch_[cc].req &= ~(uint64_t{1} << i);
    ch_[cc].nreq--;
  }
  uint32_t requests(uint32_t cc) const { return ch_[cc].nreq; }

  // First-stage arbitration: the round robin picks among the requesters of
  // channel cc that accept(i) lets go.
  template <class Accept>
  int32_t arbitrate(uint32_t cc, Accept&& accept) {
    Channel& c = ch_[cc];
    return RoundRobinArbiter::pick(&c.req, bits_, c.nreq, &c.ptr, accept);
  }

  // The channel carries a packet's phits until then.
  ps_t& free_at(uint32_t cc) { return ch_[cc].free_ps; }
  // One pending wake-up per channel.
  ps_t& wake(uint32_t cc) { return ch_[cc].wake_ps; }

 private:
  struct Channel {
    ps_t free_ps = 0;
    ps_t wake_ps = kNever;
    uint64_t req = 0;  // p * nv <= 64 requesters (the spec bounds p and the VCs)
    uint16_t nreq = 0;
    uint16_t ptr = 0;
  };
  uint32_t groups_ = 1, nv_ = 1, bits_ = 1;
  std::vector<Channel> ch_;  // [cc]
};

}  // namespace fabemu
