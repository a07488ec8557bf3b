// run.sample_period_ns (sample_periods.h): the workers' cells into one.
#include "dataplane/stats/sample_periods.h"

namespace fabemu {

void PeriodCell::merge(const PeriodCell& o) {
  generated += o.generated;
  generated_messages += o.generated_messages;
  arrived += o.arrived;
  generated_ps_sum += o.generated_ps_sum;
  arrived_gen_ps_sum += o.arrived_gen_ps_sum;
  sent += o.sent;
  flat_ps_sum += o.flat_ps_sum;
  flat_min_ps = std::min(flat_min_ps, o.flat_min_ps);
  flat_max_ps = std::max(flat_max_ps, o.flat_max_ps);
  messages_arrived += o.messages_arrived;
  latency_ps_sum += o.latency_ps_sum;
  messages += o.messages;
  plat_ps_sum += o.plat_ps_sum;
  nlat_ps_sum += o.nlat_ps_sum;
  hops_sum += o.hops_sum;
  plat_min_ps = std::min(plat_min_ps, o.plat_min_ps);
  plat_max_ps = std::max(plat_max_ps, o.plat_max_ps);
  nlat_min_ps = std::min(nlat_min_ps, o.nlat_min_ps);
  nlat_max_ps = std::max(nlat_max_ps, o.nlat_max_ps);
  last_arrival_ps = std::max(last_arrival_ps, o.last_arrival_ps);
}

void SamplePeriods::merge(const SamplePeriods& o) {
  if (!o.on()) return;
  if (!on()) {
    *this = o;
    return;
  }
  for (size_t i = 0; i < cells_.size() && i < o.cells_.size(); i++) cells_[i].merge(o.cells_[i]);
  for (size_t i = 0; i < delays_.size() && i < o.delays_.size(); i++) {
    delays_[i].messages += o.delays_[i].messages;
    delays_[i].latency_ps_sum += o.delays_[i].latency_ps_sum;
  }
}

}  // namespace fabemu
