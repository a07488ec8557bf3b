// Where the workers find the routing tables, so that control/ can replace
// them while a run goes on (after a fault, the way the papers' system
// software reprograms the routers) without stopping or copying into the
// workers.
//
// Read-copy-update: control/ builds a complete new set of tables and
// publishes a pointer to it; a worker picks the pointer up at a window edge
// (never in the middle of routing a packet) and uses that set until its next
// window. Superseded sets are kept until the run ends, so a worker that has
// not yet reached its next edge never reads freed memory; table changes are
// rare (faults), so keeping them costs little.
//
// Two ways to publish:
//  - schedule(tables, at): in virtual time, before the run, for a change at
//    an emulated instant (a fault in the spec). Every worker adopts it at the
//    window edge at `at` (windows end there), so runs stay deterministic.
//  - publish(tables): from any thread while running (the fault control
//    socket); each worker adopts it at its next window edge, or, given a
//    generation to stop at (refresh's `upto`), at the edge where every
//    worker's reading of generation() says so: that is how virtual-time
//    workers adopt a set at one and the same edge (dataplane/engine/).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

template <class T>
class TableSlot {
 public:
  explicit TableSlot(std::shared_ptr<const T> initial) { publish(std::move(initial)); }

  // Any thread, any time: the tables from the next window edge on.
  void publish(std::shared_ptr<const T> t) {
    std::lock_guard<std::mutex> g(mu_);
    cur_.store(t.get(), std::memory_order_release);
    published_.push_back(t.get());
    generation_.fetch_add(1, std::memory_order_release);
    keep_.push_back(std::move(t));
  }
  // Sets published so far (the initial one is generation 1).
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // Before the run only: the tables from emulated time `at` on. False (and
  // nothing scheduled) once freeze() has been called: workers read the
  // schedule without a lock, so it cannot change under them.
  bool schedule(std::shared_ptr<const T> t, ps_t at) {
    std::lock_guard<std::mutex> g(mu_);
    if (frozen_) return false;
    scheduled_.push_back({at, t.get()});
    std::stable_sort(scheduled_.begin(), scheduled_.end(),
                     [](const Scheduled& a, const Scheduled& b) { return a.at < b.at; });
    keep_.push_back(std::move(t));
    return true;
  }
  // The run starts: the schedule is fixed from now on.
  void freeze() {
    std::lock_guard<std::mutex> g(mu_);
    frozen_ = true;
  }

  // What a worker holds between window edges.
  struct Reader {
    const T* tables = nullptr;
    uint64_t generation = 0;
    size_t next_scheduled = 0;
  };
  void attach(Reader& r) const {
    r.tables = cur_.load(std::memory_order_acquire);
    r.generation = generation_.load(std::memory_order_acquire);
    r.next_scheduled = 0;
  }
  // At a window edge at emulated time `now`: adopts the newest published
  // set (no newer than generation `upto`), then any scheduled set whose time
  // has come. True when the tables changed.
  bool refresh(Reader& r, ps_t now, uint64_t upto = UINT64_MAX) const {
    bool changed = false;
    const uint64_t g = std::min(generation_.load(std::memory_order_acquire), upto);
    if (g > r.generation) {
      r.generation = g;
      std::lock_guard<std::mutex> lock(mu_);  // rare: a change while running
      r.tables = published_[g - 1];
      changed = true;
    }
    while (r.next_scheduled < scheduled_.size() && scheduled_[r.next_scheduled].at <= now) {
      r.tables = scheduled_[r.next_scheduled++].tables;
      changed = true;
    }
    return changed;
  }
  // The next scheduled change after the reader's position (kNever: none),
  // where a window must end.
  ps_t next_change(const Reader& r) const {
    return r.next_scheduled < scheduled_.size() ? scheduled_[r.next_scheduled].at : kNever;
  }
  size_t sets() const {
    std::lock_guard<std::mutex> g(mu_);
    return keep_.size();
  }

 private:
  struct Scheduled {
    ps_t at;
    const T* tables;
  };
  std::atomic<const T*> cur_{nullptr};
  std::atomic<uint64_t> generation_{0};
  std::vector<Scheduled> scheduled_;  // written before the run, read by workers
  std::vector<const T*> published_;   // [generation - 1], under mu_
  mutable std::mutex mu_;
  bool frozen_ = false;
  std::vector<std::shared_ptr<const T>> keep_;  // every set ever published
};

}  // namespace fabemu
