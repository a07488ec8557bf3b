#include "pcap-tools/capture_writer.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace fabemu {
namespace {

constexpr unsigned kBurst = 64;  // records taken from a ring or given back at once
constexpr auto kFlushEvery = std::chrono::milliseconds(2);

void put_be16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v >> 8), p[1] = uint8_t(v); }
void put_be32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = uint8_t(v >> (24 - 8 * i));
}
void put_be64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = uint8_t(v >> (56 - 8 * i));
}
void put_mac(uint8_t* p, uint32_t node) {
  p[0] = 0x02, p[1] = 0xfa, p[2] = 0xbe;
  p[3] = uint8_t(node >> 16), p[4] = uint8_t(node >> 8), p[5] = uint8_t(node);
}

}  // namespace

bool CaptureWriter::start(CaptureWriterConfig cfg, int workers, uint32_t records_per_worker,
                          uint32_t data_bytes, const std::vector<int>& cpus, std::string* err) {
  cfg_ = std::move(cfg);
  if (!pcap_.prepare(cfg_.fd >= 0 ? "standard output" : cfg_.path, cfg_.interfaces, cfg_.file_bytes,
                     cfg_.max_files, cfg_.fd, err))
    return false;
  for (int i = 0; i < workers; i++) {
    queues_.push_back(std::make_unique<CaptureQueue>());
    if (!queues_.back()->init(records_per_worker, data_bytes, err)) return false;
    Lane l;
    l.queue = queues_.back().get();
    l.held.assign(records_per_worker, nullptr);
    l.written.reserve(kBurst);
    lanes_.push_back(std::move(l));
  }
  frame_.assign(kCaptureFramingBytes + data_bytes, 0);
  stop_ = false;
  thread_ = std::thread([this] { loop(); });
  running_ = true;
  // Off the workers' CPUs where there are others: a thread created here
  // would inherit the CPU DPDK pinned the main thread (worker 0) to.
  if (!cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) CPU_SET(c, &set);
    pthread_setaffinity_np(thread_.native_handle(), sizeof(set), &set);
  }
  return true;
}

std::vector<CaptureQueue*> CaptureWriter::queues() const {
  std::vector<CaptureQueue*> v;
  for (const auto& q : queues_) v.push_back(q.get());
  return v;
}

bool CaptureWriter::finish() {
  if (running_) {
    stop_ = true;
    thread_.join();
    running_ = false;
    if (!pcap_.close() && error_.empty()) error_ = pcap_.error();
  }
  return error_.empty();
}

// The section header says what the timestamps are: the run's start by the
// wall clock plus emulated time (FORMAT.md).
void CaptureWriter::begin(int64_t start_ns) {
  start_ns_ = start_ns;
  begun_ = true;
  const time_t sec = static_cast<time_t>(start_ns / 1000000000);
  struct tm utc;
  gmtime_r(&sec, &utc);
  char when[64];
  const size_t n = std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(when + n, sizeof when - n, ".%09lldZ",
                static_cast<long long>(start_ns % 1000000000));
  PcapngSection section = cfg_.section;
  section.comment += std::string(section.comment.empty() ? "" : ". ") +
                     "Timestamps: the run's start, " + when +
                     " by the wall clock, plus emulated time (the fabemu header's time_ps is "
                     "emulated time in picoseconds)";
  std::string err;
  if (!pcap_.begin(section, &err)) {
    error_ = err;
    stopped();
  }
}

void CaptureWriter::stopped() {
  if (pcap_.reader_gone())
    error_ = "the capture stopped after " + std::to_string(written_.load()) +
             " packets and frames: " + pcap_.error();
  if (cfg_.on_stop) cfg_.on_stop(error_);
}

// What the worker's ring holds, into its lane. The bound is read first: every
// record put before it was published is taken with it.
size_t CaptureWriter::take(Lane& l) {
  l.passed = l.queue->passed();
  CaptureRecord* batch[kBurst];
  size_t total = 0;
  const size_t slots = l.held.size();
  for (unsigned n; (n = l.queue->take(batch, kBurst)) > 0;) {
    for (unsigned i = 0; i < n; i++) {
      l.held[(l.head + l.count) % slots] = batch[i];
      l.count++;
      l.last = std::max(l.last, batch[i]->t_ps);
    }
    total += n;
  }
  return total;
}

