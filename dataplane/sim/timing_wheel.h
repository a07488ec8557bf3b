// Calendar queue of events in emulated time, one per worker core.
//
// Events run in (time, insertion order), so a run is deterministic. Three
// places hold them:
//  - the current slot, sorted, in cur_: every event at or before the slot
//    the wheel is draining. A push there is an insertion from the back
//    (slots are small, and the new event is usually the latest);
//  - the wheel: kSlots slots of 2^kSlotShift ps after the current one, each
//    a bucket of events in insertion order, with a bitmap of the slots that
//    hold any, so that empty slots are skipped 64 at a time. A bucket is a
//    chain of chunks of kChunk events, taken from a free list (a push
//    allocates nothing once the wheel has grown), so that a slot's events
//    lie together: a push writes one line and loading a slot reads its
//    events in order, where a list of single events cost a scattered line
//    for each. A slot is sorted by time (stably: its bucket is already in
//    insertion order) when it becomes the current one;
//  - the far heap: events beyond the horizon, moved into the wheel as it
//    turns. They move before any event is pushed directly into their slot,
//    so buckets stay in insertion order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"

namespace fabemu {

class TimingWheel {
 public:
  static constexpr int kSlotShift = 9;         // 512 ps slots
  static constexpr uint64_t kSlots = 1 << 13;  // ~4.2 us horizon
  static constexpr uint32_t kChunk = 8;        // events per chunk (256 bytes, 4 lines)

  TimingWheel() : buckets_(kSlots), used_(kSlots / 64, 0) { reserve_current(64); }
  TimingWheel(TimingWheel&&) noexcept = default;
  TimingWheel& operator=(TimingWheel&&) noexcept = default;

  // Bytes for up to `pending` events: the slot buckets and their bitmap,
  // and a chunk per event at worst (one event in each slot).
  static size_t state_bytes(size_t pending) {
    return kSlots * sizeof(Bucket) + kSlots / 8 +
           pending * (kChunk * sizeof(Event) + sizeof(uint32_t));
  }

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
    if (cur_pos_ < cur_n_) return cur_[cur_pos_].t;
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
    for (size_t i = cur_pos_; i < cur_n_; i++) f(cur_[i]);
    for (const Bucket& b : buckets_) {
      uint32_t left = b.n;
      for (uint32_t c = b.head; left > 0; c = next_[c]) {
        const uint32_t k = std::min(left, kChunk);
        for (uint32_t j = 0; j < k; j++) f(events_[size_t(c) * kChunk + j]);
        left -= k;
      }
    }
    for (const Event& e : far_) f(e);
  }

 private:
  static constexpr uint32_t kNil = ~0u;
  struct Bucket {
    uint32_t head = kNil, tail = kNil;  // chunks, chained by next_
    uint32_t n = 0;                     // events in the bucket
  };

  static bool later(const Event& x, const Event& y) {
    return x.t != y.t ? x.t > y.t : x.seq > y.seq;
  }

  // Into the sorted current slot, after every event not later than it.
  void insert_current(const Event& e) {
    if (cur_n_ == cur_cap_) reserve_current(cur_cap_ * 2);
    size_t pos = cur_n_;
    while (pos > cur_pos_ && cur_[pos - 1].t > e.t) {
      cur_[pos] = cur_[pos - 1];
      pos--;
    }
    cur_[pos] = e;
    cur_n_++;
  }

  // Inlined into push; the wheel's growth stays out of line.
  __attribute__((always_inline)) void append(uint64_t slot, const Event& e) {
    const uint64_t i = slot & (kSlots - 1);
    Bucket& b = buckets_[i];
    const uint32_t k = b.n & (kChunk - 1);
    if (k == 0) {  // the tail chunk is full (or there is none): chain a new one
      uint32_t c = free_;
      if (c != kNil) [[likely]]
        free_ = next_[c];
      else
        c = new_chunk();
      if (b.n == 0)
        b.head = c;
      else
        next_[b.tail] = c;
      b.tail = c;
    }
    events_[size_t(b.tail) * kChunk + k] = e;
    b.n++;
    used_[i >> 6] |= uint64_t{1} << (i & 63);
    in_wheel_++;
  }

  __attribute__((noinline)) uint32_t new_chunk() {
    const uint32_t c = chunks_;
    if (c == chunk_cap_) {  // grow: events and links move, their order stays
      const uint32_t cap = chunk_cap_ ? chunk_cap_ * 2 : 256;
      std::unique_ptr<Event[]> ev(new Event[size_t(cap) * kChunk]);
      std::unique_ptr<uint32_t[]> nx(new uint32_t[cap]);
      if (chunk_cap_) {
        std::memcpy(ev.get(), events_.get(), size_t(chunk_cap_) * kChunk * sizeof(Event));
        std::memcpy(nx.get(), next_.get(), size_t(chunk_cap_) * sizeof(uint32_t));
      }
      events_ = std::move(ev);
      next_ = std::move(nx);
      chunk_cap_ = cap;
    }
    chunks_++;
    next_[c] = kNil;  // (a tail's link is read as it is handed back)
    return c;
  }

