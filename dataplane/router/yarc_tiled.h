// The YARC router microarchitecture (Scott et al., "The BlackWidow
// High-Radix Clos Network", ISCA 2006, sections 3, 4.2 and 7.5-7.6) as a
// router model: 64 ports as an 8x8 array of tiles (the subswitch degree p
// configurable, yarc_tile_geometry.h). A packet
//   1. arrives in the input buffer of its port (256 phits per VC, virtual
//      cut-through on the external link: InputQueuedRouter's FIFOs and
//      credits, which this class extends) and is routed at its head to an
//      output, hence an output column;
//   2. crosses its input's row bus into the row buffer at that column's
//      subswitch (yarc_row_buffers.h, 16 phits per VC);
//   3. is switched by the p x p subswitch, the first arbitration stage, onto
//      the column channel of its output, into the column buffer for its row
//      there (yarc_subswitch.h, yarc_column_buffers.h, 10 phits per VC);
//   4. wins the output port in the second stage (the input-queued router's
//      output arbitration, input_queued_allocation.h, over the column
//      buffers' heads instead of input FIFOs) and leaves on the link.
// Inside, flow control is wormhole at phit granularity, modelled per packet
// with phit-counted buffers (yarc_wormhole.h): a packet longer than a row
// or column buffer leaves its tail behind and holds that buffer (and so its
// row's traffic to that column) until its head moves on. At zero load a
// packet goes through the 25 stages in exactly the router's pipeline
// latency (31.25 ns at 800 MHz).
//
// Adaptive packets (a = 1, section 5.1 and 7.8.3) choose in two stages
// where the deterministic ones are routed to one output: at the head of the
// input buffer, the output column among those the routing allows, by the
// space in this input's row buffers (the ones less than half full first,
// ties broken by a matrix arbiter per input); at the head of the row
// buffer, the exit row within the column among those allowed, by the space
// in the column buffers at those outputs ("almost empty" first, then "half
// full", then "almost full"; ties round robin).
//
// The tiles are driven through a TileHost (a test's, or TileHostOf below,
// which adapts the engine's router host, router_model.h) that owns time and
// the links:
//   ps_t now() const;
//   static EventKind kind(RouterEvent);  // its number for the router's kinds (router_event.h)
//   void schedule(const Event&);    // a router event (RouterEvent::tile) for on_tile_event()
//   void route_head(uint32_t c);    // input channel c has a new head: route it, then
//                                   // call enter_tiles (at once or later)
//   void return_credits(uint32_t c, uint32_t units, ps_t first, ps_t every);
//                                   // input buffer credits to the upstream sender
//                                   // (first: the first has left the buffer)
//   void wake_output(uint32_t o, ps_t t);  // output o has a requester ready at t
//   HeadLeaves head_leaves(uint32_t c);    // the head of input channel c is about to
//                                          // cross the row bus (link-level retry, below)
//   void exit_chosen(rte_mbuf* m, uint32_t from, uint32_t to, uint8_t vc, uint32_t units);
//                                          // an adaptive packet's output is `to`, not the
//                                          // provisional `from` enter_tiles left it
// No allocation on the hot path once the transit pool has grown, no virtual
// call, no lock.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/core/packet_meta.h"
#include "dataplane/router/arbiter/matrix.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/router_event.h"
#include "dataplane/router/yarc_column_buffers.h"
#include "dataplane/router/yarc_row_buffers.h"
#include "dataplane/router/yarc_subswitch.h"
#include "dataplane/router/yarc_tile_geometry.h"
#include "dataplane/router/yarc_transit.h"
#include "dataplane/router/yarc_wormhole.h"
#include "dataplane/sim/event.h"

namespace fabemu {

class YarcTiledRouter : public InputQueuedBuffers, public InputQueuedOps<YarcTiledRouter> {
 public:
  // The second stage offers column buffers' heads, with no input crossing
  // of their own; an adaptive packet's output is chosen inside (two
  // stages); a routed head waits for room in its row buffer, not for the
  // output's credits.
  static constexpr bool kInputCrossings = false;
  static constexpr bool kChoosesAdaptively = true;
  static constexpr bool kInternalBuffers = true;
  // The tiles act on an arrival (its row bus) after the input stages and
  // send its credits back a core cycle after that, before the pipeline ends.
  static ps_t earliest_credit(ps_t unit, ps_t pipeline) {
    return std::min(unit, pipeline / TileStages::kTotal);
  }

