// A worker's outputs' hot counters (OutLink, SenderVc, the go-back-N
// sender's checked bits) into their links' statistics, once, at the end of
// a run.
#pragma once
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

}  // namespace fabemu
