// BookSim2's measurement rule (trafficmanager.cpp, _SingleSim and Run) read
// from a fabemu run's sample periods (run.sample_period_ns, the report's
// "sample_periods"): which periods BookSim would have measured, whether it
// would have called the run unstable, and its end-of-run figures over them.
//
// BookSim warms up for warmup_periods sample periods (0: until two periods'
// figures differ by less than warmup_thres), then runs periods
// until three in a row change the cumulative accepted rate (and, in a
// latency run, the cumulative average packet latency) by less than
// acc_stopping_thres (stopping_thres), or max_samples periods have passed.
// Its figures are those of the packets generated from the end of warm-up to
// that period's end, however late they arrive. A latency run is unstable
// when, at a period's end or every 1,000 cycles of its drain, the average
// latency of the packets retired since the last reset and the ages of those
// still in flight pass latency_thres.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace fabemu {

struct BooksimMeasure {
  bool latency_run = true;  // sim_type latency (throughput: the accepted rate alone converges)
  int warmup_periods = 3, max_samples = 10;  // warmup_periods 0: until warmup_thres holds
  double sample_period = 1000;                 // cycles
  double latency_thres = 500, warmup_thres = 0.05, acc_warmup_thres = 0.05;
  double stopping_thres = 0.05, acc_stopping_thres = 0.05;
};

// BookSim's end-of-run figures, in cycles and per node per cycle.
struct BooksimFigures {
  bool unstable = false;
  std::string unstable_line;  // what BookSim prints when it stops (unstable)
  int warmup_periods = 0, end_period = 0;  // measured: generated in [warmup, end) periods
  double time_taken = 0;                   // cycles, its "Time taken is"
  double plat_avg = 0, plat_min = 0, plat_max = 0;
  double nlat_avg = 0, nlat_min = 0, nlat_max = 0;
  double flat_avg = 0, flat_min = 0, flat_max = 0;
  double injected_flits = 0, accepted_flits = 0, accepted_packets = 0;  // per node per cycle
  double hops = 0;  // links crossed, per packet
  uint64_t packets = 0;  // measured packets
};

// Throws std::runtime_error when the report has no sample periods.
BooksimFigures booksim_figures(const nlohmann::json& report, const BooksimMeasure& m,
                               double cycle_ns);

}  // namespace fabemu
