// A whole pcap or pcapng file read into memory with the reader the runs use
// (pcap-tools/pcap_reader.h), for the tests that check captures and replays.
#pragma once
#include <string>
#include <vector>

#include "pcap-tools/pcap_reader.h"

namespace fabemu {

struct PcapngFile {
  std::vector<PcapInterface> interfaces;  // as they stand at the end
  std::vector<PcapRecord> packets;        // up to the end or the first error
  int sections = 0;
  std::string error;                      // empty when the whole file was read
};

inline PcapngFile read_pcapng(const std::string& path) {
  PcapngFile f;
  PcapReader r;
  if (!r.open(path, &f.error)) return f;
  for (PcapRecord rec; r.next(&rec);) f.packets.push_back(rec);
  f.error = r.error();
  f.interfaces = r.interfaces();
  f.sections = r.sections();
  return f;
}

}  // namespace fabemu
