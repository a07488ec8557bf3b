// The run-level interface of an emulation engine (one virtual call per run,
// never per packet) and the plain configuration and results it exchanges with
// control/.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dataplane/barrier/barrier_network.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/fabric.h"
#include "dataplane/endpoint/traffic.h"
#include "dataplane/ethernet/port_config.h"
#include "dataplane/link/capture_tap.h"
#include "dataplane/link/fault.h"
#include "dataplane/link/retry_config.h"
#include "dataplane/router/router_shape.h"
#include "dataplane/sim/rank_link.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

struct LiveStats;

// What a real-time run does while it is more than overload_bound_ps behind
// the wall clock: warn (keep going, distorted), shed (refuse new ingress
// frames and synthetic messages, counted) or stop (end the run, reported).
enum class Overload : uint8_t { warn, shed, stop };

// A run's configuration: the traffic sources' (endpoint/traffic.h), the
// bridge's (ethernet/port_config.h), the routers' (router/router_shape.h),
// the links' (link/), and the engine's own.
struct EngineConfig : TrafficConfig, BridgeConfig {
  uint64_t seed = 1;
  ps_t warmup_ps = 0;
  ps_t measure_ps = 0;
  ps_t drain_ps = 0;
  // run.sample_period_ns: figures per sample period (stats/sample_periods.h); 0: off.
  ps_t sample_period_ps = 0;
  int workers = 1;  // every worker of the run (over several ranks: of every rank)
  // Several MPI ranks (sim/rank_link.h): this process runs workers
  // first_local_worker .. + local_workers - 1 of `workers` and meets the
  // other ranks' at every window edge by `ranks`. nullptr: one process.
  RankLink* ranks = nullptr;
  int first_local_worker = 0;
  int local_workers = 0;
  bool check_invariants = false;
  // Decode every delivered packet against its metadata, as check_invariants
  // does besides its credit checks at every event (a soak of millions of
  // packets: nothing damaged delivered, at full speed).
  bool check_deliveries = false;
  uint32_t source_queue_packets = 256;
  // Two-hop error detection and recovery (link/recovery_memory.h): every
  // router output keeps what it sent until the router two hops on has it.
  struct Recovery {
    bool on = false;
    uint64_t size_words = 0;  // a memory's sizing (6 Bi + 5 Bo + 12 x delay line)
    ps_t keep_ps = 0;         // an ack2's way back after its packet arrived (duplicates)
  } recovery;
  RouterConfig router;  // router/router_shape.h
  PacketFormat format;
  uint8_t codec = 0;            // CodecKind of dataplane/codec/codec.h
  // Which worker owns each router (filled by control/ placement).
  std::vector<int> router_worker;
  // The CPUs each worker's thread may run on while the run lasts ([w]; an
  // empty or missing entry leaves the thread where DPDK put it).
  std::vector<std::vector<int>> worker_cpus;
  // Progress: called from the main thread about every progress_s wall seconds.
  double progress_s = 1.0;
  struct Progress {
    double fraction = 0;  // of the run's emulated time
    ps_t now = 0;
    uint64_t delivered = 0;
    bool retry = false;  // link-level retry is on: its counts follow
    uint64_t crc_errors = 0, retries = 0;
    uint64_t lanes_dropped = 0, given_up = 0;  // lane degrade, link.retry_limit
    std::string faults;  // the fault state now (filled by control/run/runner.cpp)
  };
  std::function<void(const Progress&)> progress;
  // Per-packet delivery hook for tests (slow; nullptr in normal runs). It is
  // called on the worker core that delivers, so it must be thread-safe.
  std::function<void(uint64_t packet_id, uint32_t src, uint32_t dst, ps_t latency_ps, uint32_t hops)>
      on_deliver;

  // Real time: emulated time follows the TSC, time_scale wall ps per emulated ps.
  bool realtime = false;
  double time_scale = 1.0;
  double duration_s = 0;           // wall seconds; 0: until *stop becomes true
  ps_t lateness_bound_ps = 1000 * 1000;
  // A worker is behind when its oldest due event is older than this; what
  // the run then does is `overload`.
  ps_t overload_bound_ps = 1000ull * 1000 * 1000;
  Overload overload = Overload::warn;
  // Called on worker 0 when the run first falls behind by more than
  // overload_bound_ps (and again after it caught up and fell behind anew).
  std::function<void(ps_t behind)> on_overload;
  const std::atomic<bool>* stop = nullptr;  // set by a signal handler to end the run early
  // Real-time progress: called from worker 0 about every progress_s seconds.
  std::function<void(const LiveStats&)> live;
  // Capture taps on links and ports (queues empty: no capture).
  CaptureTaps capture;
  // Link-level retry on every router-to-router link (dataplane/link/go_back_n.h).
  LinkRetryConfig retry;
  // Faults at emulated times (sorted by `at`); any faults at all (here or
  // while running, EngineBase::inject_faults) need `faults_possible`, which
  // arms the checks (one predictable branch per grant when off).
  std::vector<FabricFault> faults;
  bool faults_possible = false;
  // BlackWidow 7.7: an output VC whose packets have waited this long without
  // one leaving times out, and its port discards what is bound for it
  // (0: no timer). Needs faults_possible.
  ps_t forward_progress_ps = 0;
  // The T3E's barrier/eureka networks (barrier/barrier_network.h; units 0:
  // none); traffic.phases synchronise on them.
  BarrierConfig barrier;
};

class EngineBase {
 public:
  virtual ~EngineBase() = default;
  // Runs warm-up, measurement and drain; returns the statistics.
  virtual RunStats run() = 0;
  // While run() goes on, from any thread: state changes each worker applies
  // at its next window edge (their `at` is ignored). False when the engine
  // was not made with faults_possible. Returns the index of the first
  // change among all injected so far in *first (for applied_at).
  virtual bool inject_faults(const std::vector<FabricFault>& changes, size_t* first = nullptr) = 0;
  // The emulated time each injected change took effect (worker 0's window
  // edge or housekeeping), kNever for one not applied (yet).
  virtual std::vector<ps_t> injected_applied_at() const = 0;
  // About where the run is in emulated time (worker 0, updated per window).
  ps_t emulated_now() const { return emulated_now_.load(std::memory_order_relaxed); }

  // Changes made together while running (faults and the tables programmed
  // around them) go inside one of these, so that virtual-time workers take
  // all or none of them at one window edge: worker 0 reads what is
  // published only while no change is half made.
  template <class F>
  void change_while_running(F&& make) {
    std::lock_guard<std::mutex> g(change_mu_);
    change_epoch_.fetch_add(1, std::memory_order_acq_rel);  // odd: changing
    make();
    change_epoch_.fetch_add(1, std::memory_order_acq_rel);
  }

 protected:
  std::atomic<ps_t> emulated_now_{0};
  std::atomic<uint32_t> change_epoch_{0};

 private:
  std::mutex change_mu_;
};

}  // namespace fabemu
