// What a router model is given at the start of a run (RouterModel::init):
// how many routers one worker owns, their ports and VCs, the buffers, and
// the parameters of the router.* spec fields each model reads.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

// What the router.* spec fields ask of a run's routers
// (EngineConfig::router), each model reading its own.
struct RouterConfig {
  uint32_t input_speedup = 1;       // packets an input port may have crossing the switch at once
  uint32_t output_speedup = 1;      // packets an output may accept at once (> 1: output queues)
  uint32_t output_queue_units = 0;  // capacity of each output VC queue (output_speedup > 1);
                                    // 0: router_sizing.h, output_queue_caps
  // The cycle-synchronous router (router.switch_allocator islip or
  // separable_input_first; input_queued_islip.h): its speedups are its
  // switch's, as BookSim2's, with no output VC queues.
  bool cycle_synchronous = false;
  // The output speedup that output VC queues are made for (1: none).
  uint32_t output_queue_speedup() const { return cycle_synchronous ? 1 : output_speedup; }
  // router.switch_allocator islip (input_queued_islip.h): iterations per cycle.
  uint32_t islip_iterations = 1;
  // router.switch_allocator separable_input_first: the same router, its
  // switch matched by the separable input-first allocator instead.
  bool separable_input_first = false;
  // router.flow_control wormhole (islip): a message's packets are one worm.
  bool wormhole = false;
  // router.wait_for_tail_credit (islip): an output VC is reallocated only
  // once all its credits are back.
  bool wait_for_tail_credit = false;
  // router.hold_switch_for_packet (islip, wormhole): a worm keeps its switch
  // input and output while its next flit waits behind, as BookSim2's.
  bool hold_switch_for_packet = false;
  // router.vc_allocator separable_input_first (islip): each head picks one
  // output VC, then each output VC one of its pickers.
  bool vc_input_first = false;
  // BookSim2's pipeline delays (islip), in cycles: the routing stage
  // (routing_delay; 0: lookahead routing), VC and switch allocation
  // (vc_alloc_delay, sw_alloc_delay) and the crossbar (st_prepare_delay +
  // st_final_delay: its batches delay each packet's way to the far end,
  // IslipRouter::crossbar_wait).
  uint32_t routing_cycles = 0;
  uint32_t vc_alloc_cycles = 1;
  uint32_t sw_alloc_cycles = 1;
  uint32_t crossbar_cycles = 1;
  // The YARC tiled router (router.model yarc_tiled; yarc_tiled.h): subswitch
  // degree and the row and column buffers per VC, in phits.
  struct Tiles {
    bool on = false;  // the run's model is the tiled router (the memory plan reads this)
    uint32_t degree = 8;
    uint32_t row_units = 16;
    uint32_t column_units = 10;
  } tiles;
  // The Spider router (router.model spider; spider.h): its arbitration cycle,
  // the time a message waits per age step (0: ages never grow), its
  // deadlock and tail time-outs (0: off), and the VC buffer it calls full.
  struct Spider {
    ps_t arbitration_ps = 10000;
    ps_t age_period_ps = 40000;
    ps_t deadlock_timeout_ps = 0;
    ps_t tail_timeout_ps = 0;
    uint32_t buffer_units = 16;
    uint32_t longest_units = 16;  // the longest message (packet.max_units)
  } spider;
  // The 3D mesh's router (router.model mesh3d; mesh3d_router.h): the
  // straight-through fast path's and the turn and queuing logic's times,
  // and its routing lanes (the proposal's three), each carrying one turning
  // packet at a time at the link's rate.
  struct Mesh3d {
    ps_t straight_ps = 800;
    ps_t turn_ps = 2000;
    uint32_t lanes = 3;
  } mesh3d;
};

// What a model's init gets: the fabric's sizes as this worker holds them,
// and the router.* settings whole, so that a model with settings of its own
// adds them to RouterConfig and reads them here, with no engine edit.
struct RouterShape {
  uint32_t routers = 0;    // local routers: output o = local router * max_ports + port
  uint32_t max_ports = 0;
  uint32_t nv = 1;         // VCs per port: input channel c = o * nv + vc
  uint32_t qcap = 1;       // entries per input FIFO (a power of two)
  RouterConfig config;     // the router.* settings (speedups, iSLIP, tiles, ...)
  std::vector<uint32_t> output_queue_units;  // [vc]: each output VC queue's capacity
  uint32_t min_units = 1;  // the shortest packet, in flow units
  ps_t pipeline_ps = 0;    // the routers' pipeline (of the first local router)
};

// Where a routed head waits: its input channel and that channel's local
// router, port and VC (the engine has them from routing it; a model need
// not divide them out again).
struct RoutedHead {
  uint32_t channel, router, port, vc;
};

}  // namespace fabemu