  __attribute__((noinline)) void reserve_current(size_t cap) {
    std::unique_ptr<Event[]> c(new Event[cap]);
    if (cur_n_) std::memcpy(c.get(), cur_.get(), cur_n_ * sizeof(Event));
    cur_ = std::move(c);
    cur_cap_ = cap;
  }

  // The first slot after the current one that holds events (wheel or far
  // heap) becomes current: its events, sorted, in cur_.
  void load_next_slot() {
    cur_n_ = 0;
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
    Bucket& b = buckets_[i];
    if (b.n) {
      if (b.n > cur_cap_) reserve_current(std::max<size_t>(b.n, cur_cap_ * 2));
      uint32_t left = b.n, c = b.head;
      Event* out = cur_.get();
      for (;;) {  // copy each chunk out and give it back
        const uint32_t k = std::min(left, kChunk);
        const Event* from = &events_[size_t(c) * kChunk];
        for (uint32_t j = 0; j < k; j++) out[j] = from[j];  // (a call to memcpy costs more)
        out += k;
        left -= k;
        const uint32_t nx = next_[c];
        next_[c] = free_;
        free_ = c;
        if (left == 0) break;
        c = nx;
      }
      cur_n_ = b.n;
      in_wheel_ -= b.n;
      b = Bucket{};
      used_[i >> 6] &= ~(uint64_t{1} << (i & 63));
    }
    // Far events now inside the horizon: into this slot or the wheel.
    while (!far_.empty() && (far_.front().t >> kSlotShift) < slot + kSlots) {
      std::pop_heap(far_.begin(), far_.end(), later);
      const Event e = far_.back();
      far_.pop_back();
      const uint64_t s = e.t >> kSlotShift;
      if (s <= slot) {  // far events come before the slot's own (inserted later)
        if (cur_n_ == cur_cap_) reserve_current(cur_cap_ * 2);
        cur_[cur_n_++] = e;
      } else {
        append(s, e);
      }
    }
    sort_current();
  }

  // Stable by time: equal times keep insertion order. A slot's bucket is in
  // insertion order (far events reach it before any push into it), and far
  // events go straight into cur_ only when every bucket is empty, in heap
  // order: a sort by time alone, ties by position, keeps (time, seq) order.
  void sort_current() {
    const size_t n = cur_n_;
    if (n > 32) {
      sort_large();
      return;
    }
    Event* cur = cur_.get();
    for (size_t k = 1; k < n; k++) {
      if (cur[k - 1].t <= cur[k].t) continue;
      const Event e = cur[k];
      size_t j = k;
      while (j > 0 && cur[j - 1].t > e.t) {
        cur[j] = cur[j - 1];
        j--;
      }
      cur[j] = e;
    }
  }

  // A crowded slot (a cycle of a large fabric: tens of events) is sorted
  // as 32-bit keys, its time within the slot above its position, then
  // gathered, rather than as 32-byte events compared on (time, seq): the
  // Clos-1024 run takes 3.3% fewer instructions. Every event of a freshly
  // loaded slot lies in that slot, so the key's time is its offset in it.
  __attribute__((noinline)) void sort_large() {
    const size_t n = cur_n_;
    if (n >= (size_t{1} << kKeyIndexBits)) [[unlikely]] {  // (never seen: 8 M events)
      std::stable_sort(cur_.get(), cur_.get() + n,
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
    std::memcpy(cur_.get(), sorted_.data(), n * sizeof(Event));
  }
  static constexpr int kKeyIndexBits = 32 - kSlotShift;

  std::vector<Bucket> buckets_;  // [slot & (kSlots - 1)]
  std::vector<uint64_t> used_;   // bit per slot: its bucket is not empty
  std::unique_ptr<Event[]> events_;  // [chunk * kChunk + i]
  std::unique_ptr<uint32_t[]> next_;  // [chunk]: the next in its bucket or the free list
  uint32_t chunks_ = 0, chunk_cap_ = 0;
  uint32_t free_ = kNil;
  std::unique_ptr<Event[]> cur_;  // the current slot, sorted, from cur_pos_ to cur_n_
  size_t cur_pos_ = 0, cur_n_ = 0, cur_cap_ = 0;
  std::vector<Event> far_;       // heap: events beyond the horizon
  std::vector<uint32_t> keys_;   // sort_large's keys and gathered slot (reused)
  std::vector<Event> sorted_;
  uint64_t cur_slot_ = 0;
  size_t in_wheel_ = 0;
  size_t size_ = 0;
  uint32_t seq_ = 0;
};

}  // namespace fabemu
