// Reads classic pcap and pcapng files record by record: the frames, each
// with its interface (name, link type), timestamp in nanoseconds and pcapng
// direction flags. Replay (ports[].replay) and the tests read captures with
// it; libpcap reads both formats too but does not say which pcapng interface
// a packet came from, which a capture of many links needs.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace fabemu {

struct PcapInterface {
  std::string name;         // pcapng if_name ("" in classic pcap)
  std::string description;  // pcapng if_description
  uint16_t linktype = 1;    // 1: Ethernet
  uint32_t snaplen = 0;
  uint64_t ts_per_s = 1000000;  // timestamp units per second (if_tsresol)
};

struct PcapRecord {
  uint32_t iface = 0;      // index into interfaces() of the record's section
  uint64_t ts_ns = 0;
  uint32_t orig_len = 0;   // the frame's length on the wire
  uint32_t flags = 0;      // pcapng epb_flags (bits 0-1: 1 inbound, 2 outbound)
  std::vector<uint8_t> data;  // the captured bytes
};

class PcapReader {
 public:
  PcapReader() = default;
  PcapReader(const PcapReader&) = delete;
  PcapReader& operator=(const PcapReader&) = delete;
  ~PcapReader() { close(); }

  bool open(const std::string& path, std::string* err);
  // The next record; false at the end of the file or on an error (error()
  // then says what and at which offset).
  bool next(PcapRecord* r);
  bool rewind();
  void close();

  bool pcapng() const { return ng_; }
  // Interfaces seen so far (classic pcap: one; pcapng: per section, reset
  // by each section header).
  const std::vector<PcapInterface>& interfaces() const { return ifs_; }
  int sections() const { return sections_; }
  const std::string& error() const { return error_; }

 private:
  bool read_classic(PcapRecord* r);
  bool read_block(PcapRecord* r, bool* is_packet);
  bool fail(const std::string& what);
  uint16_t u16(const uint8_t* p) const;
  uint32_t u32(const uint8_t* p) const;

  std::FILE* f_ = nullptr;
  std::string path_;
  bool ng_ = false, swap_ = false;
  uint64_t classic_ts_per_s_ = 1000000;
  std::vector<PcapInterface> ifs_;
  int sections_ = 0;
  long offset_ = 0;
  std::vector<uint8_t> block_;
  std::string error_;
};

}  // namespace fabemu
