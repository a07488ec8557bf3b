// Channel dependency graph (Dally & Seitz) of a programmed routing function:
// nodes are channels (router, output port, VC); a packet that holds channel a
// and asks for channel b at the next router adds the dependency a -> b. The
// routing function is deadlock-free when the graph is acyclic.
//
// Built from traced routes (consecutive hops of every src/dst pair and class),
// filled concurrently (lock-free bit sets, one per channel, over the next
// router's (port, VC) channels), checked by an iterative DFS in channel order
// so the cycle reported is the same on every run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/routing_policy.h"

namespace fabemu {

struct Channel {
  int32_t router = 0;
  uint8_t port = 0;
  uint8_t vc = 0;
  bool operator==(const Channel&) const = default;
};

class ChannelDependencyGraph {
 public:
  // count_repeats: also keep, beside each word of successors, the bits of
  // the dependencies added more than once, for num_seen_once() (what a
  // sampled check has seen on one route only).
  explicit ChannelDependencyGraph(const Fabric& fabric, bool count_repeats = false);

  // Thread-safe. Adds the dependencies between consecutive hops of a traced
  // route; returns false (and adds nothing for that step) when a hop does not
  // follow its predecessor's link or uses a VC the fabric does not have.
  bool add_path(const std::vector<HopTrace>& path);
  bool add_dependency(const HopTrace& from, const HopTrace& to);

  uint64_t num_channels_used() const;  // channels with a dependency in or out
  uint64_t num_dependencies() const;
  // Dependencies between two router-to-router channels (those a cycle can
  // use) added exactly once (count_repeats; else 0). When a sample of routes
  // has seen few or none only once, it has likely found nearly all there are
  // (Good-Turing); it is still not a proof.
  uint64_t num_seen_once() const;
  bool has_dependency(const Channel& from, const Channel& to) const;

  // One cycle as channels c0 -> c1 -> ... -> ck (the dependency ck -> c0
  // closes it); empty when the graph is acyclic.
  std::vector<Channel> find_cycle() const;

 private:
  uint32_t index(int32_t router, int port, int vc) const;
  Channel channel(uint32_t idx) const;
  int32_t next_router(int32_t router, int port) const {
    return next_router_[static_cast<size_t>(router) * ports_ + port];
  }
  // Index in succ_ of word w of channel c's successor set.
  size_t word(size_t c, int w) const { return (c * words_ + w) * stride_; }

  const Fabric& fabric_;
  int ports_ = 0;  // channel slots per router (max ports over routers)
  int vcs_ = 0;
  int slots_ = 0;   // ports_ * vcs_
  int words_ = 0;   // 64-bit words per successor set
  int stride_ = 1;  // 2 with count_repeats: each word, then its repeats
  // channel -> successor set over the next router's slots; with
  // count_repeats each word is followed by the same bits for dependencies
  // added again (in the same cache line: no second miss per hop).
  std::vector<uint64_t> succ_;
  std::vector<int32_t> next_router_;  // (router, port) -> peer router, -1: none
};

// "r3.p0.v0 -> r4.p0.v0 -> ... -> r3.p0.v0" (with torus/clos coordinates).
std::string describe_cycle(const Fabric& fabric, const std::vector<Channel>& cycle);

struct DeadlockReport {
  bool deadlock_free = true;
  std::vector<Channel> cycle;
  std::string description;
  uint64_t channels = 0;
  uint64_t dependencies = 0;
  uint64_t unroutable = 0;  // routes the tables failed to deliver
};

// Traces every (src, dst) endpoint pair in both traffic classes through the
// programmed tables of spec.routing and checks the dependency graph: a proof
// either way, however large the fabric (summarize() samples large ones).
DeadlockReport check_deadlock(const Spec& spec, const Fabric& fabric);

}  // namespace fabemu
