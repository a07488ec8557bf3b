// Where packets wait when a run stalled (stranded.h).
#include "dataplane/router/stranded.h"

#include <algorithm>

namespace fabemu {

std::string StrandedReport::text(uint64_t all) const {
  using std::to_string;
  const std::string elsewhere =
      all > packets_ ? "; " + to_string(all - packets_) +
                           " more in other buffers (tiles, output queues, sources, retransmit "
                           "buffers) or on links"
                     : "";
  if (packets_ == 0) return "no packet waits in a router input buffer" + elsewhere;
  std::vector<std::pair<Rank, std::string>> found = found_;
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  constexpr size_t kShown = 4;
  std::string out =
      to_string(packets_) + " packets in " + to_string(found.size()) + " router input channels: ";
  for (size_t i = 0; i < std::min(kShown, found.size()); i++)
    out += (i ? "; " : "") + found[i].second;
  if (found.size() > kShown) out += "; and " + to_string(found.size() - kShown) + " more channels";
  return out + elsewhere;
}

}  // namespace fabemu
