// The YARC's array of tiles in numbers (Scott et al., ISCA 2006, section 3
// and Figure 3), generalised to a subswitch of degree p as section 7.6
// evaluates it: a radix-k router is (k/p)^2 subswitches of p x p, each
// taking the p inputs of its row (their row buses) and driving one column
// channel to each of the p outputs of its column.
//
// Numbering (YARC: k = 64, p = 8, tile (row, column) holds port
// 8 * row + column): input i is in row group i / p, its place on the row's
// subswitches i % p; output o is in column group o % (k/p), its exit row
// within the column o / (k/p). Each input has one row buffer per column
// group, each output one column buffer per row group. A radix-32 virtual
// router on ports 0..31 (a rank-2 router) then uses tile rows 0-3 alone.
//
// The pipeline: 25 stages at 800 MHz, 31.25 ns from input to output at
// zero load. The paper gives the total and the blocks (input queue,
// subswitch, column buffers, each with input and output registers, plus
// stages for the wire delay of the row buses and column channels) but not
// how many stages each takes; the split below is ours.
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

namespace fabemu {

struct TileStages {
  static constexpr uint32_t kInput = 9;      // input queue: write, route, read, registers
  static constexpr uint32_t kRowBus = 4;     // row bus wire to the row buffer
  static constexpr uint32_t kSubswitch = 5;  // row buffer, 8-to-1 arbitration, switch
  static constexpr uint32_t kColumn = 4;     // column channel wire to the column buffer
  static constexpr uint32_t kOutput = 3;     // column buffer, output arbitration, to the link
  static constexpr uint32_t kTotal = kInput + kRowBus + kSubswitch + kColumn + kOutput;
};
static_assert(TileStages::kTotal == 25, "YARC's pipeline has 25 stages");

struct TileGeometry {
  uint32_t ports = 64;  // k (every router of a run is laid out on the largest radix)
  uint32_t degree = 8;  // p: a subswitch is p x p
  uint32_t groups = 8;  // k / p: row groups, column groups
  uint32_t nv = 2;
  uint32_t row_units = 16;     // each row buffer VC, phits
  uint32_t column_units = 10;  // each column buffer VC, phits
  // One core cycle: a phit crosses a row bus or a column channel per cycle.
  ps_t cycle_ps = 1250;
  // Stage latencies; they add up to the router's pipeline latency exactly
  // (the input stage takes what the cycles leave over).
  ps_t input_ps = 0, row_bus_ps = 0, subswitch_ps = 0, column_ps = 0, output_ps = 0;

  // Radix k, degree p (dividing k), the pipeline latency of the router.
  static TileGeometry make(uint32_t k, uint32_t p, uint32_t nv, uint32_t row_units,
                           uint32_t column_units, ps_t pipeline_ps) {
    TileGeometry g;
    g.ports = k;
    g.degree = p;
    g.groups = k / p;
    g.nv = nv;
    g.row_units = row_units;
    g.column_units = column_units;
    g.cycle_ps = pipeline_ps / TileStages::kTotal;
    g.row_bus_ps = TileStages::kRowBus * g.cycle_ps;
    g.subswitch_ps = TileStages::kSubswitch * g.cycle_ps;
    g.column_ps = TileStages::kColumn * g.cycle_ps;
    g.output_ps = TileStages::kOutput * g.cycle_ps;
    g.input_ps = pipeline_ps - g.row_bus_ps - g.subswitch_ps - g.column_ps - g.output_ps;
    return g;
  }

  uint32_t row_group(uint32_t in_port) const { return in_port / degree; }
  uint32_t row_slot(uint32_t in_port) const { return in_port % degree; }
  uint32_t column_group(uint32_t out_port) const { return out_port % groups; }
  // The first input port of row group g.
  uint32_t first_input(uint32_t g) const { return g * degree; }
};

}  // namespace fabemu
