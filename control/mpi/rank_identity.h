// What every rank of a job must share before it emulates its part of one
// fabric: the same fabemu build (its GNU build id, which the linker derives
// from the program's contents) and the same resolved spec (a hash of the
// spec as every default, file field and --set left it). Rank 0 broadcasts
// its spec file, but each rank applies its own command line's --set
// options, and each server may have its own build: a rank that differs
// would emulate another fabric, so the job stops before it starts.
#pragma once
#include <string>
#include <vector>

#include "control/spec/spec.h"

namespace fabemu {

struct RankIdentity {
  int rank = 0;
  std::string host;
  std::string binary;  // build id (hex), or "unknown"
  std::string spec;    // 64-bit FNV-1a of the resolved spec's JSON (hex)

  std::string encode() const;  // one line per field, for a gather
  static RankIdentity decode(const std::string& text);
};

// This process's identity as rank `rank`, running `spec`.
RankIdentity rank_identity(int rank, const Spec& spec);
// The build id of this program (hex of the .note.gnu.build-id bytes), or
// "unknown" when it was linked without one.
std::string program_build_id();
// The hash of a spec as it resolved (resolved_spec_json).
std::string spec_fingerprint(const Spec& spec);

// Empty when every rank matches rank 0; else what differs, naming the
// ranks and their hosts, and what to do.
std::string identity_mismatch(const std::vector<RankIdentity>& ranks);

}  // namespace fabemu
