// Synthetic traffic patterns: where an endpoint's next message goes.
// Deterministic patterns are precomputed per endpoint; random ones draw from
// the endpoint's own generator.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/codec/packet_format.h"
#include "dataplane/core/fabric.h"
#include "dataplane/core/rng.h"

namespace fabemu {

enum class Pattern : uint8_t {
  uniform, transpose, bitcomp, tornado, hotspot, permutation, neighbor, flatfly_worst, bitrev,
  shuffle
};

// A message of the size mix that is a request with a header of its own
// and a response of its own (traffic.t3e_packets: the T3E's Gets and Puts,
// whose header flits differ by type). header_units 0: the format's.
struct MessageShape {
  uint32_t header_units = 0;
  uint32_t reply_bytes = 0;
  uint32_t reply_header_units = 0;
};

// Phases (traffic.phases): each processor sends phase_messages messages,
// then joins a barrier on its BSU (dataplane/barrier/); the next phase
// begins when the barrier completes. eureka: the first processor done
// signals a eureka with its barrier (OP_EUR_B), which ends the phase for
// every other (each joins the barrier on hearing it).
enum class PhaseSync : uint8_t { none, barrier, eureka };

// What the synthetic traffic sources offer (EngineConfig derives from it).
struct TrafficConfig {
  Pattern pattern = Pattern::uniform;
  double load = 0.0;            // fraction of injection bandwidth
  uint32_t batch_size = 1;      // >1: batch (bursty) injection
  // A Bernoulli trial every this many injection-link units (BookSim2: one
  // per cycle of one packet; fabemu: one per unit).
  uint32_t slot_units = 1;
  // Uniform destinations include the source itself (BookSim2's uniform).
  bool to_self = false;
  // The fixed patterns work on BookSim2's node numbers (traffic.numbering
  // booksim; the torus family: x fastest) rather than the endpoint index.
  bool booksim_numbering = false;
  // traffic.pattern permutation: >= 0, BookSim2's randperm of this
  // perm_seed (knuth_ran_array.h); -1, fabemu's own from run.seed.
  int64_t permutation_seed = -1;
  bool single_batch = false;    // one batch per endpoint at time 0, then nothing
  // BookSim2's on_off process: each slot a source turns on with
  // burst_alpha or off with burst_beta, and an on source generates with
  // burst_on_probability (endpoints_hot.h, Endpoints::burst_slots).
  bool on_off = false;
  double burst_alpha = 0.5, burst_beta = 0.5;
  std::vector<uint32_t> size_bytes{64};
  std::vector<double> size_weight{1.0};
  double reply_fraction = 0.0;
  uint32_t reply_bytes = 8;
  // One per size_bytes entry, or empty: every message of the mix is then a
  // request answered as its shape says (reply_fraction is not used). A
  // message's entry is a hash of its source, message number and the seed
  // (message_kind), so the destination knows which response to send.
  std::vector<MessageShape> shapes;
  std::vector<uint32_t> sources;  // the processors that generate; empty: all
  uint32_t hotspot = 0;
  double hotspot_fraction = 0.1;
  // Count packets that reach their destination out of their source's order
  // (endpoint/delivery_order.h): where a routing may reorder them.
  bool count_out_of_order = false;
  // The injection link takes the request and response queues in turn
  // rather than responses first (traffic.response_priority alternate).
  bool alternate_injection = false;
  // vcs.injection free (BookSim2's sources): a source puts each packet on
  // the first VC with room of this many (every VC) after the VC it used
  // last (endpoints_hot.h, Endpoints::free_vc); 0: on the VC its routing
  // gives.
  uint8_t inject_free_vcs = 0;
  // router.flow_control wormhole: a message's packets leave on one VC, which
  // its first holds for the rest (a source's open worm keeps its VC).
  bool wormhole = false;
  PhaseSync phases = PhaseSync::none;
  uint32_t phase_messages = 0;  // per processor and phase
};

// Flow units of a request of size-mix entry i (one packet when it has a
// shape of its own).
inline uint32_t request_units(const PacketFormat& f, const TrafficConfig& t, size_t i) {
  if (i < t.shapes.size() && t.shapes[i].header_units)
    return f.units_with_header(t.size_bytes[i], t.shapes[i].header_units);
  return message_units(f, t.size_bytes[i]);
}

// Which entry of the size mix message `seq` of processor `src` is, when
// the mix has shapes: the same at the source and the destination. cdf:
// the mix's cumulative weights.
inline size_t message_kind(uint64_t seed, uint32_t src, uint32_t seq,
                           const std::vector<double>& cdf) {
  if (cdf.size() <= 1) return 0;
  uint64_t x = seed ^ (uint64_t{src} << 32 | seq);
  const double u = double(splitmix64(x) >> 11) * 0x1.0p-53;
  for (size_t i = 0; i + 1 < cdf.size(); i++)
    if (u < cdf[i]) return i;
  return cdf.size() - 1;
}

// Whether some message can span packets, so that endpoints need reassembly
// tables (kReassemblySlots each): frames (`ports`) always can; synthetic
// traffic when its largest message (or reply) is longer than one packet's
// payload.
inline constexpr uint32_t kReassemblySlots = 1024;
inline bool messages_span_packets(const TrafficConfig& t, const PacketFormat& f, bool ports) {
  uint32_t largest = t.reply_fraction > 0 ? t.reply_bytes : 0;
  for (uint32_t b : t.size_bytes) largest = std::max(largest, b);
  for (const MessageShape& s : t.shapes) largest = std::max(largest, s.reply_bytes);
  return ports || largest > f.max_payload_bytes();
}

// The chance that an endpoint starts a message (or a batch) in one unit time
// of its injection link, so that it offers `load` of the link's bandwidth:
// load / (mean units of a message, segments and headers included) / batch.
inline double generation_probability(const PacketFormat& f, const TrafficConfig& t) {
  const uint32_t max_payload = f.max_payload_bytes();
  double wsum = 0, mean_units = 0;
  for (double w : t.size_weight) wsum += w;
  for (size_t i = 0; i < t.size_bytes.size() && max_payload; i++)
    mean_units += double(request_units(f, t, i)) * t.size_weight[i] / wsum;
  if (mean_units <= 0) return 1.0;
  return std::min(1.0, t.load * std::max<uint32_t>(1, t.slot_units) / mean_units /
                          std::max<uint32_t>(1, t.batch_size));
}

// An on source's chance to generate in a slot, so that the mean over on
// and off slots is p: on a share alpha / (alpha + beta) of the slots.
// Above 1, the load cannot be reached with these bursts.
inline double burst_on_probability(double p, const TrafficConfig& t) {
  return p * (t.burst_alpha + t.burst_beta) / t.burst_alpha;
}

class TrafficPattern {
 public:
  // Builds the destination tables. Returns false and sets *err when the
  // pattern does not fit the fabric (e.g. transpose on a non-square torus).
  // seed: the run's (a random permutation draws from it).
  bool init(const Fabric& f, const TrafficConfig& cfg, uint64_t seed, std::string* err);
  // The same from a run's configuration (an EngineConfig: traffic and seed).
  template <class RunConfig>
  bool init(const Fabric& f, const RunConfig& cfg, std::string* err) {
    return init(f, static_cast<const TrafficConfig&>(cfg), cfg.seed, err);
  }

