#include "pcap-tools/capture_writer.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstring>

namespace fabemu {
namespace {

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
  if (!pcap_.open(cfg_.path, cfg_.section, cfg_.interfaces, cfg_.file_bytes, cfg_.max_files, err))
    return false;
  for (int i = 0; i < workers; i++) {
    queues_.push_back(std::make_unique<CaptureQueue>());
    if (!queues_.back()->init(records_per_worker, data_bytes, err)) return false;
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

void CaptureWriter::loop() {
  CaptureRecord* batch[64];
  for (;;) {
    // Read the flag before looking at the queues: once the workers are done
    // and it is set, a pass that finds every queue empty is the last.
    const bool last = stop_.load(std::memory_order_acquire);
    unsigned got = 0;
    for (auto& q : queues_) {
      const unsigned n = q->take(batch, 64);
      for (unsigned i = 0; i < n; i++) write(*batch[i]);
      q->give_back(batch, n);
      got += n;
    }
    if (got == 0) {
      if (last) return;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

void CaptureWriter::write(const CaptureRecord& r) {
  // After a write error the records are still taken (the workers must not
  // wait for a writer that cannot write) but no longer written.
  if (!error_.empty()) return;
  const uint64_t ts_ns = r.t_ps / 1000;
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
  if (ok)
    written_.fetch_add(1, std::memory_order_relaxed);
  else
    error_ = pcap_.error();
}

}  // namespace fabemu
