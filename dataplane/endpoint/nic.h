// The network interface of one endpoint: its traffic source's random
// stream, the source queues (requests and responses), the injection link
// (its serialization; the credits of the router input it feeds are in the
// worker's flat array, Engine::Worker::ep_credits), and at egress
// the reassembly of multi-packet messages and of port-bound frames.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/core/rng.h"
#include "dataplane/link/credit_counter.h"
#include "dataplane/sim/time.h"

namespace fabemu {

// (src, msg_seq) -> segments seen, open addressing with backward-shift
// deletion (probe chains stay intact without tombstones).
class MessageReassembly {
 public:
  enum class Result : uint8_t { partial, complete, overflow };
  void init(uint32_t slots) {
    key_.assign(slots, 0);
    count_.assign(slots, 0);
    first_inj_.assign(slots, 0);
    used_ = 0;
  }
  // Messages of several packets need init() first. *first_inj: when the
  // message's first packet to arrive left its source (set on complete).
  Result add(const PacketMeta& pm) {
    ps_t first_inj;
    return add(pm, &first_inj);
  }
  Result add(const PacketMeta& pm, ps_t* first_inj) {
    if (pm.nseg <= 1) {
      *first_inj = pm.inj_ps;
      return Result::complete;
    }
    if (key_.empty()) return Result::overflow;  // not initialised: counted, never UB
    const uint64_t key = ((uint64_t(pm.src) << 32) | pm.msg_seq) + 1;
    const uint32_t mask = static_cast<uint32_t>(key_.size()) - 1;
    uint32_t h = home(key, mask);
    for (uint32_t probe = 0; probe <= mask; probe++, h = (h + 1) & mask) {
      if (key_[h] == key) {
        if (++count_[h] < pm.nseg) return Result::partial;
        *first_inj = first_inj_[h];
        erase(h, mask);
        return Result::complete;
      }
      if (key_[h] == 0) {
        // Keep the table at most 3/4 full so probe chains stay short.
        if (used_ * 4 >= (mask + 1) * 3) return Result::overflow;
        key_[h] = key;
        count_[h] = 1;
        first_inj_[h] = pm.inj_ps;
        used_++;
        return Result::partial;
      }
    }
    return Result::overflow;
  }

