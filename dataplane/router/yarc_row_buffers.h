// The YARC row buses and row buffers (Scott et al., ISCA 2006, section 3):
// a packet routed at the head of its input buffer to an output column is
// driven onto its input's row bus and buffered in the row buffer at the
// subswitch where its input row meets that column. Each input has one row
// buffer per column (k/p of them), each split into VCs of 16 phits; since
// a row buffer belongs to one input, no arbitration allocates it, only flow
// control: the input holds its credits. The row bus carries one phit per
// cycle, for one packet at a time (its VCs take turns, round robin).
//
// Indices over the routers of one worker: input `in` = local router * k +
// port (as InputQueuedRouter numbers ports); row buffer
// rb = (in * k/p + column) * nv + vc.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/router/yarc_tile_geometry.h"
#include "dataplane/router/yarc_wormhole.h"
#include "dataplane/sim/time.h"

namespace fabemu {

class RowBuffers {
 public:
  void init(uint32_t inputs, const TileGeometry& g, uint32_t min_units) {
    groups_ = g.groups;
    nv_ = g.nv;
    buf_.init(size_t(inputs) * groups_ * nv_, g.row_units, min_units);
    bus_.assign(inputs, Bus{});
  }
  static size_t bytes(uint32_t inputs, const TileGeometry& g, uint32_t min_units) {
    return WormholeBuffers::bytes(size_t(inputs) * g.groups * g.nv, g.row_units, min_units) +
           inputs * sizeof(Bus);
  }

  uint32_t index(uint32_t in, uint32_t column, uint32_t v) const {
    return (in * groups_ + column) * nv_ + v;
  }
  uint32_t input_of(uint32_t rb) const { return rb / nv_ / groups_; }
  uint32_t column_of(uint32_t rb) const { return (rb / nv_) % groups_; }

  WormholeBuffers& buffers() { return buf_; }
  const WormholeBuffers& buffers() const { return buf_; }

  // ---- the row bus of input `in` -------------------------------------------
  // Busy sending a packet's phits until then.
  ps_t& bus_free(uint32_t in) { return bus_[in].free_ps; }
  ps_t bus_free(uint32_t in) const { return bus_[in].free_ps; }
  // One pending wake-up per bus: the earliest time it must look again.
  ps_t& bus_wake(uint32_t in) { return bus_[in].wake_ps; }
  // The VC whose turn it is.
  uint8_t& bus_turn(uint32_t in) { return bus_[in].turn; }

 private:
  struct Bus {
    ps_t free_ps = 0;
    ps_t wake_ps = kNever;
    uint8_t turn = 0;
  };
  uint32_t groups_ = 1, nv_ = 1;
  WormholeBuffers buf_;
  std::vector<Bus> bus_;  // [in]
};

}  // namespace fabemu
