// pcapng blocks as the pcapng specification (IETF draft-ietf-opsawg-pcapng)
// defines them, in this machine's byte order (readers follow the section
// header's byte-order magic).
#include "pcap-tools/pcapng_writer.h"

#include <cerrno>
#include <cstring>

namespace fabemu {
namespace {

constexpr uint32_t kShb = 0x0A0D0D0A, kIdb = 1, kEpb = 6;
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr uint16_t kLinktypeEthernet = 1;
constexpr uint16_t kOptEnd = 0, kOptComment = 1;
constexpr uint16_t kShbHardware = 2, kShbOs = 3, kShbUserappl = 4;
constexpr uint16_t kIfName = 2, kIfDescription = 3, kIfTsresol = 9;
constexpr uint16_t kEpbFlags = 2;
constexpr size_t kBufferBytes = 1 << 20;  // the writer thread's stdio buffer

uint32_t pad4(size_t n) { return static_cast<uint32_t>((4 - n % 4) % 4); }

// A block assembled in memory: options and bodies are appended, the total
// length is written at both ends when it is done.
class Block {
 public:
  explicit Block(uint32_t type) { u32(type), u32(0); }
  void u16(uint16_t v) { raw(&v, 2); }
  void u32(uint32_t v) { raw(&v, 4); }
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  void pad() { bytes_.resize(bytes_.size() + pad4(bytes_.size())); }
  void option(uint16_t code, const void* p, size_t n) {
    if (n > 0xFFFF) n = 0xFFFF;
    u16(code), u16(static_cast<uint16_t>(n)), raw(p, n), pad();
  }
  void option(uint16_t code, const std::string& s) {
    if (!s.empty()) option(code, s.data(), s.size());
  }
  const std::vector<uint8_t>& finish() {
    u16(kOptEnd), u16(0);
    const uint32_t total = static_cast<uint32_t>(bytes_.size() + 4);
    u32(total);
    std::memcpy(&bytes_[4], &total, 4);
    return bytes_;
  }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

bool PcapngWriter::open(const std::string& path, const PcapngSection& section,
                        std::vector<PcapngInterface> interfaces, uint64_t file_bytes,
                        uint32_t max_files, std::string* err) {
  return prepare(path, std::move(interfaces), file_bytes, max_files, -1, err) &&
         begin(section, err);
}

bool PcapngWriter::prepare(const std::string& path, std::vector<PcapngInterface> interfaces,
                           uint64_t file_bytes, uint32_t max_files, int fd, std::string* err) {
  close();
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    base_ = path.substr(0, dot);
    ext_ = path.substr(dot);
  } else {
    base_ = path;
    ext_ = "";
  }
  ifs_ = std::move(interfaces);
  file_limit_ = file_bytes;
  max_files_ = max_files;
  index_ = 0;
  files_.clear();
  total_bytes_ = packets_ = 0;
  error_.clear();
  reader_gone_ = false;
  stream_ = fd >= 0;
  if (stream_) {
    if (file_bytes > 0) {
      *err = "the capture goes to " + path +
             ", one stream: it cannot rotate (leave capture.file_mb 0)";
      return false;
    }
    f_ = ::fdopen(fd, "wb");
    if (!f_) {
      *err = "cannot write the capture to " + path + ": " + std::strerror(errno);
      return false;
    }
    buf_.resize(kBufferBytes);
    std::setvbuf(f_, buf_.data(), _IOFBF, buf_.size());
    files_.push_back(path);
    file_bytes_ = 0;
    return true;
  }
  return open_file(err);
}

bool PcapngWriter::begin(const PcapngSection& section, std::string* err) {
  section_ = section;
  return write_headers(err);
}

std::string PcapngWriter::file_name(uint32_t index) const {
  if (stream_) return base_ + ext_;
  return index == 0 ? base_ + ext_ : base_ + "." + std::to_string(index) + ext_;
}

bool PcapngWriter::open_file(std::string* err) {
  if (f_) std::fclose(f_);
  const std::string name = file_name(index_);
  f_ = std::fopen(name.c_str(), "wb");
  if (!f_) {
    *err = "cannot write the capture file " + name + ": " + std::strerror(errno) +
           " (check the directory exists and is writable, or change capture.file)";
    return false;
  }
  buf_.resize(kBufferBytes);
  std::setvbuf(f_, buf_.data(), _IOFBF, buf_.size());
  files_.push_back(name);
  if (max_files_ > 0 && files_.size() > max_files_) {  // keep the newest max_files_
    std::remove(files_.front().c_str());
    files_.erase(files_.begin());
  }
  file_bytes_ = 0;
  return true;
}

bool PcapngWriter::write_headers(std::string* err) {
  Block shb(kShb);
  shb.u32(kByteOrderMagic);
  shb.u16(1), shb.u16(0);
  const int64_t unknown_length = -1;
  shb.raw(&unknown_length, 8);
  shb.option(kOptComment, section_.comment);
  shb.option(kShbHardware, section_.hardware);
  shb.option(kShbOs, std::string("Linux"));
  shb.option(kShbUserappl, section_.application);
  const auto& s = shb.finish();
  if (!put(s.data(), s.size())) return *err = error_, false;
  for (const PcapngInterface& i : ifs_) {
    Block idb(kIdb);
    idb.u16(kLinktypeEthernet), idb.u16(0), idb.u32(i.snaplen);
    idb.option(kIfName, i.name);
    idb.option(kIfDescription, i.description);
    const uint8_t tsresol = 9;  // nanoseconds
    idb.option(kIfTsresol, &tsresol, 1);
    const auto& b = idb.finish();
    if (!put(b.data(), b.size())) return *err = error_, false;
  }
  return true;
}

bool PcapngWriter::put(const void* p, size_t n) {
  // One thread writes a file: no stdio locking per call.
  if (fwrite_unlocked(p, 1, n, f_) != n) return failed();
  file_bytes_ += n;
  total_bytes_ += n;
  return true;
}

bool PcapngWriter::write(uint32_t iface, uint64_t ts_ns, const uint8_t* data, uint32_t caplen,
                         uint32_t origlen, PcapngDirection dir) {
  if (!f_ || !error_.empty()) return false;
  if (file_limit_ > 0 && file_bytes_ >= file_limit_) {
    index_++;
    std::string err;
    if (!open_file(&err) || !write_headers(&err)) {
      error_ = err;
      return false;
    }
  }
  // Enhanced packet block: 28 bytes of fixed fields, the data padded to 4,
  // epb_flags (8 bytes with its option header), the end of options and the
  // trailing length; assembled here and written with one call.
  const uint32_t padding = pad4(caplen);
  const uint32_t total = 28 + caplen + padding + 8 + 4 + 4;
  if (epb_.size() < total) epb_.resize(total);
  uint8_t* b = epb_.data();
  const uint32_t head[7] = {kEpb, total, iface, static_cast<uint32_t>(ts_ns >> 32),
                            static_cast<uint32_t>(ts_ns), caplen, origlen};
  std::memcpy(b, head, sizeof head);
  std::memcpy(b + 28, data, caplen);
  std::memset(b + 28 + caplen, 0, padding);
  uint8_t* o = b + 28 + caplen + padding;
  const uint16_t opt[2] = {kEpbFlags, 4};
  const uint32_t flags = static_cast<uint32_t>(dir);
  const uint16_t end[2] = {kOptEnd, 0};
  std::memcpy(o, opt, 4);
  std::memcpy(o + 4, &flags, 4);
  std::memcpy(o + 8, end, 4);
  std::memcpy(o + 12, &total, 4);
  if (!put(b, total)) return false;
  packets_++;
  return true;
}

bool PcapngWriter::flush() {
  if (!f_ || !error_.empty()) return error_.empty();
  return std::fflush(f_) == 0 || failed();
}

bool PcapngWriter::failed() {
  // A reader that went away (SIGPIPE is ignored, so the write says EPIPE)
  // is not a full disk: say which it was.
  reader_gone_ = errno == EPIPE;
  error_ = reader_gone_
               ? "the reader of " + file_name(index_) + " went away (broken pipe)"
               : "writing " + file_name(index_) + " failed: " + std::strerror(errno) +
                     (stream_ ? std::string()
                              : " (disk full? capture.file_mb and capture.files bound the space)");
  return false;
}

bool PcapngWriter::close() {
  if (!f_) return error_.empty();
  errno = 0;
  const bool ok = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok && error_.empty()) {
    if (errno == EPIPE) return failed();
    error_ = "closing " + file_name(index_) + " failed: " + std::strerror(errno);
  }
  return ok && error_.empty();
}

}  // namespace fabemu
