// The learning bridge: Ethernet frames at port-bound endpoints.
//
// The fabric behaves as one learning bridge whose ports are the port-bound
// endpoints. A frame received on a DPDK port (or from a replayed host) is
// classified to its binding (VLAN, source MAC set), its source address
// learned, its destination looked up (group and unknown addresses flood to
// every other binding), and each copy is segmented into fabric packets that
// carry the frame's bytes in the profile's encoding (phits or flits) with one
// flow hash, so hashed routing keeps a flow on one path. At the egress
// endpoint the segments are decoded, checked and reassembled in order, the
// binding's VLAN tag is put back, and the frame is transmitted when its last
// segment's tail is delivered.
//
// BridgePorts is the run's (devices, bindings, replay cursors); Bridge is one
// worker's (the devices it polls, transmit bursts, its copy of the MAC
// table). The engine is their Host (a template parameter; no virtual call per
// frame). What a Host provides:
//   ps_t now(), measure_start(), gen_end(); bool shedding(), generating();
//   RunStats& stats(); Nic& nic(uint32_t e);
//   void schedule(const Event&);
//   static EventKind kind(BridgeEvent);    // its kinds as the run numbers them
//   Endpoints::Enqueue enqueue_frame(uint32_t from, uint32_t to, uint32_t len, uint8_t flags,
//                                    const uint8_t* bytes, uint16_t flow);
//   void inject(uint32_t from);            // its injection ports send what they can
//   void share_learned(uint64_t mac, uint32_t endpoint);  // with the other workers
//   bool capturing();
//   void capture_frame(uint32_t b, const uint8_t*, uint32_t avail, uint32_t len, CaptureDir);
//   void fail(const std::string&);
#pragma once
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "dataplane/codec/codec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/endpoint/endpoints.h"
#include "dataplane/ethernet/bridge_event.h"
#include "dataplane/ethernet/ether.h"
#include "dataplane/ethernet/mac_table.h"
#include "dataplane/ethernet/port_config.h"
#include "dataplane/link/capture_tap.h"
#include "dataplane/sim/event.h"
#include "dataplane/sim/timing_wheel.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// A worker's transmit pool: buffers for the devices it polls, each with
// room for a whole frame of up to max_frame bytes with a VLAN tag put back,
// after DPDK's headroom (the memory estimate counts with these).
inline uint32_t tx_pool_buffers(size_t devices) {
  return static_cast<uint32_t>(4095 + 2048 * devices);
}
uint16_t tx_data_room(uint32_t max_frame);

// The run's ports: read by every worker, each device and replay cursor
// written only by the worker of its endpoints.
struct BridgePorts {
  // One DPDK port and the bindings (endpoints) that share it.
  struct Device {
    uint16_t port_id = 0;
    uint16_t worker = 0;
    bool link_up = true;
    std::vector<uint32_t> bindings;
    bool replay = false;  // a replayed host (its one binding's file), no DPDK port
  };
  // Where a replayed host is in its file.
  struct ReplayCursor {
    size_t next = 0;     // frame index in the pass
    uint64_t pass = 0;   // passes completed
    ps_t base = 0;       // emulated time the pass began
    bool done = false;   // every pass sent
  };
  const BridgeConfig* cfg = nullptr;
  CodecKind codec = CodecKind::yarc;
  std::vector<Device> devices;
  std::vector<uint32_t> bound_eps;       // flood targets: every port-bound endpoint
  std::vector<uint32_t> binding_device;  // binding -> index into devices
  uint32_t seg_cap = 1;                  // most segments one frame needs
  uint32_t max_frame = 0;                // largest untagged frame any port accepts
  std::vector<ReplayCursor> replay;      // [binding]

  // The devices and bindings of cfg.ports on fabric f, whose routers are on
  // router_worker; seg_cap segments of max_payload bytes carry one frame.
  bool init(const Fabric& f, const BridgeConfig& cfg, CodecKind codec,
            const std::vector<uint16_t>& router_worker, uint32_t seg_cap, uint32_t max_payload,
            std::string* err);
  // Counters of binding b, zero, labelled with its name, device and endpoint.
  PortStats port_identity(uint32_t b) const;
  const std::vector<PortEndpointConfig>& ports() const { return cfg->ports; }
  uint16_t worker_of(uint32_t b) const { return devices[binding_device[b]].worker; }
};

