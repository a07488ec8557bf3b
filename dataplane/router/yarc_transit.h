// A packet inside a YARC between its input buffer and its output: what the
// row buffer, the subswitch and the column buffer need of it, so that they
// never touch the packet buffer. Records come from one pool per worker that
// grows to the most packets ever inside its routers at once; a row or
// column buffer queues record indices in a small ring of its own.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <vector>

#include "dataplane/sim/time.h"

namespace fabemu {

struct Transit {
  rte_mbuf* m;
  ps_t arrive;     // its head reached the input buffer
  ps_t out_ready;  // the earliest output grant the router's pipeline allows
  ps_t s_rb;       // it started across the row bus
  ps_t s_cc;       // it won the subswitch (onto the column channel)
  // Its head is through to the next arbitration: the subswitch (while in a
  // row buffer), the output (while in a column buffer).
  ps_t ready;
  uint32_t ib;      // input channel (input buffer) it came from
  uint32_t rb;      // its row buffer
  uint32_t cb;      // its column buffer (once switched)
  uint32_t d1, d2;  // ps between its phits over the row bus, the column channel
  // Adaptive (a = 1): the exit rows its column allows, one bit per row, until
  // the subswitch chooses one (then 0; 0 from the start when deterministic).
  uint32_t rows;
  uint16_t units;
  uint16_t ib_owed;  // phits still in the input buffer (a long packet's tail)
  uint16_t rb_owed;  // row buffer credits not yet given back
  uint16_t cb_owed;  // column buffer credits not yet given back
  uint8_t out_port;
  uint8_t out_vc;
  uint8_t stalled;  // counted as a credit stall at this hop already
  // A damaged packet that left its input buffer before its CRC failed
  // (link-level retry): its input buffer credits are not returned.
  uint8_t ib_withheld;
};

class TransitPool {
 public:
  void clear() {
    pool_.clear();
    free_.clear();
  }
  void reserve(size_t n) {
    pool_.reserve(n);
    free_.reserve(n);
  }
  uint32_t alloc() {
    if (free_.empty()) {  // grows to the most packets ever inside, then reuses
      pool_.push_back(Transit{});
      return static_cast<uint32_t>(pool_.size() - 1);
    }
    const uint32_t i = free_.back();
    free_.pop_back();
    return i;
  }
  void release(uint32_t i) { free_.push_back(i); }
  Transit& operator[](uint32_t i) { return pool_[i]; }
  const Transit& operator[](uint32_t i) const { return pool_[i]; }
  size_t capacity_bytes() const {
    return pool_.capacity() * sizeof(Transit) + free_.capacity() * sizeof(uint32_t);
  }

 private:
  std::vector<Transit> pool_;
  std::vector<uint32_t> free_;
};

// n FIFOs of record indices, each a ring of a fixed power-of-two size.
class TransitFifos {
 public:
  void init(size_t n, uint32_t entries) {
    size_ = 1;
    while (size_ < entries) size_ <<= 1;
    ring_.assign(n * size_, 0);
    head_.assign(n, 0);
    len_.assign(n, 0);
  }
  static size_t bytes(size_t n, uint32_t entries) {
    uint32_t s = 1;
    while (s < entries) s <<= 1;
    return n * (s * sizeof(uint32_t) + 2 * sizeof(uint16_t));
  }
  uint32_t len(size_t b) const { return len_[b]; }
  uint32_t capacity() const { return size_; }
  uint32_t head(size_t b) const { return ring_[b * size_ + head_[b]]; }
  uint32_t at(size_t b, uint32_t i) const {
    return ring_[b * size_ + ((head_[b] + i) & (size_ - 1))];
  }
  // The caller has checked len() < capacity() (the buffer's credits do).
  void push(size_t b, uint32_t t) {
    ring_[b * size_ + ((head_[b] + len_[b]) & (size_ - 1))] = t;
    len_[b]++;
  }
  uint32_t pop(size_t b) {
    const uint32_t t = ring_[b * size_ + head_[b]];
    head_[b] = static_cast<uint16_t>((head_[b] + 1) & (size_ - 1));
    len_[b]--;
    return t;
  }

 private:
  uint32_t size_ = 1;
  std::vector<uint32_t> ring_;
  std::vector<uint16_t> head_, len_;
};

}  // namespace fabemu
