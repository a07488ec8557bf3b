// Packet buffers of one worker: DPDK mempools created as the fabric fills,
// so that memory and start-up follow what is in flight, not what could be.
// A run starts with one small pool; when it runs dry another, twice as
// large, is added, up to `limit` buffers in all. A buffer goes back to its
// own pool when freed (rte_pktmbuf_free), whichever core frees it.
#pragma once
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fabemu {

// A worker's pool starts with this many buffers and doubles as the fabric
// fills, up to its limit (engine/engine_memory.h); with ports it starts
// larger: no growth while frames flow.
inline uint32_t pool_first_buffers(bool ports) { return ports ? 32768 : 8192; }

class PacketPool {
 public:
  // name: unique prefix; priv: private area bytes; room: data room bytes.
  bool init(const std::string& name, uint32_t first, uint32_t limit, uint16_t priv,
            uint16_t room, int socket, std::string* err) {
    name_ = name;
    priv_ = priv;
    room_ = room;
    socket_ = socket;
    limit_ = limit;
    next_ = first < limit ? first : limit;
    if (!grow()) {
      *err = "cannot create a pool of " + std::to_string(next_) + " packet buffers (" + name +
             "): " + rte_strerror(rte_errno) + "; give DPDK more memory (-m) or shrink the fabric";
      return false;
    }
    return true;
  }
  // Allocates n buffers or none.
  bool alloc_bulk(rte_mbuf** m, uint32_t n) {
    if (rte_pktmbuf_alloc_bulk(pools_.back(), m, n) == 0) return true;
    for (size_t i = 0; i + 1 < pools_.size(); i++)
      if (rte_pktmbuf_alloc_bulk(pools_[i], m, n) == 0) return true;
    return grow() && rte_pktmbuf_alloc_bulk(pools_.back(), m, n) == 0;
  }
  uint64_t capacity() const { return total_; }
  void release() {
    for (rte_mempool* p : pools_) rte_mempool_free(p);
    pools_.clear();
    total_ = 0;
  }

 private:
  bool grow() {
    if (total_ >= limit_) return false;
    uint64_t n = next_;
    if (total_ + n > limit_) n = limit_ - total_;
    if (n < 64) n = 64;
    const std::string nm = name_ + "_" + std::to_string(pools_.size());
    const unsigned cache = n >= 4096 ? 256 : 0;
    rte_mempool* p = rte_pktmbuf_pool_create(nm.c_str(), static_cast<unsigned>(n), cache, priv_,
                                             room_, socket_);
    if (!p) return false;
    pools_.push_back(p);
    total_ += n;
    next_ = static_cast<uint32_t>(n * 2);
    return true;
  }
  std::string name_;
  std::vector<rte_mempool*> pools_;
  uint64_t total_ = 0, limit_ = 0;
  uint32_t next_ = 0;
  uint16_t priv_ = 0, room_ = 0;
  int socket_ = 0;
};

// Frees delivered packets a few deliveries late. A packet's mbuf header
// was last touched when it was made, so freeing it at once waits on memory
// (about a fifth of a hop's time on the 8x8x8 torus); its header lines are
// fetched when it is handed in and freed when kDepth more have been.
class FreeLater {
 public:
  static constexpr uint32_t kDepth = 8;
  static_assert((kDepth & (kDepth - 1)) == 0, "the ring index wraps by a mask");
  void push(rte_mbuf* m) {
    rte_prefetch0(m);
    rte_prefetch0(reinterpret_cast<char*>(m) + RTE_CACHE_LINE_SIZE);
    rte_mbuf* old = ring_[at_];
    ring_[at_] = m;
    at_ = (at_ + 1) & (kDepth - 1);
    if (old) rte_pktmbuf_free(old);
  }
  void flush() {
    for (rte_mbuf*& m : ring_)
      if (m) {
        rte_pktmbuf_free(m);
        m = nullptr;
      }
  }

 private:
  rte_mbuf* ring_[kDepth] = {};
  uint32_t at_ = 0;
};

}  // namespace fabemu
