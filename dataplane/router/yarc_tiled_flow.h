// YarcTiledRouter, continued: a packet's way from its input buffer across
// the row bus, the subswitch and the column channel to its output, and the
// credits its phits give back as they leave each buffer (section 7.5:
// wormhole inside, yarc_wormhole.h). Included from yarc_tiled.h only.
#pragma once

namespace fabemu {

// The row bus of input `in` takes the head of one of its VCs (their turns
// round robin) when it is routed, through the input stages, the packet
// before it has left the input buffer whole, and its row buffer has room
// for it.
template <class Host>
void YarcTiledRouter::row_bus(Host& h, uint32_t in) {
  const ps_t now = h.now();
  if (rows_.bus_free(in) > now) {
    arm_bus(h, in, rows_.bus_free(in));
    return;
  }
  const uint32_t n_v = nv();
  uint8_t& turn = rows_.bus_turn(in);
  ps_t wake = kNever;
  for (uint32_t k = 0, v = turn; k < n_v; k++, v = v + 1 == n_v ? 0 : v + 1) {
    const uint32_t c = in * n_v + v;
    if (len(c) == 0) continue;
    const QEntry& e = head(c);
    if (!e.routed) continue;  // the host routes it later (an adaptive head's arrival)
    const ps_t go = std::max(e.arrive + g_.input_ps, ib_tail_[c]);
    if (go > now) {
      wake = std::min(wake, go);  // kNever: release_input_tail wakes it
      continue;
    }
    const uint32_t rb = rows_.index(in, g_.column_group(e.out_port), v);
    const uint32_t n = phits_in(e.units, g_.row_units);
    const ps_t d1 = spacing(e.arrive + e.units * unit_in_[in], now, e.units, unit_in_[in]);
    const ps_t s = stream_start(rows_.buffers().credits(rb), n, now, d1);
    if (s == kNever) {
      rows_.buffers().set_waiting(rb);
      continue;
    }
    if (s > now) {
      wake = std::min(wake, s);
      continue;
    }
    const HeadLeaves leaves = h.head_leaves(c);
    if (leaves == HeadLeaves::excised) continue;  // gone, as if it had not come
    turn = static_cast<uint8_t>(v + 1 == n_v ? 0 : v + 1);
    cross_row_bus(h, c, rb, n, d1, leaves == HeadLeaves::withheld);
    // A head of another VC waits for the bus.
    for (uint32_t u = 0; u < n_v; u++)
      if (u != v && len(in * n_v + u) && head(in * n_v + u).routed) {
        arm_bus(h, in, rows_.bus_free(in));
        break;
      }
    return;
  }
  arm_bus(h, in, wake);
}

// The head of input channel c crosses the row bus into row buffer rb, n of
// its phits at once, one every d1 (withheld: its input buffer credits are
// not returned, HeadLeaves).
template <class Host>
void YarcTiledRouter::cross_row_bus(Host& h, uint32_t c, uint32_t rb, uint32_t n, ps_t d1,
                                    bool withheld) {
  const ps_t now = h.now();
  const QEntry e = pop(c, now);
  const uint32_t t = transit_.alloc();
  Transit& tr = transit_[t];
  tr = Transit{};
  tr.m = e.m;
  tr.arrive = e.arrive;
  tr.out_ready = e.ready;
  tr.s_rb = now;
  tr.ready = now + g_.row_bus_ps + g_.subswitch_ps;
  tr.ib = c;
  tr.rb = rb;
  tr.d1 = static_cast<uint32_t>(d1);
  tr.units = e.units;
  tr.out_port = e.out_port;
  tr.out_vc = e.out_vc;
  tr.rb_owed = static_cast<uint16_t>(n);
  tr.ib_owed = static_cast<uint16_t>(e.units - n);
  tr.ib_withheld = withheld;
  tr.rows = head_rows_[c];
  rows_.buffers().credits(rb).take(n);
  rows_.bus_free(input_of_channel(c)) = now + n * d1;
  // The input buffer: the phits the row buffer takes leave now; a longer
  // packet's tail waits for its head to move on (release_input_tail).
  const PhitRun a{now, d1, 0, n};
  if (!withheld) [[likely]]
    h.return_credits(c, n, a.leave(0) + d1, d1);
  else  // owed no credits: its units count neither in nor out (conservation)
    forget(c, e.units);
  ib_tail_[c] = tr.ib_owed ? kNever : a.end();
  TransitFifos& q = rows_.buffers().fifo();
  const bool first = q.len(rb) == 0;
  q.push(rb, t);
  if (first) request_subswitch(h, t);
  if (len(c)) h.route_head(c);
}

// The last of a long packet's phits in its input buffer leave (run).
template <class Host>
void YarcTiledRouter::release_input_tail(Host& h, Transit& t, const PhitRun& run) {
  if (!t.ib_withheld)
    h.return_credits(t.ib, run.count(), run.leave(run.from) + run.every, run.every);
  t.ib_owed = static_cast<uint16_t>(t.ib_owed - run.count());
  if (t.ib_owed) return;
  ib_tail_[t.ib] = run.end();
  if (len(t.ib) && head(t.ib).routed)
    arm_bus(h, input_of_channel(t.ib), std::max({h.now(), run.end(), head(t.ib).arrive + g_.input_ps}));
}

template <class Host>
void YarcTiledRouter::give_row_credits(Host& h, Transit& t, const CreditRun& r) {
  if (r.n == 0) return;
  t.rb_owed = static_cast<uint16_t>(t.rb_owed - r.n);
  WormholeBuffers& b = rows_.buffers();
  if (!b.give_back(t.rb, r, h.now())) {
    Event ev = tile_event(h, r.first, kRowCredits, t.rb);
    ev.amount = static_cast<uint16_t>(r.n);
    ev.unit_ps = r.every;
    h.schedule(ev);
  } else if (b.take_waiting(t.rb)) {
    arm_bus(h, rows_.input_of(t.rb), h.now());
  }
}

// Packet t is now the head of its row buffer: it requests its column
// channel, for when it is through the subswitch's input stages and the
// packet before it has left the row buffer whole.
template <class Host>
void YarcTiledRouter::request_subswitch(Host& h, uint32_t t) {
  Transit& tr = transit_[t];
  if (tr.rows) choose_exit_row(h, tr);
  const uint32_t cc = channel_of(tr);
  const uint32_t port = input_of_channel(tr.ib) % g_.ports;
  sub_.request(cc, sub_.requester(g_.row_slot(port), vc_of_channel(tr.ib)));
  arm_column(h, cc, std::max(tr.ready, rows_.buffers().tail_out(tr.rb)));
}

// Column channel cc (first arbitration stage) takes one of the row buffer
// heads that want it when it is free and their column buffer has room.
template <class Host>
void YarcTiledRouter::column_channel(Host& h, uint32_t cc) {
  const ps_t now = h.now();
  if (sub_.requests(cc) == 0) return;
  if (sub_.free_at(cc) > now) {
    arm_column(h, cc, sub_.free_at(cc));
    return;
  }
  const uint32_t o = sub_.output_of(cc);
  const uint32_t out_port = o % g_.ports;
  const uint32_t in0 = o - out_port + g_.first_input(sub_.row_group_of(cc));
  const uint32_t column = g_.column_group(out_port);
  WormholeBuffers& rb_buf = rows_.buffers();
  WormholeBuffers& cb_buf = cols_.buffers();
  ps_t wake = kNever, d2 = 0;
  uint32_t won_rb = 0, won_cb = 0, n2 = 0;
  const int32_t won = sub_.arbitrate(cc, [&](uint32_t i) {
    const uint32_t rb = rows_.index(in0 + sub_.requester_slot(i), column, sub_.requester_vc(i));
    const Transit& t = transit_[rb_buf.fifo().head(rb)];
    const ps_t go = std::max(t.ready, rb_buf.tail_out(rb));
    if (go > now) {
      wake = std::min(wake, go);  // kNever: output_grant wakes it
      return false;
    }
    const uint32_t cb = cols_.index(cc, t.out_vc);
    const uint32_t n = phits_in(t.units, g_.column_units);
    const ps_t d = spacing(t.s_rb + t.units * t.d1 + g_.row_bus_ps, now, t.units, t.d1);
    const ps_t s = stream_start(cb_buf.credits(cb), n, now, d);
    if (s == kNever) {
      cb_buf.set_waiting(cb);
      return false;
    }
    if (s > now) {
      wake = std::min(wake, s);
      return false;
    }
    won_rb = rb;
    won_cb = cb;
    n2 = n;
    d2 = d;
    return true;
  });
  if (won < 0) {
    arm_column(h, cc, wake);
    return;
  }
  sub_.withdraw(cc, static_cast<uint32_t>(won));
  switch_packet(h, cc, won_rb, won_cb, n2, d2);
  if (sub_.requests(cc)) arm_column(h, cc, sub_.free_at(cc));
}

// The head of row buffer rb goes onto column channel cc into column buffer
// cb, n2 of its phits at once, one every d2.
template <class Host>
void YarcTiledRouter::switch_packet(Host& h, uint32_t cc, uint32_t rb, uint32_t cb, uint32_t n2,
                                    ps_t d2) {
  const ps_t now = h.now();
  WormholeBuffers& rb_buf = rows_.buffers();
  WormholeBuffers& cb_buf = cols_.buffers();
  const uint32_t t = rb_buf.fifo().pop(rb);
  Transit& tr = transit_[t];
  tr.s_cc = now;
  tr.d2 = static_cast<uint32_t>(d2);
  tr.cb = cb;
  tr.cb_owed = static_cast<uint16_t>(n2);
  cb_buf.credits(cb).take(n2);
  sub_.free_at(cc) = now + n2 * d2;
  // The row buffer: the phits the column buffer takes leave now, the rest
  // as the output drains it (output_grant).
  const uint32_t n1 = phits_in(tr.units, g_.row_units);
  const PhitRun r1{now, d2, 0, n2};
  give_row_credits(h, tr, credits_of(r1, tr.units, n1));
  rb_buf.tail_out(rb) = tr.units > n2 ? kNever : r1.end();
  // A tail still in the input buffer moves into the room this frees.
  if (tr.ib_owed)
    release_input_tail(
        h, tr,
        follow(n1, std::min<uint32_t>(tr.units, n1 + n2), tr.s_rb + n1 * tr.d1, tr.d1, r1, n1));
  if (rb_buf.fifo().len(rb)) request_subswitch(h, rb_buf.fifo().head(rb));
  // Into the column buffer: its head requests the output once through the
  // column channel and the output stages, never before the pipeline allows,
  // nor so early that the output link would outrun the tail.
  const ps_t unit_out = unit_out_[sub_.output_of(cc)];
  ps_t ready = std::max(now + g_.column_ps + g_.output_ps, tr.out_ready);
  if (d2 > unit_out) ready = std::max(ready, now + g_.column_ps + (tr.units - 1) * (d2 - unit_out));
  tr.ready = ready;
  TransitFifos& q = cb_buf.fifo();
  const bool first = q.len(cb) == 0;
  q.push(cb, t);
  if (first) request_output(h, t);
}

template <class Host>
void YarcTiledRouter::request_output(Host& h, uint32_t t) {
  const Transit& tr = transit_[t];
  const uint32_t o = sub_.output_of(cols_.channel_of(tr.cb));
  request(o, requester(sub_.row_group_of(cols_.channel_of(tr.cb)), tr.out_vc));
  h.wake_output(o, tr.ready);
}

template <class Host>
void YarcTiledRouter::give_column_credits(Host& h, uint32_t cb, Transit& t, const CreditRun& r) {
  if (r.n == 0) return;
  t.cb_owed = static_cast<uint16_t>(t.cb_owed - r.n);
  WormholeBuffers& b = cols_.buffers();
  if (!b.give_back(cb, r, h.now())) {
    Event ev = tile_event(h, r.first, kColumnCredits, cb);
    ev.amount = static_cast<uint16_t>(r.n);
    ev.unit_ps = r.every;
    h.schedule(ev);
  } else if (b.take_waiting(cb)) {
    arm_column(h, cols_.channel_of(cb), h.now());
  }
}

// The second stage granted the head of the column buffer behind requester
// i of output o: it leaves on the link now, one phit per link unit, and
// the phits it left behind upstream follow.
template <class Host>
YarcTiledRouter::Granted YarcTiledRouter::output_grant(Host& h, uint32_t o, uint32_t i) {
  const ps_t now = h.now();
  withdraw(o, i);
  const uint32_t cb = cols_.of_requester(o, requester_port(i), requester_vc(i));
  WormholeBuffers& cb_buf = cols_.buffers();
  const uint32_t t = cb_buf.fifo().pop(cb);
  Transit& tr = transit_[t];
  const uint32_t units = tr.units;
  const uint32_t n1 = phits_in(units, g_.row_units), n2 = phits_in(units, g_.column_units);
  const PhitRun out{now, unit_out_[o], 0, units};
  give_column_credits(h, cb, tr, credits_of(out, units, n2));
  if (units > n2) {
    // The rest of the packet leaves its row buffer as the column buffer
    // drains, and any tail in the input buffer behind it.
    const PhitRun r1{tr.s_cc, tr.d2, 0, n2};
    const PhitRun r2 = follow(n2, units, r1.end(), tr.d2, out, n2);
    give_row_credits(h, tr, credits_of(r2, units, n1));
    WormholeBuffers& rb_buf = rows_.buffers();
    rb_buf.tail_out(tr.rb) = r2.end();
    if (rb_buf.fifo().len(tr.rb)) {
      const Transit& next = transit_[rb_buf.fifo().head(tr.rb)];
      arm_column(h, channel_of(next), std::max({now, next.ready, r2.end()}));
    }
    if (tr.ib_owed) {
      const PhitRun b = follow(n1, n1 + n2, tr.s_rb + n1 * tr.d1, tr.d1, r1, n1);
      release_input_tail(h, tr, follow(n1 + n2, units, b.end(), tr.d1, r2, n1));
    }
  }
  if (cb_buf.fifo().len(cb)) request_output(h, cb_buf.fifo().head(cb));
  const Granted g{tr.m, units, tr.out_vc};
  transit_.release(t);
  return g;
}

// Adaptive, first stage (section 5.1; 7.8.3): the head of input channel c
// goes to one of the columns its allowed ports are in, one whose row
// buffer (this input's, for that column and the packet's VC) is less than
// half full if there is one, the input's matrix arbiter breaking ties.
inline void YarcTiledRouter::choose_column(uint32_t c, QEntry& e, uint64_t allowed, ps_t now) {
  const uint32_t in = input_of_channel(c), v = vc_of_channel(c), n_groups = g_.groups;
  uint64_t columns = 0, roomy = 0;
  for (uint64_t a = allowed; a; a &= a - 1)
    columns |= uint64_t{1} << g_.column_group(static_cast<uint32_t>(__builtin_ctzll(a)));
  for (uint64_t k = columns; k; k &= k - 1) {
    const uint32_t col = static_cast<uint32_t>(__builtin_ctzll(k));
    if (depth(rows_.buffers(), rows_.index(in, col, v), now) < row_half_)
      roomy |= uint64_t{1} << col;
  }
  uint64_t* arb = &column_arb_[size_t(in) * MatrixArbiter::words(n_groups)];
  const uint32_t col = static_cast<uint32_t>(MatrixArbiter::pick(arb, roomy ? roomy : columns));
  MatrixArbiter::grant(arb, n_groups, col);
  // The rows of that column the packet may leave by (port = row * groups + column).
  uint32_t rows = 0;
  for (uint64_t a = allowed; a; a &= a - 1) {
    const uint32_t p = static_cast<uint32_t>(__builtin_ctzll(a));
    if (g_.column_group(p) == col) rows |= 1u << (p / n_groups);
  }
  head_rows_[c] = rows;
  e.out_port = static_cast<uint8_t>(col + n_groups * static_cast<uint32_t>(__builtin_ctz(rows)));
}

// Adaptive, second stage: the packet at the head of its row buffer leaves
// its column by the allowed row whose column buffer (at that output, for
// this row group and VC) is emptiest by YARC's measure: below column_half_
// phits, then below column_full_, then the rest; ties go round robin from
// the row after the last one this row buffer chose.
template <class Host>
void YarcTiledRouter::choose_exit_row(Host& h, Transit& t) {
  const uint32_t in = input_of_channel(t.ib), port = in % g_.ports, o0 = in - port;
  const uint32_t n_groups = g_.groups, col = g_.column_group(t.out_port);
  const uint32_t rg = g_.row_group(port), n_rows = g_.degree;
  const WormholeBuffers& cb_buf = cols_.buffers();
  uint8_t& turn = row_turn_[t.rb];
  uint32_t best = 0, best_class = 3;
  for (uint32_t k = 0, r = turn; k < n_rows; k++, r = r + 1 == n_rows ? 0 : r + 1) {
    if (!((t.rows >> r) & 1)) continue;
    const uint32_t cc = sub_.channel(o0 + col + n_groups * r, rg);
    const uint32_t d = depth(cb_buf, cols_.index(cc, t.out_vc), h.now());
    const uint32_t cls = d >= column_full_ ? 2 : d >= column_half_ ? 1 : 0;
    if (cls < best_class) {
      best_class = cls;
      best = r;
      if (cls == 0) break;
    }
  }
  turn = static_cast<uint8_t>(best + 1 == n_rows ? 0 : best + 1);
  t.rows = 0;
  const uint32_t from = t.out_port, to = col + n_groups * best;
  if (to == from) return;
  t.out_port = static_cast<uint8_t>(to);
  h.exit_chosen(t.m, o0 + from, o0 + to, t.out_vc, t.units);
}

// Packet t is lost where it is (a dead router): what it owes its column
// buffer, its row buffer and its input buffer comes back now.
template <class Host, class Lost>
void YarcTiledRouter::lose(Host& h, uint32_t t, Lost& lost) {
  Transit& tr = transit_[t];
  const ps_t now = h.now(), every = g_.cycle_ps;
  if (tr.cb_owed) give_column_credits(h, tr.cb, tr, CreditRun{tr.cb_owed, now, every});
  if (tr.rb_owed) give_row_credits(h, tr, CreditRun{tr.rb_owed, now, every});
  if (rows_.buffers().tail_out(tr.rb) == kNever) rows_.buffers().tail_out(tr.rb) = now;
  if (tr.ib_owed) {
    if (!tr.ib_withheld) h.return_credits(tr.ib, tr.ib_owed, now, every);
    tr.ib_owed = 0;
    ib_tail_[tr.ib] = now;
  }
  const uint32_t in = input_of_channel(tr.ib);
  lost(tr.m, in - in % g_.ports + tr.out_port, tr.out_vc, static_cast<uint32_t>(tr.units));
  transit_.release(t);
}

template <class Host, class Lost>
void YarcTiledRouter::flush_tiles(Host& h, uint32_t lr, Lost&& lost) {
  const uint32_t p0 = lr * g_.ports, n_v = nv();
  WormholeBuffers& rb_buf = rows_.buffers();
  WormholeBuffers& cb_buf = cols_.buffers();
  // Column buffers: each head has requested its output.
  for (uint32_t o = p0; o < p0 + g_.ports; o++)
    for (uint32_t rg = 0; rg < g_.groups; rg++)
      for (uint32_t v = 0; v < n_v; v++) {
        const uint32_t cb = cols_.index(sub_.channel(o, rg), v);
        if (cb_buf.fifo().len(cb)) withdraw(o, requester(rg, v));
        while (cb_buf.fifo().len(cb)) lose(h, cb_buf.fifo().pop(cb), lost);
      }
  // Row buffers: each head has requested its column channel.
  for (uint32_t in = p0; in < p0 + g_.ports; in++)
    for (uint32_t col = 0; col < g_.groups; col++)
      for (uint32_t v = 0; v < n_v; v++) {
        const uint32_t rb = rows_.index(in, col, v);
        if (rb_buf.fifo().len(rb)) {
          const Transit& head = transit_[rb_buf.fifo().head(rb)];
          sub_.withdraw(channel_of(head), sub_.requester(g_.row_slot(in % g_.ports), v));
        }
        while (rb_buf.fifo().len(rb)) lose(h, rb_buf.fifo().pop(rb), lost);
      }
}

inline std::string YarcTiledRouter::check_tiles() const {
  const WormholeBuffers& rb_buf = rows_.buffers();
  const WormholeBuffers& cb_buf = cols_.buffers();
  // What a packet owes a buffer it is still in: its column buffer's
  // credits while queued there; its row buffer's while queued there, and
  // after, while its tail is still in it (tail_owed_, kept zero between
  // checks so that a check walks the buffers once and allocates nothing).
  std::vector<uint32_t>& tail_owed = check_rb_;
  if (tail_owed.size() != rb_buf.size()) tail_owed.assign(rb_buf.size(), 0);
  for (size_t b = 0; b < cb_buf.size(); b++)
    for (uint32_t k = 0; k < cb_buf.fifo().len(b); k++) {
      const Transit& t = transit_[cb_buf.fifo().at(b, k)];
      tail_owed[t.rb] += t.rb_owed;
    }
  // Formats the first buffer found wrong (the loops below only compare).
  auto wrong = [](const char* what, const WormholeBuffers& buf, size_t b, uint64_t owed) {
    return std::string(what) + " " + std::to_string(b) + ": credits " +
           std::to_string(buf.credits(b).held()) + " + on their way " +
           std::to_string(buf.deferred(b)) + " + owed by its packets " + std::to_string(owed) +
           " != " + std::to_string(buf.cap());
  };
  std::string bad;
  for (size_t b = 0; b < rb_buf.size(); b++) {
    uint64_t owed = tail_owed[b];
    tail_owed[b] = 0;
    for (uint32_t k = 0; k < rb_buf.fifo().len(b); k++)
      owed += transit_[rb_buf.fifo().at(b, k)].rb_owed;
    if (rb_buf.credits(b).held() + rb_buf.deferred(b) + owed != rb_buf.cap() && bad.empty())
      bad = wrong("row buffer", rb_buf, b, owed);
  }
  for (size_t b = 0; b < cb_buf.size() && bad.empty(); b++) {
    uint64_t owed = 0;
    for (uint32_t k = 0; k < cb_buf.fifo().len(b); k++)
      owed += transit_[cb_buf.fifo().at(b, k)].cb_owed;
    if (cb_buf.credits(b).held() + cb_buf.deferred(b) + owed != cb_buf.cap())
      bad = wrong("column buffer", cb_buf, b, owed);
  }
  return bad;
}

}  // namespace fabemu
