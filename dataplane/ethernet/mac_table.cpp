#include "dataplane/ethernet/mac_table.h"

namespace fabemu {

MacTable::MacTable(uint32_t capacity, uint64_t aging_cycles) : aging_(aging_cycles) {
  uint32_t n = 16;
  while (n < capacity) n <<= 1;
  slots_.assign(n, Entry{});
  mask_ = n - 1;
}

// The slot holding `mac`, else a free or aged-out slot on its probe chain
// (entries are never deleted, so chains stay intact), else nullptr.
MacTable::Entry* MacTable::find_or_claim(uint64_t mac, uint64_t now) {
  Entry* reuse = nullptr;
  for (uint32_t i = home(mac), n = 0; n <= mask_; i = (i + 1) & mask_, n++) {
    Entry& e = slots_[i];
    if (e.mac == mac) return &e;
    if (e.mac == kEmpty) {
      if (reuse) return reuse;
      // Keep a quarter free so probe chains stay short.
      if ((used_ + 1) * 4 > (mask_ + 1) * 3) return nullptr;
      used_++;
      return &e;
    }
    if (!reuse && !e.pinned && now - e.seen >= aging_) reuse = &e;
  }
  return reuse;
}

MacTable::Learn MacTable::learn(uint64_t mac, int32_t endpoint, uint64_t now) {
  Entry* e = find_or_claim(mac, now);
  if (!e) return Learn::full;
  if (e->mac == mac) {
    if (e->pinned) return e->endpoint == endpoint ? Learn::refreshed : Learn::pinned_elsewhere;
    const bool live = now - e->seen < aging_;
    const int32_t was = e->endpoint;
    e->endpoint = endpoint;
    e->seen = now;
    if (!live) return Learn::learned;
    return was == endpoint ? Learn::refreshed : Learn::moved;
  }
  e->mac = mac;
  e->endpoint = endpoint;
  e->seen = now;
  e->pinned = false;
  return Learn::learned;
}

void MacTable::pin(uint64_t mac, int32_t endpoint) {
  Entry* e = find_or_claim(mac, 0);
  if (!e) return;
  e->mac = mac;
  e->endpoint = endpoint;
  e->pinned = true;
}

}  // namespace fabemu
