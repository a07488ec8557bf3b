// Sizes of a router's buffers, in one place: the engine's setup sizes its
// input FIFOs and output queues with these, and the memory estimate of
// control/run/run_memory.h counts with the same functions.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

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

// Switch speedup (router.output_speedup > 1): each output VC queue's
// capacity in flow units, router.output_queue_units (`units`) or, when 0,
// kOutputQueueBuffers input buffers of its VC. Four is where the 32-ary
// 2-flat's saturation under uniform traffic stops rising (MIN: 0.877 with
// one buffer, 0.962 with four, 0.964 with sixteen), so the router is not
// the bottleneck.
inline constexpr uint32_t kOutputQueueBuffers = 4;
inline std::vector<uint32_t> output_queue_caps(uint32_t units,
                                               const std::vector<uint32_t>& vc_buffer_units) {
  std::vector<uint32_t> caps(vc_buffer_units.size());
  for (size_t v = 0; v < caps.size(); v++)
    caps[v] = units ? units : kOutputQueueBuffers * vc_buffer_units[v];
  return caps;
}
// Packets all output queues of one port may hold: each VC's queue full of
// the shortest packets (0 without switch speedup).
inline uint64_t output_queue_packets(uint32_t output_speedup, uint32_t units, uint32_t min_units,
                                     const std::vector<uint32_t>& vc_buffer_units) {
  if (output_speedup <= 1) return 0;
  uint64_t n = 0;
  for (uint32_t c : output_queue_caps(units, vc_buffer_units))
    n += c / std::max<uint32_t>(1, min_units) + 1;
  return n;
}

}  // namespace fabemu