class Bridge {
 public:
  // Worker `worker`'s part: counters for every binding in st.ports, the
  // frame queues and reassembly slots of its port-bound endpoints, its MAC
  // table (aging in TSC cycles at tsc_hz) and the devices it polls.
  // Real time: a frame handed to its port later than lateness_bound after
  // its emulated time counts as late (PortStats::frames_over_bound).
  void init(BridgePorts& ports, int worker, double tsc_hz, Endpoints& eps, RunStats& st,
            ps_t lateness_bound_ps);
  // Devices polled (not replayed) need a transmit pool: make_tx_pool
  // (name: unique among the process's DPDK objects; socket: the worker's).
  bool polls_devices() const { return !polled_.empty(); }
  const std::vector<uint32_t>& polled() const { return polled_; }
  BridgePorts::Device& device(uint32_t d) { return ports_->devices[d]; }
  bool make_tx_pool(const std::string& name, int socket, std::string* err);
  void release();  // the transmit pool
  // The first frame of each replayed host this worker runs, as an event of
  // kind `replay` (the host's number for BridgeEvent::port_replay).
  void seed_replay(TimingWheel& wheel, EventKind replay);
  // Another worker learned an address (BridgeEvent::mac_learn).
  void learn_remote(uint64_t mac, uint32_t endpoint, uint64_t tsc) {
    mac_.learn(mac, static_cast<int32_t>(endpoint), tsc);
  }
  LatencyHistogram& frame_latency_iv() { return frame_latency_iv_; }

  // Real time: a burst from each device this core polls (none unless
  // `running`), each after catch_up() has brought the run up to now, then
  // what waits to be sent.
  template <class H, class CatchUp>
  void receive(H& h, bool running, CatchUp&& catch_up, RunStats& st);
  // The polled devices' link state, read at most every tsc_hz / 10 cycles.
  void check_links(uint64_t tsc, uint64_t tsc_hz);
  // A frame received on device d (its buffer stays the caller's).
  template <class H> void ingest_frame(H& h, uint32_t d, rte_mbuf* f);
  template <class H> void on_replay(H& h, uint32_t b);
  // A frame's packet reached its egress endpoint e: kept until the frame is whole.
  template <class H> void frame_segment(H& h, uint32_t e, rte_mbuf* m);
  // Hands the frames waiting to their ports; wall_ps is the wall clock's
  // emulated time now, against which each frame's lateness is measured.
  void flush_tx(RunStats& st, ps_t wall_ps);

  // At the end of a run: frames still in the fabric or half reassembled are
  // counted, once each, at the binding they were bound for. note_undelivered
  // sees every packet still in the fabric (before drop_partial_frames), on
  // the worker of its destination's endpoints.
  void note_undelivered(const PacketMeta& pm, const Endpoints& eps, RunStats& st) const;
  void drop_partial_frames(Endpoints& eps, RunStats& st);

 private:
  // A frame of len bytes, the first `avail` of them at p (all but an
  // oversize one), as the host sent it.
  template <class H>
  void ingest_bytes(H& h, const BridgePorts::Device& dev, const uint8_t* p, uint32_t avail,
                    uint32_t len);
  template <class H> void send_frame(H& h, uint32_t from, uint32_t to, uint32_t len, uint16_t flow);
  template <class H>
  void emit_frame(H& h, uint32_t e, rte_mbuf** segs, uint32_t nseg, ps_t gen_ps, uint8_t hops);
  static void count_drop(RunStats& st, uint32_t binding, FrameDrop why) {
    st.ports[binding].drops[static_cast<int>(why)]++;
  }

  BridgePorts* ports_ = nullptr;
  int worker_ = 0;
  std::vector<uint32_t> polled_;             // devices this core polls (indices into devices)
  std::vector<uint64_t> link_checked_;       // per device index: TSC of its last link check
  std::vector<std::vector<rte_mbuf*>> txb_;  // per device index: transmit bursts
  rte_mempool* tx_pool_ = nullptr;
  MacTable mac_;
  std::vector<uint8_t> frame_;      // a frame's bytes on their way into segments
  std::vector<uint8_t> frame_out_;  // a frame for a replayed host (no transmit buffer)
  LatencyHistogram frame_latency_iv_;  // since the last progress tick
  ps_t lateness_bound_ps_ = 0;
};

}  // namespace fabemu

#include "dataplane/ethernet/bridge_hot.h"
