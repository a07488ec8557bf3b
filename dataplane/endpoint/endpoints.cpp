#include "dataplane/endpoint/endpoints.h"

namespace fabemu {

void EndpointParams::set_generation(double p) {
  gen = Geometric(p);
  if (!traffic || !traffic->on_off) return;
  const double beta = traffic->burst_beta;
  burst_r1 = std::min(1.0, burst_on_probability(p, *traffic));
  burst_wake = Geometric(traffic->burst_alpha);
  // Each on slot: off with beta, else a message with r1.
  const double event = beta + (1 - beta) * burst_r1;
  burst_event = Geometric(event);
  burst_off_share = event > 0 ? beta / event : 0;
}

bool EndpointParams::init(std::string* err) {
  const TrafficConfig& tc = *traffic;
  if (!pattern.init(*fabric, tc, seed, err)) return false;
  max_payload = format.max_payload_bytes();
  if (max_payload == 0) {
    *err = "the packet format leaves no room for payload (max_units too small)";
    return false;
  }
  double wsum = 0;
  size_cdf.clear();
  for (size_t i = 0; i < tc.size_bytes.size(); i++) wsum += tc.size_weight[i];
  double acc = 0;
  for (size_t i = 0; i < tc.size_bytes.size(); i++) {
    acc += tc.size_weight[i] / wsum;
    size_cdf.push_back(acc);
  }
  const uint32_t procs = fabric->processors();
  generates.assign(procs, tc.sources.empty() ? 1 : 0);
  for (uint32_t src : tc.sources) {
    if (src >= procs) {
      *err = "traffic.sources names endpoint " + std::to_string(src) + ", but the fabric has " +
             std::to_string(procs) + " (0 to " + std::to_string(procs - 1) + ")";
      return false;
    }
    generates[src] = 1;
  }
  gen_slot_ps = fabric->endpoints[0].unit_ps * std::max<uint32_t>(1, tc.slot_units);
  alternate_injection = tc.alternate_injection;
  inject_free_vcs = tc.inject_free_vcs;
  wormhole = tc.wormhole;
  return true;
}

void Endpoints::init(const EndpointParams& p, const std::vector<uint32_t>& owned,
                     const std::vector<uint32_t>& cap, const std::vector<uint32_t>& link) {
  p_ = p;
  const size_t nep = p.fabric->endpoints.size();
  ep_.resize(nep);
  credits_.assign(nep * p.nv, CreditCounter{});
  owned_ = owned;
  for (uint32_t e : owned_) {
    Nic& ep = ep_[e];
    ep.rng = Rng(p.seed, e);
    for (uint32_t v = 0; v < p.nv; v++) credits_[size_t(e) * p.nv + v] = CreditCounter(cap[v]);
    ep.srcq_bound = p.source_queue_packets;
    for (auto& q : ep.srcq) q.init(ep.srcq_bound);
    ep.link = link[e];
    // (A processor reassembles at its slice-0 port, whichever slice.)
    if (p.reassembly_slots && e < p.fabric->processors()) ep.reassembly.init(p.reassembly_slots);
  }
  phase_.clear();
  if (p.traffic && p.traffic->phases != PhaseSync::none) {
    phase_.resize(nep);
    for (uint32_t e : owned_) {
      PhaseState& ph = phase_[e];
      ph.left = p.generates[p.fabric->processor(e)] && p.traffic->load > 0
                    ? p.traffic->phase_messages
                    : 0;
      ph.has_work = ph.left > 0;
    }
  }
  if (p.traffic && p.traffic->count_out_of_order) {
    std::vector<uint32_t> processors;
    for (uint32_t e : owned_) processors.push_back(p.fabric->processor(e));
    order_.init(p.fabric->processors(), processors);
  }
}

void Endpoints::seed(TimingWheel& wheel, EventKind generate, EventKind join) {
  const TrafficConfig& tc = *p_.traffic;
  // A processor with nothing to send in a phase joins its barrier at once.
  for (uint32_t e : owned_)
    if (!phase_.empty() && phase_[e].left == 0) wheel.push(event_at(0, join, e));
  if (tc.load <= 0) return;
  for (uint32_t e : owned_) {
    Nic& ep = ep_[e];
    const uint32_t p = p_.fabric->processor(e);
    if (ep_[p].binding >= 0) continue;  // its traffic comes from its port
    if (!p_.generates[p]) continue;     // not one of traffic.sources
    // An on_off source starts on or off at random, as BookSim's.
    if (tc.on_off) ep.burst_on = static_cast<uint8_t>(ep.rng.below(2));
    const uint64_t slots = tc.on_off ? burst_slots(ep) : ep.rng.geometric(p_.gen);
    const ps_t first = tc.single_batch ? 0 : (slots - 1) * p_.gen_slot_ps;
    wheel.push(event_at(first, generate, e));
  }
}

}  // namespace fabemu
