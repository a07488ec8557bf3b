// The fabric spec: what a YAML file (plus profile defaults and --set
// overrides) says about one emulation. Plain data; spec_loader fills it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fabemu {

struct PacketSize {
  uint32_t bytes = 64;   // payload bytes of one message
  double weight = 1.0;   // relative frequency in the mix
};

// One T3E packet type of the mix (traffic.t3e_packets; Table 3's names in
// dataplane/codec/t3e_packets.h).
struct T3ePacketShare {
  std::string type;     // word_get | vector_get | word_put | vector_put
  double weight = 1.0;  // relative frequency in the mix
};

// One explicit endpoint placement from the spec's optional `endpoints:` list:
// endpoint `id` attaches to port `port` of router `router`. Each id and each
// (router, port) appears at most once (spec_loader checks).
struct EndpointMap {
  int id = 0;
  int router = 0;
  int port = 0;
};

// One port-bound endpoint (spec `ports:`): Ethernet frames received on a DPDK
// port (optionally only those of one VLAN, or only those from a set of MAC
// addresses) enter the fabric at `endpoint`; frames for it leave there.
struct PortBinding {
  std::string name;              // label in reports; default "port<i>"
  std::string device;            // an existing DPDK port name, vdev args
                                 // ("net_af_packet0,iface=fe0") or a PCI address
  int endpoint = 0;              // fabric endpoint the port attaches to
  int vlan = 0;                  // 0: untagged frames; 1..4094: only this 802.1Q VLAN
  std::vector<std::string> macs; // pinned MACs ("02:00:00:00:00:01"); frames from
                                 // others on the same device go to another binding
  int queue_frames = 64;         // ingress queue bound before tail drop (frames)
  // A replayed host instead of a device: the Ethernet frames of a pcap or
  // pcapng file at their recorded times (control/run/replay_load.h).
  std::string replay;            // the file ("": a DPDK device)
  std::string replay_interface;  // pcapng interface to take ("": every one)
  double replay_speed = 1.0;     // 2: twice as fast as recorded
  int replay_loops = 1;          // times through the file (0: until the run ends)
};

// Binding `index`'s name in reports and capture taps: its own, else "port<index>".
inline std::string port_binding_name(const PortBinding& pb, size_t index) {
  return pb.name.empty() ? "port" + std::to_string(index) : pb.name;
}

// Where the value of one field came from: a profile's default, a line of the
// file, or a --set argument. The loader records one per field it sets, so
// that a problem found later (by the topology builder, the codec check or
// the memory estimate) can point at the line the user wrote.
struct SpecOrigin {
  enum class Kind { profile, file, set };
  explicit SpecOrigin(Kind k = Kind::profile) : kind(k) {}
  Kind kind;
  int line = 0;  // 1-based (file only)
  int column = 0;
  std::string set_arg;  // the --set argument (set only)
  std::string profile;  // the profile whose default it is (profile only)
};

struct Spec {
  std::string file;          // where it came from (for messages)
  std::vector<std::string> overrides;  // the --set KEY=VALUE applied after it, in order
  std::string profile = "t3e";  // t3e | yarc | flatfly | custom

  struct Topology {
    std::string family;  // "torus" (t3e) | "clos" (yarc) | "flatfly" | "hypercube" | ...
    std::array<int, 3> dims{4, 4, 4};    // torus kx, ky, kz
    bool wrap = true;                    // torus: wrap links (false: a mesh, BookSim's mesh)
    int rank = 1;                        // clos tree rank: 1, 2 or 3
    bool sidelinks = false;              // clos rank 1.5 or 2.5: rank + 0.5 (spec topology.rank)
    int endpoints = 32;                  // clos endpoints
    int uplinks = 32;                    // clos: cables above each rank-1 router (the taper)
    int slices = 1;                      // network slices (control/topology/slices.h)
    int endpoints_per_router = 1;        // torus, hypercube: endpoints per router
    int k = 32;                          // flatfly: routers per dimension, endpoints per router
    int n = 2;                           // flatfly: k-ary n-flat; hypercube: binary n-cube
    int meta_n = 0;                      // fat_hypercube: dimensions of the metahypercubes
    bool diagonal = false;               // fat_hypercube: local chips i and i ^ 3 linked
  } topology;

