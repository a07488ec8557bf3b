#include "control/run/runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <system_error>

#include "control/barrier/barrier_tree.h"
#include "control/mpi/mpi_ranks.h"
#include "control/mpi/rank_partition.h"
#include "control/run/capture_plan.h"
#include "control/run/control_socket.h"
#include "control/run/fault_control.h"
#include "control/run/fault_plan.h"
#include "control/run/leftovers.h"
#include "control/run/output_file.h"
#include "control/run/replay_load.h"
#include "control/run/report.h"
#include "control/run/run_status.h"
#include "control/run/run_summary.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_fields.h"
#include "control/spec/spec_refuse.h"
#include "control/topology/registry.h"
#include "control/topology/slices.h"
#include "dataplane/codec/codec.h"
#include "dataplane/codec/crc16.h"
#include "dataplane/codec/t3e_packets.h"
#include "dataplane/core/eal.h"
#include "dataplane/engine/engine_memory.h"
#include "dataplane/ethernet/eth_port.h"
#include "dataplane/ethernet/ether.h"

namespace fabemu {

void tell(const std::string& text) noexcept {
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

int dpdk_memory_mb(const Spec& spec, const EngineConfig& cfg, const Fabric& fabric) {
  // The ports are not open yet: size their frames for jumbo MTUs.
  EngineConfig c = cfg;
  for (const auto& pb : spec.ports) {
    PortEndpointConfig pc;
    pc.endpoint = static_cast<uint32_t>(pb.endpoint);
    pc.queue_frames = static_cast<uint32_t>(pb.queue_frames);
    pc.max_frame_bytes = 9000 + kEthHeaderBytes;
    c.ports.push_back(pc);
  }
  // A quarter more for the pools' own overhead and the devices' queues.
  const double mb = double(dpdk_bytes_needed(c, fabric)) * 1.25 / double(1 << 20);
  return static_cast<int>(std::ceil(mb)) + 64;
}

std::vector<std::vector<int>> place_workers(const Spec& spec) {
  const std::vector<int> allowed = allowed_cpus();
  std::vector<std::vector<int>> cpus(static_cast<size_t>(spec.run.workers));
  if (spec.run.cores.empty()) {
    // Any allowed CPU: the kernel spreads busy threads, so two runs on one
    // machine do not share a core while another idles.
    for (auto& c : cpus) c = allowed;
    return cpus;
  }
  for (size_t i = 0; i < cpus.size() && i < spec.run.cores.size(); i++) {
    const int c = spec.run.cores[i];
    if (!std::binary_search(allowed.begin(), allowed.end(), c))
      throw std::runtime_error(fmt::format(
          "run.cores[{}] is CPU {}, which this process may not use (allowed: {}; see taskset "
          "or the cgroup's cpuset): choose among those",
          i, c, cpu_list_text(allowed)));
    cpus[i] = {c};
  }
  return cpus;
}

namespace {

// The DPDK ports of a run, closed when the run is over (also on errors).
struct OpenPorts {
  std::vector<EthPort> ports;
  ~OpenPorts() {
    for (auto& p : ports) eth_port_close(&p);
  }
};

// Opens each distinct device once and resolves the spec's bindings.
// The pinned MACs of binding i, as numbers.
std::vector<uint64_t> binding_macs(const PortBinding& pb, size_t i, const std::string& name) {
  std::vector<uint64_t> macs;
  for (const auto& m : pb.macs) {
    uint64_t mac = 0;
    if (!parse_mac(m, &mac))
      throw std::runtime_error("ports[" + std::to_string(i) + "] '" + name + "': '" + m +
                               "' is not a MAC address (02:00:00:00:00:01)");
    macs.push_back(mac);
  }
  return macs;
}

std::vector<PortEndpointConfig> open_ports(const Spec& spec, OpenPorts* open) {
  std::vector<PortEndpointConfig> out;
  for (size_t i = 0; i < spec.ports.size(); i++) {
    const PortBinding& pb = spec.ports[i];
    if (!pb.replay.empty()) {  // a replayed host: its frames, no DPDK port
      PortEndpointConfig pc;
      pc.name = port_binding_name(pb, i);
      pc.device = "replay:" + pb.replay;
      pc.port_id = 0xFFFF;
      pc.endpoint = static_cast<uint32_t>(pb.endpoint);
      pc.vlan = static_cast<uint16_t>(pb.vlan);
      pc.queue_frames = static_cast<uint32_t>(pb.queue_frames);
      uint32_t longest = 0;
      pc.replay = load_replay(pb.replay, pb.replay_interface, &longest);
      // The host's MTU is what it sent (at least Ethernet's), up to what a
      // worker's frame buffer holds: a longer frame is counted oversize.
      pc.max_frame_bytes = std::clamp<uint32_t>(longest, kEthHeaderBytes + 1500, 16384 - 64);
      pc.replay_speed = pb.replay_speed;
      // The engine divides the file's times by the speed in the same clock.
      const ps_t span = pc.replay->frames() ? pc.replay->t_ps.back() : 0;
      if (double(span) / pb.replay_speed > double(kMaxReplaySpanPs))
        throw std::runtime_error(fmt::format(
            "ports[{}] '{}': {} spans {:.1f} days at replay_speed {}, more than the {:.1f} days "
            "a replay may take: raise replay_speed or replay a part of the file (editcap -A/-B)",
            i, pc.name, pb.replay, double(span) / 86400e12 / pb.replay_speed, pb.replay_speed,
            kMaxReplaySpanDays));
      pc.replay_loops = static_cast<uint32_t>(pb.replay_loops);
      pc.macs = binding_macs(pb, i, pc.name);
      out.push_back(std::move(pc));
      continue;
    }
    const std::string name = pb.device.substr(0, pb.device.find(','));
    const EthPort* port = nullptr;
    for (const auto& p : open->ports)
      if (p.name == name) port = &p;
    if (!port) {
      EthPort p;
      std::string err;
      const bool ok = eth_port_open(pb.device, -1, &p, &err);
      open->ports.push_back(p);  // closed by ~OpenPorts whether or not it opened
      if (!ok) throw std::runtime_error("ports[" + std::to_string(i) + "] '" + pb.name + "': " + err);
      port = &open->ports.back();
    }
    PortEndpointConfig pc;
    pc.name = port_binding_name(pb, i);
    pc.device = pb.device;
    pc.port_id = port->port_id;
    pc.endpoint = static_cast<uint32_t>(pb.endpoint);
    pc.vlan = static_cast<uint16_t>(pb.vlan);
    pc.macs = binding_macs(pb, i, pc.name);
    pc.queue_frames = static_cast<uint32_t>(pb.queue_frames);
    pc.max_frame_bytes = port->mtu + kEthHeaderBytes;
    out.push_back(pc);
  }
  return out;
}

}  // namespace

RunResult run_emulation(const Spec& spec, const std::function<void(EngineConfig&)>& tweak,
                        const std::vector<std::string>& eal_args, const PrepareEngine& prepare,
                        bool per_link_json, const std::function<void(Fabric&)>& adjust_fabric) {
  const TopologyInfo* topo = Registry::get().topology(spec.topology.family);
  if (!topo) throw std::runtime_error("unknown topology family '" + spec.topology.family + "'");
  const RoutingInfo* routing = Registry::get().routing(spec.topology.family, spec.routing);
  if (!routing)
    throw std::runtime_error("routing '" + spec.routing + "' does not exist for topology '" +
                             spec.topology.family + "'");
  RunResult res;
  res.fabric = replicate_slices(topo->build(spec), static_cast<uint32_t>(spec.topology.slices));
  if (adjust_fabric) adjust_fabric(res.fabric);
  std::string err;
  std::vector<std::string> eal = spec.run.eal;
  eal.insert(eal.end(), eal_args.begin(), eal_args.end());
  bool pci = false;
  for (const auto& p : spec.ports) pci = pci || device_is_pci(p.device);
  for (const auto& a : eal) pci = pci || a.rfind("-a", 0) == 0 || a.rfind("--allow", 0) == 0;
  EngineConfig cfg = make_engine_config(spec, res.fabric);
  if (!eal_ensure(std::max(1, spec.run.workers), &err, eal, pci, dpdk_memory_mb(spec, cfg, res.fabric)))
    throw std::runtime_error(err);
  crc16_init();  // after the EAL: picks the vector CRC path the CPU supports
  OpenPorts open;
  cfg.worker_cpus = place_workers(spec);
  // Several MPI ranks (control/mpi/): the job's workers are every rank's;
  // this process runs its rank's share of them (docs/multi-server.md).
  if (MpiRanks& job = mpi_ranks(); job.size() > 1) {
    const RankPartition part = partition_routers(spec, res.fabric, job.size());
    const int per = std::max(1, spec.run.workers);
    cfg.workers = job.size() * per;
    for (size_t r = 0; r < cfg.router_worker.size(); r++)
      cfg.router_worker[r] = part.rank[r] * per + part.worker[r];
    cfg.first_local_worker = job.rank() * per;
    cfg.local_workers = per;
    cfg.ranks = job.link();
    cfg.worker_cpus.insert(cfg.worker_cpus.begin(), size_t(cfg.first_local_worker), {});
  }
  cfg.ports = open_ports(spec, &open);
  // Capture: the writer thread runs while the workers do (pcap-tools/).
  std::unique_ptr<CaptureWriter> capture;
  uint32_t capture_interfaces = 0;
  if (!spec.capture.taps.empty()) {
    CapturePlan plan;
    if (!plan_capture(spec, res.fabric, cfg, &plan, &err)) throw std::runtime_error(err);
    capture_interfaces = static_cast<uint32_t>(plan.writer.interfaces.size());
    // The writer runs on the CPUs no worker is pinned to (all allowed ones
    // when the workers float or take every CPU).
    std::vector<int> writer_cpus;
    for (int c : allowed_cpus())
      if (std::find(spec.run.cores.begin(), spec.run.cores.end(), c) == spec.run.cores.end())
        writer_cpus.push_back(c);
    if (writer_cpus.empty()) writer_cpus = allowed_cpus();
    // "-": the capture is standard output's stream (what else the run
    // prints goes to standard error), written as it goes for a live reader.
    if (plan.writer.path == "-" && (plan.writer.fd = take_stdout_for_data(&err)) < 0)
      throw std::runtime_error("--capture-file -: " + err);
    plan.writer.on_stop = [](const std::string& why) {
      tell(fmt::format("[fabemu] {}; the run goes on\n", why));
    };
    capture = std::make_unique<CaptureWriter>();
    if (!capture->start(std::move(plan.writer), std::max(1, spec.run.workers),
                        static_cast<uint32_t>(spec.capture.queue_records), plan.data_bytes,
                        writer_cpus, &err))
      throw std::runtime_error(err);
    cfg.capture = std::move(plan.taps);
    cfg.capture.queues = capture->queues();
    cfg.capture.lossless = !cfg.realtime;
    cfg.capture.run_start_ns = capture->run_start();
  }
  // Faults: the engine applies their port changes at their times, and the
  // tables programmed around each one take over then.
  const FaultPlan faults = plan_faults(spec, res.fabric);
  for (const FaultPlan::Step& s : faults.steps)
    cfg.faults.insert(cfg.faults.end(), s.changes.begin(), s.changes.end());
  cfg.forward_progress_ps = ns_to_ps(spec.router.forward_progress_ns);
  cfg.faults_possible = !faults.empty() || !spec.run.control_socket.empty() ||
                        cfg.forward_progress_ps > 0 ||
                        cfg.retry.lane_degrade;  // (a link may die of its lanes)
  if (tweak) tweak(cfg);
  // The progress line says which faults have taken effect (the controller's
  // are watched once it exists).
  FaultProgress fault_progress(faults);
  if (!faults.empty() || !spec.run.control_socket.empty()) {
    if (cfg.progress)
      cfg.progress = [inner = std::move(cfg.progress),
                      &fault_progress](const EngineConfig::Progress& p) {
        EngineConfig::Progress q = p;
        q.faults = fault_progress.text(p.now);
        inner(q);
      };
    if (cfg.live)
      cfg.live = [inner = std::move(cfg.live), &fault_progress](const LiveStats& l) {
        LiveStats m = l;
        m.faults = fault_progress.text(l.now_ps);
        inner(m);
      };
  }
  auto engine = routing->make_engine(spec, res.fabric, cfg);
  if (!engine) throw std::runtime_error("routing '" + spec.routing + "' could not build an engine");
  for (const FaultPlan::Step& s : faults.steps)
    if (s.routing) routing->reprogram(*engine, spec, s.fabric, s.fault.at);
  if (prepare) prepare(*engine, *routing, res.fabric);
  // Faults while running: `fabemu fault` or a script on the control socket.
  std::unique_ptr<FaultController> controller;
  ControlServer control;
  if (!spec.run.control_socket.empty()) {
    controller = std::make_unique<FaultController>(spec, res.fabric, *routing, *engine);
    fault_progress.watch(controller.get());
    const bool say = cfg.progress || cfg.live;  // not --quiet
    const bool virtual_time = !cfg.realtime;
    const auto handle = [&controller, say, virtual_time,
                         noted = false](const std::string& request) mutable {
      std::string reply = controller->handle(request);
      // Faults only: a script polling status would flood the terminal.
      if (say && request != "status" && request != "help")
        tell(fmt::format("\n[fabemu] control socket: {} -> {}\n", request, reply));
      if (say && virtual_time && !noted && reply.rfind("ok '", 0) == 0) {
        noted = true;
        tell(
            "[fabemu] note: in virtual time a fault from the control socket takes effect at the "
            "window edge the workers reach next, which wall-clock timing chooses: this run cannot "
            "be repeated exactly (the summary gives the faults to put in the spec instead)\n");
      }
      return reply;
    };
    if (!control.start(spec.run.control_socket, handle, &err))
      throw std::runtime_error("run.control_socket: " + err);
    if (say)
      tell(fmt::format("[fabemu] control socket {}: faults with `fabemu fault --control {} "
                       "'link=rR:pP down'`\n",
                       spec.run.control_socket, spec.run.control_socket));
  }
  res.stats = engine->run();
  control.stop();
  if (capture) {
    capture->finish();
    res.stats.capture_written = capture->written();
    res.stats.capture_bytes = capture->bytes();
    res.stats.capture_files = capture->files();
    res.stats.capture_error = capture->error();
    res.stats.capture_reader_gone = capture->reader_gone();
    res.stats.capture_start_ns = capture->start_ns();
    res.stats.capture_interfaces = capture_interfaces;
  }
  res.json = report_json(spec, res.fabric, cfg, res.stats, per_link_json);
  // Virtual time repeats exactly from the spec and seed, unless the control
  // socket's faults (below) came at times the wall clock chose.
  res.json["run"]["repeatable"] = !cfg.realtime;
  if (!faults.empty() || controller) {
    nlohmann::json log = nlohmann::json::array();
    for (const FaultPlan::Step& s : faults.steps)
      log.push_back({{"at_ns", double(s.fault.at) / 1e3},
                     {"fault", s.fault.text},
                     {"source", "spec"},
                     {"applied", s.fault.at <= res.stats.end_ps},
                     {"dead_links", s.dead_links},
                     {"dead_routers", s.dead_routers}});
    if (controller) {
      nlohmann::json socket_log = controller->log();
      // In virtual time a socket fault's time came from the wall clock: the
      // same faults at the same emulated times in the spec repeat the run.
      if (!cfg.realtime) {
        nlohmann::json repeat = nlohmann::json::array();
        for (const FaultPlan::Step& s : faults.steps) repeat.push_back(s.fault.text);
        bool timed_by_wall = false;
        for (const nlohmann::json& j : socket_log)
          if (j.value("applied", false) && j["at_ns"].is_number()) {
            timed_by_wall = true;
            repeat.push_back(
                fmt::format("{}ns {}", j["at_ns"].get<double>(), j["fault"].get<std::string>()));
          }
        if (timed_by_wall) {
          res.json["run"]["repeatable"] = false;
          res.json["run"]["faults_to_repeat"] = std::move(repeat);
        }
      }
      for (nlohmann::json& j : socket_log) log.push_back(std::move(j));
    }
    res.json["faults"] = std::move(log);
  }
  return res;
}

namespace {

// SIGINT, SIGTERM and SIGHUP (a closed terminal) end a run cleanly: a
// real-time run drains and reports; a virtual-time run stops at its next
// window edge and reports what it has measured, marked interrupted. A second
// signal ends the process at once, so that a stuck run can still be killed,
// after removing what the run made for its own time (the control socket, a
// report half-written, DPDK's runtime folder) with async-signal-safe calls.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_stop_signal = 0;
// A run over several MPI ranks: mpirun ends every rank with a signal when
// one rank died, maybe while this one waits for it at a window edge, and
// kills it if it has not ended soon after; its DPDK runtime folder (empty:
// the EAL runs with --no-shconf) goes at the first signal.
volatile std::sig_atomic_t g_in_job = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_in_job) eal_remove_runtime_dir_now();
  if (g_stop.exchange(true)) {
    remove_leftovers_now();
    eal_remove_runtime_dir_now();
    std::signal(sig, SIG_DFL);
    std::raise(sig);  // delivered as the handler returns
    return;
  }
  g_stop_signal = sig;
}

// Installed for the rest of the process: after the run a first signal has
// nothing to stop, and a second still ends it at once, cleaning up (were the
// default action back, a signal while the summary is printed would leave
// DPDK's runtime folder).
void install_stop_signals() {
  g_stop.store(false);
  g_stop_signal = 0;
  for (int sig : kStopSignals) std::signal(sig, on_stop_signal);
  // A reader that went away (`run --json - | head`) is a write error to
  // report, not a signal that ends the process before it cleans up.
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace

int run_command(const Spec& spec, const RunOptions& opts) {
  const bool tty = isatty(STDERR_FILENO);
  const bool realtime = spec.run.mode == "realtime";
  RunResult res;
  install_stop_signals();
  g_in_job = mpi_ranks().size() > 1;
  // The report or the capture alone on standard output; diverted before
  // DPDK starts, whose log lines go to standard output too.
  const bool capture_stdout = spec.capture.file == "-" && !spec.capture.taps.empty();
  if (opts.json_out == "-" || capture_stdout) {
    std::string err;
    if (!divert_stdout_for_data(&err)) {
      tell(fmt::format("fabemu run: {} -: {}\n", capture_stdout ? "--capture-file" : "--json",
                       err));
      return 1;
    }
  }
  try {
    res = run_emulation(
        spec,
        [&](EngineConfig& c) {
          c.stop = &g_stop;
          // Said at once (also with --quiet): from here the fabric's timing is
          // not the spec's, and the policy says what happens next.
          c.on_overload = [&spec](ps_t behind) {
            tell(fmt::format("[fabemu] WARNING: the real-time run is {} behind the wall clock "
                       "(run.overload_bound_ns {}): {}\n",
                       ns_text(behind), ns_text(ns_to_ps(spec.run.overload_bound_ns)),
                       spec.run.overload == "stop"
                           ? "stopping (run.overload: stop)"
                       : spec.run.overload == "shed"
                           ? "shedding new port frames and synthetic messages until it catches up "
                             "(run.overload: shed)"
                           : "its timing is distorted from here (run.overload: warn; shed or stop "
                             "are the alternatives). Raise run.time_scale, lower the load, or add "
                             "workers"));
          };
          if (realtime && !opts.quiet) {
            if (eal_no_huge())
              tell("[fabemu] no free hugepages: DPDK runs with --no-huge (ordinary memory)\n");
            std::string ports;
            for (const auto& p : c.ports)
              ports += fmt::format("{}{} = {} at endpoint {}{}", ports.empty() ? "" : ", ", p.name,
                                   p.device, p.endpoint,
                                   p.vlan ? fmt::format(" (VLAN {})", p.vlan) : "");
            tell(fmt::format("[fabemu] real time, time scale {}: {}; {}\n", c.time_scale,
                             ports.empty() ? "no ports (synthetic traffic only)" : ports,
                             c.duration_s > 0 ? fmt::format("running for {} s", c.duration_s)
                                              : "running until Ctrl-C (SIGINT) or SIGTERM"));
          }
          if (opts.quiet) {
            c.progress = nullptr;
            c.live = nullptr;
            return;
          }
          c.live = [bound = c.lateness_bound_ps](const LiveStats& l) {
            std::string line = fmt::format("[fabemu] {:6.1f} s", l.wall_s);
            for (size_t i = 0; i < l.port_names.size(); i++)
              line += fmt::format("  {} in {} out {}", l.port_names[i], l.rx_frames[i], l.tx_frames[i]);
            line += fmt::format("  | frame p99 {}  lateness p99 {} max {}",
                                ns_text(l.frame_latency_p99_ps), ns_text(l.lateness_p99_ps),
                                ns_text(l.lateness_max_ps));
            if (l.capturing)
              line += fmt::format("  | captured {}{}", l.captured,
                                  l.capture_drops ? fmt::format(" ({} DROPPED: writer behind)", l.capture_drops)
                                                  : "");
            if (!l.faults.empty()) line += "  | " + l.faults;
            tell(line + "\n");
            if (l.events_over_bound)
              tell(fmt::format(
                  "[fabemu] WARNING: {} events ran more than {} (run.lateness_bound_ns) behind "
                  "their emulated time in the last period: the fabric's timing is distorted. "
                  "Raise run.time_scale, lower the traffic, or add workers.\n",
                  l.events_over_bound, ns_text(bound)));
          };
          c.progress = [tty,
                        start = std::chrono::steady_clock::now()](const EngineConfig::Progress& p) {
            const double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::string line = fmt::format(
                "[fabemu] {:5.1f}%  emulated {:.1f} us  delivered {} packets  wall {:.1f} s",
                p.fraction * 100.0, double(p.now) / 1e6, p.delivered, wall);
            if (p.retry)
              line += fmt::format("  link CRC errors {} retries {}", p.crc_errors, p.retries);
            if (p.lanes_dropped) line += fmt::format(" lanes dropped {}", p.lanes_dropped);
            if (p.given_up) line += fmt::format(" given up {}", p.given_up);
            if (!p.faults.empty()) line += "  | " + p.faults;
            tell(tty ? "\r" + line + "   " : line + "\n");
          };
        },
        opts.eal_args, nullptr, /*per_link_json=*/ !opts.json_out.empty());
  } catch (const std::exception& e) {
    tell(fmt::format("fabemu run: {}\n", e.what()));
    return 1;
  }
  if (!opts.quiet && tty && !realtime) tell("\n");
  const RunStats& st = res.stats;
  // A second signal while the report is written removes the part written.
  int unwritten = 0;  // 1 when an output could not be written
  if (!opts.json_out.empty()) {
    std::string err;
    if (!write_output(opts.json_out, res.json.dump(2) + "\n", &err)) {
      tell(fmt::format("fabemu run: cannot write the JSON report: {}\n", err));
      unwritten = 1;
    }
  }
  if (!opts.quiet) {
    try {  // a terminal that went away, a reader that stopped reading
      print_run_summary(spec, res);
      print_preemption_notes(st);
      if (std::fflush(stdout) != 0 || std::ferror(stdout))
        throw std::system_error(errno, std::generic_category());
    } catch (const std::exception& e) {
      tell(fmt::format("fabemu run: cannot write the summary to standard output: {}\n", e.what()));
      unwritten = 1;
    }
  }
  // Over several ranks rank 0 judges the job's run (the others hold only
  // their own workers' counters) and every rank ends with its verdict.
  MpiRanks& job = mpi_ranks();
  int status = 0;
  if (job.root()) {
    status =
        run_status(spec, !opts.json_out.empty(), st, g_stop_signal ? int(g_stop_signal) : SIGINT);
    if (!status) status = unwritten;
  } else if (!st.error.empty()) {
    tell(fmt::format("fabemu rank {}: {}\n", job.rank(), st.error));
  }
  if (job.size() > 1) {
    status = std::stoi(job.broadcast(std::to_string(status)));
    job.agree_failure();
  }
  return status;
}

}  // namespace fabemu
