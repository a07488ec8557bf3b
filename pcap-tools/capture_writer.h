// The capture writer: a thread off the worker cores that takes the workers'
// capture records (dataplane/link/capture_tap.h), frames each as
// pcap-tools/FORMAT.md says and writes them to pcapng files.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dataplane/link/capture_tap.h"
#include "pcap-tools/pcapng_writer.h"

namespace fabemu {

// FORMAT.md's numbers: EtherType, header and its version, profile codes.
inline constexpr uint16_t kCaptureEtherType = 0x88B5;
inline constexpr uint32_t kCaptureHeaderBytes = 48;
inline constexpr uint32_t kCaptureFramingBytes = 14 + kCaptureHeaderBytes;
inline constexpr uint8_t kCaptureVersion = 1;
enum class CaptureProfile : uint8_t { yarc_phits = 1, t3e_flits = 2 };
// MAC node numbers: a router's id, or this bit with an endpoint's.
inline constexpr uint32_t kCaptureEndpointNode = 0x800000;

struct CaptureWriterConfig {
  std::string path;                   // first file; rotation adds .1, .2, ... before the extension
  PcapngSection section;
  std::vector<PcapngInterface> interfaces;
  uint64_t file_bytes = 0;            // rotate at this size (0: never)
  uint32_t max_files = 0;             // keep the newest N (0: all)
  uint32_t snaplen = 65535;           // bytes of each frame in the file
  CaptureProfile profile = CaptureProfile::yarc_phits;
  // [link id]: (sending node, receiving node), for the frames' MAC addresses.
  std::vector<std::pair<uint32_t, uint32_t>> link_nodes;
};

class CaptureWriter {
 public:
  ~CaptureWriter() { finish(); }
  // Opens the first file, makes one queue per worker (records_per_worker
  // slots of data_bytes) and starts the thread.
  // cpus: where the thread may run (empty: where its creator may).
  bool start(CaptureWriterConfig cfg, int workers, uint32_t records_per_worker,
             uint32_t data_bytes, const std::vector<int>& cpus, std::string* err);
  // The workers' queues, for CaptureTaps::queues.
  std::vector<CaptureQueue*> queues() const;
  // After the workers have stopped: writes what is queued, stops the thread
  // and closes the file. Returns false (error()) if writing failed.
  bool finish();

  uint64_t written() const { return written_.load(); }
  uint64_t bytes() const { return pcap_.bytes(); }
  const std::vector<std::string>& files() const { return pcap_.files(); }
  const std::string& error() const { return error_; }

 private:
  void loop();
  void write(const CaptureRecord& r);

  CaptureWriterConfig cfg_;
  PcapngWriter pcap_;
  std::vector<std::unique_ptr<CaptureQueue>> queues_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> written_{0};
  std::vector<uint8_t> frame_;
  std::string error_;
  bool running_ = false;
};

}  // namespace fabemu
