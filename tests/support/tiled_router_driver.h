// One YARC tiled router (dataplane/router/yarc_tiled.h) driven without the
// engine, the way the BlackWidow paper's section 7.6 simulates a router
// alone: a source on every input port that sends packets back to back
// whenever the input buffer has room (saturation), an ideal sink behind
// every output port, and an event queue of its own. Tests choose each
// packet's output, can stop an output from sending, and read throughput,
// grant times and the router's credit accounts.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "dataplane/core/rng.h"
#include "dataplane/link/credit_counter.h"
#include "dataplane/router/yarc_tiled.h"
#include "dataplane/sim/event.h"

namespace fabemu {

class TiledRouterDriver {
 public:
  struct Options {
    uint32_t ports = 64;
    uint32_t degree = 8;
    uint32_t nv = 2;
    uint32_t units = 4;        // every packet's length, phits
    ps_t link_ps = 1250;       // link unit time (the core cycle: no speedup)
    ps_t pipeline_ps = 31250;  // 25 stages at 800 MHz
    uint32_t input_units = 256, row_units = 16, column_units = 10;
    bool saturate = true;   // sources send whenever they can (else only send())
    bool record = true;     // keep every packet's grant (grants())
    uint32_t vcs_used = 1;  // saturating sources spread packets over VCs 0.. (round robin)
    uint32_t sources = 0;   // saturating sources on ports 0..sources-1 (0: on every port)
    uint64_t source_mask = ~uint64_t{0};  // and only on these ports
    uint64_t seed = 1;
  };
  // The output port of the next packet from input port `in`.
  using Destination = std::function<uint32_t(uint32_t in, Rng& rng)>;

  TiledRouterDriver(const Options& o, Destination dest) : o_(o), dest_(std::move(dest)) {
    uint32_t q = 1;
    while (q < o.input_units / std::max<uint32_t>(1, o.units) + 2) q <<= 1;
    router_.init(1, o.ports, o.nv, q);
    router_.init_tiles(
        1, TileGeometry::make(o.ports, o.degree, o.nv, o.row_units, o.column_units, o.pipeline_ps),
        o.units);
    for (uint32_t p = 0; p < o.ports; p++) router_.set_link_units(p, o.link_ps, o.link_ps);
    src_.assign(o.ports, Source{});
    for (uint32_t p = 0; p < o.ports; p++) {
      src_[p].rng = Rng(o.seed, p);
      src_[p].credits.assign(o.nv, CreditCounter(o.input_units));
      src_[p].returned.assign(o.nv, 0);
    }
    out_.assign(o.ports, Output{});
    if (o.saturate)
      for (uint32_t p = 0; p < (o.sources ? o.sources : o.ports); p++)
        if ((o.source_mask >> p) & 1u) arm(src_[p].wake, 0, kSourceWake, p);
  }

  // Host interface (yarc_tiled.h). The router's kinds keep their numbers;
  // the driver's own come after them (kSourceWake, kOutputWake).
  static constexpr EventKind kind(RouterEvent k) { return static_cast<EventKind>(k); }
  ps_t now() const { return now_; }
  void schedule(const Event& e) { push(e); }
  void route_head(uint32_t c) {
    QEntry& e = router_.head(c);
    e.routed = 1;
    const uint64_t allowed = o_.record ? ids_[id_of(e.m)].allowed : 0;
    router_.enter_tiles(*this, c, e.arrive + o_.pipeline_ps, allowed);
  }
  void left_input(uint32_t, uint32_t, const rte_mbuf*, uint32_t) {}  // (no two-hop recovery)
  void return_credits(uint32_t c, uint32_t units, ps_t first, ps_t every) {
    const uint32_t in = c / o_.nv, v = c % o_.nv;
    Source& s = src_[in];
    s.credits[v].settle(now_);
    EXPECT_TRUE(s.credits[v].add_stream(units, first, every)) << "source credit streams overflow";
    s.returned[v] += units;
    if (o_.saturate) arm(s.wake, std::max(now_, first), kSourceWake, in);
  }
  YarcTiledRouter::HeadLeaves head_leaves(uint32_t) { return YarcTiledRouter::HeadLeaves::go; }
  void exit_chosen(rte_mbuf*, uint32_t, uint32_t, uint8_t, uint32_t) {}
  void wake_output(uint32_t o, ps_t t) {
    arm(out_[o].wake, std::max({t, now_, out_[o].free}), kOutputWake, o);
  }

