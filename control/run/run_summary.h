// The terminal summary of `fabemu run`: what the run measured, line by line
// (fabric, traffic, throughput, latency, retries, lanes, drops, ports,
// capture, real time), and the notes on workers that lost their CPU.
#pragma once
#include <cstdint>
#include <string>

#include "control/run/runner.h"

namespace fabemu {

// "12 ns", "3.40 us", "1.20 ms"
std::string ns_text(uint64_t ps);
void print_run_summary(const Spec& spec, const RunResult& res);
void print_preemption_notes(const RunStats& st);

}  // namespace fabemu