  // What a RouterEvent::tile event is about (Event::port); Event::a indexes it.
  enum TileEvent : uint16_t {
    kRowBus,         // a row bus looks at its input's heads again (a = input)
    kColumnChannel,  // a column channel arbitrates again (a = channel)
    kRowCredits,     // credits a row buffer's counter had no room for (a = row buffer)
    kColumnCredits,  // the same for a column buffer (a = column buffer)
  };
  // What becomes of the head of an input buffer as it is about to cross the
  // row bus, the moment it leaves the input buffer. Link-level retry
  // (BlackWidow 4.3, dataplane/link/link_retry.h) may find it a
  // damaged copy: excised when its tail, and with it the CRC failure, came
  // first (the host has removed it: it never crosses), else it moves on
  // marked and its input buffer credits are not returned.
  enum class HeadLeaves : uint8_t { go, withheld, excised };
  // A packet the second stage granted, for the link.
  struct Granted {
    rte_mbuf* m;
    uint32_t units;
    uint8_t vc;
  };

  using InputQueuedBuffers::init;
  void init(const RouterShape& s) {
    InputQueuedBuffers::init(s);
    init_tiles(
        s.routers,
        TileGeometry::make(s.max_ports, s.config.tiles.degree, s.nv, s.config.tiles.row_units,
                           s.config.tiles.column_units, s.pipeline_ps),
        s.min_units);
  }
  // After InputQueuedBuffers::init(routers, g.ports, g.nv, ...).
  void init_tiles(uint32_t routers, const TileGeometry& g, uint32_t min_units) {
    g_ = g;
    const uint32_t ports = routers * g.ports;
    rows_.init(ports, g, min_units);
    sub_.init(ports, g);
    cols_.init(ports, g, min_units);
    ib_tail_.assign(size_t(ports) * g.nv, 0);
    head_rows_.assign(size_t(ports) * g.nv, 0);
    column_arb_.assign(size_t(ports) * MatrixArbiter::words(g.groups), 0);
    for (uint32_t in = 0; in < ports; in++)
      MatrixArbiter::init(&column_arb_[size_t(in) * MatrixArbiter::words(g.groups)], g.groups);
    row_turn_.assign(rows_.buffers().size(), 0);
    // The depths the adaptive stages compare, as YARC reads them from a
    // buffer's depth counter (bits enough for cap - 1: 4 for the 16-phit
    // row and the 10-phit column buffers): its top bit (row: half full of
    // 16, 8 phits), its top two (column: 8 or more "almost full", 4 to 7
    // "half full", below 4 "almost empty").
    row_half_ = top_bit(g.row_units);
    column_full_ = top_bit(g.column_units);
    column_half_ = std::max<uint32_t>(1, column_full_ / 2);
    unit_in_.assign(ports, g.cycle_ps);
    unit_out_.assign(ports, g.cycle_ps);
    transit_.clear();
    transit_.reserve(size_t(ports) * 4);
  }
  // Bytes init_tiles() allocates (the transit pool grows with use).
  static size_t tiles_bytes(uint32_t routers, const TileGeometry& g, uint32_t min_units) {
    const uint32_t ports = routers * g.ports;
    return RowBuffers::bytes(ports, g, min_units) + Subswitches::bytes(ports, g) +
           ColumnBuffers::bytes(ports, g, min_units) +
           size_t(ports) * (g.nv * (sizeof(ps_t) + sizeof(uint32_t)) + 2 * sizeof(ps_t)) +
           size_t(ports) * MatrixArbiter::words(g.groups) * sizeof(uint64_t) +
           size_t(ports) * g.groups * g.nv +  // row_turn_
           size_t(ports) * 4 * (sizeof(Transit) + sizeof(uint32_t));
  }
  // The unit times of the links into and out of port index `port`.
  void set_link_units(uint32_t port, ps_t in, ps_t out) {
    unit_in_[port] = in ? in : g_.cycle_ps;
    unit_out_[port] = out ? out : g_.cycle_ps;
  }
  const TileGeometry& geometry() const { return g_; }

