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

// Whether some message can span packets, so that endpoints need reassembly
// tables: frames always can; synthetic traffic when its largest message
// (or reply) is longer than one packet's payload.
inline bool messages_span_packets(const EngineConfig& cfg) {
  uint32_t largest = cfg.reply_fraction > 0 ? cfg.reply_bytes : 0;
  for (uint32_t b : cfg.size_bytes) largest = std::max(largest, b);
  return !cfg.ports.empty() || largest > cfg.format.max_payload_bytes();
}

// The chance that an endpoint starts a message (or a batch) in one unit time
// of its injection link, so that it offers `load` of the link's bandwidth:
// load / (mean units of a message, segments and headers included) / batch.
inline double generation_probability(const PacketFormat& f, const std::vector<uint32_t>& bytes,
                                     const std::vector<double>& weights, double load,
                                     uint32_t batch) {
  const uint32_t max_payload = f.max_payload_bytes();
  double wsum = 0, mean_units = 0;
  for (double w : weights) wsum += w;
  for (size_t i = 0; i < bytes.size() && max_payload; i++)
    mean_units += double(message_units(f, bytes[i])) * weights[i] / wsum;
  if (mean_units <= 0) return 1.0;
  return std::min(1.0, load / mean_units / std::max<uint32_t>(1, batch));
}

// Switch speedup (output_speedup > 1): each output VC queue's capacity in
// flow units, router.output_queue_units or, by default, kOutputQueueBuffers
// input buffers of its VC. Four is where the 32-ary 2-flat's saturation
// under uniform traffic stops rising (MIN: 0.877 with one buffer, 0.962
// with four, 0.964 with sixteen), so the router is not the bottleneck.
inline constexpr uint32_t kOutputQueueBuffers = 4;
inline std::vector<uint32_t> output_queue_caps(const EngineConfig& cfg,
                                               const std::vector<uint32_t>& vc_buffer_units) {
  std::vector<uint32_t> caps(vc_buffer_units.size());
  for (size_t v = 0; v < caps.size(); v++)
    caps[v] =
        cfg.output_queue_units ? cfg.output_queue_units : kOutputQueueBuffers * vc_buffer_units[v];
  return caps;
}
// Packets all output queues of one port may hold: each VC's queue full of
// the shortest packets (0 without switch speedup).
inline uint64_t output_queue_packets(const EngineConfig& cfg,
                                     const std::vector<uint32_t>& vc_buffer_units) {
  if (cfg.output_speedup <= 1) return 0;
  uint64_t n = 0;
  for (uint32_t c : output_queue_caps(cfg, vc_buffer_units))
    n += c / std::max<uint32_t>(1, cfg.format.min_units) + 1;
  return n;
}

inline constexpr uint32_t kReassemblySlots = 1024;         // per endpoint
// A worker's transmit pool: buffers for the devices it polls.
inline uint32_t tx_pool_buffers(size_t devices) { return static_cast<uint32_t>(4095 + 2048 * devices); }

}  // namespace fabemu
