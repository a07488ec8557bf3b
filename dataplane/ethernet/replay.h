// The frames a replayed host sends (spec ports[].replay): read from a pcap
// or pcapng file by control/ before the run (control/run/replay_load.h),
// held in one block, with each frame's time relative to the file's first.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

struct ReplayTrace {
  std::vector<ps_t> t_ps;        // [i] after the first frame
  std::vector<uint32_t> start;   // [i] offset of frame i in bytes; [frames()] = bytes.size()
  std::vector<uint8_t> bytes;

  size_t frames() const { return t_ps.size(); }
  const uint8_t* frame(size_t i) const { return bytes.data() + start[i]; }
  uint32_t length(size_t i) const { return start[i + 1] - start[i]; }
  void add(ps_t t, const uint8_t* data, uint32_t len) {
    if (start.empty()) start.push_back(0);
    t_ps.push_back(t);
    bytes.insert(bytes.end(), data, data + len);
    start.push_back(static_cast<uint32_t>(bytes.size()));
  }
  // One pass through the file: its span plus a gap of 1 us before the next
  // pass begins (so a one-frame file loops at 1 MHz, not at once).
  ps_t pass_ps(double speed) const {
    const ps_t span = frames() ? t_ps.back() : 0;
    return static_cast<ps_t>(double(span) / speed) + 1000 * 1000;
  }
};

}  // namespace fabemu
