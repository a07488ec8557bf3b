// One router model (the Spider router, dataplane/router/spider.h, or the
// input-queued router it is compared with) driven without the engine, as
// its RouterHost (router/router_model.h): tests put messages into its input
// buffers with a chosen output and header age, can hold an output's credits
// back, and read when and in what order messages left, with their ages.
// Ports may be looped back (an output's link into the input of the same
// number, as a cable from a port to itself would): a ring through one chip,
// whose buffers a test can fill to deadlock.
#pragma once
#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <queue>
#include <vector>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/credit_counter.h"
#include "dataplane/link/link.h"
#include "dataplane/router/router_shape.h"
#include "dataplane/routing/route.h"
#include "dataplane/routing/spider_header.h"
#include "dataplane/sim/event.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

template <class Router>
class SpiderDriver {
 public:
  struct Options {
    uint32_t ports = 6, nv = 4;
    ps_t unit_ps = 20000;      // a micropacket on a Spider link: 20 ns
    ps_t pipeline_ps = 40000;  // 40 ns pin to pin
    uint32_t buffer_units = 16;
    RouterConfig::Spider spider{};
  };
  struct Left {  // a message that left on an output
    uint32_t id, in, out;
    ps_t at;
    uint8_t age;
  };

  explicit SpiderDriver(const Options& o) : o_(o) {
    RouterShape s;
    s.routers = 1;
    s.max_ports = o.ports;
    s.nv = o.nv;
    s.qcap = 1;
    while (s.qcap < o.buffer_units + 1) s.qcap <<= 1;
    s.config.spider = o.spider;
    s.config.spider.buffer_units = o.buffer_units;
    s.min_units = 1;
    s.pipeline_ps = o.pipeline_ps;
    s.output_queue_units.assign(o.nv, 4 * o.buffer_units);  // (no switch speedup: unused)
    rt_.init(s);
    out_.assign(o.ports, OutLink{});
    in_.assign(o.ports, InLink{});
    vcs_.reset(new SenderVc[size_t(o.ports) * o.nv]);
    for (uint32_t p = 0; p < o.ports; p++) {
      out_[p].unit_ps = o.unit_ps;
      in_[p].unit_ps = o.unit_ps;
      for (uint32_t v = 0; v < o.nv; v++)
        vcs_[size_t(p) * o.nv + v].credits = CreditCounter(o.buffer_units);
    }
    loop_.assign(o.ports, false);
  }
  ~SpiderDriver() {
    for (auto& [m, id] : ids_) std::free(m);
  }

  // ---- the RouterHost --------------------------------------------------------
  static constexpr EventKind kind(RouterEvent k) { return static_cast<EventKind>(k); }
  ps_t now() const { return now_; }
  void schedule(const Event& e) { q_.push(Queued{e, seq_++}); }
  ps_t cycle_ps() const { return o_.spider.arbitration_ps; }
  OutLink& out(uint32_t o) { return out_[o]; }
  const InLink& in(uint32_t i) const { return in_[i]; }
  const SenderVc* vcs(uint32_t o) const { return &vcs_[size_t(o) * o_.nv]; }
  void route_head(uint32_t c, ps_t not_before) {
    QEntry& e = rt_.head(c);
    Msg& msg = msgs_[ids_.at(e.m)];
    e.out_port = static_cast<uint8_t>(msg.hops_left ? msg.ring_next(c / o_.nv, o_.ports) : msg.out);
    e.out_vc = static_cast<uint8_t>(c % o_.nv);
    e.routed = 1;
    const uint32_t p = c / o_.nv, v = c % o_.nv;
    rt_.head_routed(*this, RoutedHead{c, 0, p, v}, e, rc_, e.arrive + o_.pipeline_ps, not_before);
  }
  void route_units(uint32_t, uint32_t, uint32_t) {}
  void unroute_units(uint32_t, uint32_t, uint32_t) {}
  void take_link(uint32_t o, uint32_t units, uint8_t vc) {
    vcs_[size_t(o) * o_.nv + vc].credits.take(units);
    out_[o].free_ps = now_ + units * out_[o].unit_ps;
  }
  // (delay: a crossbar stage; the models driven here have none.)
  void deliver(uint32_t /*lr*/, uint32_t o, rte_mbuf* m, uint32_t units, uint8_t vc,
               ps_t /*delay*/ = 0) {
    const uint32_t id = ids_.at(m);
    Msg& msg = msgs_[id];
    left_.push_back({id, msg.at_input, o, now_, SpiderHeader::age(*meta(m))});
    if (loop_[o] && msg.hops_left) {  // round the ring again: into input o
      msg.hops_left--;
      msg.at_input = o;
      enter(o, vc, m, units, now_);
      return;
    }
    // An ideal sink: the credits come back as the message arrives.
    vcs_[size_t(o) * o_.nv + vc].credits.add_stream(units, now_ + out_[o].unit_ps, out_[o].unit_ps);
    rt_.credits_back(*this, o, vc, vcs_[size_t(o) * o_.nv + vc].credits);
  }
  void left_input(uint32_t, uint32_t, const rte_mbuf*, uint32_t) {}  // (no two-hop recovery)
  void return_credits(uint32_t c, uint32_t units, ps_t first, ps_t every) {
    returned_[c] += units;
    const uint32_t p = c / o_.nv, v = c % o_.nv;
    if (!loop_[p]) return;                // a source's: it sends only what the test puts in
    CreditCounter& cc = vcs_[c].credits;  // the output of the same number feeds this input
    cc.settle(now_);
    EXPECT_TRUE(cc.add_stream(units, first, every));
    rt_.credits_back(*this, p, v, cc);
  }
  bool discards(uint32_t) const { return false; }
  bool link_dead(uint32_t) const { return false; }
  bool progress_timed_out(uint32_t) const { return false; }
  void discard_at_output(uint32_t, rte_mbuf*, uint32_t, uint8_t) {
    ADD_FAILURE() << "no fault here";
  }
  bool retry_window_full(uint32_t, ps_t*) { return false; }
  bool damaged_head(uint32_t, bool*) { return false; }
  void discard(DropReason why, rte_mbuf* m) {
    drops_[static_cast<int>(why)]++;
    msgs_[ids_.at(m)].discarded = true;
  }