 private:
  static uint32_t home(uint64_t key, uint32_t mask) {
    return static_cast<uint32_t>((key * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
  }
  void erase(uint32_t h, uint32_t mask) {
    key_[h] = 0;
    used_--;
    uint32_t hole = h, j = (h + 1) & mask;
    while (key_[j]) {
      if (((j - home(key_[j], mask)) & mask) >= ((j - hole) & mask)) {
        key_[hole] = key_[j];
        count_[hole] = count_[j];
        first_inj_[hole] = first_inj_[j];
        key_[j] = 0;
        hole = j;
      }
      j = (j + 1) & mask;
    }
  }
  std::vector<uint64_t> key_;
  std::vector<uint16_t> count_;
  std::vector<ps_t> first_inj_;
  uint32_t used_ = 0;
};

// Frames in reassembly at one port-bound endpoint.
inline constexpr uint32_t kFrameSlots = 64;

// A frame being reassembled at a port-bound endpoint.
struct FrameSlot {
  uint64_t key = 0;   // (src << 32 | msg_seq) + 1; 0: free
  ps_t first_ps = 0;  // first segment's arrival
  uint16_t got = 0;
  uint16_t nseg = 0;
};

// Source queue: a power-of-two ring of packets waiting for the injection
// link. A synthetic packet that joins a queue behind kBuildAhead others
// gets its buffer and encoding only when it is injected: its slot holds its
// metadata until then (its mbuf is nullptr). Beyond saturation, with every
// source queue full, the buffers in use are then those in the network, not
// tens of thousands that wait, each a few cache lines written at generation
// and cold at injection. A built packet (a frame's segment, or a packet
// near the head) keeps its metadata in its mbuf. The queue
// also keeps what the link's credit check reads of its head (VC, length,
// whether it was counted as credit-stalled): a packet waiting for credits
// is looked at again at every credit and wake.
struct SourceQueue {
  // (What the injection link reads at every look first: the Nic's hot
  // fields stay within its first cache lines.)
  uint32_t head = 0, len = 0;
  uint16_t head_units = 0;
  uint8_t head_vc = 0;
  uint8_t head_state = 0;  // kHeadKnown | kHeadStalled | kHeadFollows; 0 after every pop
  // router.flow_control wormhole: the VC of the message whose first packet
  // has left and whose last has not (its worm holds it), else kNoWorm.
  uint8_t worm_vc = 0xFF;
  std::vector<rte_mbuf*> ring;
  struct alignas(64) Slot {  // a cache line each
    PacketMeta pm;
  };
  std::unique_ptr<Slot[]> metas;  // per slot; not initialised: touched as used
  static constexpr uint8_t kHeadKnown = 1, kHeadStalled = 2;
  static constexpr uint8_t kHeadFollows = 4;  // the head is not its message's first packet
  static constexpr uint8_t kNoWorm = 0xFF;
  // Synthetic packets joining the first kBuildAhead places are built at once
  // (alternated runs, t3e 8x8x8 beyond saturation and flattened butterfly
  // 32x2 at load 0.5: building none ahead cost the butterfly about 9%, only
  // into an empty queue 4%, 4 ahead 2%; 16 ahead cost the torus about 5%
  // against none, 4 ahead 1 to 4%).
  static constexpr uint32_t kBuildAhead = 4;
  // Ring slots for a bound: rounded up to a power of two.
  static uint32_t slots(uint32_t bound) {
    uint32_t sq = 1;
    while (sq < bound) sq <<= 1;
    return sq;
  }
  void init(uint32_t bound) {
    ring.assign(slots(bound), nullptr);
    metas.reset(new Slot[ring.size()]);
    head = len = 0;
    head_state = 0;
    worm_vc = kNoWorm;
  }
  uint32_t mask() const { return static_cast<uint32_t>(ring.size()) - 1; }
  rte_mbuf* front() const { return ring[head]; }
  PacketMeta& front_meta() const { return metas[head].pm; }
  // Appends packet m (nullptr: built when injected) and returns its slot's
  // metadata for the caller to write.
  PacketMeta& push(rte_mbuf* m) {
    const uint32_t slot = (head + len++) & mask();
    ring[slot] = m;
    return metas[slot].pm;
  }
  // An emptied queue starts again at slot 0: below saturation a queue holds
  // a packet or two, and its first slots stay in the cache.
  void pop() {
    head = --len == 0 ? 0 : (head + 1) & mask();
    head_state = 0;
  }
  rte_mbuf* at(uint32_t i) const { return ring[(head + i) & mask()]; }
  // A built packet goes first (two-hop recovery's resend, beyond the
  // queue's bound: a full ring doubles).
  void push_front(rte_mbuf* m) {
    if (len == ring.size()) grow();
    head = (head + mask()) & mask();
    ring[head] = m;
    len++;
    head_state = 0;
  }
  void grow() {
    std::vector<rte_mbuf*> r(ring.size() * 2, nullptr);
    std::unique_ptr<Slot[]> ms(new Slot[r.size()]);
    for (uint32_t i = 0; i < len; i++) {
      r[i] = at(i);
      ms[i] = metas[(head + i) & mask()];
    }
    ring.swap(r);
    metas.swap(ms);
    head = 0;
  }
  // The packets queued that have their buffer (not the synthetic ones
  // waiting to be built).
  template <class F>
  void for_each_built(F&& f) const {
    for (uint32_t i = 0; i < len; i++)
      if (rte_mbuf* m = at(i)) f(m);
  }
};

struct Nic {
  Rng rng;
  ps_t inj_free = 0;       // the injection link is serialising until then
  ps_t wake_ps = kNever;   // a pending ep_wake
  uint32_t msg_seq = 0;
  uint64_t pkt_seq = 0;
  uint8_t inj_first = 1;    // the source queue the injection link looks at first (1: responses)
  uint8_t last_vc = 0xFF;   // vcs.injection free: the VC the last packet went on
  uint8_t burst_on = 0;     // traffic.process on_off: the source is on
  // [0] requests, [1] responses (responses go first so a reply never waits
  // behind requests: the request-response deadlock).
  SourceQueue srcq[2];
  uint32_t srcq_bound = 0;  // packets the source queues may hold
  uint32_t link = 0;        // injection link statistics
  MessageReassembly reassembly;
  // Port-bound endpoints: frames being reassembled at egress. Slot i holds
  // segments fseg[i * seg_cap .. + nseg) in segment order.
  int32_t binding = -1;     // index into the run's ports, -1: synthetic endpoint
  std::vector<FrameSlot> fslot;
  std::vector<rte_mbuf*> fseg;
  bool queued() const { return srcq[0].len + srcq[1].len > 0; }
};

}  // namespace fabemu