  uint32_t destination(uint32_t src, Rng& rng) const {
    switch (pattern_) {
      case Pattern::uniform:
        return uniform(src, rng);
      case Pattern::hotspot:
        if (rng.unit() <= hotspot_fraction_ && hotspot_ != src) return hotspot_;
        return uniform(src, rng);
      case Pattern::flatfly_worst: {
        const NextGroup& g = next_group_[src];
        return by_router_[g.first + rng.below(g.count)];
      }
      default:
        return fixed_[src];
    }
  }
  // Per-endpoint destination for fixed patterns (tests and describe).
  const std::vector<uint32_t>& fixed() const { return fixed_; }

 private:
  uint32_t uniform(uint32_t src, Rng& rng) const {
    if (to_self_) return rng.below(n_);
    if (n_ < 2) return src;
    uint32_t d = rng.below(n_ - 1);  // any endpoint but the source
    return d >= src ? d + 1 : d;
  }
  Pattern pattern_ = Pattern::uniform;
  uint32_t n_ = 0;
  uint32_t hotspot_ = 0;
  double hotspot_fraction_ = 0;
  bool to_self_ = false;
  std::vector<uint32_t> fixed_;
  // flatfly_worst: the endpoints grouped by router (routers in id order), and
  // per endpoint where in by_router_ the next router's group is.
  struct NextGroup {
    uint32_t first = 0;
    uint32_t count = 1;
  };
  std::vector<uint32_t> by_router_;
  std::vector<NextGroup> next_group_;
};

}  // namespace fabemu
