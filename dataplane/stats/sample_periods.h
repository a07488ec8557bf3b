// run.sample_period_ns: a run's figures per sample period, as BookSim2's
// traffic manager samples them (trafficmanager.cpp, _SingleSim): what its
// convergence rule and its in-flight latency check read, kept so that a
// fabemu run can be judged by them afterwards
// (control/booksim/booksim_convergence.h). A packet is a BookSim flit, a
// message a BookSim packet.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

// One sample period's cell.
struct PeriodCell {
  // Packets generated in the period (queued at their source), and the sum
  // of their generation times; packets that arrived in it, and the sum of
  // their generation times: the packets still in flight at a period's end
  // and their ages follow (BookSim's _total_in_flight_flits).
  uint64_t generated = 0, arrived = 0;
  double generated_ps_sum = 0, arrived_gen_ps_sum = 0;
  uint64_t generated_messages = 0;
  uint64_t sent = 0;  // packets whose head left its source in the period
  // Packets arrived in the period: injection to arrival (BookSim's flit
  // latency).
  double flat_ps_sum = 0;
  ps_t flat_min_ps = kNever, flat_max_ps = 0;
  // Messages whose last packet arrived in the period, generation to
  // arrival summed.
  uint64_t messages_arrived = 0;
  double latency_ps_sum = 0;
  // Messages generated in the period, once arrived: generation to arrival,
  // first injection to arrival, hops, and the last arrival among them.
  uint64_t messages = 0;
  double plat_ps_sum = 0, nlat_ps_sum = 0, hops_sum = 0;
  ps_t plat_min_ps = kNever, plat_max_ps = 0, nlat_min_ps = kNever, nlat_max_ps = 0;
  ps_t last_arrival_ps = 0;
  void merge(const PeriodCell& o);
};

// Messages by generation period and how many periods later they arrived
// (the last bucket: that many or more): the latency of any set of
// generation periods seen at any period's end.
struct PeriodDelay {
  uint64_t messages = 0;
  double latency_ps_sum = 0;
};

class SamplePeriods {
 public:
  static constexpr uint32_t kDelays = 16;
  // Periods up to the end of generation the spec may ask for (cells of
  // about 450 bytes per worker each).
  static constexpr uint32_t kMaxPeriods = 4096;
  // Periods of period_ps from time 0 up to end_ps, plus kAfter periods of
  // draining; anything later counts in the last cell.
  static constexpr uint32_t kAfter = 64;
  void init(ps_t period_ps, ps_t end_ps) {
    period_ps_ = period_ps;
    if (!period_ps) return;
    const size_t n = size_t((end_ps + period_ps - 1) / period_ps) + kAfter + 1;
    cells_.assign(n, PeriodCell{});
    delays_.assign(n * kDelays, PeriodDelay{});
  }
  bool on() const { return period_ps_ != 0; }
  ps_t period_ps() const { return period_ps_; }
  const std::vector<PeriodCell>& cells() const { return cells_; }
  const std::vector<PeriodDelay>& delays() const { return delays_; }

  void generated(ps_t gen_ps, uint32_t packets) {  // a message of `packets`
    PeriodCell& c = cells_[index(gen_ps)];
    c.generated_messages++;
    c.generated += packets;
    c.generated_ps_sum += double(gen_ps) * packets;
  }
  void sent(ps_t now) { cells_[index(now)].sent++; }
  void packet_arrived(ps_t t, ps_t gen_ps, ps_t inj_ps) {
    PeriodCell& c = cells_[index(t)];
    c.arrived++;
    c.arrived_gen_ps_sum += double(gen_ps);
    const ps_t flat = t - inj_ps;
    c.flat_ps_sum += double(flat);
    c.flat_min_ps = std::min(c.flat_min_ps, flat);
    c.flat_max_ps = std::max(c.flat_max_ps, flat);
  }
  void message_arrived(ps_t t, ps_t gen_ps, ps_t first_inj_ps, uint32_t hops) {
    const size_t a = index(t), g = index(gen_ps);
    const ps_t plat = t - gen_ps, nlat = t - first_inj_ps;
    PeriodCell& ca = cells_[a];
    ca.messages_arrived++;
    ca.latency_ps_sum += double(plat);
    PeriodCell& cg = cells_[g];
    cg.messages++;
    cg.plat_ps_sum += double(plat);
    cg.nlat_ps_sum += double(nlat);
    cg.hops_sum += hops;
    cg.plat_min_ps = std::min(cg.plat_min_ps, plat);
    cg.plat_max_ps = std::max(cg.plat_max_ps, plat);
    cg.nlat_min_ps = std::min(cg.nlat_min_ps, nlat);
    cg.nlat_max_ps = std::max(cg.nlat_max_ps, nlat);
    cg.last_arrival_ps = std::max(cg.last_arrival_ps, t);
    PeriodDelay& d = delays_[g * kDelays + std::min<size_t>(a - g, kDelays - 1)];
    d.messages++;
    d.latency_ps_sum += double(plat);
  }
  void merge(const SamplePeriods& o);

 private:
  size_t index(ps_t t) const { return std::min<size_t>(size_t(t / period_ps_), cells_.size() - 1); }
  ps_t period_ps_ = 0;
  std::vector<PeriodCell> cells_;
  std::vector<PeriodDelay> delays_;  // [generation period * kDelays + periods later]
};

}  // namespace fabemu
