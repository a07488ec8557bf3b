// Reads the file of a replayed host (spec ports[].replay) into the trace the
// engine sends from (dataplane/ethernet/replay.h).
#pragma once
#include <memory>
#include <string>

#include "dataplane/ethernet/replay.h"

namespace fabemu {

// The longest a replayed file may span, frame times after the first: room
// left in the 64-bit picosecond clock for its passes and slower speeds.
inline constexpr ps_t kMaxReplaySpanPs = ps_t{1} << 62;
inline constexpr double kMaxReplaySpanDays = double(kMaxReplaySpanPs) / 86400e12;

// The Ethernet frames of a pcap or pcapng file, with times relative to the
// first one kept: only interface `interface` when it is not empty (an error
// names the interfaces there are), and never frames marked outbound (a port
// tap's frames to its host). *longest: the longest frame kept. Throws
// std::runtime_error naming the file and what is wrong.
std::shared_ptr<const ReplayTrace> load_replay(const std::string& path, const std::string& interface,
                                               uint32_t* longest);

}  // namespace fabemu
