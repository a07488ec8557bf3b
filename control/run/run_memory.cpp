#include "control/run/run_memory.h"

#include <fmt/format.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "control/run/runner.h"
#include "control/spec/spec_refuse.h"
#include "control/topology/registry.h"
#include "control/topology/slices.h"
#include "dataplane/codec/codec.h"
#include "dataplane/core/eal.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/rng.h"
#include "dataplane/endpoint/nic.h"
#include "dataplane/endpoint/packet_pool.h"
#include "dataplane/engine/engine_memory.h"
#include "dataplane/ethernet/bridge.h"
#include "dataplane/link/link.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/output_queues.h"
#include "dataplane/router/router_sizing.h"
#include "dataplane/router/yarc_tiled.h"
#include "dataplane/routing/greedy_snapshot.h"
#include "dataplane/sim/event.h"
#include "dataplane/sim/kernel_worker.h"
#include "dataplane/sim/timing_wheel.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

namespace {

// The process before any fabric: code, libraries, TBB and DPDK's own
// start-up without its page table (measured: a 2-endpoint YARC run with
// FABEMU_DPDK_MEM_MB=512 peaks at 36 MB, of which 6 MB is that table and
// 4 MB its first pool).
constexpr uint64_t kProcessBytes = 26ull << 20;
// Receive pool of one port (dataplane/ethernet/eth_port.cpp), in buffers;
// a worker's transmit pool is tx_pool_buffers (ethernet/bridge.h).
constexpr uint64_t kRxPoolBuffers = 8191;

const std::vector<std::string> kSizeFields = {"topology.dims", "topology.endpoints_per_router",
                                              "topology.endpoints", "topology.rank"};

std::vector<std::string> with_size(std::vector<std::string> first) {
  first.insert(first.end(), kSizeFields.begin(), kSizeFields.end());
  return first;
}

// A pool of n buffers: its objects, the ring that holds them, and the
// header with a cache per lcore when it has one (rte_mempool_create).
uint64_t pool_bytes(uint64_t n, uint64_t obj, bool cache) {
  uint64_t ring = 1;
  while (ring < n + 1) ring <<= 1;
  return n * obj + ring * sizeof(void*) + sizeof(rte_mempool) +
         (cache ? RTE_MAX_LCORE * sizeof(rte_mempool_cache) : 0);
}

// A growing pool (endpoint/packet_pool.h): `first` buffers, then pools
// twice as large until `limit`.
uint64_t grown_pool_bytes(uint64_t first, uint64_t limit, uint64_t obj) {
  uint64_t total = 0, bytes = 0, next = std::min(first, limit);
  while (total < limit) {
    uint64_t n = std::min(next, limit - total);
    n = std::max<uint64_t>(n, 64);
    bytes += pool_bytes(n, obj, n >= 4096);
    total += n;
    next = n * 2;
  }
  return bytes;
}

uint64_t read_number(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  if (!(in >> s) || s == "max") return 0;
  try {
    return std::stoull(s);
  } catch (...) {
    return 0;
  }
}

// The cgroup's limit less what it already uses, 0 when it has none.
uint64_t cgroup_room() {
  std::string v2_path, v1_path;
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (controllers.empty()) v2_path = line.substr(b + 1);
    if (controllers == "memory") v1_path = line.substr(b + 1);
  }
  const std::vector<std::pair<std::string, std::string>> candidates = {
      {"/sys/fs/cgroup" + v2_path + "/memory.max", "/sys/fs/cgroup" + v2_path + "/memory.current"},
      {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
      {"/sys/fs/cgroup/memory" + v1_path + "/memory.limit_in_bytes",
       "/sys/fs/cgroup/memory" + v1_path + "/memory.usage_in_bytes"},
      {"/sys/fs/cgroup/memory/memory.limit_in_bytes",
       "/sys/fs/cgroup/memory/memory.usage_in_bytes"}};
  for (const auto& [limit_path, usage_path] : candidates) {
    const uint64_t limit = read_number(limit_path);
    if (limit == 0 || limit >= (uint64_t{1} << 60)) continue;  // none, or "unlimited"
    const uint64_t used = read_number(usage_path);
    return limit > used ? limit - used : 1;
  }
  return 0;
}

}  // namespace

