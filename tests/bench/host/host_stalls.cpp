// fabemu_host_stalls [seconds] [cpu]: how often this machine takes a busy
// core away (host or hypervisor interrupts, other threads) and for how
// long. A poll-mode worker stalls for as long as its core is taken, and
// every event due meanwhile runs that much late: this bounds the lateness
// a real-time run can reach on the machine, whatever the engine's speed.
// Spins on the clock and counts the gaps between readings. Figures, not
// assertions (scripts/bench-lateness.sh prints them).
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  if (!(seconds > 0 && seconds <= 3600) || argc > 3) {
    std::fprintf(stderr, "usage: %s [seconds (0 < s <= 3600, default 2)] [cpu]\n", argv[0]);
    return 2;
  }
  if (argc > 2) {
    char* end = nullptr;
    const long cpu = std::strtol(argv[2], &end, 10);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (*end != '\0' || cpu < 0 || cpu >= CPU_SETSIZE) {
      std::fprintf(stderr, "%s: cpu must be a CPU number, got '%s'\n", argv[0], argv[2]);
      return 2;
    }
    CPU_SET(static_cast<int>(cpu), &set);
    if (const int err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
      std::fprintf(stderr, "%s: cannot run on CPU %ld: %s\n", argv[0], cpu, std::strerror(err));
      return 1;
    }
  }
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto end = start + std::chrono::duration_cast<clock::duration>(
                               std::chrono::duration<double>(seconds));
  // Gaps over 1, 10 and 100 us: their count and the time they took.
  constexpr long kBounds[3] = {1000, 10000, 100000};
  long count[3] = {0, 0, 0};
  double lost_ns = 0, longest_ns = 0;
  // Of the time in gaps over 10 us, what lies past their first 10 us: the
  // share of the time at which an event due would run more than 10 us late.
  double past_10us_ns = 0;
  auto prev = start;
  for (;;) {
    const auto t = clock::now();
    const double gap = std::chrono::duration<double, std::nano>(t - prev).count();
    prev = t;
    if (gap > kBounds[0]) {
      lost_ns += gap;
      if (gap > longest_ns) longest_ns = gap;
      for (int i = 0; i < 3; i++) count[i] += gap > kBounds[i];
      if (gap > kBounds[1]) past_10us_ns += gap - kBounds[1];
    }
    if (t >= end) break;
  }
  const double wall = std::chrono::duration<double>(prev - start).count();
  std::printf(
      "host stalls over %.1f s: %.0f/s over 1 us, %.0f/s over 10 us, %.1f/s over 100 us; "
      "%.2f%% of the time lost in them; longest %.1f us; %.3f%% of the time more than 10 us "
      "into a stall\n",
      wall, count[0] / wall, count[1] / wall, count[2] / wall, 100 * lost_ns / 1e9 / wall,
      longest_ns / 1e3, 100 * past_10us_ns / 1e9 / wall);
  return 0;
}
