// Topologies and routing algorithms register themselves by name from their
// own source file (FABEMU_REGISTER_TOPOLOGY / FABEMU_REGISTER_ROUTING), so a
// new fabric is a new file, not edits across the engine.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/core/routing_policy.h"

namespace fabemu {

class EngineBase;       // dataplane/core/engine_base.h
struct EngineConfig;

struct TopologyInfo {
  std::string family;   // spec topology.family: "torus", "clos", ...
  std::string summary;
  // Builds routers, links and endpoints from the spec (already validated).
  std::function<Fabric(const Spec&)> build;
  // Bisection: the number of unidirectional router-to-router links that cross
  // the minimum bisection of the fabric in one direction.
  std::function<int64_t(const Spec&, const Fabric&)> bisection_links;
};

// A routing algorithm bound to the tables it programs. make_engine
// instantiates Engine<Policy> (one template instance per algorithm).
struct RoutingInfo {
  std::string family;     // topology family it routes
  std::string name;       // spec "routing" value
  std::string summary;
  int max_vcs = 2;        // VCs the algorithm can use (more is a spec error)
  int min_vcs = 1;        // VCs it needs to be deadlock-free
  bool deadlock_free = true;
  std::function<std::unique_ptr<EngineBase>(const Spec&, const Fabric&, const EngineConfig&)>
      make_engine;
  // Route a packet through the programmed tables without timing.
  std::function<std::vector<HopTrace>(const Spec&, const Fabric&, const PacketMeta&)> trace;
};

class Registry {
 public:
  static Registry& get();
  void add_topology(TopologyInfo t);
  void add_routing(RoutingInfo r);
  const TopologyInfo* topology(const std::string& family) const;
  const RoutingInfo* routing(const std::string& family, const std::string& name) const;
  std::vector<std::string> topology_names() const;
  std::vector<std::string> routing_names(const std::string& family) const;

 private:
  std::vector<TopologyInfo> topologies_;
  std::vector<RoutingInfo> routings_;
};

struct TopologyRegistrar {
  explicit TopologyRegistrar(TopologyInfo t) { Registry::get().add_topology(std::move(t)); }
};
struct RoutingRegistrar {
  explicit RoutingRegistrar(RoutingInfo r) { Registry::get().add_routing(std::move(r)); }
};

#define FABEMU_CONCAT2(a, b) a##b
#define FABEMU_CONCAT(a, b) FABEMU_CONCAT2(a, b)
#define FABEMU_REGISTER_TOPOLOGY(...) \
  static ::fabemu::TopologyRegistrar FABEMU_CONCAT(fabemu_topology_, __LINE__){__VA_ARGS__}
#define FABEMU_REGISTER_ROUTING(...) \
  static ::fabemu::RoutingRegistrar FABEMU_CONCAT(fabemu_routing_, __LINE__){__VA_ARGS__}

}  // namespace fabemu
