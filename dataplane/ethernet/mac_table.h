// The fabric's learning bridge table: MAC address -> fabric endpoint.
//
// Each worker core keeps its own copy; what one core learns it tells the
// others through the cross-core rings, so lookups take no locks. Addresses
// are learned from the source of every received frame and age out after
// `aging` TSC cycles unseen; pinned addresses (from the spec) never move or
// age. Open addressing with linear probing over a fixed power-of-two array:
// nothing is allocated after construction.
#pragma once
#include <cstdint>
#include <vector>

namespace fabemu {

class MacTable {
 public:
  enum class Learn : uint8_t {
    refreshed,        // already there for this endpoint
    learned,          // new address
    moved,            // the address was behind another endpoint: the host moved
    pinned_elsewhere, // pinned to another endpoint: not changed
    full,             // no room: frames for it keep being flooded
  };

  MacTable(uint32_t capacity = 4096, uint64_t aging_cycles = ~uint64_t{0});

  // Endpoint behind `mac`, or -1 (unknown or aged out: flood).
  int32_t lookup(uint64_t mac, uint64_t now) const {
    for (uint32_t i = home(mac), n = 0; n <= mask_; i = (i + 1) & mask_, n++) {
      const Entry& e = slots_[i];
      if (e.mac == kEmpty) return -1;
      if (e.mac == mac) return e.pinned || now - e.seen < aging_ ? e.endpoint : -1;
    }
    return -1;
  }
  Learn learn(uint64_t mac, int32_t endpoint, uint64_t now);
  void pin(uint64_t mac, int32_t endpoint);
  uint32_t size() const { return used_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // not a 48-bit address
  struct Entry {
    uint64_t mac = kEmpty;
    uint64_t seen = 0;
    int32_t endpoint = -1;
    bool pinned = false;
  };
  uint32_t home(uint64_t mac) const {
    return static_cast<uint32_t>((mac * 0x9e3779b97f4a7c15ULL) >> 40) & mask_;
  }
  Entry* find_or_claim(uint64_t mac, uint64_t now);

  std::vector<Entry> slots_;
  uint32_t mask_ = 0;
  uint32_t used_ = 0;
  uint64_t aging_;
};

}  // namespace fabemu
