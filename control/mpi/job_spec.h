// The spec of a job of several ranks (mpirun -n R fabemu run|check|describe
// SPEC): rank 0 reads the file and sends its text to every rank, each rank
// applies its own --set options and validates, and then every rank checks
// that all run the same build and resolved the same spec
// (rank_identity.h). Any rank's failure stops every rank, each saying why.
#pragma once
#include <functional>
#include <ostream>
#include <string>

#include "control/mpi/mpi_ranks.h"
#include "control/spec/spec.h"

namespace fabemu {

// Loads the spec on every rank of `job`: `read_file` (rank 0 only) returns
// the file's text or throws SpecError; `load_text` turns text into the spec
// with this rank's overrides (throws SpecError). True on every rank, or
// false on every rank with each rank's message written to err.
bool load_job_spec(const MpiRanks& job, const std::string& file,
                   const std::function<std::string(const std::string&)>& read_file,
                   const std::function<Spec(const std::string&)>& load_text, Spec* spec,
                   std::ostream& err);

// After every rank has its spec: false on every rank, each printing the
// mismatch, when the ranks differ in build or resolved spec.
bool check_job_identity(const MpiRanks& job, const Spec& spec, std::ostream& err);

}  // namespace fabemu
