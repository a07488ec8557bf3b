// Calendar queue of events in emulated time, one per worker core.
//
// Events run in (time, insertion order), so a run is deterministic. Three
// places hold them:
//  - the current slot, sorted, in cur_: every event at or before the slot
//    the wheel is draining. A push there is an insertion from the back
//    (slots are small, and the new event is usually the latest);
//  - the wheel: kSlots slots of 2^kSlotShift ps after the current one, each
//    a list of events in insertion order (nodes from a free list, so a push
//    allocates nothing once the wheel has grown), with a bitmap of the slots
//    that hold any, so that empty slots are skipped 64 at a time. A slot is
//    sorted by time (stably: its list is already in insertion order) when
//    it becomes the current one;
//  - the far heap: events beyond the horizon, moved into the wheel as it
//    turns. They move before any event is pushed directly into their slot,
//    so lists stay in insertion order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"

namespace fabemu {

class TimingWheel {
 public:
  static constexpr int kSlotShift = 9;         // 512 ps slots
  static constexpr uint64_t kSlots = 1 << 13;  // ~4.2 us horizon

  TimingWheel() : lists_(kSlots), used_(kSlots / 64, 0) { cur_.reserve(64); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push(Event e) {
    e.seq = seq_++;
    size_++;
    const uint64_t slot = e.t >> kSlotShift;
    if (slot <= cur_slot_) {
      insert_current(e);
    } else if (slot < cur_slot_ + kSlots) {
      append(slot, e);
    } else {
      far_.push_back(e);
      std::push_heap(far_.begin(), far_.end(), later);
    }
  }

  // Time of the earliest event (kNever when empty). Loads the slot holding it.
  ps_t next_time() {
    if (cur_pos_ < cur_.size()) return cur_[cur_pos_].t;
    if (size_ == 0) return kNever;
    load_next_slot();
    return cur_[cur_pos_].t;
  }

  // Removes the earliest event; call only after next_time() != kNever.
  Event pop() {
    size_--;
    return cur_[cur_pos_++];
  }

  // Visits every pending event, in no particular order (end-of-run accounting).
  template <class F>
  void for_each(F&& f) const {
    for (size_t i = cur_pos_; i < cur_.size(); i++) f(cur_[i]);
    for (const List& l : lists_)
      for (uint32_t n = l.head; n != kNil; n = nodes_[n].next) f(nodes_[n].e);
    for (const Event& e : far_) f(e);
  }

 private:
  static constexpr uint32_t kNil = ~0u;
  struct Node {
    Event e;
    uint32_t next;
  };
  struct List {
    uint32_t head = kNil, tail = kNil;
  };

  static bool later(const Event& x, const Event& y) {
    return x.t != y.t ? x.t > y.t : x.seq > y.seq;
  }

  // Into the sorted current slot, after every event not later than it.
  void insert_current(const Event& e) {
    size_t pos = cur_.size();
    while (pos > cur_pos_ && cur_[pos - 1].t > e.t) pos--;
    if (pos == cur_.size())
      cur_.push_back(e);
    else
      cur_.insert(cur_.begin() + static_cast<std::ptrdiff_t>(pos), e);
  }

  // Inlined into push (a call cost a third of its instructions); the
  // wheel's growth stays out of line.
  __attribute__((always_inline)) void append(uint64_t slot, const Event& e) {
    uint32_t n = free_;
    if (n != kNil) [[likely]]
      free_ = nodes_[n].next;
    else
      n = new_node();
    nodes_[n].e = e;
    nodes_[n].next = kNil;
    const uint64_t i = slot & (kSlots - 1);
    List& l = lists_[i];
    if (l.tail == kNil)
      l.head = n;
    else
      nodes_[l.tail].next = n;
    l.tail = n;
    used_[i >> 6] |= uint64_t{1} << (i & 63);
    in_wheel_++;
  }

  __attribute__((noinline)) uint32_t new_node() {
    nodes_.push_back(Node{});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  // The first slot after the current one that holds events (wheel or far
  // heap) becomes current: its events, sorted, in cur_.
  void load_next_slot() {
    cur_.clear();
    cur_pos_ = 0;
    uint64_t slot;
    if (in_wheel_ == 0) {
      slot = far_.front().t >> kSlotShift;
    } else {
      slot = cur_slot_ + 1;
      for (;;) {  // next set bit at or after slot, wrapping around the wheel
        const uint64_t i = slot & (kSlots - 1);
        const uint64_t bits = used_[i >> 6] >> (i & 63);
        if (bits) {
          slot += static_cast<uint64_t>(__builtin_ctzll(bits));
          break;
        }
        slot += 64 - (i & 63);
      }
    }
    cur_slot_ = slot;
    const uint64_t i = slot & (kSlots - 1);
    List& l = lists_[i];
    for (uint32_t n = l.head; n != kNil;) {
      cur_.push_back(nodes_[n].e);
      const uint32_t next = nodes_[n].next;
      nodes_[n].next = free_;
      free_ = n;
      n = next;
    }
    in_wheel_ -= cur_.size();
    l = List{};
    used_[i >> 6] &= ~(uint64_t{1} << (i & 63));
    // Far events now inside the horizon: into this slot or the wheel.
    while (!far_.empty() && (far_.front().t >> kSlotShift) < slot + kSlots) {
      std::pop_heap(far_.begin(), far_.end(), later);
      const Event e = far_.back();
      far_.pop_back();
      const uint64_t s = e.t >> kSlotShift;
      if (s <= slot)
        cur_.push_back(e);  // far events come before the slot's own (inserted later)
      else
        append(s, e);
    }
    sort_current();
  }

  // Stable by time: equal times keep insertion order. A slot's list is in
  // insertion order (far events reach it before any push into it), and far
  // events go straight into cur_ only when every list is empty, in heap
  // order: a sort by time alone, ties by position, keeps (time, seq) order.
  void sort_current() {
    const size_t n = cur_.size();
    if (n > 32) {
      sort_large();
      return;
    }
    for (size_t k = 1; k < n; k++) {
      const Event e = cur_[k];
      size_t j = k;
      while (j > 0 && cur_[j - 1].t > e.t) {
        cur_[j] = cur_[j - 1];
        j--;
      }
      cur_[j] = e;
    }
  }

  // A crowded slot (a cycle of a large fabric: tens of events) is sorted
  // as 32-bit keys, its time within the slot above its position, then
  // gathered, rather than as 32-byte events compared on (time, seq): the
  // Clos-1024 run takes 3.3% fewer instructions. Every event of a freshly
  // loaded slot lies in that slot, so the key's time is its offset in it.
  __attribute__((noinline)) void sort_large() {
    const size_t n = cur_.size();
    if (n >= (size_t{1} << kKeyIndexBits)) [[unlikely]] {  // (never seen: 8 M events)
      std::stable_sort(cur_.begin(), cur_.end(),
                       [](const Event& x, const Event& y) { return x.t < y.t; });
      return;
    }
    keys_.resize(n);
    constexpr ps_t kInSlot = (ps_t{1} << kSlotShift) - 1;
    for (size_t i = 0; i < n; i++)
      keys_[i] = static_cast<uint32_t>((cur_[i].t & kInSlot) << kKeyIndexBits) |
                 static_cast<uint32_t>(i);
    std::sort(keys_.begin(), keys_.end());
    sorted_.resize(n);
    constexpr uint32_t kIndexMask = (uint32_t{1} << kKeyIndexBits) - 1;
    for (size_t i = 0; i < n; i++) sorted_[i] = cur_[keys_[i] & kIndexMask];
    cur_.swap(sorted_);
  }
  static constexpr int kKeyIndexBits = 32 - kSlotShift;

  std::vector<List> lists_;     // [slot & (kSlots - 1)]
  std::vector<uint64_t> used_;  // bit per slot: its list is not empty
  std::vector<Node> nodes_;
  uint32_t free_ = kNil;
  std::vector<Event> cur_;      // the current slot, sorted, from cur_pos_
  size_t cur_pos_ = 0;
  std::vector<Event> far_;      // heap: events beyond the horizon
  std::vector<uint32_t> keys_;  // sort_large's keys and gathered slot (reused)
  std::vector<Event> sorted_;
  uint64_t cur_slot_ = 0;
  size_t in_wheel_ = 0;
  size_t size_ = 0;
  uint32_t seq_ = 0;
};

}  // namespace fabemu
