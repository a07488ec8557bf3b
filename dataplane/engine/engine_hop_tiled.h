// Engine<R, Link>, continued: a hop through the YARC tiled router
// (router/yarc_tiled.h), for the engine instances whose router model it is.
// The engine routes a packet at the head of its input buffer as for the
// input-queued router (finish_route; an adaptive packet with its allowed
// ports, among which the tiles choose in two stages) and hands it to the
// tiles, which take
// it across the row bus, the subswitch and the column channel with events
// of their own (EventType::tile) and ask the engine, as their Host, to
// route a new head, return input buffer credits upstream and wake an
// output. The output's arbitration over its column buffers' heads is
// try_output's; the grant is here. Included from engine.h only.
#pragma once

namespace fabemu {

template <class R, class L>
struct Engine<R, L>::TileHost {
  Engine& e;
  Worker& w;
  ps_t now() const { return w.now; }
  void schedule(const Event& ev) { w.wheel.push(ev); }
  void route_head(uint32_t c) { e.setup_head(w, c, 0); }
  // Credits leave the input buffer from `first`; they reach the sender
  // after the reverse link's latency.
  void return_credits(uint32_t c, uint32_t units, ps_t first, ps_t every) {
    e.return_credits(w, c, units, first + w.in[c / e.nv_].up_wire_ps, every);
  }
  void wake_output(uint32_t o, ps_t t) { e.arm_wake(w, o, std::max(t, w.out[o].free_ps)); }
  // An adaptive packet's exit row: its output is `to`, not `from`.
  void exit_chosen(rte_mbuf* m, uint32_t from, uint32_t to, uint8_t vc, uint32_t units) {
    e.snap_keep(w, from, vc);
    e.snap_keep(w, to, vc);
    w.pending[size_t(from) * e.nv_ + vc] -= units;
    w.pending[size_t(to) * e.nv_ + vc] += units;
    meta(m)->out_port = static_cast<uint8_t>(to % e.max_ports_);
  }
  // Link-level retry: a damaged copy leaving its input buffer is excised or
  // moves on marked, owed no credits (engine_link_layer.h), as it would
  // leave the input-queued router's buffer at its grant.
  YarcTiledRouter::HeadLeaves head_leaves(uint32_t c) {
    using Leaves = YarcTiledRouter::HeadLeaves;
    if (!e.lcb_) [[likely]]
      return Leaves::go;
    bool withhold = false;
    if (e.lcb_damaged_head(w, c, &withhold)) return Leaves::excised;
    return withhold ? Leaves::withheld : Leaves::go;
  }
};

// Output o's second arbitration stage granted requester (row group, VC):
// the head of that column buffer leaves on the link now.
template <class R, class L>
inline void Engine<R, L>::grant_tiled(Worker& w, uint32_t o, uint32_t requester) {
  TileHost host{*this, w};
  const YarcTiledRouter::Granted g = w.router.output_grant(host, o, requester);
  const OutLink& ol = w.out[o];
  if (faults_ && (ol.dead || ol.progress_timeout)) [[unlikely]] {  // engine_faults.h, _progress.h
    snap_keep(w, o, g.vc);
    w.pending[size_t(o) * nv_ + g.vc] -= g.units;
    discard_at_dead_port(w, g.m, ol.dead ? DropReason::dead_port : DropReason::forward_progress);
    return;
  }
  take_link(w, o, g.units, g.vc);
  deliver_from_link(w, o / max_ports_, o, g.m, g.units, g.vc);
}

// The tiles of every router worker w owns, laid out on the largest radix
// (a rank-2 YARC router is a radix-32 half of one), with the pipeline of
// the tables the run starts with and the unit times of the links.
template <class R, class L>
void Engine<R, L>::setup_tiles(Worker& w) {
  if constexpr (kTiled) {
    const uint32_t nlr = static_cast<uint32_t>(w.routers.size());
    const ps_t pipeline =
        nlr ? R::pipeline_ps(*w.tables.tables, f_.table_router(w.routers[0]), 0, 0) : 0;
    w.router.init_tiles(nlr,
                        TileGeometry::make(max_ports_, cfg_.tiles.degree, nv_, cfg_.tiles.row_units,
                                           cfg_.tiles.column_units, pipeline),
                        cfg_.format.min_units);
    for (uint32_t o = 0; o < w.out.size(); o++)
      w.router.set_link_units(o, w.in[o].unit_ps, w.out[o].unit_ps);
  }
}

}  // namespace fabemu
