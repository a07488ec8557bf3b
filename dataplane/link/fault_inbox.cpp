// FaultInbox (fault_inbox.h).
#include "dataplane/link/fault_inbox.h"

#include <algorithm>

namespace fabemu {

void FaultInbox::post(const std::vector<FabricFault>& changes, size_t* first) {
  std::lock_guard<std::mutex> g(mu_);
  if (first) *first = faults_.size();
  faults_.insert(faults_.end(), changes.begin(), changes.end());
  applied_at_.resize(faults_.size(), kNever);
  n_.store(static_cast<uint32_t>(faults_.size()), std::memory_order_release);
}

std::vector<FabricFault> FaultInbox::take(uint32_t from, uint32_t to, bool record, ps_t now) {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<FabricFault> fresh(faults_.begin() + from, faults_.begin() + to);
  if (record) std::fill(applied_at_.begin() + from, applied_at_.begin() + to, now);
  return fresh;
}

std::vector<ps_t> FaultInbox::applied_at() const {
  std::lock_guard<std::mutex> g(mu_);
  return applied_at_;
}

}  // namespace fabemu