  // One packet from input `in` on VC v to output `out` now (saturate off).
  void send(uint32_t in, uint32_t out, uint32_t v = 0, uint32_t units = 0) {
    inject(in, out, v, units ? units : o_.units);
  }
  // One adaptive packet (a = 1): the router chooses among the output ports
  // in `allowed` (record on).
  void send_adaptive(uint32_t in, uint64_t allowed, uint32_t v = 0, uint32_t units = 0) {
    inject(in, static_cast<uint32_t>(__builtin_ctzll(allowed)), v, units ? units : o_.units,
           allowed);
  }
  // Grants per output port (record on).
  std::vector<uint64_t> grants_per_output() const {
    std::vector<uint64_t> n(o_.ports, 0);
    for (const Grant& g : grants_) n[g.out]++;
    return n;
  }
  // While stopped, output o sends nothing (its downstream has no credits).
  void stop_output(uint32_t o, bool stop) {
    out_[o].stopped = stop;
    if (!stop) wake_output(o, now_);
  }

  // Runs until `until` (or until nothing is left to happen).
  void run(ps_t until) {
    while (!q_.empty() && q_.top().e.t <= until) {
      const Event e = q_.top().e;
      q_.pop();
      now_ = e.t;
      switch (e.kind) {
        case kind(RouterEvent::tile):
          router_.on_tile_event(*this, e);
          break;
        case kOutputWake:
          if (out_[e.a].wake == e.t) out_[e.a].wake = kNever;
          try_output(e.a);
          break;
        case kSourceWake:
          if (src_[e.a].wake == e.t) src_[e.a].wake = kNever;
          try_source(e.a);
          break;
        default:
          break;
      }
      if (check_ && ++events_ % 997 == 0) check_credits();
    }
    if (now_ < until) now_ = until;
  }

  // Phits sent by every output from `from` on, and the same per output.
  void measure_from(ps_t from) {
    measure_from_ = from;
    for (Output& o : out_) o.units = 0;
  }
  uint64_t delivered_units(uint64_t outputs = ~uint64_t{0}) const {
    uint64_t n = 0;
    for (size_t p = 0; p < out_.size(); p++) n += ((outputs >> p) & 1u) ? out_[p].units : 0;
    return n;
  }
  // Accepted load per input port over [from, now): phits sent divided by
  // what `inputs` saturated links could carry.
  double throughput(uint32_t inputs) const {
    const double capacity = double(now_ - measure_from_) / double(o_.link_ps) * inputs;
    return double(delivered_units()) / capacity;
  }
  uint64_t packets() const { return packets_; }
  // Every grant (Options::record): packet number, ports, times.
  struct Grant {
    uint64_t packet;
    uint32_t in, out;
    ps_t inject, at;
  };
  const std::vector<Grant>& grants() const { return grants_; }
  void check_every_event_batch(bool on) { check_ = on; }
  // Credit conservation: the router's row and column buffers, and each
  // input buffer against its source's credits.
  void check_credits() {
    const std::string tiles = router_.check_tiles();
    ASSERT_TRUE(tiles.empty()) << tiles << " at t=" << now_;
    for (uint32_t in = 0; in < o_.ports; in++)
      for (uint32_t v = 0; v < o_.nv; v++) {
        const uint32_t c = in * o_.nv + v;
        uint64_t queued = 0;
        for (uint32_t i = 0; i < router_.len(c); i++) queued += router_.at(c, i).units;
        const Source& s = src_[in];
        ASSERT_EQ(s.credits[v].held() + queued + (router_.units_out(c) - s.returned[v]),
                  o_.input_units)
            << "input " << in << " VC " << v << " at t=" << now_;
      }
  }
  YarcTiledRouter& router() { return router_; }
  uint64_t in_router() const {
    uint64_t n = 0;
    router_.for_each_transit([&](rte_mbuf*) { n++; });
    for (uint32_t c = 0; c < o_.ports * o_.nv; c++) n += router_.len(c);
    return n;
  }