  // ---- the test's side ----------------------------------------------------------
  // A message of `units` into input `in`, VC v, bound for output `out`, its
  // header age `age`, its head arriving at `at` (now by default). Returns
  // its number.
  uint32_t send(uint32_t in, uint32_t v, uint32_t out, uint32_t units, uint8_t age = 0,
                ps_t at = kNever) {
    rte_mbuf* m = make(in, out, units, age);
    enter(in, v, m, units, at == kNever ? now_ : at);
    return ids_.at(m);
  }
  // Around the ring of looped-back ports 0..n-1 (loop()) `hops` times, then
  // out of `out`; put into input `in` as if its loop link had sent it.
  uint32_t send_ring(uint32_t in, uint32_t v, uint32_t hops, uint32_t out, uint32_t units) {
    rte_mbuf* m = make(in, out, units, 0);
    const uint32_t id = ids_.at(m);
    msgs_[id].hops_left = hops;
    msgs_[id].ring = ring_;
    vcs_[size_t(in) * o_.nv + v].credits.take(units);
    enter(in, v, m, units, now_);
    return id;
  }
  // Ports 0..n-1 loop back (output p's link into input p); a ring message
  // at input p goes out port (p + 1) % n.
  void loop(uint32_t n) {
    ring_ = n;
    for (uint32_t p = 0; p < n; p++) loop_[p] = true;
  }
  // Output o's downstream buffer: no credits on VC v until released.
  void hold(uint32_t o, uint32_t v) {
    CreditCounter& cc = vcs_[size_t(o) * o_.nv + v].credits;
    cc.settle(now_);
    held_[size_t(o) * o_.nv + v] = cc.held();
    cc.take(cc.held());
  }
  void release(uint32_t o, uint32_t v) {
    CreditCounter& cc = vcs_[size_t(o) * o_.nv + v].credits;
    cc.add(held_[size_t(o) * o_.nv + v]);
    rt_.credits_back(*this, o, v, cc);
  }
  void run(ps_t until) {
    while (!q_.empty() && q_.top().e.t <= until) {
      const Event e = q_.top().e;
      q_.pop();
      now_ = e.t;
      rt_.on_event(*this, e);
    }
    if (now_ < until) now_ = until;
  }
  bool idle() const { return q_.empty(); }
  const std::vector<Left>& left() const { return left_; }
  uint64_t drops(DropReason why) const { return drops_[static_cast<int>(why)]; }
  Router& router() { return rt_; }
  // Units of input channel c whose credits went back to its sender.
  uint64_t returned(uint32_t c) { return returned_[c]; }

 private:
  struct Msg {
    uint32_t out, at_input, hops_left;
    bool discarded;
    uint32_t ring = 0;
    uint32_t ring_next(uint32_t p, uint32_t) const { return (p + 1) % ring; }
  };
  struct Queued {
    Event e;
    uint64_t seq;
    bool operator>(const Queued& o) const { return e.t != o.e.t ? e.t > o.e.t : seq > o.seq; }
  };
  rte_mbuf* make(uint32_t in, uint32_t out, uint32_t units, uint8_t age) {
    auto* m =
        static_cast<rte_mbuf*>(std::aligned_alloc(64, (256 + sizeof(PacketMeta) + 63) / 64 * 64));
    *meta(m) = PacketMeta{};
    SpiderHeader::set_age(*meta(m), age);
    meta(m)->units = static_cast<uint16_t>(units);
    ids_[m] = static_cast<uint32_t>(msgs_.size());
    msgs_.push_back(Msg{out, in, 0, false});
    return m;
  }
  void enter(uint32_t in, uint32_t v, rte_mbuf* m, uint32_t units, ps_t at) {
    QEntry e{};
    e.m = m;
    e.arrive = at;
    e.units = static_cast<uint16_t>(units);
    rt_.arrive(*this, in * o_.nv + v, e, false);
  }

  Options o_;
  Router rt_;
  RouteCandidates rc_;
  std::vector<OutLink> out_;
  std::vector<InLink> in_;
  std::unique_ptr<SenderVc[]> vcs_;
  std::vector<bool> loop_;
  uint32_t ring_ = 0;
  std::map<rte_mbuf*, uint32_t> ids_;
  std::vector<Msg> msgs_;
  std::vector<Left> left_;
  std::map<uint32_t, uint64_t> returned_;
  std::map<size_t, uint32_t> held_;
  uint64_t drops_[static_cast<int>(DropReason::count)] = {};
  std::priority_queue<Queued, std::vector<Queued>, std::greater<Queued>> q_;
  ps_t now_ = 0;
  uint64_t seq_ = 0;
};

}  // namespace fabemu
