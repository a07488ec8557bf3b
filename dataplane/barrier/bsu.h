// The T3E's virtual barrier/eureka networks (Scott & Thorson, Hot
// Interconnects 1996, section 6): each processor shell has 32 barrier/eureka
// synchronization units (BSUs), each router one register per BSU that places
// it in that BSU's logical spanning tree. Barrier/eureka packets are single
// flits on a virtual channel of their own, sent with highest priority, that
// never wait for buffer space: a router's register always sinks them.
//
//   BsuRegister  a router's register for one BSU: which of its ports are
//                children in the tree (the six directions and the local
//                processor), which is the parent, which children have
//                signalled the barrier; what it sends on each signal
//   BsuUnit      a processor's BSU: the local states of Figure 6 (S_BAR,
//                S_ARM, S_EUR) and the operations OP_BAR, OP_EUR, OP_EUR_B
//
// Plain logic, no time: the barrier network (barrier_network.h) carries the
// signals between them.
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

namespace fabemu {

inline constexpr uint32_t kBsusPerNode = 32;       // T3E section 6
inline constexpr uint32_t kBarrierMaxPorts = 32;   // a register's child mask is 32 bits
inline constexpr int8_t kBarrierRoot = -1;         // the parent port of the tree's root

// What a barrier/eureka packet says: up the tree a child's barrier or eureka,
// down the tree the completion of a barrier or the notification of a eureka.
enum class BarrierSignal : uint8_t { barrier, eureka, barrier_done, eureka_done };

inline bool signal_goes_up(BarrierSignal s) {
  return s == BarrierSignal::barrier || s == BarrierSignal::eureka;
}

// Where a register sends in answer to a signal: nowhere, up to its parent,
// or down to every child. `at` is the signal's stamp: for a barrier the
// latest time a processor below joined it (the root hands it down, so each
// processor learns when the last one joined); for a eureka when it was
// signalled.
struct BsuSend {
  enum class To : uint8_t { none, parent, children } to = To::none;
  BarrierSignal what = BarrierSignal::barrier;
  ps_t at = 0;
};

// One router's register for one BSU.
struct BsuRegister {
  uint32_t children = 0;  // router ports that are children in the tree
  int8_t parent = kBarrierRoot;
  uint32_t arrived = 0;   // children that have signalled the current barrier
  bool eureka_seen = false;  // this episode's eureka has passed (up or down)
  ps_t latest_join = 0;   // the latest join stamp among the arrived children

  bool in_tree() const { return children != 0; }
  bool root() const { return parent == kBarrierRoot; }

  // A signal reaches the register from port `port` (a child's for an up
  // signal, the parent's for a down one).
  BsuSend on_signal(uint32_t port, BarrierSignal s, ps_t at) {
    switch (s) {
      case BarrierSignal::barrier: {
        arrived |= uint32_t{1} << port;
        if (at > latest_join) latest_join = at;
        if ((arrived & children) != children) return {};
        const ps_t joined = latest_join;
        arrived = 0;
        latest_join = 0;
        if (root()) {
          eureka_seen = false;  // the barrier ends the episode
          return {BsuSend::To::children, BarrierSignal::barrier_done, joined};
        }
        return {BsuSend::To::parent, BarrierSignal::barrier, joined};
      }
      case BarrierSignal::eureka:  // any one child completes a eureka
        if (eureka_seen) return {};
        eureka_seen = true;
        if (root()) return {BsuSend::To::children, BarrierSignal::eureka_done, at};
        return {BsuSend::To::parent, BarrierSignal::eureka, at};
      case BarrierSignal::barrier_done:
        eureka_seen = false;
        return {BsuSend::To::children, BarrierSignal::barrier_done, at};
      case BarrierSignal::eureka_done:
        eureka_seen = true;
        return {BsuSend::To::children, BarrierSignal::eureka_done, at};
    }
    return {};
  }
};

// A processor's BSU, the local transitions of Figure 6.
enum class BsuState : uint8_t { s_bar, s_arm, s_eur };

struct BsuUnit {
  BsuState state = BsuState::s_bar;

  // What the processor's operation sends to its router (none when the
  // operation does not apply in this state: the shell ignores it).
  // OP_BAR: S_BAR or S_EUR -> S_ARM, a barrier signal.
  bool op_bar() {
    if (state == BsuState::s_arm) return false;
    state = BsuState::s_arm;
    return true;
  }
  // OP_EUR: S_BAR -> S_EUR, a eureka signal.
  bool op_eur() {
    if (state != BsuState::s_bar) return false;
    state = BsuState::s_eur;
    return true;
  }
  // OP_EUR_B, the combined OP_EUR and OP_BAR: S_BAR -> S_ARM, both signals.
  bool op_eur_b() {
    if (state != BsuState::s_bar) return false;
    state = BsuState::s_arm;
    return true;
  }
  // Notifications from the network. Barrier completion: S_ARM -> S_BAR
  // (true: this unit was waiting for it). A eureka: S_BAR -> S_EUR (true:
  // the processor learns of it now; a unit already past S_BAR, its own
  // eureka's, ignores it).
  bool barrier_done() {
    if (state != BsuState::s_arm) return false;
    state = BsuState::s_bar;
    return true;
  }
  bool eureka_done() {
    if (state != BsuState::s_bar) return false;
    state = BsuState::s_eur;
    return true;
  }
};

}  // namespace fabemu
