// Rank identities (rank_identity.h).
#include "control/mpi/rank_identity.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <sstream>

#include <fmt/format.h>

#include "control/spec/spec_json.h"

namespace fabemu {

namespace {

// The first object dl_iterate_phdr reports is the program itself.
int find_build_id(struct dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* out = static_cast<std::string*>(data);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* nh = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const unsigned char* name = p + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((nh->n_namesz + 3) & ~3u);
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
          std::string(reinterpret_cast<const char*>(name), 3) == "GNU") {
        for (uint32_t k = 0; k < nh->n_descsz; k++) *out += fmt::format("{:02x}", desc[k]);
        return 1;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // the program only
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

std::string program_build_id() {
  std::string id;
  dl_iterate_phdr(find_build_id, &id);
  return id.empty() ? "unknown" : id;
}

std::string spec_fingerprint(const Spec& spec) {
  return fmt::format("{:016x}", fnv1a(resolved_spec_json(spec).dump()));
}

RankIdentity rank_identity(int rank, const Spec& spec) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return {rank, host, program_build_id(), spec_fingerprint(spec)};
}

std::string RankIdentity::encode() const {
  return fmt::format("{}\n{}\n{}\n{}\n", rank, host, binary, spec);
}

RankIdentity RankIdentity::decode(const std::string& text) {
  RankIdentity id;
  std::istringstream in(text);
  std::string rank;
  std::getline(in, rank);
  std::getline(in, id.host);
  std::getline(in, id.binary);
  std::getline(in, id.spec);
  id.rank = rank.empty() ? -1 : std::stoi(rank);
  return id;
}

std::string identity_mismatch(const std::vector<RankIdentity>& ranks) {
  if (ranks.empty()) return {};
  const RankIdentity& root = ranks[0];
  std::string binaries, specs;
  auto who = [](const RankIdentity& r) { return fmt::format("rank {} ({})", r.rank, r.host); };
  for (const RankIdentity& r : ranks)
    if (r.binary == "unknown")
      return fmt::format(
          "{} runs a fabemu linked without a build id, so the ranks cannot check that they run "
          "the same build: link with -Wl,--build-id (Debian's default)",
          who(r));
  for (size_t i = 1; i < ranks.size(); i++) {
    const RankIdentity& r = ranks[i];
    if (r.binary != root.binary)
      binaries += fmt::format("{}{} runs build {}", binaries.empty() ? "" : ", ", who(r), r.binary);
    if (r.spec != root.spec)
      specs += fmt::format("{}{} resolved spec {}", specs.empty() ? "" : ", ", who(r), r.spec);
  }
  std::string out;
  if (!binaries.empty())
    out += fmt::format(
        "the ranks run different fabemu builds: {} runs build {}, {}; install the same build "
        "on every server (`fabemu --version`; the build id is the linker's hash of the "
        "program)",
        who(root), root.binary, binaries);
  if (!specs.empty())
    out += fmt::format(
        "{}the ranks resolved different specs: {} resolved spec {}, {}; give every rank the "
        "same --set options (rank 0's spec file is sent to all)",
        out.empty() ? "" : "; ", who(root), root.spec, specs);
  return out;
}

}  // namespace fabemu