  // ---- 1. the input buffer ---------------------------------------------------
  // The head of input channel c has its output (out_port, out_vc, routed set
  // by the host); the output may not take it before out_ready (the router's
  // pipeline, a slower input link). Adaptive: `allowed` holds the ports the
  // routing allows it (bit p: port p of this router), and the head's output
  // column is chosen here (out_port becomes one of its allowed ports, the
  // exit row being the subswitch's choice later); 0: deterministic.
  template <class Host>
  void enter_tiles(Host& h, uint32_t c, ps_t out_ready, uint64_t allowed = 0) {
    QEntry& e = head(c);
    e.ready = out_ready;
    head_rows_[c] = 0;
    if (allowed) choose_column(c, e, allowed, h.now());
    arm_bus(h, input_of_channel(c), std::max(e.arrive + g_.input_ps, ib_tail_[c]));
  }

  template <class Host>
  void on_tile_event(Host& h, const Event& ev) {
    switch (ev.port) {
      case kRowBus:
        if (rows_.bus_wake(ev.a) == ev.t) rows_.bus_wake(ev.a) = kNever;
        row_bus(h, ev.a);
        break;
      case kColumnChannel:
        if (sub_.wake(ev.a) == ev.t) sub_.wake(ev.a) = kNever;
        column_channel(h, ev.a);
        break;
      case kRowCredits:
        rows_.buffers().resume(ev.a, CreditRun{ev.amount, ev.t, ev.unit_ps});
        if (rows_.buffers().take_waiting(ev.a)) arm_bus(h, rows_.input_of(ev.a), ev.t);
        break;
      case kColumnCredits:
        cols_.buffers().resume(ev.a, CreditRun{ev.amount, ev.t, ev.unit_ps});
        if (cols_.buffers().take_waiting(ev.a)) arm_column(h, cols_.channel_of(ev.a), ev.t);
        break;
    }
  }

  // ---- 4. the second arbitration stage ------------------------------------------
  // The packet at the head of the column buffer behind requester i of
  // output o (InputQueuedRouter's request bits: i = (row group, VC)).
  Transit& column_head(uint32_t o, uint32_t i) {
    const uint32_t cb = cols_.of_requester(o, requester_port(i), requester_vc(i));
    return transit_[cols_.buffers().fifo().head(cb)];
  }
  // Output o (its link's unit time: unit_out) grants requester i now.
  template <class Host>
  Granted output_grant(Host& h, uint32_t o, uint32_t i);

  // ---- faults (dataplane/link/link_faults.h) --------------------------------------
  // A discarded packet leaves its input buffer like any other, over the row
  // bus: read out when the bus is free, keeping it busy (these hide the
  // input-queued router's switch-crossing times, which the tiles do not
  // use), so the input's credit streams stay in time order.
  ps_t input_free_at(uint32_t in) const { return rows_.bus_free(in); }
  void occupy_input(uint32_t in, ps_t until) {
    rows_.bus_free(in) = std::max(rows_.bus_free(in), until);
  }
  // Router lr stopped: every packet inside its tiles is lost. For each,
  // lost(m, output, vc, units) (output: the port index it was bound for);
  // the buffers it held get their credits back now, and its input buffer
  // the phits of its tail still there.
  template <class Host, class Lost>
  void flush_tiles(Host& h, uint32_t lr, Lost&& lost);

  // ---- accounting ---------------------------------------------------------------
  // Every packet inside the tiles (between its input buffer and its output).
  template <class F>
  void for_each_transit(F&& f) const {
    for_each_record([&](const Transit& t) { f(t.m); });
  }
  // Credit conservation of every row and column buffer: credits held by
  // its sender + credits still owed by the packets in it + credits on
  // their way back but not yet in the counter = its size. Empty when it
  // holds (a description of the first buffer where it does not).
  std::string check_tiles() const;

