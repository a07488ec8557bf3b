// The terminal summary of `fabemu run` (runner.cpp prints it unless --quiet).
#include "control/run/run_summary.h"

#include <fmt/format.h>

#include "control/run/report.h"
#include "dataplane/core/eal.h"

namespace fabemu {
namespace {

uint64_t shed_frames(const RunStats& st) {
  uint64_t n = 0;
  for (const PortStats& p : st.ports) n += p.drops[static_cast<int>(FrameDrop::shed_overload)];
  return n;
}

// After the throughput figures: which side of saturation the run is on, as
// `fabemu sweep` decides it (report.h, kSaturatedFraction).
std::string saturation_text(const nlohmann::json& j) {
  if (!j.contains("saturation") || j["offered_load"].get<double>() <= 0) return {};
  if (!j["saturation"].value("judged", true))
    return ": saturation not judged (the run fell behind the wall clock: the host, not the "
           "fabric, limited what was accepted; see the overload line)";
  if (!j["saturation"]["saturated"].get<bool>()) return ": below saturation";
  const double refused = j["refused_load"].get<double>();
  return fmt::format(
      ": SATURATED (accepted below {:.0f}% of offered, as `fabemu sweep` decides; the "
      "latency grows with the run's length{})",
      100 * kSaturatedFraction,
      refused > 0 ? fmt::format(", and the source queues refused {:.3f}", refused) : "");
}

// Latency when no packet was delivered inside the measurement window: why,
// rather than zeros.
std::string no_packets_text(const RunStats& st) {
  if (st.measured_injected == 0)
    return "no packets measured: none was injected between the warm-up and the end of "
           "measurement (raise run.measure_ns or traffic.load)";
  if (host_fell_behind(st))
    return fmt::format(
        "no packets measured: {} injected in the measurement window, none delivered by the end: "
        "the run fell up to {} behind the wall clock, so the emulation never reached them (the "
        "host could not keep real time: raise run.time_scale, lower the load, or add workers)",
        st.measured_injected, ns_text(st.max_behind_ps));
  return fmt::format(
      "no packets measured: {} injected in the measurement window, none delivered by the end "
      "(the fabric is saturated or stalled; see the drops and run.drain_ns)",
      st.measured_injected);
}

// The faults of the run (the spec's and the control socket's, in the order
// given), which of them took effect before the run ended, and the fabric's
// state after the last that did; the packets they cost follow as drops.
void print_faults_line(const nlohmann::json& faults) {
  constexpr size_t kShown = 4;
  size_t applied = 0, shown = 0;
  uint64_t dead_links = 0, dead_routers = 0;
  std::string list;
  for (const auto& f : faults) {
    const bool on = f.value("applied", false);
    if (on) {
      applied++;
      dead_links = f.value("dead_links", uint64_t{0});
      dead_routers = f.value("dead_routers", uint64_t{0});
    }
    if (shown++ < kShown)
      list += fmt::format("{}'{}'{}", list.empty() ? "" : ", ", f.value("fault", std::string()),
                          on ? "" : " (not applied: the run ended first)");
  }
  if (faults.size() > kShown) list += fmt::format(", and {} more", faults.size() - kShown);
  fmt::print(
      "faults     {} given, {} applied: {}; after them {} dead link{} and {} dead router{} "
      "(JSON faults)\n",
      faults.size(), applied, list, dead_links, dead_links == 1 ? "" : "s", dead_routers,
      dead_routers == 1 ? "" : "s");
}

}  // namespace

std::string ns_text(uint64_t ps) {
  if (ps >= 1000ull * 1000 * 1000) return fmt::format("{:.2f} ms", double(ps) / 1e9);
  if (ps >= 1000ull * 1000) return fmt::format("{:.2f} us", double(ps) / 1e6);
  return fmt::format("{:.0f} ns", double(ps) / 1e3);
}

// Frames the host sent faster than the fabric took them: what a TCP sender
// sees (each one is a retransmit) and why.
static const char* ingress_drops_cause(const RunStats& st, const RealtimeTiming& timing) {
  if (st.realtime && !timing.faithful)
    return "; the emulation was behind the wall clock (see the first line), so it took the "
           "host's frames slower than the fabric would: a TCP sender retransmits each";
  return "; the host sent faster than the endpoint's injection link carries: a TCP sender "
         "retransmits each";
}

// Real time: when the run did not keep the fabric's timing, the summary's
// first line says so, how much was late and what the cores could carry.
static void print_behind_line(const Spec& spec, const RunStats& st, const RealtimeTiming& t) {
  if (!st.realtime || t.faithful) return;
  std::string late = fmt::format("{:.1f}% of events", 100 * t.late_events);
  if (t.frame_lateness_ps.count)
    late += fmt::format(" and {:.1f}% of frames", 100 * t.late_frames);
  std::string carried;
  if (t.frames)
    carried = fmt::format("about {:.0f} frames/s ({:.0f} B mean, {:.3f} Gbit/s)",
                          t.frame_capacity_per_s, double(t.frame_bytes) / double(t.frames),
                          t.frame_capacity_per_s * double(t.frame_bytes) / double(t.frames) * 8 /
                              1e9);
  else
    carried = fmt::format("about {:.0f} messages/s", t.message_capacity_per_s);
  fmt::print(
      "BEHIND     the emulation fell behind the wall clock: {} ran later than the {} bound "
      "(p99 {}), so the fabric's timing was not the spec's. At time scale {} its {} carried {} "
      "(busiest {:.0f}% busy); offer less, raise run.time_scale or add workers\n",
      late, ns_text(st.lateness_bound_ps), ns_text(st.lateness_ps.percentile(99)),
      st.time_scale, spec.run.workers == 1 ? "worker" : "workers", carried, 100 * t.busiest);
}

void print_run_summary(const Spec& spec, const RunResult& res) {
  const RunStats& st = res.stats;
  const auto& j = res.json;
  auto lat = j["latency_ns"];
  const bool measured = lat["count"].get<uint64_t>() > 0;
  const RealtimeTiming timing = realtime_timing(st);
  print_behind_line(spec, st, timing);
  fmt::print(
      "fabric     {} ({} routers, {} endpoints, {} VCs, {}s of {} bits)\n"
      "traffic    {} at offered load {:.3f} ({:.3f} refused by the source queues, {:.3f} entered "
      "the fabric), seed {}\n"
      "throughput accepted {:.3f} of injection bandwidth (offered {:.3f}){}\n"
      "packets    injected {}  delivered {}  dropped {}{}\n"
      "latency    {}\n"
      "hops       {}\n"
      "credits    stalls {}  conservation {}\n"
      "speed      {:.2f} M packet-hops/s ({} worker{}{}), {:.2f} s wall for {:.1f} us emulated\n",
      res.fabric.name, res.fabric.routers.size(), res.fabric.endpoints.size(), res.fabric.num_vcs,
      res.fabric.unit_name, res.fabric.unit_bits, spec.traffic.pattern,
      j["offered_load"].get<double>(), j["refused_load"].get<double>(),
      j["entered_load"].get<double>(), spec.run.seed, j["accepted_load"].get<double>(),
      j["offered_load"].get<double>(), saturation_text(j), st.injected_packets,
      st.delivered_packets, j["dropped_packets"]["total"].get<uint64_t>(),
      counts_out_of_order(spec) ? fmt::format("  out of order {}", st.out_of_order_packets)
                                : std::string(),
      measured ? fmt::format("mean {:.1f} ns  p50 {:.1f}  p99 {:.1f}  max {:.1f}  (network only: "
                             "mean {:.1f})",
                             lat["mean"].get<double>(), lat["p50"].get<double>(),
                             lat["p99"].get<double>(), lat["max"].get<double>(),
                             j["network_latency_ns"]["mean"].get<double>())
               : no_packets_text(st),
      measured ? fmt::format("mean {:.2f}  max {}", j["hops"]["mean"].get<double>(),
                             j["hops"]["max"].get<uint64_t>())
               : std::string("none measured"),
      j["credit_stalls"].get<uint64_t>(),
      st.invariant_checks ? (st.invariant_failure.empty() ? "checked, ok" : "BROKEN")
                          : "not checked (run.check_invariants)",
      j["performance"]["packet_hops_per_s"].get<double>() / 1e6, spec.run.workers,
      spec.run.workers == 1 ? "" : "s",
      j["run"].contains("ranks")
          ? fmt::format(" on each of {} MPI ranks", j["run"]["ranks"].get<int>())
          : std::string(),
      st.wall_s, double(st.end_ps) / 1e6);
  if (j.contains("barrier")) {  // traffic.phases: the barrier/eureka networks
    const auto& b = j["barrier"];
    const auto& l = b["latency_ns"];
    fmt::print("barriers   {} completed, latency (last join to each processor) {}; waited mean "
               "{:.1f} ns{}{}\n",
               b["barriers"].get<uint64_t>(),
               l["count"].get<uint64_t>()
                   ? fmt::format("mean {:.1f} ns  p50 {:.1f}  max {:.1f}", l["mean"].get<double>(),
                                 l["p50"].get<double>(), l["max"].get<double>())
                   : std::string("none measured"),
               b["wait_ns"]["mean"].get<double>(),
               b["eureka_latency_ns"]["count"].get<uint64_t>()
                   ? fmt::format("; {} eurekas, mean {:.1f} ns to each processor",
                                 b["eurekas"].get<uint64_t>(),
                                 b["eureka_latency_ns"]["mean"].get<double>())
                   : std::string(),
               b["signals_lost"].get<uint64_t>()
                   ? fmt::format("; {} barrier packets lost to faults (their barriers never end)",
                                 b["signals_lost"].get<uint64_t>())
                   : std::string());
  }
  if (j.contains("slices")) {  // network slices: the endpoints are the processors' ports
    fmt::print("slices     {} ({} processors, a port in each):", res.fabric.slices,
               res.fabric.processors());
    for (const auto& s : j["slices"])
      fmt::print("  {}: {:.1f}% of packets, entered {:.3f}, channels {:.3f}", s["slice"].get<int>(),
                 100 * s["packet_share"].get<double>(), s["entered_load"].get<double>(),
                 s["channel_utilisation"].get<double>());
    fmt::print("\n");
  }
  if (j.contains("link_retry")) {
    const auto& r = j["link_retry"];
    const double bits = r["checked_bits"].get<double>();
    fmt::print(
        "link retry CRC errors {}  time-outs {}  packets resent {}  excised {}  marked transmit "
        "error and discarded {}  (BER seen {:.2g})\n",
        r["crc_errors"].get<uint64_t>(), r["timeouts"].get<uint64_t>(),
        r["retries"].get<uint64_t>(), r["excised"].get<uint64_t>(),
        r["transmit_error_discards"].get<uint64_t>(),
        bits > 0 ? r["bit_errors"].get<double>() / bits : 0.0);
    if (const uint64_t u = r.value("undetected_errors", uint64_t{0}))
      fmt::print(
          "link retry {} damaged packet{} passed the CRC-16 undetected and went on as good "
          "(links[i].retry.undetected_errors)\n",
          u, u == 1 ? "" : "s");
  }
  if (j.contains("forward_progress_timeouts") && !j["forward_progress_timeouts"].empty()) {
    std::string at;
    for (const auto& x : j["forward_progress_timeouts"])
      at += fmt::format("{}router {} port {}{} at {:.3f} us", at.empty() ? "" : ", ",
                        x["router"].get<int>(), x["port"].get<int>(),
                        x.contains("endpoint")
                            ? fmt::format(" (endpoint {})", x["endpoint"].get<int>())
                            : std::string(),
                        x["first_at_ns"].get<double>() / 1e3);
    fmt::print(
        "progress   forward-progress timer expired at {}: packets bound there were "
        "discarded (drops forward_progress)\n",
        at);
  }
  if (j.contains("link_lanes") && j["link_lanes"]["links_narrowed"].get<uint64_t>() > 0) {
    const auto& l = j["link_lanes"];
    fmt::print(
        "lanes      {} link directions ran narrower than {} lanes, {} lanes dropped for "
        "retries, {} lost every lane (links[i].lanes)\n",
        l["links_narrowed"].get<uint64_t>(), l["lanes"].get<uint32_t>(),
        l["lanes_dropped"].get<uint64_t>(), l["links_lost_all_lanes"].get<uint64_t>());
  }
  if (const auto& dv = j["down_route_violations"]; dv["total"].get<uint64_t>() > 0) {
    std::string at;
    size_t shown = 0;
    for (const auto& x : dv["where"]) {
      if (shown++ == 5) {
        at += fmt::format(", and {} more", dv["where"].size() - 5);
        break;
      }
      at += fmt::format("{}router {} port {} ({})", at.empty() ? "" : ", ", x["router"].get<int>(),
                        x["port"].get<int>(), x["packets"].get<uint64_t>());
    }
    fmt::print(
        "routing    {} packets came down an uplink and were routed up again (the down-routing "
        "invariant broken: check the tables): at {}\n",
        dv["total"].get<uint64_t>(), at);
  }
  if (j.contains("faults") && !j["faults"].empty()) print_faults_line(j["faults"]);
  if (j.contains("run") && j["run"].contains("faults_to_repeat")) {
    std::string faults;
    for (const auto& f : j["run"]["faults_to_repeat"])
      faults += fmt::format("{}\"{}\"", faults.empty() ? "" : ", ", f.get<std::string>());
    fmt::print(
        "repeat     not exactly: the control socket's faults took effect at emulated times the "
        "wall clock chose; to repeat this run give them in the spec: --set 'faults=[{}]'\n",
        faults);
  }
  for (int i = 0; i < static_cast<int>(DropReason::count); i++)
    if (st.drops[i])
      fmt::print("dropped    {} {}: {}\n", st.drops[i],
                 drop_reason_name(static_cast<DropReason>(i)),
                 drop_reason_help(static_cast<DropReason>(i)));
  for (const PortStats& p : st.ports) {
    fmt::print(
        "port {:<6}in {} frames ({} B)  out {} frames ({} B)  flooded {}  frame latency "
        "p50 {} p99 {}  hops {:.1f}\n",
        p.name, p.rx_frames, p.rx_bytes, p.tx_frames, p.tx_bytes, p.flooded,
        ns_text(p.frame_latency_ps.percentile(50)), ns_text(p.frame_latency_ps.percentile(99)),
        p.frame_hops.mean());
    if (p.replay_unsent)
      fmt::print(
          "  replay   {} frames of the file sent, {} not: the run ended first (raise "
          "run.measure_ns or lower replay_loops)\n",
          p.replay_sent, p.replay_unsent);
    for (int i = 0; i < static_cast<int>(FrameDrop::count); i++)
      if (p.drops[i])
        fmt::print("  dropped  {} {}: {}{}\n", p.drops[i],
                   frame_drop_name(static_cast<FrameDrop>(i)),
                   frame_drop_help(static_cast<FrameDrop>(i)),
                   static_cast<FrameDrop>(i) == FrameDrop::ingress_queue_full
                       ? ingress_drops_cause(st, timing)
                       : "");
  }
  if (!st.capture_files.empty())
    fmt::print("capture    {} packets and frames on {} interface(s) in {} ({:.1f} MB){}{}\n",
               st.capture_written, st.capture_interfaces,
               st.capture_files.size() == 1
                   ? st.capture_files[0]
                   : fmt::format("{} files, {} ... {}", st.capture_files.size(),
                                 st.capture_files.front(), st.capture_files.back()),
               double(st.capture_bytes) / 1e6,
               st.capture_drops ? fmt::format("; {} dropped (the writer fell behind: raise "
                                              "capture.queue_records or capture less)",
                                              st.capture_drops)
                                : "",
               st.capture_reader_gone
                   ? "; then its reader closed the pipe: the rest was not written"
                   : "");
  if (st.realtime) {
    fmt::print(
        "real time  scale {}  lateness p50 {}  p99 {}  max {}  ({} of {} events over the {} "
        "bound)\n"
        "           receive poll gap p50 {}  p99 {}  max {} (emulated time)\n",
        st.time_scale, ns_text(st.lateness_ps.percentile(50)),
        ns_text(st.lateness_ps.percentile(99)), ns_text(st.lateness_ps.max), st.events_over_bound,
        st.lateness_ps.count, ns_text(st.lateness_bound_ps), ns_text(st.poll_gap_ps.percentile(50)),
        ns_text(st.poll_gap_ps.percentile(99)), ns_text(st.poll_gap_ps.max));
    if (const RealtimeTiming& t = timing; t.frame_lateness_ps.count)
      fmt::print(
          "           frame lateness (handed to the port against its emulated time) p50 {}  "
          "p99 {}  max {}  ({} of {} frames over the bound)\n",
          ns_text(t.frame_lateness_ps.percentile(50)), ns_text(t.frame_lateness_ps.percentile(99)),
          ns_text(t.frame_lateness_ps.max), t.frames_over_bound, t.frame_lateness_ps.count);
    if (st.overload_episodes)
      fmt::print(
          "overload   {} time(s) more than {} behind the wall clock (max {}), run.overload: {}; "
          "{} messages and {} frames shed\n",
          st.overload_episodes, ns_text(ns_to_ps(spec.run.overload_bound_ns)),
          ns_text(st.max_behind_ps), spec.run.overload,
          st.drops[static_cast<int>(DropReason::shed_overload)], shed_frames(st));
    if (st.events_over_bound)
      fmt::print(stderr,
                 "fabemu run: WARNING: {} events ran later than run.lateness_bound_ns ({}) "
                 "behind their emulated time (max {}): during those moments the fabric's timing "
                 "was not the spec's. Raise run.time_scale or lower the load.\n",
                 st.events_over_bound, ns_text(st.lateness_bound_ps), ns_text(st.lateness_ps.max));
  }
}

void print_preemption_notes(const RunStats& st) {
  for (size_t i = 0; i < st.worker_preempted.size(); i++) {
    // A worker with a CPU of its own is preempted a few times a second at
    // most; one sharing its CPU with another busy thread, hundreds.
    const double rate = st.wall_s > 0 ? double(st.worker_preempted[i]) / st.wall_s : 0;
    if (st.worker_preempted[i] >= 20 && rate > 20)
      fmt::print(stderr,
                 "fabemu run: note: worker {} lost its CPU {} times ({:.0f}/s) to other "
                 "threads on CPU(s) {}: the run was slower{}. Give each worker a CPU of its "
                 "own (run.cores, taskset) or run fewer things at once\n",
                 i, st.worker_preempted[i], rate,
                 i < st.worker_cpus.size() ? cpu_list_text(st.worker_cpus[i]) : "?",
                 st.realtime ? " and late" : " (the figures are unaffected)");
  }
}

}  // namespace fabemu
