// The capture writer: a thread off the worker cores that takes the workers'
// capture records (dataplane/link/capture_tap.h), frames each as
// pcap-tools/FORMAT.md says and writes them to pcapng files or a pipe.
//
// The file is in time order. Each worker's records come in its own time
// order; the writer merges them (a k-way merge on (time, worker)) and
// writes a record only once every other worker has published that it has
// passed that time (CaptureQueue::pass: a window edge in virtual time, a
// housekeeping round in real time). Records wait in the writer, not in the
// workers: nothing is locked or allocated on their side. Ties go to the
// lower worker, so a virtual-time capture is the same file run after run.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
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
enum class CaptureProfile : uint8_t {
  yarc_phits = 1,
  t3e_flits = 2,
  spider_micropackets = 3,
  mesh3d_words = 4,
};
// MAC node numbers: a router's id, or this bit with an endpoint's.
inline constexpr uint32_t kCaptureEndpointNode = 0x800000;

struct CaptureWriterConfig {
  std::string path;                   // first file; rotation adds .1, .2, ... before the extension
  int fd = -1;                        // >= 0: write there instead (standard output), path names it
  // Its comment gets the run's start appended (the timestamps count from it).
  PcapngSection section;
  std::vector<PcapngInterface> interfaces;
  uint64_t file_bytes = 0;            // rotate at this size (0: never)
  uint32_t max_files = 0;             // keep the newest N (0: all)
  uint32_t snaplen = 65535;           // bytes of each frame in the file
  CaptureProfile profile = CaptureProfile::yarc_phits;
  // [link id]: (sending node, receiving node), for the frames' MAC addresses.
  std::vector<std::pair<uint32_t, uint32_t>> link_nodes;
  // Called once, from the writer thread, when the capture stops before the
  // run does (the pipe's reader went away, a write failed), with why.
  std::function<void(const std::string&)> on_stop;
};

class CaptureWriter {
 public:
  ~CaptureWriter() { finish(); }
  // Opens the first file, makes one queue per worker (records_per_worker
  // slots of data_bytes) and starts the thread. The file's headers are
  // written when the run starts (run_start()).
  // cpus: where the thread may run (empty: where its creator may).
  bool start(CaptureWriterConfig cfg, int workers, uint32_t records_per_worker,
             uint32_t data_bytes, const std::vector<int>& cpus, std::string* err);
  // The workers' queues, for CaptureTaps::queues.
  std::vector<CaptureQueue*> queues() const;
  // Where the engine sets the run's start, for CaptureTaps::run_start_ns.
  std::atomic<int64_t>* run_start() { return &run_start_ns_; }
  // After the workers have stopped: writes what is queued, stops the thread
  // and closes the file. Returns false (error()) if writing failed.
  bool finish();

  uint64_t written() const { return written_.load(); }
  uint64_t bytes() const { return pcap_.bytes(); }
  const std::vector<std::string>& files() const { return pcap_.files(); }
  const std::string& error() const { return error_; }
  // The run's start the timestamps count from (ns since the Unix epoch).
  int64_t start_ns() const { return start_ns_; }
  // The capture stopped because the pipe's reader went away (error() says so).
  bool reader_gone() const { return pcap_.reader_gone(); }

 private:
  // One worker's records between its queue and the file: taken from the
  // ring in its order, held until the merge may write them.
  struct Lane {
    CaptureQueue* queue = nullptr;
    std::vector<CaptureRecord*> held;  // a ring of queue-size slots: never full
    size_t head = 0, count = 0;
    ps_t passed = 0;                      // its published bound
    ps_t last = 0;                        // the time of the last record taken
    std::vector<CaptureRecord*> written;  // to give back to the worker
    const CaptureRecord& front() const { return *held[head]; }
  };
  void loop();
  size_t take(Lane& l);
  uint64_t write_ready(bool all);
  void begin(int64_t start_ns);
  void write(const CaptureRecord& r);
  void stopped();

  CaptureWriterConfig cfg_;
  PcapngWriter pcap_;
  std::vector<std::unique_ptr<CaptureQueue>> queues_;
  std::vector<Lane> lanes_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> run_start_ns_{0};
  std::atomic<uint64_t> written_{0};
  int64_t start_ns_ = 0;  // the run's start (the file's headers are written)
  bool begun_ = false;
  std::vector<uint8_t> frame_;
  std::string error_;
  bool running_ = false;
};

}  // namespace fabemu
