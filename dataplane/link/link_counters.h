// A worker's outputs' hot counters (OutLink, SenderVc, the go-back-N
// sender's checked bits) and its inputs' peak occupancy into their links'
// statistics, once, at the end of a run.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/link/link.h"
#include "dataplane/link/link_retry.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// vc_units: every packet of a VC on a link has its length counted there
// once, so units per VC come from the sent totals. retry: nullptr without
// link-level retry. down_since[o]: when output o's link went down (a link
// still down is ended at the run's end by merge_workers, stats/run_merge.h).
void fold_output_counters(std::vector<OutLink>& out, const std::vector<SenderVc>& vcs, uint32_t nv,
                          LinkRetry* retry, const std::vector<ps_t>& down_since, RunStats& st);

// The inputs' peak occupancy per VC (the router model's, by input channel
// c = input x nv + vc) into the statistics of the links they end.
template <class Router>
void fold_input_peaks(const Router& rt, const std::vector<InLink>& in, uint32_t nv, RunStats& st) {
  for (size_t c = 0; c < rt.channels(); c++) {
    const InLink& link = in[c / nv];
    if (link.up_router < 0 && link.up_endpoint < 0) continue;
    uint32_t& peak = st.links[link.stats].vc_peak_occupancy[c % nv];
    peak = std::max(peak, rt.peak(static_cast<uint32_t>(c)));
  }
}

}  // namespace fabemu