MemoryEstimate estimate_run_memory(const Spec& spec, const Fabric& f) {
  const EngineConfig cfg = make_engine_config(spec, f);
  const int nw = std::max(1, spec.run.workers);
  const uint32_t nv = static_cast<uint32_t>(std::max(1, f.num_vcs));
  const uint64_t nep = f.endpoints.size();
  uint32_t max_ports = 0, maxcap = 1;
  for (const auto& r : f.routers) max_ports = std::max<uint32_t>(max_ports, r.ports.size());
  for (uint32_t v = 0; v < nv && v < kMaxVcs; v++) maxcap = std::max(maxcap, f.vc_buffer_units[v]);
  const uint32_t qcap = fifo_entries(maxcap, cfg.format.min_units);
  const std::vector<uint32_t> vc_units(f.vc_buffer_units.begin(), f.vc_buffer_units.begin() + nv);
  const uint32_t sqp = cfg.source_queue_packets;
  const bool ports = !spec.ports.empty();
  const uint64_t obj =
      mbuf_object_bytes(packet_data_room(static_cast<CodecKind>(cfg.codec), cfg.format.max_units));
  uint64_t nlinks = nep;
  for (const auto& r : f.routers)
    for (const auto& p : r.ports) nlinks += p.connected();

  MemoryEstimate m;
  auto add = [&](MemoryPart p) { m.parts.push_back(std::move(p)); };

  // Per worker, as Engine::setup_worker allocates. Reassembly tables only
  // where a message can span packets.
  const bool segmented = ports || messages_span_packets(cfg, cfg.format, ports);
  uint64_t routers_b = 0, fifo_b = 0, links_b = 0, eps_b = 0, srcq_b = 0, srcq_meta_b = 0,
           pool_start = 0, pool_max = 0, staged_b = 0;
  for (int w = 0; w < nw; w++) {
    uint32_t nlr = 0;
    uint64_t outs = 0, owned = 0;
    for (size_t r = 0; r < f.routers.size(); r++) {
      if (cfg.router_worker[r] != w) continue;
      nlr++;
      for (const auto& p : f.routers[r].ports) outs += p.connected();
    }
    uint64_t homes = 0;  // processors' slice-0 ports: they reassemble
    for (const auto& e : f.endpoints) {
      owned += cfg.router_worker[e.router] == w;
      homes += cfg.router_worker[e.router] == w && uint32_t(e.id) < f.processors();
    }
    const uint64_t nout = uint64_t(nlr) * max_ports;
    routers_b += InputQueuedRouter::state_bytes(nlr, max_ports, nv, cfg.router.input_speedup) +
                 nlr * sizeof(Rng);
    if (cfg.router.tiles.on)  // row buses and buffers, subswitches, column buffers
      routers_b += YarcTiledRouter::tiles_bytes(
          nlr,
          TileGeometry::make(max_ports, cfg.router.tiles.degree, nv, cfg.router.tiles.row_units,
                             cfg.router.tiles.column_units, kPsPerNs),
          cfg.format.min_units);
    fifo_b +=
        InputQueuedRouter::fifo_bytes(nlr, max_ports, nv, qcap) +
        OutputQueues::state_bytes(
            static_cast<uint32_t>(nout), nv, cfg.router.output_queue_speedup(),
            nout * output_queue_packets(cfg.router.output_queue_speedup(), cfg.router.output_queue_units,
                                        cfg.format.min_units, vc_units));
    // Per output VC also the units routed and not yet sent, and a greedy
    // allocator's snapshot of them (counted whatever the allocator), and
    // per output the units its credit-blocked requesters wait for.
    links_b += nout * (sizeof(OutLink) + sizeof(InLink) + nv * sizeof(SenderVc) +
                       nv * sizeof(uint32_t) + sizeof(BlockedUnits)) +
               GreedySnapshot::bytes(nlr, nout * nv) + nlinks * sizeof(LinkStats);
    eps_b += nep * (sizeof(Nic) + nv * sizeof(CreditCounter)) +
             (segmented ? homes * kReassemblySlots * (sizeof(uint64_t) + 2) : 0);
    srcq_b += owned * 2 * SourceQueue::slots(sqp) * sizeof(rte_mbuf*);
    // (A slot's metadata is touched when a packet is queued there.)
    srcq_meta_b += owned * 2 * SourceQueue::slots(sqp) * sizeof(SourceQueue::Slot);
    staged_b += (uint64_t(nw) + 1) * kStagedEvents * sizeof(Event) +
                TimingWheel::state_bytes((owned + outs) * 2);
    const uint64_t limit = worker_buffer_limit(cfg, f, w);  // the engine's pool bound
    const uint64_t first = std::min<uint64_t>(limit, pool_first_buffers(ports));
    pool_start += grown_pool_bytes(first, first, obj);
    pool_max += grown_pool_bytes(first, limit, obj);
  }
  add({"source queues",
       fmt::format("{} endpoints x 2 queues x {} slots of a buffer pointer and the packet's "
                   "metadata (run.source_queue_packets {})",
                   nep, SourceQueue::slots(sqp), sqp),
       srcq_b, srcq_b + srcq_meta_b, false, with_size({"run.source_queue_packets"})});
  add({"packet buffers",
       fmt::format("mbuf pools of {} B buffers, growing as the fabric fills to every buffer and "
                   "port frame queue full",
                   obj),
       pool_start, pool_max, true,
       with_size({"run.source_queue_packets", "vcs.buffer_units", "vcs.adaptive_buffer_units"})});
  add({"router input FIFOs",
       fmt::format("{} routers x {} ports x {} VCs, {} entries each behind the head",
                   f.routers.size(), max_ports, nv, qcap),
       routers_b, routers_b + fifo_b, false,
       with_size({"vcs.buffer_units", "vcs.adaptive_buffer_units", "packet.max_units"})});
  add({"endpoint state", fmt::format("{} endpoints, on each of {} workers", nep, nw), eps_b, eps_b,
       false, with_size({"run.workers"})});
  add({"links", fmt::format("{} links and their statistics, per worker", nlinks), links_b, links_b,
       false, with_size({"run.workers"})});
  add({"events", "timing wheels and the events staged between workers", staged_b, staged_b, false,
       with_size({"run.workers"})});
  const RoutingInfo* routing = Registry::get().routing(spec.topology.family, spec.routing);
  // Programmed once, on slice 0, for every slice (control/topology/slices.h).
  const uint64_t tables = !routing || !routing->table_bytes ? 0
                          : f.slices > 1                    ? routing->table_bytes(first_slice(f))
                                                            : routing->table_bytes(f);
  add({"routing tables",
       fmt::format("{} routing tables for {} routers", spec.routing, f.routers.size()), tables,
       tables, false, kSizeFields});
  uint64_t graph = nep * sizeof(FabricEndpoint);
  for (const auto& r : f.routers)
    graph += sizeof(FabricRouter) + r.ports.size() * sizeof(FabricPort);
  add({"fabric graph", "routers, ports and endpoints (the runner's and the engine's copy)",
       2 * graph, 2 * graph, false, kSizeFields});
  const uint64_t rings = uint64_t(nw) * (nw - 1) * (kCrossCoreRingEvents * sizeof(Event) + 4096);
  if (rings)
    add({"cross-core rings",
         fmt::format("{} rings of {} events", nw * (nw - 1), kCrossCoreRingEvents),
         rings,
         rings,
         true,
         {"run.workers"}});
  if (ports) {
    std::set<std::string> devices;
    for (const auto& p : spec.ports)
      if (p.replay.empty()) devices.insert(p.device.substr(0, p.device.find(',')));
    const uint64_t frame_obj = mbuf_object_bytes(RTE_MBUF_DEFAULT_BUF_SIZE);
    const uint64_t b = devices.size() * (pool_bytes(kRxPoolBuffers, frame_obj, true) +
                                         pool_bytes(tx_pool_buffers(1), frame_obj, true));
    if (!devices.empty())  // (a replayed host has neither)
      add({"port buffers", fmt::format("receive and transmit pools of {} devices", devices.size()),
           b, b, true, {"ports"}});
  }
  // Replayed hosts' files are held in memory whole (control/run/replay_load.h):
  // every record on disk carries at least 16 bytes of header, more than the
  // 12 a frame takes in memory besides its bytes, so the file's size bounds it.
  uint64_t replay_b = 0;
  size_t replays = 0;
  for (const auto& pb : spec.ports) {
    struct stat st;
    if (pb.replay.empty() || ::stat(pb.replay.c_str(), &st) != 0) continue;  // the loader says why
    replay_b += uint64_t(st.st_size);
    replays++;
  }
  if (replays)
    add({"replay traces",
         fmt::format("{} replayed file{} held in memory whole, at most {} on disk", replays,
                     replays == 1 ? "" : "s", bytes_text(replay_b)),
         replay_b, replay_b, false, {"ports"}});
  // Without hugepages DPDK takes -m megabytes of ordinary memory, sized to
  // the run (runner.h dpdk_memory_mb), and keeps a descriptor per 4 kB page
  // of it; the pools come out of it.
  const bool huge = eal_hugepages_wanted();
  const int dpdk_mb = huge ? 0 : eal_no_huge_memory_mb(dpdk_memory_mb(spec, cfg, f));
  m.dpdk_cap_bytes = uint64_t(dpdk_mb) << 20;
  const uint64_t memsegs = (m.dpdk_cap_bytes / 4096) * sizeof(rte_memseg);
  add({"process and DPDK start-up",
       huge ? std::string("code, libraries, DPDK with hugepages")
            : fmt::format("code, libraries, DPDK's page table for its {} MB", dpdk_mb),
       kProcessBytes + memsegs, kProcessBytes + memsegs, false, {}});

  std::stable_sort(m.parts.begin(), m.parts.end(), [](const MemoryPart& a, const MemoryPart& b) {
    return a.max_bytes > b.max_bytes;
  });
  uint64_t dpdk_max = 0, host_max = 0;
  for (const auto& p : m.parts) {
    m.start_bytes += p.start_bytes;
    (p.dpdk ? dpdk_max : host_max) += p.max_bytes;
  }
  // With hugepages DPDK's part is not ordinary memory at all.
  m.max_bytes = host_max + (huge ? 0 : std::min(dpdk_max, m.dpdk_cap_bytes));
  if (huge)
    for (const auto& p : m.parts) m.start_bytes -= p.dpdk ? p.start_bytes : 0;
  return m;
}

