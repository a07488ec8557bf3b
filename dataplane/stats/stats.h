// Run statistics declared once: per-link and per-port
// counters, drop reasons (X-macros, so the JSON, the summary and the analyzer
// print the same names) and the run's totals.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/barrier/barrier_stats.h"
#include "dataplane/core/fabric.h"
#include "dataplane/link/lanes.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/latency_histogram.h"
#include "dataplane/stats/sample_periods.h"

namespace fabemu {

// Link-level retry (dataplane/link/go_back_n.h), per link: the sender's and
// the receiver's counts. Declared once for the JSON and the summary.
#define FABEMU_LINK_RETRY_COUNTERS(X)                                                              \
  X(checked_bits,                                                                                  \
    "bits sent under the CRC, resends included (bit_errors / checked_bits: the BER seen)")         \
  X(bit_errors, "bits the link damaged (link.ber)")                                                \
  X(crc_errors, "packets the receiver found damaged (CRC) and did not take")                       \
  X(undetected_errors,                                                                             \
    "damaged packets whose CRC still matched: taken and passed on as good, as a real link would")  \
  X(seq_discards,                                                                                  \
    "packets the receiver discarded out of sequence (sent after a damaged or lost one, or twice)") \
  X(timeouts, "times the sender timed out and went back N")                                        \
  X(retries, "packets sent again")                                                                 \
  X(excised, "damaged packets removed from the receiving input buffer")                            \
  X(bad_forwarded,                                                                                 \
    "damaged packets that had moved on before their CRC failed (marked transmit error)")           \
  X(dropped_on_purpose, "packets lost by a test fault (link_packet_faults)")                       \
  X(duplicated_on_purpose, "packets sent twice by a test fault (link_packet_faults)")              \
  X(given_up,                                                                                      \
    "packets the sender gave up on after link.retry_limit time-outs in a row "                     \
    "(discarded)")

struct LinkRetryCounters {
#define FABEMU_X(name, help) uint64_t name = 0;
  FABEMU_LINK_RETRY_COUNTERS(FABEMU_X)
#undef FABEMU_X
  void merge(const LinkRetryCounters& o) {
#define FABEMU_X(name, help) name += o.name;
    FABEMU_LINK_RETRY_COUNTERS(FABEMU_X)
#undef FABEMU_X
  }
};

// A lane of a router link went out of service or came back
// (dataplane/link/lanes.h), and the link's width after it.
struct LaneChange {
  ps_t at = 0;
  uint16_t lane = 0;
  uint16_t width = 0;
  LaneCause cause = LaneCause::retries;
};

struct LinkStats {
  int32_t router = -1;     // sending router (-1: endpoint injection link)
  int16_t port = -1;
  int32_t peer_router = -1;  // receiving router (-1: endpoint ejection)
  int16_t peer_port = -1;
  int32_t endpoint = -1;
  uint64_t packets = 0;
  uint64_t units = 0;
  ps_t busy_ps = 0;          // busy during the measurement window
  uint64_t credit_stalls = 0;  // a packet was ready and the link free, but credits were short
  // Packets that came down this link and were routed up again at its far
  // end (peer_router, peer_port): the down-routing invariant broken.
  uint64_t down_route_violations = 0;
  uint64_t vc_packets[kMaxVcs] = {};
  uint64_t vc_units[kMaxVcs] = {};
  uint32_t vc_peak_occupancy[kMaxVcs] = {};  // peak downstream input buffer occupancy (units)
  LinkRetryCounters retry;
  // Faults (link/link_faults.h): times the link went down, how long it was
  // down, and whether it still was at the end.
  uint32_t went_down = 0;
  ps_t down_ps = 0;
  bool down_at_end = false;
  ps_t down_since = kNever;        // when it went down the last time (down_at_end)
  // Forward-progress timer (dataplane/link/progress_timer.h): times it expired on this
  // link's sender, the first time, and the VCs (a bit each).
  uint32_t progress_timeouts = 0;
  ps_t first_progress_timeout = kNever;
  uint32_t progress_timeout_vcs = 0;
  // Lanes of a router link, where they can change (0: not tracked): its
  // width at the end and the narrowest it ran at, its unit time at the end,
  // and every lane that went or came back, in time order.
  uint16_t lanes = 0, width = 0, lowest_width = 0;
  ps_t unit_ps = 0;
  std::vector<LaneChange> lane_log;
  void merge(const LinkStats& o);  // adds o's counters (same link)
};

// What can happen to an Ethernet frame on its way through the fabric other
// than delivery. Ingress reasons count at the receiving port, egress reasons
// at the port the frame was bound for.
#define FABEMU_FRAME_DROPS(X)                                                        \
  X(runt, "shorter than an Ethernet header (14 bytes, 18 with a VLAN tag)")          \
  X(oversize, "longer than the port MTU allows")                                     \
  X(bad_source_mac, "source address is multicast or all zero")                       \
  X(unknown_vlan, "VLAN that no binding on the port accepts")                        \
  X(unknown_source, "source MAC in none of the MAC sets bound on the port")          \
  X(same_endpoint, "destination behind the endpoint it came from (filtered, as a bridge does)") \
  X(ingress_queue_full, "the endpoint's ingress queue (ports[].queue_frames) was full") \
  X(mbuf_pool_empty, "no packet buffers left for the frame's fabric packets")        \
  X(corrupted, "a fabric packet of the frame failed its check at the egress endpoint") \
  X(reassembly_timeout, "segments still missing after the reassembly time-out")      \
  X(reassembly_overflow, "the egress endpoint's reassembly table was full")          \
  X(egress_link_down, "the destination port's link was down")                        \
  X(tx_full, "the destination port's transmit queue refused the frame")              \
  X(shed_overload, "refused at ingress: the real-time run was behind (run.overload: shed)") \
  X(undelivered_at_end, "still in the fabric when the run ended")

enum class FrameDrop : uint8_t {
#define FABEMU_X(name, help) name,
  FABEMU_FRAME_DROPS(FABEMU_X)
#undef FABEMU_X
      count
};
const char* frame_drop_name(FrameDrop r);
const char* frame_drop_help(FrameDrop r);

// Counters of one port-bound endpoint.
struct PortStats {
  std::string name;
  std::string device;
  int32_t endpoint = -1;
  uint16_t port_id = 0;
  uint16_t vlan = 0;
  uint64_t rx_frames = 0, rx_bytes = 0;  // received from the port (all, good or not)
  uint64_t tx_frames = 0, tx_bytes = 0;  // handed to the port's transmit queue
  uint64_t flooded = 0;        // received frames sent to every other port (broadcast, unknown)
  uint64_t fabric_frames = 0;  // frame copies that entered the fabric here
  uint64_t macs_learned = 0, mac_moves = 0;
  uint64_t mac_table_full = 0;  // sources not learned: the table had no room (their frames flood)
  // A replayed host (ports[].replay): frames sent from its file, and those
  // its replay_loops promised that the run ended before sending.
  uint64_t replay_sent = 0, replay_unsent = 0;
  uint64_t drops[static_cast<int>(FrameDrop::count)] = {};
  LatencyHistogram frame_latency_ps;  // frames to this port: receive to tail delivery
  // Real time: how late each frame was handed to this port against its
  // emulated time (its tail delivered), and how many later than
  // run.lateness_bound_ns.
  LatencyHistogram frame_lateness_ps;
  uint64_t frames_over_bound = 0;
  LatencyHistogram frame_hops;
  void merge(const PortStats& o);  // adds o's counters (same binding)
};

// A snapshot for the real-time progress line.
struct LiveStats {
  double wall_s = 0;
  ps_t now_ps = 0;
  std::vector<uint64_t> rx_frames, tx_frames;  // per port-bound endpoint, cumulative
  std::vector<std::string> port_names;
  uint64_t frame_latency_p99_ps = 0;  // since the previous snapshot
  uint64_t lateness_p99_ps = 0;       // since the previous snapshot
  uint64_t lateness_max_ps = 0;
  uint64_t events_over_bound = 0;     // since the previous snapshot
  uint64_t captured = 0, capture_drops = 0;  // capture records, cumulative
  bool capturing = false;
  std::string faults;  // the fault state now (filled by control/run/runner.cpp)
};

// Drop reasons are declared once; JSON and the summary print the same names.
#define FABEMU_DROP_REASONS(X)                                                                     \
  X(source_queue_full, "message not generated: source queue at its bound")                         \
  X(reassembly_overflow, "reassembly table full at the destination endpoint")                      \
  X(mbuf_pool_empty, "message not generated: packet buffer pool exhausted")                        \
  X(no_route, "routing tables gave no output for the packet (unroutable after a fault)")           \
  X(dead_port, "discarded at a dead port: bound for a dead link or router, or sent into one")      \
  X(lost_in_flight, "on a link (or in its retransmit buffer) when the link died")                  \
  X(lost_in_dead_router, "in a router's buffers when the router died")                             \
  X(forward_progress, "bound for a port whose forward-progress timer expired (BlackWidow 7.7)")    \
  X(retry_limit_exceeded, "given up by a link's sender after link.retry_limit time-outs in a row") \
  X(undelivered_at_end, "still in the fabric when the drain limit ran out")                        \
  X(deadlock_timeout,                                                                              \
    "in a VC buffer the Spider router reset: full, no progress for router.deadlock_timeout_ns")    \
  X(tail_timeout,                                                                                  \
    "cut off mid-way (its link died); ended by the Spider router's router.tail_timeout_ns")        \
  X(shed_overload, "message not generated: the real-time run was behind (run.overload: shed)")   \
  X(route_state,                                                                                   \
    "3D mesh: the route state did not match its complement, or named no step of the route")       \
  X(illegal_turn, "3D mesh: the route asked for a turn the router's list does not allow")          \
  X(misrouted, "3D mesh: the route ended at a router not the destination's, or left the mesh")    \
  X(duplicate, "two-hop recovery: the second arrival of a message sent again after a fault")

enum class DropReason : uint8_t {
#define FABEMU_X(name, help) name,
  FABEMU_DROP_REASONS(FABEMU_X)
#undef FABEMU_X
      count
};

struct RunStats {
  ps_t end_ps = 0;
  ps_t measure_start_ps = 0;
  ps_t measure_end_ps = 0;
  bool drained = false;
  bool interrupted = false;            // stopped early by the user (a signal); figures so far
  // Every worker's event queue ran dry while packets were still in the
  // fabric: nothing would ever move them (a credit deadlock, or a wake-up
  // the engine lost). The run stops then; `stranded` says where they wait.
  bool stalled = false;
  std::string stranded;
  uint64_t generated_messages = 0;
  uint64_t injected_packets = 0;       // packets created at sources (whole run)
  uint64_t delivered_packets = 0;      // packets delivered (whole run)
  uint64_t delivered_messages = 0;
  // Delivered after a later packet of their source and class (counted only
  // where a routing may reorder: TrafficConfig::count_out_of_order).
  uint64_t out_of_order_packets = 0;
  uint64_t measured_injected = 0;      // packets generated in the measurement window
  uint64_t measured_delivered = 0;
  uint64_t offered_units = 0;          // units generated during measurement and queued at the source
  uint64_t refused_units = 0;          // units generated during measurement that the source refused
  uint64_t accepted_units = 0;         // units delivered during measurement
  uint64_t accepted_payload_bytes = 0;  // their payload bytes (T3E Table 4's payload bandwidth)
  uint64_t drops[static_cast<int>(DropReason::count)] = {};
  uint64_t packet_hops = 0;            // router traversals (whole run)
  // router.switch_allocator islip: cycles a router allocated in, the input
  // ports that requested the switch then and those iSLIP matched (whole run).
  uint64_t islip_cycles = 0, islip_requesting = 0, islip_matched = 0;
  // router.model spider: arbitrations, the candidates that could cross then
  // and the winners (whole run); VC buffers reset by the deadlock time-out.
  uint64_t spider_arbitrations = 0, spider_candidates = 0, spider_winners = 0;
  uint64_t deadlock_resets = 0;
  // router.model mesh3d: packets that cut straight through (the fast path
  // of the proposal's Figure 13), that went through the turn and queuing
  // logic, those of them that crossed on a routing lane (Figure 15), and
  // the time they waited for one.
  uint64_t mesh3d_straight_through = 0, mesh3d_queued = 0, mesh3d_lane_crossings = 0;
  uint64_t mesh3d_lane_wait_ps = 0;
  // link.recovery two_hop (dataplane/link/recovery_memory.h): copies kept
  // and acknowledged, stores past a memory's sizing, the highest occupancy
  // of one memory (words) against that sizing, copies sent again after a
  // fault, those of them lost (not as duplicates), copies freed with their
  // own router, copies whose ack never came by the end of the run.
  bool recovery = false;
  uint64_t recovery_kept = 0, recovery_acks = 0, recovery_overflows = 0;
  uint64_t recovery_max_words = 0, recovery_size_words = 0;
  uint64_t recovery_resent = 0, recovery_resent_lost = 0, recovery_freed = 0;
  uint64_t recovery_held_at_end = 0;
  // Link-level retry: damaged packets that had moved on marked transmit
  // error and were discarded at their destination (their good copies came).
  bool link_retry = false;
  uint64_t transmit_error_discards = 0;
  uint64_t events = 0;
  uint64_t windows = 0;  // virtual time: conservative windows the run took (every worker the same)
  // Capture (dataplane/link/capture_tap.h): records handed to the writer,
  // and records a real-time run could not hand over (the queue was full).
  uint64_t captured = 0;
  uint64_t capture_drops = 0;
  // Filled by the runner from the writer thread (pcap-tools/capture_writer.h).
  uint64_t capture_written = 0;
  uint64_t capture_bytes = 0;
  uint32_t capture_interfaces = 0;
  std::vector<std::string> capture_files;
  std::string capture_error;
  bool capture_reader_gone = false;  // the error: a pipe's reader closed it
  int64_t capture_start_ns = 0;      // the timestamps' start: ns since the Unix epoch
  double wall_s = 0;
  // Per worker: the CPUs its thread was allowed, and how often the kernel
  // took the CPU from it (involuntary context switches: another busy thread
  // on the same CPU).
  std::vector<std::vector<int>> worker_cpus;
  std::vector<uint64_t> worker_preempted;
  // Per worker: its events and packet-hops, and the seconds it waited at
  // window edges for slower workers (load imbalance, barrier latency).
  std::vector<uint64_t> worker_events, worker_packet_hops;
  std::vector<double> worker_edge_wait_s;
  LatencyHistogram latency_ps;         // measured packets, generation to tail delivery
  LatencyHistogram network_latency_ps; // injection (head leaves source) to tail delivery
  // Measured messages of several packets, generation to their last packet's
  // delivery (BookSim2's packet latency when its packets are fabemu's worms).
  LatencyHistogram message_latency_ps;
  LatencyHistogram message_network_latency_ps;  // ... from their first packet's injection
  LatencyHistogram hops;
  SamplePeriods periods;  // run.sample_period_ns
  BarrierStats barrier;  // the barrier/eureka networks (dataplane/barrier/), when on
  std::vector<LinkStats> links;
  // Frames (port-bound endpoints) and real time.
  std::vector<PortStats> ports;
  bool realtime = false;
  double time_scale = 1.0;
  ps_t lateness_bound_ps = 0;
  LatencyHistogram lateness_ps;                  // all workers
  std::vector<LatencyHistogram> worker_lateness_ps;
  // Emulated time between consecutive receive polls of a worker's ports: a
  // frame enters the fabric up to one gap after it arrived (ingress lateness).
  LatencyHistogram poll_gap_ps;
  uint64_t events_over_bound = 0;
  // Real time: the wall seconds each worker spent in rounds that ran events
  // (all of wall_s: it never waited for the wall clock).
  std::vector<double> worker_busy_s;
  // Overload (real time): the furthest a worker fell behind the wall clock,
  // how many times the run went over run.overload_bound_ns, and whether
  // run.overload: stop ended it.
  ps_t max_behind_ps = 0;
  uint64_t overload_episodes = 0;
  bool overload_stopped = false;
  uint64_t invariant_checks = 0;
  std::string invariant_failure;       // empty when credits were conserved
  std::string error;                   // set when the run could not start or broke down
};

inline const char* drop_reason_name(DropReason r) {
  switch (r) {
#define FABEMU_X(name, help) \
  case DropReason::name:     \
    return #name;
    FABEMU_DROP_REASONS(FABEMU_X)
#undef FABEMU_X
    default:
      return "?";
  }
}
inline const char* drop_reason_help(DropReason r) {
  switch (r) {
#define FABEMU_X(name, help) \
  case DropReason::name:     \
    return help;
    FABEMU_DROP_REASONS(FABEMU_X)
#undef FABEMU_X
    default:
      return "?";
  }
}

}  // namespace fabemu
