#include "control/run/replay_load.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "pcap-tools/pcap_reader.h"

namespace fabemu {

std::shared_ptr<const ReplayTrace> load_replay(const std::string& path, const std::string& interface,
                                               uint32_t* longest) {
  constexpr uint16_t kLinktypeEthernet = 1;
  constexpr uint32_t kOutbound = 2;
  constexpr size_t kMaxBytes = size_t(1) << 30;  // the trace is held in memory
  PcapReader r;
  std::string err;
  if (!r.open(path, &err)) throw std::runtime_error("replay: " + err);
  auto trace = std::make_shared<ReplayTrace>();
  // Room for the whole file at once: grown by doubling, the trace would take
  // up to twice its size while copied, and the memory estimate counts it as
  // its file's size (control/run/run_memory.h). Capacity never written is
  // not taken from the machine.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    const size_t bytes = std::min<size_t>(size_t(st.st_size), kMaxBytes);
    const size_t records = bytes / 16 + 1;  // a record's header on disk: 16 bytes at least
    trace->bytes.reserve(bytes);
    trace->t_ps.reserve(records);
    trace->start.reserve(records + 1);
  }
  std::set<std::string> names;
  bool named = false, first = true;
  uint64_t t0 = 0, skipped_links = 0;
  *longest = 0;
  for (PcapRecord rec; r.next(&rec);) {
    const PcapInterface& i = r.interfaces()[rec.iface];
    names.insert(i.name.empty() ? "(unnamed)" : i.name);
    if (!interface.empty()) {
      if (i.name != interface) continue;
      named = true;
    }
    if (i.linktype != kLinktypeEthernet) {
      skipped_links++;
      continue;
    }
    if ((rec.flags & 3) == kOutbound) continue;
    if (rec.data.size() < rec.orig_len)
      throw std::runtime_error(fmt::format(
          "replay: {}: frame {} was captured with {} of its {} bytes (snapshot length): a "
          "replayed host sends whole frames; capture with a larger snaplen",
          path, trace->frames(), rec.data.size(), rec.orig_len));
    if (first) t0 = rec.ts_ns, first = false;
    if (rec.ts_ns < t0)
      throw std::runtime_error(fmt::format(
          "replay: {}: frame {} is stamped {} ns before the first one; sort the file by time "
          "(reordercap)",
          path, trace->frames(), t0 - rec.ts_ns));
    if (rec.ts_ns - t0 > kMaxReplaySpanPs / kPsPerNs)
      throw std::runtime_error(fmt::format(
          "replay: {}: frame {} is stamped {:.1f} days after the first; a replay spans at most "
          "{:.1f} days (emulated time is counted in picoseconds): replay a part of it (editcap "
          "-A/-B) or fix its timestamps",
          path, trace->frames(), double(rec.ts_ns - t0) / 86400e9, kMaxReplaySpanDays));
    if (trace->bytes.size() + rec.data.size() > kMaxBytes)
      throw std::runtime_error("replay: " + path + " holds more than 1 GiB of frames; replay a part "
                               "of it (editcap -c)");
    trace->add((rec.ts_ns - t0) * kPsPerNs, rec.data.data(), static_cast<uint32_t>(rec.data.size()));
    *longest = std::max<uint32_t>(*longest, static_cast<uint32_t>(rec.data.size()));
  }
  if (!r.error().empty()) throw std::runtime_error("replay: " + r.error());
  if (!interface.empty() && !named) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw std::runtime_error(fmt::format("replay: {} has no interface '{}'; it has {}", path,
                                         interface, list.empty() ? "no packets" : list));
  }
  if (trace->frames() == 0 && skipped_links > 0)
    throw std::runtime_error(fmt::format(
        "replay: {} has {} frames but none of them Ethernet (link type 1)", path, skipped_links));
  return trace;
}

}  // namespace fabemu
