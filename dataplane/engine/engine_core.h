// EngineCore: what an engine holds and does regardless of its routing
// policy and router model, compiled once (engine_core.cpp)
// rather than in every Engine<R, L> instance: the fabric and configuration,
// router placement, link numbering, the traffic parameters, the inbox of
// faults given while running (link/fault_inbox.h), and the cold code of a
// run's start and end (checks, traffic; the report). Engine<R, L>
// (engine.h) derives from it and keeps what needs its Worker.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "dataplane/core/divisor.h"
#include "dataplane/endpoint/endpoints.h"
#include "dataplane/endpoint/packet_pool.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/ethernet/bridge.h"
#include "dataplane/link/fault_inbox.h"
#include "dataplane/link/link.h"
#include "dataplane/link/link_retry.h"
#include "dataplane/link/link_wiring.h"
#include "dataplane/router/router_shape.h"
#include "dataplane/sim/kernel_worker.h"
#include "dataplane/stats/run_merge.h"

namespace fabemu {

// A process-wide counter: DPDK object names (pools, rings) must be unique.
int next_engine_instance();

class EngineCore : public EngineBase {
 public:
  bool inject_faults(const std::vector<FabricFault>& changes, size_t* first = nullptr) override {
    if (!faults_) return false;
    fault_inbox_.post(changes, first);
    return true;
  }
  std::vector<ps_t> injected_applied_at() const override { return fault_inbox_.applied_at(); }

 protected:
  EngineCore(const Fabric& fabric, const EngineConfig& cfg) : f_(fabric), cfg_(cfg) {}

  // ---- setup (engine_core.cpp) ---------------------------------------------
  // Checks the fabric, places routers on workers, numbers the links (the
  // window: the smallest `lookahead` of a link between workers) and sets up
  // traffic and the bridge's ports. The workers are the engine's to make.
  using Lookahead = std::function<ps_t(const FabricPort& link)>;
  bool setup_fabric(const Lookahead& lookahead, std::string* err);
  bool setup_traffic(std::string* err);
  // A worker's part (Engine::setup_worker does the rest): engine_core.cpp.
  RouterShape router_shape(uint32_t routers) const;
  void setup_endpoints(int worker, Endpoints& eps) const;
  bool setup_pool(const KernelWorker& w, PacketPool& pool, bool polls_devices,
                  std::string* err) const;

  // ---- the end of a run (engine_core.cpp) -----------------------------------
  // The workers' counters and the run's figures in one report (the router
  // models' own counters are the engine's to add).
  RunStats merge(const std::vector<WorkerResult>& workers) const;

  Fabric f_;
  EngineConfig cfg_;
  EndpointParams endpoints_;  // what every worker's endpoints share
  uint32_t nv_ = 0, max_ports_ = 0, nrouters_ = 0, nep_ = 0;
  Divisor nv_div_, ports_div_;  // nv_, max_ports_: channel -> input, output -> router per hop
  uint32_t qcap_ = 0;
  int inst_ = 0;
  std::vector<uint32_t> cap_;            // buffer units per VC
  std::vector<uint16_t> router_worker_;  // global router -> worker
  std::vector<uint32_t> router_local_;   // global router -> index on its worker
  LinkIndex links_;  // the run's links by output and endpoint (link/link_wiring.h)
  ps_t measure_start_ = 0, measure_end_ = 0, gen_end_ = 0, drain_end_ = 0;
  ps_t window_ = 0;
  // A greedy allocator's cycle: one longest packet on a router link (the
  // paper's single-flit packets take one cycle).
  ps_t alloc_cycle_ps_ = 1;

  BridgePorts bridge_;  // port-bound endpoints: devices, bindings, replayed hosts
  bool capturing_ = false;               // cfg_.capture has queues
  bool lcb_ = false;                     // link-level retry on router-to-router links
  bool lanes_ = false;                   // router links' lanes can change (link/lane_control.h)
  bool faults_ = false;                  // cfg_.faults_possible: the fault checks are armed
  bool recovery_ = false;                // two-hop recovery memories (link/recovery_memory.h)
  FaultInbox fault_inbox_;               // faults given while running (inject_faults)
};

}  // namespace fabemu
