// The YARC column buffers (Scott et al., ISCA 2006, section 3): at each
// output port, one buffer per input row (the column channel from that row's
// subswitch ends in it), each split into VCs of 10 phits, enough to cover
// the credit latency over the column lines. Co-locating an output's column
// buffers in its tile keeps the second arbitration stage local: the packets
// at their heads compete for the output port, and a winner leaves on the
// external link, virtual cut-through (the downstream input buffer must have
// room for all of it).
//
// The second stage uses the output's request bits and round robin of
// InputQueuedRouter, a requester being (row group, VC) where the
// input-queued router has (input port, VC). Column buffer cb = column
// channel * nv + vc (yarc_subswitch.h numbers the channels).
#pragma once
#include <cstdint>

#include "dataplane/router/yarc_tile_geometry.h"
#include "dataplane/router/yarc_wormhole.h"

namespace fabemu {

class ColumnBuffers {
 public:
  void init(uint32_t outputs, const TileGeometry& g, uint32_t min_units) {
    groups_ = g.groups;
    nv_ = g.nv;
    buf_.init(size_t(outputs) * groups_ * nv_, g.column_units, min_units);
  }
  static size_t bytes(uint32_t outputs, const TileGeometry& g, uint32_t min_units) {
    return WormholeBuffers::bytes(size_t(outputs) * g.groups * g.nv, g.column_units, min_units);
  }

  uint32_t index(uint32_t cc, uint32_t v) const { return cc * nv_ + v; }
  // The column buffer behind requester (row group, VC) i = (g << vc_shift) | v
  // of output o.
  uint32_t of_requester(uint32_t o, uint32_t g, uint32_t v) const {
    return (o * groups_ + g) * nv_ + v;
  }
  uint32_t channel_of(uint32_t cb) const { return cb / nv_; }

  WormholeBuffers& buffers() { return buf_; }
  const WormholeBuffers& buffers() const { return buf_; }

 private:
  uint32_t groups_ = 1, nv_ = 1;
  WormholeBuffers buf_;
};

}  // namespace fabemu
