// Calendar queue of events in emulated time, one per worker core.
//
// Slots are 2^kSlotShift ps wide; a slot is sorted by (time, sequence) when
// the wheel reaches it, so events at equal times run in insertion order and a
// run is deterministic. Events for the slot being drained go to a small heap;
// events beyond the wheel's horizon wait in an overflow heap. Storage grows
// only while the fabric fills up, then is reused.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"

namespace fabemu {

class TimingWheel {
 public:
  static constexpr int kSlotShift = 10;       // ~1 ns slots
  static constexpr uint64_t kSlots = 1 << 12; // ~4.2 us horizon

  TimingWheel() : slots_(kSlots) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push(Event e) {
    e.seq = seq_++;
    size_++;
    const uint64_t slot = e.t >> kSlotShift;
    if (slot <= cur_slot_ && draining_) {
      near_.push_back(e);
      std::push_heap(near_.begin(), near_.end(), later);
    } else if (slot < base_slot_ + kSlots && slot >= base_slot_) {
      slots_[slot & (kSlots - 1)].push_back(e);
      in_wheel_++;
    } else {
      far_.push_back(e);
      std::push_heap(far_.begin(), far_.end(), later);
    }
  }

  // Time of the earliest event (kNever when empty). Prepares the slot holding it.
  ps_t next_time() {
    if (size_ == 0) return kNever;
    for (;;) {
      if (draining_) {
        ps_t t = kNever;
        if (cur_pos_ < cur_.size()) t = cur_[cur_pos_].t;
        if (!near_.empty() && near_.front().t < t) t = near_.front().t;
        if (t != kNever) return t;
        draining_ = false;
        cur_.clear();
        cur_pos_ = 0;
        cur_slot_++;
        base_slot_ = cur_slot_;
      }
      advance_to_next_slot();
    }
  }

  // Visits every pending event, in no particular order (end-of-run accounting).
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : slots_)
      for (const Event& e : s) f(e);
    for (size_t i = cur_pos_; i < cur_.size(); i++) f(cur_[i]);
    for (const Event& e : near_) f(e);
    for (const Event& e : far_) f(e);
  }

  // Removes the earliest event; call only after next_time() != kNever.
  Event pop() {
    size_--;
    const bool from_near =
        !near_.empty() && (cur_pos_ >= cur_.size() || later(cur_[cur_pos_], near_.front()));
    if (from_near) {
      std::pop_heap(near_.begin(), near_.end(), later);
      Event e = near_.back();
      near_.pop_back();
      return e;
    }
    return cur_[cur_pos_++];
  }

 private:
  static bool later(const Event& x, const Event& y) {
    return x.t != y.t ? x.t > y.t : x.seq > y.seq;
  }

  void advance_to_next_slot() {
    // Skip empty slots; jump straight to the overflow heap when the wheel is empty.
    if (in_wheel_ == 0) {
      cur_slot_ = far_.front().t >> kSlotShift;
    } else {
      while (slots_[cur_slot_ & (kSlots - 1)].empty()) cur_slot_++;
    }
    base_slot_ = cur_slot_;
    std::vector<Event>& s = slots_[cur_slot_ & (kSlots - 1)];
    cur_.swap(s);
    in_wheel_ -= cur_.size();
    // Overflow events that now fall inside the horizon move into the wheel.
    while (!far_.empty() && (far_.front().t >> kSlotShift) < cur_slot_ + kSlots) {
      std::pop_heap(far_.begin(), far_.end(), later);
      Event e = far_.back();
      far_.pop_back();
      const uint64_t slot = e.t >> kSlotShift;
      if (slot == cur_slot_) {
        cur_.push_back(e);
      } else {
        slots_[slot & (kSlots - 1)].push_back(e);
        in_wheel_++;
      }
    }
    if (cur_.size() > 1)
      std::sort(cur_.begin(), cur_.end(),
                [](const Event& x, const Event& y) { return later(y, x); });
    cur_pos_ = 0;
    draining_ = true;
  }

  std::vector<std::vector<Event>> slots_;
  std::vector<Event> cur_;   // the slot being drained, sorted
  size_t cur_pos_ = 0;
  std::vector<Event> near_;  // heap: events pushed into the slot being drained
  std::vector<Event> far_;   // heap: events beyond the horizon
  uint64_t cur_slot_ = 0;
  uint64_t base_slot_ = 0;   // slots [base, base + kSlots) live in the wheel
  size_t in_wheel_ = 0;
  size_t size_ = 0;
  uint32_t seq_ = 0;
  bool draining_ = false;
};

}  // namespace fabemu
