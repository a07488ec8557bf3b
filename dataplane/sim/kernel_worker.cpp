#include "dataplane/sim/kernel_worker.h"

#include <rte_errno.h>
#include <rte_lcore.h>

namespace fabemu {

void KernelWorker::flush_outbox() {
  for (size_t d = 0; d < outbox.size(); d++) {
    if (!tx[d]) continue;  // a worker of another rank: its events wait for the exchange
    auto& ob = outbox[d];
    size_t sent = 0;
    while (sent < ob.size()) {
      sent += rte_ring_enqueue_burst_elem(tx[d], ob.data() + sent, sizeof(Event),
                                          static_cast<unsigned>(ob.size() - sent), nullptr);
      if (sent < ob.size()) drain_inbox();  // let the peer make room; keep its messages
    }
    ob.clear();
  }
  outbox_min = kNever;
}

void KernelWorker::drain_inbox() {
  Event buf[64];
  for (size_t s = 0; s < rx.size(); s++) {
    if (!rx[s]) continue;
    unsigned n;
    while ((n = rte_ring_dequeue_burst_elem(rx[s], buf, sizeof(Event), 64, nullptr)) > 0)
      inbox.insert(inbox.end(), buf, buf + n);
  }
}

bool connect_workers(const std::vector<KernelWorker*>& workers, const std::vector<unsigned>& lcores,
                     int instance, std::string* err, const std::vector<bool>* local) {
  const size_t nw = workers.size();
  for (KernelWorker* w : workers) {
    w->tx.assign(nw, nullptr);
    w->rx.assign(nw, nullptr);
    w->outbox.assign(nw, {});
    for (auto& ob : w->outbox) ob.reserve(kStagedEvents);
    w->inbox.reserve(kStagedEvents);
  }
  for (size_t a = 0; a < nw; a++) {
    for (size_t b = 0; b < nw; b++) {
      if (a == b || (local && (!(*local)[a] || !(*local)[b]))) continue;
      const std::string name =
          "fx" + std::to_string(instance) + "_" + std::to_string(a) + "_" + std::to_string(b);
      rte_ring* ring =
          rte_ring_create_elem(name.c_str(), sizeof(Event), kCrossCoreRingEvents,
                               rte_lcore_to_socket_id(lcores[b]), RING_F_SP_ENQ | RING_F_SC_DEQ);
      if (!ring) {
        *err = "cannot create cross-core ring " + name + ": " + rte_strerror(rte_errno);
        return false;
      }
      workers[a]->tx[b] = ring;
      workers[b]->rx[a] = ring;
    }
  }
  return true;
}

void disconnect_workers(const std::vector<KernelWorker*>& workers) {
  for (KernelWorker* w : workers) {
    for (rte_ring* r : w->tx)
      if (r) rte_ring_free(r);
    w->tx.assign(w->tx.size(), nullptr);
  }
}

}  // namespace fabemu
