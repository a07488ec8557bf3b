// Engine<R, Link>, continued: a run over several MPI ranks
// (sim/rank_link.h). Rank q runs workers q*W .. q*W+W-1 of the run's R*W
// (W = local_count_, the same on every rank); the others are stand-ins.
// At every window edge the rank's first worker sends each other rank its
// workers' publications and the events they staged for that rank's
// workers (a packet's metadata and bytes with its arrival; its buffer here
// is freed), and takes theirs into its workers' inboxes as the rings
// would have brought them. At the end each rank's workers' counters go to
// rank 0's stand-ins (dataplane/stats/stats_wire.h), which merges as one
// process does. Included from engine.h only.
#pragma once

#include "dataplane/stats/stats_wire.h"

namespace fabemu {

template <class R, class L>
bool Engine<R, L>::exchange_ranks(WindowPublication<WindowCounts>* pubs, uint8_t parity) {
  RankLink& link = *cfg_.ranks;
  const int nr = link.ranks(), me = link.rank(), per = local_count_;
  const EventKind arrive = event_kind(LinkEvent::remote_arrive);
  Worker& self = *workers_[local_first_];
  rank_out_.resize(nr);
  for (int q = 0; q < nr; q++) {
    rank_out_[q].clear();
    if (q == me) continue;
    WireWriter out(&rank_out_[q]);
    for (int s = local_first_; s < local_first_ + per; s++) out.put(pubs[s]);
    for (int s = local_first_; s < local_first_ + per; s++) {
      Worker& w = *workers_[s];
      for (int d = q * per; d < (q + 1) * per; d++) {
        std::vector<Event>& staged = w.outbox[d];
        out.put<uint64_t>(staged.size());
        for (Event ev : staged) {
          rte_mbuf* m = ev.kind == arrive ? ev.m : nullptr;
          if (m) ev.m = nullptr;
          out.put(ev);
          if (!m) continue;
          if (m->nb_segs != 1) {
            fail(self, "a packet of several buffer segments cannot cross to another rank");
            return false;
          }
          out.put(*meta(m));
          out.put<uint16_t>(rte_pktmbuf_data_len(m));
          out.put_bytes(rte_pktmbuf_mtod(m, const void*), rte_pktmbuf_data_len(m));
          rte_pktmbuf_free(m);  // (its copy lives on there)
        }
        staged.clear();
      }
    }
  }
  std::string why;
  if (!link.exchange(rank_out_, &rank_in_, &why)) {
    fail(self, "the exchange with the other ranks failed: " + why);
    return false;
  }
  for (int q = 0; q < nr; q++) {
    if (q == me) continue;
    WireReader in(rank_in_[q]);
    for (int s = q * per; s < (q + 1) * per; s++) in.get(&pubs[s]);
    for (int s = q * per; s < (q + 1) * per; s++) {
      for (int d = local_first_; d < local_first_ + per; d++) {
        Worker& w = *workers_[d];
        const uint64_t n = in.get<uint64_t>();
        for (uint64_t i = 0; i < n && in.ok(); i++) {
          Event ev = in.get<Event>();
          ev.window = parity;
          if (ev.kind == arrive) {
            const PacketMeta pm = in.get<PacketMeta>();
            const uint16_t len = in.get<uint16_t>();
            rte_mbuf* m = nullptr;
            if (!w.pool.alloc_bulk(&m, 1)) {
              fail(self, "no packet buffer for a packet from rank " + std::to_string(q));
              return false;
            }
            char* data = rte_pktmbuf_append(m, len);
            if (!data) {
              rte_pktmbuf_free(m);
              fail(self, "a packet from rank " + std::to_string(q) + " does not fit a buffer");
              return false;
            }
            in.get_bytes(data, len);
            *meta(m) = pm;
            ev.m = m;
          }
          w.inbox.push_back(ev);
        }
      }
    }
    if (!in.done()) {
      fail(self, "rank " + std::to_string(q) + " sent a window edge this rank cannot read");
      return false;
    }
  }
  return true;
}

template <class R, class L>
bool Engine<R, L>::gather_ranks(std::string* err) {
  RankLink& link = *cfg_.ranks;
  std::string mine;
  WireWriter out(&mine);
  RunStats models;  // this rank's router models' totals, first
  for (int s = local_first_; s < local_first_ + local_count_; s++)
    workers_[s]->router.add_counters(models);
  put_model_counters(out, models);
  for (int s = local_first_; s < local_first_ + local_count_; s++) {
    Worker& w = *workers_[s];
    put_kernel_counters(out, w);
    if (!put_worker_stats(out, w.st)) {
      *err = "a run over several ranks cannot gather sample periods or port statistics";
      return false;
    }
    out.put(w.faults.lost);
  }
  std::vector<std::string> all;
  if (!link.gather(mine, &all, err)) return false;
  if (link.rank() != 0) return true;
  rank_models_ = RunStats{};
  for (int q = 1; q < link.ranks(); q++) {
    WireReader in(all[q]);
    add_model_counters(in, &rank_models_);
    for (int s = q * local_count_; s < (q + 1) * local_count_; s++) {
      Worker& w = *workers_[s];
      get_kernel_counters(in, &w);
      get_worker_stats(in, &w.st);
      w.faults.lost = in.get<uint64_t>();
    }
    if (!in.done()) {
      *err = "rank " + std::to_string(q) + "'s counters could not be read";
      return false;
    }
  }
  return true;
}

}  // namespace fabemu
