// A pcapng file writer with one interface per tapped link or port and
// rotation by size (pcap-tools/FORMAT.md).
//
// Written here rather than with a library: libpcap writes only classic pcap
// (one link type, no interface names), and DPDK 22.11's rte_pcapng ties its
// interface blocks to DPDK ethdev ports, while a capture of an emulated
// fabric needs an interface per fabric link. The format is small (section
// header, interface description and enhanced packet blocks).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace fabemu {

struct PcapngInterface {
  std::string name;         // if_name, e.g. "r3.p2>r7.p5" or "port:h0"
  std::string description;  // if_description
  uint32_t snaplen = 65535;
};

struct PcapngSection {
  std::string application;  // shb_userappl
  std::string hardware;     // shb_hardware
  std::string comment;      // shb_comment
};

enum class PcapngDirection : uint32_t { unknown = 0, inbound = 1, outbound = 2 };

class PcapngWriter {
 public:
  PcapngWriter() = default;
  PcapngWriter(const PcapngWriter&) = delete;
  PcapngWriter& operator=(const PcapngWriter&) = delete;
  ~PcapngWriter() { close(); }

  // Opens `path` (PATH.pcapng or any name) and writes the section header and
  // every interface. file_bytes > 0: a file that reaches it is closed and the
  // next one (PATH.1.pcapng, PATH.2.pcapng, ...) begins, each complete on its
  // own; max_files > 0 keeps only the newest max_files of them.
  bool open(const std::string& path, const PcapngSection& section,
            std::vector<PcapngInterface> interfaces, uint64_t file_bytes, uint32_t max_files,
            std::string* err);
  // open in two steps, so that a file that cannot be written is found before
  // a run and its section header can say when the run began: prepare opens
  // the first file and writes nothing; begin writes its section header and
  // interfaces. fd >= 0: write to that descriptor instead (a pipe such as
  // standard output, taken over and closed by close(); one stream, no
  // rotation), `path` only names it in messages.
  bool prepare(const std::string& path, std::vector<PcapngInterface> interfaces,
               uint64_t file_bytes, uint32_t max_files, int fd, std::string* err);
  bool begin(const PcapngSection& section, std::string* err);
  // One packet of interface `iface` at `ts_ns` nanoseconds: caplen bytes of
  // data, origlen bytes long on the wire.
  bool write(uint32_t iface, uint64_t ts_ns, const uint8_t* data, uint32_t caplen,
             uint32_t origlen, PcapngDirection dir);
  // Hands what is buffered to the file or pipe, so that a live reader sees it.
  bool flush();
  bool close();

  const std::vector<std::string>& files() const { return files_; }  // the files kept
  uint64_t packets() const { return packets_; }
  uint64_t bytes() const { return total_bytes_; }  // written, all files
  const std::string& error() const { return error_; }
  // The write failed because the reader of a pipe went away (EPIPE).
  bool reader_gone() const { return reader_gone_; }

 private:
  bool open_file(std::string* err);
  bool write_headers(std::string* err);
  std::string file_name(uint32_t index) const;
  bool put(const void* p, size_t n);
  bool failed();  // records why the last write failed (errno); false

  std::FILE* f_ = nullptr;
  bool stream_ = false;  // a descriptor given to prepare
  bool reader_gone_ = false;
  std::string base_, ext_;
  PcapngSection section_;
  std::vector<PcapngInterface> ifs_;
  uint64_t file_limit_ = 0, file_bytes_ = 0, total_bytes_ = 0, packets_ = 0;
  uint32_t max_files_ = 0, index_ = 0;
  std::vector<std::string> files_;
  std::vector<char> buf_;
  std::vector<uint8_t> epb_;  // one enhanced packet block being assembled
  std::string error_;
};

}  // namespace fabemu
