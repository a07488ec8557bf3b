// Sizes the engine's set-up allocates, in one place: Engine::setup
// (engine_setup.h) sizes its FIFOs, queues, rings and traffic with these (and
// its pools with engine_memory.h), and the memory estimate of
// control/run/run_memory.h counts with the same functions, so the estimate
// follows the engine when either changes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/engine/engine_base.h"

namespace fabemu {

// Entries of one input FIFO ring: the largest VC buffer full of the
// shortest packets, plus one, rounded up to a power of two.
inline uint32_t fifo_entries(uint32_t max_buffer_units, uint32_t min_units) {
  const uint32_t minu = std::max<uint32_t>(1, min_units);
  uint32_t q = 1;
  while (q < max_buffer_units / minu + 1) q <<= 1;
  return q;
}

// The most entries one FIFO ring may have: its 16-bit head and length.
inline constexpr uint32_t kMaxFifoEntries = 0x8000;

// A worker's pool starts with this many buffers and doubles as the fabric
// fills, up to worker_buffer_limit (engine_memory.h); with ports it starts
// larger: no growth while frames flow.
inline uint32_t pool_first_buffers(bool ports) { return ports ? 32768 : 8192; }

// The chance that an endpoint starts a message (or a batch) in one unit time
// of its injection link, so that it offers `load` of the link's bandwidth:
// load / (mean units of a message, segments and headers included) / batch.
inline double generation_probability(const PacketFormat& f, const std::vector<uint32_t>& bytes,
                                     const std::vector<double>& weights, double load,
                                     uint32_t batch) {
  const uint32_t max_payload = f.max_payload_bytes();
  double wsum = 0, mean_units = 0;
  for (double w : weights) wsum += w;
  for (size_t i = 0; i < bytes.size() && max_payload; i++) {
    const uint32_t b = bytes[i];
    const uint32_t nseg = b == 0 ? 1 : (b + max_payload - 1) / max_payload;
    double units = 0;
    for (uint32_t s = 0; s < nseg; s++)
      units += f.units_for(std::min(max_payload, b - std::min(b, s * max_payload)));
    mean_units += units * weights[i] / wsum;
  }
  if (mean_units <= 0) return 1.0;
  return std::min(1.0, load / mean_units / std::max<uint32_t>(1, batch));
}

inline constexpr uint32_t kReassemblySlots = 1024;         // per endpoint
inline constexpr uint32_t kCrossCoreRingEvents = 1 << 16;  // per ordered pair of workers
inline constexpr uint32_t kStagedEvents = 4096;            // outbox per peer, and inbox

}  // namespace fabemu
