#include "dataplane/engine/engine_memory.h"

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <algorithm>

#include "dataplane/codec/codec.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/endpoint/nic.h"
#include "dataplane/ethernet/bridge.h"
#include "dataplane/ethernet/ether.h"
#include "dataplane/router/router_sizing.h"
#include "dataplane/router/yarc_wormhole.h"
#include "dataplane/sim/event.h"
#include "dataplane/sim/kernel_worker.h"

namespace fabemu {

namespace {
constexpr uint32_t kSlack = 4096;  // buffers beyond the counted ones
constexpr uint32_t kPoolCap = 1u << 21;
}  // namespace

uint64_t mbuf_object_bytes(uint32_t room) {
  rte_mempool_objsz sz{};
  return rte_mempool_calc_obj_size(static_cast<uint32_t>(sizeof(rte_mbuf) + kMbufPrivSize + room), 0,
                                   &sz);
}

uint32_t frame_segments(const EngineConfig& cfg) {
  uint32_t max_frame = 0;
  for (const auto& pc : cfg.ports) max_frame = std::max(max_frame, pc.max_frame_bytes);
  const uint32_t payload = std::max<uint32_t>(1, cfg.format.max_payload_bytes());
  return std::max<uint32_t>(1, (max_frame + payload - 1) / payload);
}

uint32_t worker_buffer_limit(const EngineConfig& cfg, const Fabric& f, int w) {
  auto owner = [&](uint32_t router) {
    return router < cfg.router_worker.size() ? cfg.router_worker[router] : 0;
  };
  // Buffers that can be in flight at once: every input buffer (and output
  // queue, with switch speedup; row and column buffer, in the tiled router)
  // full of the shortest packets, plus the frames ports queue (the pool
  // grows to this only when the fabric really fills). Synthetic packets in
  // source queues have no buffer until they are injected (SourceQueue),
  // but for the first kBuildAhead of each queue: counted, so that a packet
  // being injected always finds one.
  uint64_t bufs = kSlack;
  for (const auto& ep : f.endpoints)
    if (owner(static_cast<uint32_t>(ep.router)) == w) bufs += 2ull * SourceQueue::kBuildAhead;
  const uint32_t minu = std::max<uint32_t>(1, cfg.format.min_units);
  uint64_t oq_per_port = output_queue_packets(
      cfg.router.output_queue_speedup(), cfg.router.output_queue_units, cfg.format.min_units,
      std::vector<uint32_t>(f.vc_buffer_units.begin(), f.vc_buffer_units.begin() + f.num_vcs));
  if (cfg.router.tiles.on) {
    uint32_t k = 1;
    for (const FabricRouter& r : f.routers) k = std::max<uint32_t>(k, r.ports.size());
    oq_per_port += uint64_t(k / std::max<uint32_t>(1, cfg.router.tiles.degree)) * f.num_vcs *
                   (WormholeBuffers::fifo_entries(cfg.router.tiles.row_units, minu) +
                    WormholeBuffers::fifo_entries(cfg.router.tiles.column_units, minu));
  }
  for (size_t r = 0; r < f.routers.size(); r++) {
    if (owner(static_cast<uint32_t>(r)) != w) continue;
    for (const FabricPort& fp : f.routers[r].ports) {
      if (!fp.connected()) continue;
      for (int v = 0; v < f.num_vcs; v++) bufs += f.vc_buffer_units[v] / minu + 1;
      bufs += oq_per_port;
    }
  }
  const uint32_t seg = frame_segments(cfg);
  for (const auto& pc : cfg.ports) {
    if (pc.endpoint >= f.endpoints.size() || owner(static_cast<uint32_t>(f.endpoints[pc.endpoint].router)) != w)
      continue;
    // The processor's port in every slice queues that much (its frames may
    // hash onto any of them).
    bufs += uint64_t(f.slices) *
                std::max<uint64_t>(cfg.source_queue_packets, uint64_t(pc.queue_frames) * seg) +
            uint64_t(kFrameSlots) * seg;
  }
  // Two-hop recovery: a packet's last two routers each hold a copy of it
  // until the ack2 (link/recovery_memory.h), two more buffers per packet.
  if (cfg.recovery.on) bufs *= 3;
  return static_cast<uint32_t>(std::min<uint64_t>(bufs, kPoolCap));
}

uint64_t dpdk_bytes_needed(const EngineConfig& cfg, const Fabric& f) {
  const int nw = std::max(1, cfg.workers);
  const uint64_t per_mbuf =
      mbuf_object_bytes(packet_data_room(static_cast<CodecKind>(cfg.codec), cfg.format.max_units));
  uint64_t bytes = 0;
  for (int w = 0; w < nw; w++) bytes += uint64_t(worker_buffer_limit(cfg, f, w)) * per_mbuf;
  if (!cfg.ports.empty()) {
    // Transmit pools (ethernet/bridge.h): at most one per worker, sized by its devices.
    uint32_t max_frame = 0;
    for (const auto& pc : cfg.ports) max_frame = std::max(max_frame, pc.max_frame_bytes);
    bytes += uint64_t(nw) * tx_pool_buffers(cfg.ports.size()) * mbuf_object_bytes(tx_data_room(max_frame));
  }
  bytes += uint64_t(nw) * uint64_t(nw - 1) * kCrossCoreRingEvents * sizeof(Event);
  return bytes;
}

}  // namespace fabemu
