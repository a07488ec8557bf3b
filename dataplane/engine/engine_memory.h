// What a run's packet buffers may grow to, worked out from its configuration
// alone: the engine's setup sizes each worker's pool with it, and control/
// sizes DPDK's memory (EAL -m) with it before DPDK starts, so the two cannot
// drift apart.
#pragma once
#include <cstdint>

#include "dataplane/core/fabric.h"
#include "dataplane/engine/engine_base.h"

namespace fabemu {

// Bytes one buffer of a pool takes (object header, mbuf, private area and
// data room, as DPDK lays out its objects).
uint64_t mbuf_object_bytes(uint32_t room);

// Segments of one frame of up to max_frame bytes (1 without ports).
uint32_t frame_segments(const EngineConfig& cfg);

// Packet buffers worker w's pool may hold at most: every input buffer (and
// output queue) of its routers full of the shortest packets, the packets
// each source queue builds ahead (SourceQueue::kBuildAhead; the others are
// built when injected), a port endpoint's frame queue and reassembly slots,
// and 4096 more; capped at 2^21.
uint32_t worker_buffer_limit(const EngineConfig& cfg, const Fabric& f, int w);

// Bytes of DPDK memory the run may use: every worker's pool grown to its
// limit, the transmit pools of port-polling workers and the cross-core rings.
uint64_t dpdk_bytes_needed(const EngineConfig& cfg, const Fabric& f);

}  // namespace fabemu
