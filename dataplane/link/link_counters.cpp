// A worker's outputs' counters into its link statistics (link_counters.h).
#include "dataplane/link/link_counters.h"

namespace fabemu {

void fold_output_counters(std::vector<OutLink>& out, const std::vector<SenderVc>& vcs, uint32_t nv,
                          LinkRetry* retry, const std::vector<ps_t>& down_since, RunStats& st) {
  for (size_t o = 0; o < out.size(); o++) {
    OutLink& ol = out[o];
    if (ol.unit_ps == 0) continue;  // not connected
    LinkStats& ls = st.links[ol.stats];
    ls.busy_ps += ol.busy_ps;
    ls.credit_stalls += ol.credit_stalls;
    for (uint32_t v = 0; v < nv; v++) {
      const SenderVc& sv = vcs[o * nv + v];
      ls.vc_packets[v] += sv.packets;
      ls.vc_units[v] += sv.credits.taken();
      ls.packets += sv.packets;
      ls.units += sv.credits.taken();
    }
    ol.busy_ps = ol.credit_stalls = 0;  // (called once, at the end of the run)
    if (retry && retry->has_sender(o)) {
      ls.retry.checked_bits += retry->sender(o).checked_bits;
      retry->sender(o).checked_bits = 0;
    }
    if (ol.dead) {  // merge_workers adds the time to the end of the run
      ls.down_at_end = true;
      ls.down_since = down_since[o];
    }
  }
}

}  // namespace fabemu
