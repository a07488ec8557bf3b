// Real-time frame throughput through an emulated fabric over in-process ring
// ports: one thread keeps port a's receive ring full of frames for a host on
// port b and counts what b transmits, while the engine runs on one worker
// core in real time (time_scale 1). Prints frames per second, the fabric's
// frame latency and the run's lateness; figures, never assertions.
//
//   build/fabemu_bench [FILE] [seconds]     (default topologies/t3e-4x4x4.yaml, 3 s)
#include <fmt/format.h>
#include <rte_cycles.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <thread>

#include "../unit/eal_fixture.h"
#include "../unit/ring_port.h"
#include "control/run/runner.h"
#include "control/spec/spec_loader.h"

using namespace fabemu;

namespace {

struct Figures {
  double offered_fps = 0, delivered_fps = 0, gbps = 0;
  RunStats st;
};

// taps: capture taps (capture.taps) for the run, written to a temporary file.
Figures run_one(const std::string& file, uint32_t frame_bytes, double seconds, int far_ep,
                const std::vector<std::string>& taps = {}) {
  RingPort a = make_ring_port(), b = make_ring_port();
  if (b.name.empty()) throw std::runtime_error("cannot create ring ports");
  Spec spec = load_spec(file, {"run.mode=realtime", "traffic.load=0", "run.progress_s=0",
                               "run.workers=1"});
  spec.ports.push_back(PortBinding{"a", a.name, 0, 0, {}, 256, "", "", 1.0, 1});
  spec.ports.push_back(PortBinding{"b", b.name, far_ep, 0, {}, 256, "", "", 1.0, 1});
  spec.capture.taps = taps;
  spec.capture.file = "/tmp/fabemu_bench_capture_" + std::to_string(getpid()) + ".pcapng";
  std::atomic<bool> stop{false}, started{false};
  std::atomic<uint64_t> offered{0}, delivered{0};
  double window_s = 0;
  std::thread host([&] {
    while (!started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto frame = test_frame(0x020000000002ULL, 0x020000000001ULL, frame_bytes, 1);
    const auto t0 = std::chrono::steady_clock::now();
    const auto until = t0 + std::chrono::duration<double>(seconds);
    uint64_t sent = 0, got = 0;
    while (std::chrono::steady_clock::now() < until) {
      // Keep the receive ring topped up (the host offers more than the fabric takes).
      for (int i = 0; i < 32 && rte_ring_count(a.to_fabric) < 1024; i++)
        if (send_frame(a, frame)) sent++;
      got += take_frames(b).size();
    }
    window_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    offered = sent;
    delivered = got;
    stop = true;
  });
  RunResult r = run_emulation(spec, [&](EngineConfig& c) {
    c.stop = &stop;
    c.progress = nullptr;
    c.live = nullptr;
    started = true;
  });
  host.join();
  std::remove(spec.capture.file.c_str());
  Figures f;
  f.offered_fps = double(offered) / window_s;
  f.delivered_fps = double(delivered) / window_s;
  f.gbps = f.delivered_fps * frame_bytes * 8 / 1e9;
  f.st = r.stats;
  return f;
}

std::string ns(uint64_t ps) { return fmt::format("{:.2f} us", double(ps) / 1e6); }

}  // namespace

int main(int argc, char** argv) {
  const std::string file =
      argc > 1 ? argv[1] : std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3.0;
  if (!test_eal_init()) {
    fmt::print(stderr, "DPDK did not start\n");
    return 1;
  }
  fmt::print("real-time frames through {} over ring ports, one worker core, time scale 1, {} s each\n",
             file, seconds);
  struct Case {
    uint32_t bytes;
    std::vector<std::string> taps;
    const char* what;
  };
  const Case cases[] = {{64, {}, ""},
                        {1500, {}, ""},
                        {64, {"port=a", "port=b"}, " (port taps on a and b)"},
                        {64, {"all"}, " (capture of every link and port)"}};
  double untapped_fps[2] = {0, 0};  // 64 B, 1500 B without taps
  for (const Case& c : cases) {
    const uint32_t bytes = c.bytes;
    try {
      const Figures f = run_one(file, bytes, seconds, 42, c.taps);
      const auto& p = f.st.ports.at(1);
      uint64_t dropped = 0;
      for (uint64_t d : f.st.ports.at(0).drops) dropped += d;
      fmt::print(
          "{:5} B frames: {:10.0f} frames/s delivered ({:.3f} Gb/s), host offered {:.0f}/s, {} "
          "dropped at ingress (queue full)\n"
          "               frame latency p50 {} p99 {}  lateness p50 {} p99 {} max {}  poll gap p99 {}  "
          "({:.2f} M events/s)\n",
          bytes, f.delivered_fps, f.gbps, f.offered_fps, dropped,
          ns(p.frame_latency_ps.percentile(50)), ns(p.frame_latency_ps.percentile(99)),
          ns(f.st.lateness_ps.percentile(50)), ns(f.st.lateness_ps.percentile(99)),
          ns(f.st.lateness_ps.max), ns(f.st.poll_gap_ps.percentile(99)),
          double(f.st.events) / f.st.wall_s / 1e6);
      if (!c.taps.empty())
        fmt::print("               captured{}: {} records written, {} dropped (writer behind)\n",
                   c.what, f.st.capture_written, f.st.capture_drops);
      else
        untapped_fps[bytes == 64 ? 0 : 1] = f.delivered_fps;
      if (c.taps.empty() && bytes == 1500 && untapped_fps[0] > 0)
        fmt::print(
            "               1500 B over 64 B frames/s: {:.3f} (a frame's cost grows with its "
            "packets: about {:.1f} fabric packets a frame)\n",
            untapped_fps[1] / untapped_fps[0],
            p.tx_frames ? double(f.st.delivered_packets) / double(p.tx_frames) : 0.0);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{} B: {}\n", bytes, e.what());
      return 1;
    }
  }
  return 0;
}
