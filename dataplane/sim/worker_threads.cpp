#include "dataplane/sim/worker_threads.h"

#include <pthread.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <sched.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "dataplane/core/eal.h"

namespace fabemu {

namespace {

struct ThreadJob {
  KernelWorker* worker;
  const std::vector<int>* cpus;
  const std::function<void(KernelWorker&, const std::string&)>* body;
};

// On the calling thread: placed on job.cpus while the body runs.
void run_placed(const ThreadJob& job) {
  KernelWorker& w = *job.worker;
  const pthread_t self = pthread_self();
  cpu_set_t saved;
  CPU_ZERO(&saved);
  const bool place = !job.cpus->empty() && pthread_getaffinity_np(self, sizeof(saved), &saved) == 0;
  std::string placement_error;
  if (place) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : *job.cpus) CPU_SET(c, &set);
    if (pthread_setaffinity_np(self, sizeof(set), &set) != 0)
      placement_error = "cannot place worker " + std::to_string(w.id) + " on CPU(s) " +
                        cpu_list_text(*job.cpus) + ": " + std::strerror(errno);
  }
  cpu_set_t now;
  CPU_ZERO(&now);
  if (pthread_getaffinity_np(self, sizeof(now), &now) == 0) w.cpus = cpu_list(now);
  rusage r0{}, r1{};
  getrusage(RUSAGE_THREAD, &r0);
  (*job.body)(w, placement_error);
  getrusage(RUSAGE_THREAD, &r1);
  w.preempted = static_cast<uint64_t>(r1.ru_nivcsw - r0.ru_nivcsw);
  if (place) pthread_setaffinity_np(self, sizeof(saved), &saved);
}

int lcore_main(void* arg) {
  run_placed(*static_cast<const ThreadJob*>(arg));
  return 0;
}

}  // namespace

bool assign_lcores(const std::vector<KernelWorker*>& workers, std::string* err) {
  unsigned lc = rte_get_main_lcore();
  workers[0]->lcore = lc;
  for (size_t i = 1; i < workers.size(); i++) {
    lc = rte_get_next_lcore(lc, 1, 0);
    if (lc >= RTE_MAX_LCORE) {
      *err = "run.workers is " + std::to_string(workers.size()) + " but DPDK has only " +
             std::to_string(rte_lcore_count()) + " lcore(s); lower run.workers";
      return false;
    }
    workers[i]->lcore = lc;
  }
  return true;
}

bool run_worker_threads(const std::vector<KernelWorker*>& workers,
                        const std::vector<std::vector<int>>& placement,
                        const std::function<void(KernelWorker&, const std::string&)>& body,
                        std::string* err) {
  static const std::vector<int> kNowhere;
  std::vector<ThreadJob> jobs;
  for (KernelWorker* w : workers) {
    const size_t i = static_cast<size_t>(w->id);
    jobs.push_back({w, i < placement.size() ? &placement[i] : &kNowhere, &body});
  }
  for (size_t i = 1; i < workers.size(); i++) {
    if (rte_eal_remote_launch(&lcore_main, &jobs[i], workers[i]->lcore) != 0) {
      *err = "cannot launch worker " + std::to_string(i) + " on lcore " +
             std::to_string(workers[i]->lcore) + " (busy?)";
      return false;
    }
  }
  run_placed(jobs[0]);
  for (size_t i = 1; i < workers.size(); i++) rte_eal_wait_lcore(workers[i]->lcore);
  return true;
}

}  // namespace fabemu
