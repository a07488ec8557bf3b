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

#include "dataplane/core/fabric.h"
#include "dataplane/ethernet/replay.h"
#include "dataplane/link/capture_tap.h"
#include "dataplane/link/retry_config.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

enum class Pattern : uint8_t {
  uniform, transpose, bitcomp, tornado, hotspot, permutation, neighbor, flatfly_worst
};

// How payload bytes map to flow units for the profile's packet format.
struct PacketFormat {
  uint32_t header_units = 2;     // head (+hash, +transport header) units
  uint32_t tail_units = 0;       // EOP/tail units (YARC: 1)
  uint32_t payload_bits_per_unit = 64;  // usable payload bits per unit
  uint32_t max_units = 10;       // longest packet
  uint32_t min_units = 1;        // shortest packet
  uint32_t units_for(uint32_t payload_bytes) const {
    uint32_t pu = (payload_bytes * 8 + payload_bits_per_unit - 1) / payload_bits_per_unit;
    uint32_t u = header_units + pu + tail_units;
    return u < min_units ? min_units : u;
  }
  // Largest payload one packet carries (whole bytes).
  uint32_t max_payload_bytes() const {
    return (max_units - header_units - tail_units) * payload_bits_per_unit / 8;
  }
};

struct LiveStats;

// One change of a fabric's state, as the engine applies it at a window edge
// (control/run/fault_plan.h expands a spec's fault into these; the engine
// applies each at emulated time `at`, or, given while running, at each
// worker's next window edge).
struct EngineFault {
  enum class Op : uint8_t {
    port_down,     // router R's port P: its output discards what it is granted, and what
                   // was on the wire towards the far input (router link) or from the
                   // endpoint (endpoint port) is lost
    port_up,       // the port carries traffic again
    router_flush,  // router R died: what its input buffers and output queues hold is lost
    ber,           // bit errors at rate `ber` on the link leaving router R's port P
    sink_stop,     // the endpoint at router R's port P stops accepting packets (they wait
                   // in its receive buffer, whose credits do not come back)
    sink_start,    // it accepts again: what waited is delivered, its credits come back
    // Lane `lane` of the link leaving router R's port P (dataplane/link/lanes.h):
    lane_down,  // out of service: the link runs narrower (no lane left: see link_alive)
    lane_up,    // back in service
    lane_ber,   // bit errors at rate `ber` on the bits that cross it
  };
  ps_t at = 0;
  int32_t router = -1;
  int16_t port = -1;
  Op op = Op::port_down;
  double ber = 0;
  int16_t lane = -1;
  // lane_up: the faults leave the link up (a link that died of its lanes
  // comes back with one; one a fault keeps down comes back with that
  // fault's port_up).
  bool link_alive = true;
};

// A port-bound endpoint as the engine sees it: control/ has opened the DPDK
// port (dataplane/ethernet/eth_port.h) and resolved the spec's binding.
struct PortEndpointConfig {
  std::string name;           // label in reports
  std::string device;         // as the spec gave it
  uint16_t port_id = 0;       // DPDK port to poll and transmit on
  uint32_t endpoint = 0;      // fabric endpoint the frames enter and leave at
  uint16_t vlan = 0;          // 0: untagged; else only frames of this 802.1Q VLAN
  std::vector<uint64_t> macs; // pinned MAC addresses (48-bit, network order in the low bytes)
  uint32_t queue_frames = 64; // ingress queue bound (frames)
  uint32_t max_frame_bytes = 1514;  // untagged frame limit: port MTU + Ethernet header
  // A replayed host (no DPDK port): its frames, sent at their recorded
  // times divided by replay_speed, replay_loops times (0: until the end).
  std::shared_ptr<const ReplayTrace> replay;
  double replay_speed = 1.0;
  uint32_t replay_loops = 1;
};

// What a real-time run does while it is more than overload_bound_ps behind
// the wall clock: warn (keep going, distorted), shed (refuse new ingress
// frames and synthetic messages, counted) or stop (end the run, reported).
enum class Overload : uint8_t { warn, shed, stop };

struct EngineConfig {
  uint64_t seed = 1;
  ps_t warmup_ps = 0;
  ps_t measure_ps = 0;
  ps_t drain_ps = 0;
  int workers = 1;
  bool check_invariants = false;
  // Decode every delivered packet against its metadata, as check_invariants
  // does besides its credit checks at every event (a soak of millions of
  // packets: nothing damaged delivered, at full speed).
  bool check_deliveries = false;
  uint32_t source_queue_packets = 256;
  uint32_t input_speedup = 1;   // packets an input port may have crossing the switch at once
  uint32_t output_speedup = 1;  // packets an output may accept at once (> 1: output queues)
  uint32_t output_queue_units = 0;  // capacity of each output VC queue (output_speedup > 1);
                                    // 0: engine_sizing.h, output_queue_caps
  // router.switch_allocator islip (router/input_queued_islip.h): iSLIP
  // iterations per cycle.
  uint32_t islip_iterations = 1;
  // The YARC tiled router (router.model yarc_tiled; router/yarc_tiled.h):
  // subswitch degree and the row and column buffers per VC, in phits.
  struct Tiles {
    bool on = false;  // the engine instance runs the tiled router (sizing reads this)
    uint32_t degree = 8;
    uint32_t row_units = 16;
    uint32_t column_units = 10;
  } tiles;
  // Traffic.
  Pattern pattern = Pattern::uniform;
  double load = 0.0;            // fraction of injection bandwidth
  uint32_t batch_size = 1;      // >1: batch (bursty) injection
  bool single_batch = false;    // one batch per endpoint at time 0, then nothing
  std::vector<uint32_t> size_bytes{64};
  std::vector<double> size_weight{1.0};
  double reply_fraction = 0.0;
  uint32_t reply_bytes = 8;
  uint32_t hotspot = 0;
  double hotspot_fraction = 0.1;
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
  double mac_aging_s = 300;
  const std::atomic<bool>* stop = nullptr;  // set by a signal handler to end the run early
  std::vector<PortEndpointConfig> ports;
  // Real-time progress: called from worker 0 about every progress_s seconds.
  std::function<void(const LiveStats&)> live;
  // Capture taps on links and ports (queues empty: no capture).
  CaptureTaps capture;
  // Link-level retry on every router-to-router link (dataplane/link/go_back_n.h).
  LinkRetryConfig retry;
  // Faults at emulated times (sorted by `at`); any faults at all (here or
  // while running, EngineBase::inject_faults) need `faults_possible`, which
  // arms the checks (one predictable branch per grant when off).
  std::vector<EngineFault> faults;
  bool faults_possible = false;
  // BlackWidow 7.7: an output VC whose packets have waited this long without
  // one leaving times out, and its port discards what is bound for it
  // (0: no timer). Needs faults_possible.
  ps_t forward_progress_ps = 0;
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
  virtual bool inject_faults(const std::vector<EngineFault>& changes, size_t* first = nullptr) = 0;
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