  // ---- the router-model operations (router_model.h) that differ -------------
  // Adapts the engine's router host to the tiles' (above).
  template <class H>
  struct TileHostOf {
    H& h;
    YarcTiledRouter& rt;
    ps_t now() const { return h.now(); }
    static constexpr EventKind kind(RouterEvent k) { return H::kind(k); }
    void schedule(const Event& ev) { h.schedule(ev); }
    void route_head(uint32_t c) { h.route_head(c, 0); }
    // Credits leave the input buffer from `first`; they reach the sender
    // after the reverse link's latency.
    void return_credits(uint32_t c, uint32_t units, ps_t first, ps_t every) {
      h.return_credits(c, units, first + h.in(rt.input_of_channel(c)).up_wire_ps, every);
    }
    void wake_output(uint32_t o, ps_t t) { rt.arm_output(h, o, std::max(t, h.out(o).free_ps)); }
    // An adaptive packet's exit row: its output is `to`, not `from`.
    void exit_chosen(rte_mbuf* m, uint32_t from, uint32_t to, uint8_t vc, uint32_t units) {
      h.unroute_units(from, vc, units);
      h.route_units(to, vc, units);
      meta(m)->out_port = static_cast<uint8_t>(rt.port_of_output(to));
    }
    // Link-level retry: a damaged copy leaving its input buffer is excised or
    // moves on marked, owed no credits, as it would leave the input-queued
    // router's buffer at its grant.
    HeadLeaves head_leaves(uint32_t c) {
      bool withhold = false;
      if (h.damaged_head(c, &withhold)) return HeadLeaves::excised;
      return withhold ? HeadLeaves::withheld : HeadLeaves::go;
    }
  };
  // On through the tiles: the row bus takes the routed head. An adaptive
  // packet's candidates (their ports, one VC: c[0]'s) are the tiles' to
  // choose among; its output is the column's first allowed row until the
  // subswitch chooses.
  template <class H>
  void head_routed(H& h, const RoutedHead& at, QEntry& e, const RouteCandidates& rc,
                   ps_t ready, ps_t /*not_before*/) {
    uint64_t allowed = 0;
    if (rc.adaptive && rc.count > 1)
      for (uint32_t i = 0; i < rc.count; i++) allowed |= uint64_t{1} << rc.c[i].port;
    TileHostOf<H> host{h, *this};
    enter_tiles(host, at.channel, ready, allowed);
    meta(e.m)->out_port = e.out_port;
    h.route_units(output(at.router, e.out_port), e.out_vc, e.units);
  }
  template <class H>
  void on_event(H& h, const Event& ev) {
    if (ev.kind != H::kind(RouterEvent::tile))
      return InputQueuedOps<YarcTiledRouter>::on_event(h, ev);
    TileHostOf<H> host{h, *this};
    on_tile_event(host, ev);
  }
  // The second stage: output o's arbitration over its column buffers' heads.
  Transit& offered(uint32_t o, uint32_t i, uint32_t /*c*/) { return column_head(o, i); }
  // Output o granted requester (row group, VC): the head of that column
  // buffer leaves on the link now.
  template <class H>
  void grant_requester(H& h, uint32_t o, uint32_t i, uint32_t /*c*/) {
    TileHostOf<H> host{h, *this};
    const Granted g = output_grant(host, o, i);
    if (h.discards(o)) [[unlikely]] {
      h.discard_at_output(o, g.m, g.units, g.vc);
      return;
    }
    h.take_link(o, g.units, g.vc);
    h.deliver(router_of_output(o), o, g.m, g.units, g.vc);
  }
  // A routed head waits for its row bus, which finds it gone; the output is
  // requested from the column buffers.
  void withdraw_head(uint32_t /*o*/, uint32_t /*c*/) {}
  template <class H, class Lost>
  void flush_inside(H& h, uint32_t lr, Lost&& lost) {
    TileHostOf<H> host{h, *this};
    flush_tiles(host, lr, lost);
  }
  template <class F>
  void for_each_packet(F&& f) {
    InputQueuedOps<YarcTiledRouter>::for_each_packet(f);
    for_each_transit(f);
  }
  std::string check_inside() const { return check_tiles(); }

 private:
  // ---- 2. the row bus -----------------------------------------------------------
  template <class Host>
  void arm_bus(Host& h, uint32_t in, ps_t t) {
    arm(h, rows_.bus_wake(in), t, kRowBus, in);
  }
  template <class Host>
  void row_bus(Host& h, uint32_t in);
  template <class Host>
  void cross_row_bus(Host& h, uint32_t c, uint32_t rb, uint32_t n, ps_t d1, bool withheld);
  template <class Host>
  void release_input_tail(Host& h, Transit& t, const PhitRun& run);
  template <class Host>
  void give_row_credits(Host& h, Transit& t, const CreditRun& r);
  template <class Host, class Lost>
  void lose(Host& h, uint32_t t, Lost& lost);

