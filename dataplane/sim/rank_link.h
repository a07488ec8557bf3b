// The other processes (MPI ranks) of a job that emulates one fabric, as the
// virtual-time kernel sees them: at every window edge each rank sends every
// other rank what it has for it (its workers' publications and the events
// they staged for workers there) and takes what each sent it; at the end of
// the run the ranks' results go to rank 0. The control plane implements it
// over MPI (control/mpi/mpi_rank_link.h); the kernel calls it from one
// thread of each rank (its first worker's, which is the process's main
// thread), once per window edge: never per event.
#pragma once
#include <string>
#include <vector>

namespace fabemu {

class RankLink {
 public:
  virtual ~RankLink() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Sends out[q] to every rank q (out[rank()] is not sent) and fills in[q]
  // with what rank q sent this one. False with *err when the job broke (a
  // rank is gone): the run stops.
  virtual bool exchange(const std::vector<std::string>& out, std::vector<std::string>* in,
                        std::string* err) = 0;
  // Every rank's `mine`, in rank order, on rank 0 (elsewhere `all` is left
  // empty).
  virtual bool gather(const std::string& mine, std::vector<std::string>* all,
                      std::string* err) = 0;
};

}  // namespace fabemu
