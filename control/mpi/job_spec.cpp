// The spec of a job of several ranks (job_spec.h).
#include "control/mpi/job_spec.h"

#include <fmt/format.h>

#include "control/mpi/rank_identity.h"
#include "control/spec/spec_error.h"

namespace fabemu {

bool load_job_spec(const MpiRanks& job, const std::string& file,
                   const std::function<std::string(const std::string&)>& read_file,
                   const std::function<Spec(const std::string&)>& load_text, Spec* spec,
                   std::ostream& err) {
  const std::string me = fmt::format("fabemu rank {}: ", job.rank());
  // Rank 0's file, or why it has none ("!" then the message).
  std::string sent;
  if (job.root()) {
    try {
      sent = "=" + read_file(file);
    } catch (const SpecError& e) {
      sent = std::string("!") + e.what();
    }
  }
  sent = job.broadcast(sent);
  if (sent.empty() || sent[0] == '!') {
    err << me << (sent.empty() ? "rank 0 sent no spec" : sent.substr(1)) << "\n";
    return false;  // (every rank got the same text)
  }
  bool ok = true;
  try {
    *spec = load_text(sent.substr(1));
  } catch (const SpecError& e) {
    err << me << e.what() << "\n";
    ok = false;
  }
  if (job.all_ok(ok)) return true;
  if (ok)
    err << me << "another rank could not load the spec (its error is printed with its rank); "
        << "every rank stops\n";
  return false;
}

bool check_job_identity(const MpiRanks& job, const Spec& spec, std::ostream& err) {
  std::vector<RankIdentity> all;
  for (const std::string& text : job.all_gather(rank_identity(job.rank(), spec).encode()))
    all.push_back(RankIdentity::decode(text));
  const std::string why = identity_mismatch(all);
  if (why.empty()) return true;
  err << fmt::format("fabemu rank {}: {}\n", job.rank(), why);
  return false;
}

}  // namespace fabemu
