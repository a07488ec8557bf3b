#include "control/run/leftovers.h"

#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <iterator>

namespace fabemu {
namespace {

struct Slot {
  std::atomic<bool> used{false};  // claimed by leave_behind
  std::atomic<bool> live{false};  // path is complete and to be removed
  char path[PATH_MAX];
};
Slot g_slots[8];  // a socket and a report or two at once

}  // namespace

int leave_behind(const std::string& path) {
  if (path.empty() || path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < int(std::size(g_slots)); i++) {
    Slot& s = g_slots[i];
    if (s.used.exchange(true)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.live.store(true);
    return i;
  }
  return -1;
}

void forget_leftover(int handle) {
  if (handle < 0) return;
  g_slots[handle].live.store(false);
  g_slots[handle].used.store(false);
}

void remove_leftovers_now() noexcept {
  for (Slot& s : g_slots)
    if (s.live.load()) ::unlink(s.path);
}

}  // namespace fabemu