 private:
  // Its own events: a source or an output may send again.
  enum : EventKind { kSourceWake = 16, kOutputWake };
  struct Source {
    Rng rng;
    std::vector<CreditCounter> credits;  // [vc]
    std::vector<uint64_t> returned;      // [vc]
    ps_t link_free = 0;
    ps_t wake = kNever;
    uint32_t next_vc = 0;
  };
  struct Output {
    ps_t free = 0;
    ps_t wake = kNever;
    uint64_t units = 0;
    bool stopped = false;
  };
  struct Queued {
    Event e;
    uint64_t seq;
    bool operator>(const Queued& b) const { return e.t != b.e.t ? e.t > b.e.t : seq > b.seq; }
  };
  void push(const Event& e) { q_.push(Queued{e, seq_++}); }
  // One pending wake-up per source or output: the earliest.
  void arm(ps_t& wake, ps_t t, EventKind what, uint32_t a) {
    if (t >= wake) return;
    wake = t;
    push(event_at(t, what, a));
  }

  // A source sends a packet whenever its link is free and the input buffer
  // of its VC (the VCs in turn) has room for all of it (virtual cut-through).
  void try_source(uint32_t in) {
    Source& s = src_[in];
    if (s.link_free > now_) {
      arm(s.wake, s.link_free, kSourceWake, in);
      return;
    }
    ps_t when = kNever;
    CreditCounter& cc = s.credits[s.next_vc];
    if (!cc.available(o_.units, now_, &when)) {
      if (when != kNever) arm(s.wake, when, kSourceWake, in);
      return;
    }
    inject(in, dest_(in, s.rng), s.next_vc, o_.units);
    s.next_vc = (s.next_vc + 1) % o_.vcs_used;
    arm(s.wake, s.link_free, kSourceWake, in);
  }
  void inject(uint32_t in, uint32_t out, uint32_t v, uint32_t units, uint64_t allowed = 0) {
    Source& s = src_[in];
    s.credits[v].take(units);
    s.link_free = now_ + units * o_.link_ps;
    const uint64_t id = packets_++;
    if (o_.record) ids_.push_back({in, out, now_, allowed});
    QEntry e{};
    e.m = reinterpret_cast<rte_mbuf*>(0x1000 + 64 * id);
    e.arrive = now_;
    e.units = static_cast<uint16_t>(units);
    e.out_port = static_cast<uint8_t>(out);
    e.out_vc = static_cast<uint8_t>(v);
    const uint32_t c = in * o_.nv + v;
    ASSERT_LE(router_.occupancy(c) + units, o_.input_units);
    if (router_.push(c, e) == 1) route_head(c);
  }
  // The output stage a link would run: round robin over its column
  // buffers' heads that are through the pipeline (no downstream credits
  // to wait for: an ideal sink).
  void try_output(uint32_t o) {
    Output& out = out_[o];
    if (router_.requests(o) == 0 || out.stopped) return;
    if (out.free > now_) {
      arm(out.wake, out.free, kOutputWake, o);
      return;
    }
    ps_t wake = kNever;
    const int32_t won = router_.arbitrate(o, [&](uint32_t i) {
      const Transit& t = router_.column_head(o, i);
      if (t.ready > now_) wake = std::min(wake, t.ready);
      return t.ready <= now_;
    });
    if (won < 0) {
      if (wake != kNever) arm(out.wake, wake, kOutputWake, o);
      return;
    }
    const YarcTiledRouter::Granted g = router_.output_grant(*this, o, static_cast<uint32_t>(won));
    if (o_.record) {
      const uint64_t id = id_of(g.m);
      grants_.push_back({id, ids_[id].in, o, ids_[id].at, now_});
      if (ids_[id].allowed)
        EXPECT_TRUE((ids_[id].allowed >> o) & 1) << "packet " << id << " left on port " << o;
      else
        EXPECT_EQ(ids_[id].out, o) << "packet " << id << " left on the wrong port";
    }
    out.free = now_ + g.units * o_.link_ps;
    if (now_ >= measure_from_) out.units += g.units;
    if (router_.requests(o)) arm(out.wake, out.free, kOutputWake, o);
  }

  struct Sent {
    uint32_t in, out;
    ps_t at;
    uint64_t allowed;  // adaptive: the ports it may leave by (0: out)
  };
  static uint64_t id_of(const rte_mbuf* m) {
    return (reinterpret_cast<uintptr_t>(m) - 0x1000) / 64;
  }
  Options o_;
  Destination dest_;
  YarcTiledRouter router_;
  std::vector<Source> src_;
  std::vector<Output> out_;
  std::vector<Sent> ids_;
  std::vector<Grant> grants_;
  std::priority_queue<Queued, std::vector<Queued>, std::greater<Queued>> q_;
  uint64_t seq_ = 0, packets_ = 0, events_ = 0;
  ps_t now_ = 0, measure_from_ = 0;
  bool check_ = false;
};

}  // namespace fabemu
