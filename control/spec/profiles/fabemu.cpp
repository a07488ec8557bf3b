// The defaults every profile shares: fabemu's own (run, capture, ports)
// and the keys where the machines agree. A profile's own table
// (profiles/<name>.cpp) overrides them.
#include "control/spec/profiles.h"

namespace fabemu {

// clang-format off
const ProfileDefaults& fabemu_defaults() {
  static const ProfileDefaults table{
      {"topology.slices", "1"},
      {"link.router_rate", "1"},
      {"link.retry", "false"},
      {"link.retry_window", "0"},
      {"link.retry_timeout_ns", "0"},
      {"link.ber", "0"},
      {"link.retry_limit", "0"},
      {"link.lane_degrade", "false"},
      {"link.width_negotiation", "any"},
      {"link.lane_retry_threshold", "16"},
      {"link.lane_retry_window_ns", "100000"},
      {"router.input_speedup", "1"},
      {"router.output_speedup", "1"},
      {"router.output_queue_units", "0"},
      {"router.forward_progress_ns", "0"},
      {"router.switch_allocator", "per_output"},
      {"router.islip_iterations", "1"},
      {"vcs.injection", "class"},
      {"traffic.pattern", "uniform"},
      {"traffic.load", "0.3"},
      {"traffic.process", "bernoulli"},
      {"traffic.batch_size", "1"},
      {"traffic.reply_fraction", "0.0"},
      {"traffic.reply_bytes", "8"},
      {"traffic.t3e_packets", "[]"},
      {"traffic.sources", "[]"},
      {"traffic.hotspot", "0"},
      {"traffic.hotspot_fraction", "0.1"},
      {"run.mode", "virtual"},
      {"run.seed", "1"},
      {"run.warmup_ns", "20000"},
      {"run.measure_ns", "100000"},
      {"run.drain_ns", "1000000"},
      {"run.workers", "1"},
      {"run.check_invariants", "false"},
      {"run.progress_s", "1.0"},
      {"run.source_queue_packets", "256"},
      {"run.time_scale", "1"},
      {"run.duration_s", "0"},
      {"run.lateness_bound_ns", "1000"},
      {"run.mac_aging_s", "300"},
      {"run.overload", "warn"},
      {"run.overload_bound_ns", "1000000"},
      {"run.cores", "[]"},
      {"run.eal", "[]"},
      {"run.control_socket", "\"\""},
      {"capture.taps", "[]"},
      {"capture.file", "fabemu-capture.pcapng"},
      {"capture.snaplen", "65535"},
      {"capture.file_mb", "0"},
      {"capture.files", "0"},
      {"capture.vcs", "[]"},
      {"capture.src", "[]"},
      {"capture.dst", "[]"},
      {"capture.types", "[]"},
      {"capture.queue_records", "4096"},
      {"faults", "[]"},
      {"endpoints", "[]"},
      {"ports", "[]"},
      {"ports[].name", "port<i>"},
      {"ports[].device", "\"\""},
      {"ports[].replay", "\"\""},
      {"ports[].replay_interface", "\"\""},
      {"ports[].replay_speed", "1"},
      {"ports[].replay_loops", "1"},
      {"ports[].vlan", "0"},
      {"ports[].macs", "[]"},
      {"ports[].queue_frames", "64"},
  };
  return table;
}
// clang-format on

}  // namespace fabemu
