#include "dataplane/engine/engine.h"

#include <atomic>

namespace fabemu {

int next_engine_instance() {
  static std::atomic<int> next{0};
  return next.fetch_add(1);
}

}  // namespace fabemu