  // ---- 3. the subswitch -----------------------------------------------------------
  template <class Host>
  void arm_column(Host& h, uint32_t cc, ps_t t) {
    arm(h, sub_.wake(cc), t, kColumnChannel, cc);
  }
  // The column channel a packet in a row buffer wants.
  uint32_t channel_of(const Transit& t) const {
    const uint32_t in = input_of_channel(t.ib);
    const uint32_t port = in % g_.ports;
    return sub_.channel(in - port + t.out_port, g_.row_group(port));
  }
  template <class Host>
  void request_subswitch(Host& h, uint32_t t);
  template <class Host>
  void choose_exit_row(Host& h, Transit& t);
  template <class Host>
  void column_channel(Host& h, uint32_t cc);
  template <class Host>
  void switch_packet(Host& h, uint32_t cc, uint32_t rb, uint32_t cb, uint32_t n2, ps_t d2);
  template <class Host>
  void request_output(Host& h, uint32_t t);
  template <class Host>
  void give_column_credits(Host& h, uint32_t cb, Transit& t, const CreditRun& r);

  // ---- adaptive packets' two stages ------------------------------------------
  void choose_column(uint32_t c, QEntry& e, uint64_t allowed, ps_t now);
  // Phits in buffer b of `buf` at `now`, as the sender's credits say.
  static uint32_t depth(const WormholeBuffers& buf, size_t b, ps_t now) {
    return buf.cap() - std::min(buf.cap(), buf.credits(b).arrived_by(now));
  }
  // The top bit of a depth counter for a buffer of cap phits.
  static uint32_t top_bit(uint32_t cap) {
    uint32_t b = 1;
    while (cap > 1 && (b << 1) <= cap - 1) b <<= 1;
    return b;
  }

  // ps between a packet's phits across a stage starting at `start`: one per
  // core cycle, unless its tail (at tail_in) arrives from a slower link
  // later than that would need (cut-through cannot outrun its own tail).
  ps_t spacing(ps_t tail_in, ps_t start, uint32_t units, ps_t upstream_every) const {
    if (upstream_every > g_.cycle_ps && tail_in > start + units * g_.cycle_ps)
      return upstream_every;
    return g_.cycle_ps;
  }
  // One pending wake-up per row bus or column channel: the earliest.
  template <class Host>
  void arm(Host& h, ps_t& wake, ps_t t, TileEvent kind, uint32_t a) {
    if (t == kNever || t >= wake) return;
    wake = t;
    h.schedule(tile_event(h, t, kind, a));
  }
  template <class Host>
  static Event tile_event(const Host&, ps_t t, TileEvent kind, uint32_t a) {
    Event e = event_at(t, Host::kind(RouterEvent::tile), a);
    e.port = kind;
    return e;
  }
  template <class F>
  void for_each_record(F&& f) const {
    for (const WormholeBuffers* b : {&rows_.buffers(), &cols_.buffers()})
      for (size_t i = 0; i < b->size(); i++)
        for (uint32_t k = 0; k < b->fifo().len(i); k++) f(transit_[b->fifo().at(i, k)]);
  }

  TileGeometry g_;
  RowBuffers rows_;
  Subswitches sub_;
  ColumnBuffers cols_;
  TransitPool transit_;
  // [input channel]: the last packet to leave the input buffer has left it
  // whole then (kNever: a long packet's tail, not known yet).
  std::vector<ps_t> ib_tail_;
  std::vector<ps_t> unit_in_, unit_out_;  // [port index]: link unit times
  // Adaptive packets: [input channel] the exit rows its head's column
  // allows (0: deterministic); [input * words] each input's matrix arbiter
  // over the columns; [row buffer] the exit row to look at first.
  std::vector<uint32_t> head_rows_;
  std::vector<uint64_t> column_arb_;
  std::vector<uint8_t> row_turn_;
  uint32_t row_half_ = 8, column_full_ = 8, column_half_ = 4;
  mutable std::vector<uint32_t> check_rb_;  // check_tiles' sums, zero between checks
};

}  // namespace fabemu

#include "dataplane/router/yarc_tiled_flow.h"
