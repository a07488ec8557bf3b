// A processor's phases (traffic.phases, TrafficConfig::phases): it sends
// phase_messages messages, joins the phase's barrier once the last of them
// has left its shell, and starts the next phase when the barrier completes.
// Phase k uses BSU k mod barrier.units, as a program alternates its BSUs.
// With eureka the first processor to finish signals a eureka with its
// barrier (OP_EUR_B); every other ends its phase on hearing it.
#pragma once
#include <array>
#include <cstdint>

#include "dataplane/barrier/bsu.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct PhaseState {
  uint32_t left = 0;         // messages still to generate in this phase
  uint32_t number = 0;       // the phase
  bool join_pending = false;  // done generating; joins when the last request has left
  bool has_work = false;      // it had messages to send this phase
  bool heard_eureka = false;  // this phase ended by another processor's eureka
  bool stale_generate = false;  // a generation is on the wheel from a phase cut short
  ps_t joined = 0;           // when it joined this phase's barrier
  std::array<BsuUnit, kBsusPerNode> bsu{};
};

}  // namespace fabemu
