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
  explicit ChannelDependencyGraph(const Fabric& fabric);

  // Thread-safe. Adds the dependencies between consecutive hops of a traced
  // route; returns false (and adds nothing for that step) when a hop does not
  // follow its predecessor's link or uses a VC the fabric does not have.
  bool add_path(const std::vector<HopTrace>& path);
  bool add_dependency(const HopTrace& from, const HopTrace& to);

  uint64_t num_channels_used() const;  // channels with a dependency in or out
  uint64_t num_dependencies() const;
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

  const Fabric& fabric_;
  int ports_ = 0;  // channel slots per router (max ports over routers)
  int vcs_ = 0;
  int slots_ = 0;                     // ports_ * vcs_
  int words_ = 0;                     // 64-bit words per successor set
  std::vector<uint64_t> succ_;        // channel -> successor set over the next router's slots
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
// programmed tables of spec.routing and checks the dependency graph.
DeadlockReport check_deadlock(const Spec& spec, const Fabric& fabric);

}  // namespace fabemu
