#include "dataplane/engine/engine.h"

#include <atomic>

namespace fabemu {

int next_engine_instance() {
  static std::atomic<int> next{0};
  return next.fetch_add(1);
}

const uint8_t* synthetic_payload() {
  static const auto* bytes = [] {
    static uint8_t b[4096];
    for (size_t i = 0; i < sizeof(b); i++) b[i] = static_cast<uint8_t>(i * 7 + 0x5a);
    return b;
  }();
  return bytes;
}

}  // namespace fabemu