  struct Link {
    int lanes = 1;
    double lane_gbps = 5.25;     // raw signalling rate per lane
    double coding = 1.0;         // coding efficiency (8b/10b = 0.8)
    int phit_bits = 14;          // phit width in bits
    int phits_per_unit = 5;      // flow-control unit (flit) in phits; 1 = phit is the flit
    double wire_ns = 5.0;        // SerDes + wire latency per link
    double credit_delay_ns = 0;  // a credit's way back beyond the wire (BookSim's credit_delay)
    // torus: the wire of the links from the endpoints into their routers and
    // back out (the T3E's PE links have none; BookSim2's channels do)
    double injection_wire_ns = 0;
    double ejection_wire_ns = 0;
    double router_rate = 1.0;    // router-to-router links' rate, a fraction of the above
    bool retry = false;          // link-level retry (go-back-N, CRC) on router-to-router links
    int retry_window = 0;        // packets unacknowledged; 0: cover the time-out
    double retry_timeout_ns = 0;  // 0: per link, round trip + longest packet
    double ber = 0;               // bit error rate of router-to-router links
    int retry_limit = 0;        // time-outs in a row on one packet before it is discarded; 0: none
    bool lane_degrade = false;  // drop a lane whose retries pass the threshold (BW 7.7)
    // Widths a link may run at with lanes out of service: "any" live lanes
    // (BlackWidow), or "lower_half" (Spider: full width or the lower half).
    std::string width_negotiation = "any";
    // Two-hop error detection and recovery (the 3D mesh): "none" or "two_hop".
    std::string recovery = "none";
    int lane_retry_threshold = 16;         // retries of one lane within the window
    double lane_retry_window_ns = 100000;  // the window those retries are counted in
  } link;

  struct Router {
    double latency_ns = 31.25;   // pipeline latency (yarc)
    double straight_ns = 40.0;   // t3e fall-through, straight
    double turn_ns = 80.0;       // t3e fall-through, turn
    double endpoint_ns = 133.0;  // t3e fall-through at the end points
    int radix = 64;              // yarc radix
    int input_speedup = 1;       // packets one input port may send through the switch at a time
    int output_speedup = 1;      // packets one output may accept at a time
    int output_queue_units = 0;  // each output VC queue (output_speedup > 1); 0: see spec_fields
    std::string allocator = "default";  // default (the routing's) | greedy | sequential
    std::string switch_allocator = "per_output";  // per_output | islip (input_queued_islip.h)
    int islip_iterations = 1;                     // islip: iterations per cycle
    // islip: virtual_cut_through (a packet crosses whole) | wormhole (the
    // packets of a message are the flits of one worm: input_queued_islip.h)
    std::string flow_control = "virtual_cut_through";
    // islip: an output VC goes to a new packet only once the credits of the
    // last one have all come back (BookSim2's wait_for_tail_credit = 1)
    bool wait_for_tail_credit = false;
    // router.flow_control wormhole: a worm keeps its switch connection
    // while its next flit waits (BookSim2's hold_switch_for_packet = 1)
    bool hold_switch_for_packet = false;
    // islip: how output VCs are allocated (islip | separable_input_first)
    std::string vc_allocator = "islip";
    // islip: BookSim2's pipeline delays, in cycles (routing_delay,
    // vc_alloc_delay, sw_alloc_delay, st_prepare + st_final_delay)
    int routing_cycles = 0;
    int vc_alloc_cycles = 1;
    int sw_alloc_cycles = 1;
    int crossbar_cycles = 1;
    std::string model = "input_queued";  // input_queued | yarc_tiled (router/yarc_tiled.h)
    int subswitch_degree = 8;            // yarc_tiled: p of the p x p subswitches
    int row_buffer_units = 16;           // yarc_tiled: each row buffer VC, phits
    int column_buffer_units = 10;        // yarc_tiled: each column buffer VC, phits
    std::string virtual_routers = "none";  // clos: none | halves | columns (virtual_routers.h)
    double forward_progress_ns = 0;      // BlackWidow 7.7 timer per output VC; 0: off
    double arbitration_ns = 10;          // spider: arbitration cycle (the 100 MHz core clock)
    double age_period_ns = 40;           // spider: waiting per age step; 0: ages never grow
    double deadlock_timeout_ns = 0;      // spider: full VC buffer, no progress; 0: off
    double tail_timeout_ns = 0;          // spider: message cut off mid-way; 0: off
    int routing_lanes = 3;               // mesh3d: the turn logic's routing lanes
  } router;

  struct Vcs {
    int count = 5;                     // virtual channels per port
    int buffer_units = 12;             // input buffer per (port, VC) in flow units
    int adaptive_buffer_units = 22;    // t3e adaptive VC buffer
    std::string injection = "class";   // class | rotate: the VC a flatfly source injects on
    // torus: time_of_crossing | optimised, the dateline VC tables (t3e_vc_balance.h)
    std::string dateline_assignment = "time_of_crossing";
  } vcs;

  std::string routing = "direction_order";

  struct Packet {
    int max_units = 10;           // maximum packet length in flow units
    int header_units = 2;         // header flits (t3e) / header phits incl. hash (yarc)
  } packet;