// Writes, in (time, worker) order, the held records no worker can still
// precede: worker i's next record is at (max(passed, last), i) or later.
// all: the workers have stopped, every record goes.
uint64_t CaptureWriter::write_ready(bool all) {
  ps_t gate_t = kNever;
  size_t gate_lane = lanes_.size();
  if (!all && error_.empty())  // (after an error nothing waits: records are only given back)
    for (size_t i = 0; i < lanes_.size(); i++) {
      const ps_t bound = std::max(lanes_[i].passed, lanes_[i].last);
      if (bound < gate_t) gate_t = bound, gate_lane = i;
    }
  uint64_t wrote = 0;
  for (;;) {
    Lane* next = nullptr;
    size_t at = 0;
    for (size_t i = 0; i < lanes_.size(); i++)
      if (lanes_[i].count && (!next || lanes_[i].front().t_ps < next->front().t_ps))
        next = &lanes_[i], at = i;
    if (!next) break;
    const ps_t t = next->front().t_ps;
    if (t > gate_t || (t == gate_t && at > gate_lane)) break;
    write(next->front());
    wrote++;
    next->written.push_back(next->held[next->head]);
    next->head = (next->head + 1) % next->held.size();
    next->count--;
    if (next->written.size() == kBurst) {
      next->queue->give_back(next->written.data(), kBurst);
      next->written.clear();
    }
  }
  for (Lane& l : lanes_) {
    l.queue->give_back(l.written.data(), static_cast<unsigned>(l.written.size()));
    l.written.clear();
  }
  return wrote;
}

void CaptureWriter::loop() {
  using clock = std::chrono::steady_clock;
  auto flushed = clock::now();
  bool unflushed = false;
  for (;;) {
    // Read the flag before looking at the queues: once the workers are done
    // and it is set, a pass that finds every queue empty is the last.
    const bool last = stop_.load(std::memory_order_acquire);
    if (!begun_) {  // no record comes before the run starts
      int64_t start = run_start_ns_.load(std::memory_order_acquire);
      // (A record without a start, should an engine not set it: now, rather
      // than workers waiting for a writer that waits for the start.)
      bool recorded = false;
      for (const Lane& l : lanes_) recorded |= !l.queue->idle();
      if (start == 0 && !last && !recorded) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        continue;
      }
      if (start == 0)  // the run never started: a complete file without packets
        start = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
      begin(start);
      unflushed = true;
    }
    size_t took = 0;
    for (Lane& l : lanes_) took += take(l);
    const uint64_t wrote = write_ready(last);
    unflushed |= wrote > 0;
    // A reader of a pipe sees the packets within a few milliseconds; a
    // file is flushed as often, which costs little at that rate.
    const auto now = clock::now();
    if (unflushed && error_.empty() && (wrote == 0 || now - flushed >= kFlushEvery)) {
      if (!pcap_.flush()) {
        error_ = pcap_.error();
        stopped();
      }
      unflushed = false;
      flushed = now;
    }
    if (took == 0 && wrote == 0) {
      if (last) return;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

void CaptureWriter::write(const CaptureRecord& r) {
  // After a write error the records are still taken (the workers must not
  // wait for a writer that cannot write) but no longer written.
  if (!error_.empty()) return;
  const uint64_t ts_ns = static_cast<uint64_t>(start_ns_) + r.t_ps / 1000;
  bool ok;
  if (r.kind == CaptureKind::frame) {
    const uint32_t n = std::min(r.cap_bytes, cfg_.snaplen);
    ok = pcap_.write(r.iface, ts_ns, r.data(), n, r.orig_bytes,
                     static_cast<PcapngDirection>(r.dir));
  } else {
    uint8_t* f = frame_.data();
    const auto& nodes = cfg_.link_nodes[r.link];
    put_mac(f, nodes.second);
    put_mac(f + 6, nodes.first);
    put_be16(f + 12, kCaptureEtherType);
    uint8_t* h = f + 14;
    h[0] = kCaptureVersion;
    h[1] = static_cast<uint8_t>(cfg_.profile);
    h[2] = r.flags;
    h[3] = r.vc;
    put_be32(h + 4, r.link);
    put_be32(h + 8, r.seq);
    put_be16(h + 12, r.units);
    put_be16(h + 14, static_cast<uint16_t>(r.orig_bytes));
    put_be64(h + 16, r.t_ps);
    put_be32(h + 24, r.src);
    put_be32(h + 28, r.dst);
    put_be64(h + 32, r.packet_id);
    put_be32(h + 40, r.msg_seq);
    put_be16(h + 44, r.seg);
    put_be16(h + 46, r.nseg);
    std::memcpy(h + kCaptureHeaderBytes, r.data(), r.cap_bytes);
    uint32_t n = kCaptureFramingBytes + r.cap_bytes;
    if (n > cfg_.snaplen) {
      n = cfg_.snaplen;
      h[2] |= kCapTruncated;
    }
    ok = pcap_.write(r.iface, ts_ns, f, n, kCaptureFramingBytes + r.orig_bytes,
                     PcapngDirection::outbound);
  }
  if (ok) {
    written_.fetch_add(1, std::memory_order_relaxed);
  } else {
    error_ = pcap_.error();
    stopped();
  }
}

}  // namespace fabemu