MemoryBudget available_memory() {
  MemoryBudget b;
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") {
      b.bytes = kb << 10;
      b.source = "MemAvailable in /proc/meminfo";
      break;
    }
    in.ignore(256, '\n');
  }
  const uint64_t cg = cgroup_room();
  if (cg && (b.bytes == 0 || cg < b.bytes)) {
    b.bytes = cg;
    b.source = "the room left under this cgroup's memory limit";
  }
  return b;
}

std::string bytes_text(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) return fmt::format("{:.1f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.0f} MB", b / 1e6);
  return fmt::format("{:.0f} kB", b / 1e3);
}

std::string memory_text(const MemoryEstimate& m) {
  std::string s = fmt::format("{} at start, up to {} with every buffer full",
                              bytes_text(m.start_bytes), bytes_text(m.max_bytes));
  for (const auto& p : m.parts)
    s += fmt::format("\n    {:<26} {:>9} {:>9}  {}", p.name, bytes_text(p.start_bytes),
                     bytes_text(p.max_bytes), p.detail);
  return s;
}

std::string check_run_memory(const Spec& spec, const Fabric& fabric, const MemoryBudget& budget,
                             bool allow_peak) {
  if (budget.bytes == 0) return "";  // nothing known about this machine
  const MemoryEstimate m = estimate_run_memory(spec, fabric);
  if (m.max_bytes <= budget.bytes) return "";
  std::string parts;
  std::vector<std::string> fields;
  for (size_t i = 0; i < m.parts.size() && i < 3; i++) {
    const MemoryPart& p = m.parts[i];
    parts += fmt::format("{}{} {} ({})", i ? ", " : "", p.name, bytes_text(p.max_bytes), p.detail);
    fields.insert(fields.end(), p.fields.begin(), p.fields.end());
  }
  const bool starts = m.start_bytes <= budget.bytes;
  if (allow_peak && starts)
    return fmt::format(
        "this run needs up to {} of memory with every buffer full, more than the {} available "
        "({}); it starts with {} and runs because of --allow-memory-peak: if its buffers fill "
        "that far, the kernel may kill it without a report. Its biggest parts: {}",
        bytes_text(m.max_bytes), bytes_text(budget.bytes), budget.source,
        bytes_text(m.start_bytes), parts);
  refuse_spec(spec, fields,
              fmt::format("this run needs up to {} of memory ({} at start), more than the {} "
                          "available ({}); its biggest parts: {}. Lower what makes them big: a "
                          "smaller fabric, fewer run.source_queue_packets or workers{}{}",
                          bytes_text(m.max_bytes), bytes_text(m.start_bytes),
                          bytes_text(budget.bytes), budget.source, parts,
                          parts.find("replay traces") != std::string::npos
                              ? ", a part of a replayed file (editcap -c)"
                              : "",
                          starts ? "; or, as its start fits, run it with --allow-memory-peak "
                                   "(it may be killed if its buffers fill)"
                                 : ""));
}

}  // namespace fabemu