  struct Traffic {
    std::string pattern = "uniform";   // uniform|transpose|bitcomp|tornado|hotspot|permutation|neighbor
    double load = 0.3;                 // offered load, fraction of injection bandwidth
    std::string process = "bernoulli"; // bernoulli | batch | single_batch
    int batch_size = 1;                // messages per batch (batch process)
    int slot_units = 1;                // injection-link units per Bernoulli trial
    bool to_self = false;              // uniform draws the source too (BookSim2's)
    std::string numbering = "fabemu";  // fixed patterns' node numbers: fabemu | booksim
    int64_t permutation_seed = -1;     // permutation: BookSim2's randperm of this perm_seed; -1: fabemu's
    double burst_alpha = 0.5;          // process on_off: off to on, per slot (BookSim2's)
    double burst_beta = 0.5;           // process on_off: on to off, per slot
    std::vector<PacketSize> sizes{{64, 1.0}};
    double reply_fraction = 0.0;       // fraction of messages that are requests expecting a reply
    uint32_t reply_bytes = 8;          // payload of each response
    std::vector<T3ePacketShare> t3e_packets;  // Table 3's Gets and Puts; empty: sizes
    std::vector<int> sources;                 // the endpoints that generate; empty: all
    int hotspot = 0;                   // hot-spot endpoint
    double hotspot_fraction = 0.1;     // fraction of traffic to the hot spot
    double cc_adapt = 0.0;             // fat_hypercube: fraction of messages with CC bit 0 set
    double vector_fraction = 0.0;      // fat_hypercube: fraction of messages vector-routed
    double route_errors = 0.0;         // mesh3d: fraction of messages with a route bit flipped
    double adaptive_fraction = 1.0;    // torus adaptive: fraction of packets marked adaptive
    std::string response_priority = "strict";  // strict | alternate: the injection link's order
    std::string phases = "none";       // none | barrier | eureka (T3E section 6)
    int phase_messages = 0;            // per endpoint and phase
  } traffic;

  // The T3E's barrier/eureka networks (section 6; dataplane/barrier/), used
  // by traffic.phases.
  struct Barrier {
    int units = 32;            // BSUs per node
    double hop_ns = 40;        // register to a neighbour's register
    double endpoint_ns = 40;   // shell to its router's register
    int root = -1;             // -1: a router of least eccentricity
  } barrier;

  struct Run {
    std::string mode = "virtual";      // virtual (as fast as possible) | realtime (follows the TSC)
    uint64_t seed = 1;
    double warmup_ns = 20000;
    double measure_ns = 100000;
    double drain_ns = 1000000;         // give up draining after this long (then report)
    double sample_period_ns = 0;       // figures per sample period in the report (0: off)
    int workers = 1;                   // worker cores
    bool check_invariants = false;     // check credit conservation at every event (slow)
    double progress_s = 1.0;           // progress line period, wall seconds (0: off)
    int source_queue_packets = 256;    // per-endpoint source queue bound (packets)
    // Real time (run.mode: realtime).
    double time_scale = 1.0;           // wall ns per emulated ns (10: the fabric runs 10x slower)
    double duration_s = 0;             // wall seconds to run; 0: until SIGINT/SIGTERM
    double lateness_bound_ns = 1000;   // emulated ns an event may run late before the run warns
    std::string overload = "warn";     // behind by more than overload_bound_ns: warn | shed | stop
    double overload_bound_ns = 1e6;    // emulated ns a core may fall behind the wall clock
    std::vector<int> cores;            // CPUs for the workers, in order; empty: any the process may use
    // MPI rank of each router (mpirun -n R; control/mpi/rank_partition.h);
    // empty: contiguous blocks over the ranks' workers.
    std::vector<int> partition;
    double mac_aging_s = 300;          // learned MAC addresses expire after this long unseen
    std::vector<std::string> eal;      // extra DPDK EAL arguments (e.g. --vdev=...)
    std::string control_socket;        // Unix socket for faults while running; empty: none
  } run;

  // DPDK ports whose hosts' Ethernet frames enter and leave the fabric.
  std::vector<PortBinding> ports;

  // pcapng capture of links and ports (pcap-tools/FORMAT.md); no taps: off.
  struct Capture {
    std::vector<std::string> taps;      // control/spec/capture_taps.h
    std::string file = "fabemu-capture.pcapng";
    int snaplen = 65535;                // bytes of each frame kept in the file
    double file_mb = 0;                 // rotate at this size (0: one file)
    int files = 0;                      // keep the newest N files (0: all)
    std::vector<int> vcs, src, dst;     // keep only these (empty: all)
    std::vector<std::string> types;     // request | response | frame (empty: all)
    int queue_records = 4096;           // per worker, between it and the writer thread
  } capture;

  // Faults at emulated times (control/spec/faults.h), in the order written.
  std::vector<std::string> faults;

  // Explicit endpoint placement; empty: the topology builder's default.
  std::vector<EndpointMap> endpoint_map;

  // Dotted field path ("traffic.load", "ports[1].vlan") -> where its value
  // came from (control/spec/spec_refuse.h reports against it).
  std::map<std::string, SpecOrigin> origins;
};

// Number of flow units a message payload needs for a profile (header + payload + tail).
// Defined by the codec of the profile (dataplane/codec).

// Whether a run counts packets delivered out of their source's order
// (RunStats::out_of_order_packets): where messages may adapt between VCs.
inline bool counts_out_of_order(const Spec& s) { return s.traffic.cc_adapt > 0; }

}  // namespace fabemu
