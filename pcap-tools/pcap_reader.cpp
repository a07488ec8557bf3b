#include "pcap-tools/pcap_reader.h"

#include <cerrno>
#include <cstring>

namespace fabemu {
namespace {

constexpr uint32_t kPcapMagicUs = 0xa1b2c3d4, kPcapMagicNs = 0xa1b23c4d;
constexpr uint32_t kShb = 0x0A0D0D0A, kIdb = 1, kSpb = 3, kEpb = 6;
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr uint32_t kMaxBlock = 64u << 20;  // a larger block is a corrupt length

uint32_t bswap32(uint32_t v) { return __builtin_bswap32(v); }

// ts units per second from if_tsresol: 10^n, or 2^n with the top bit set;
// 0 when that many does not fit in 64 bits (10^20 and up, 2^64 and up).
uint64_t tsresol_units(uint8_t v) {
  const int n = v & 0x7f;
  if (v & 0x80) return n < 64 ? uint64_t{1} << n : 0;
  if (n > 19) return 0;
  uint64_t u = 1;
  for (int i = 0; i < n; i++) u *= 10;
  return u;
}

// ts units in nanoseconds; false when they are beyond uint64_t's (year 2554).
bool to_ns(uint64_t ts, uint64_t per_s, uint64_t* ns) {
  if (per_s == 1000000000) return *ns = ts, true;
  const long double v = static_cast<long double>(ts) * 1e9L / static_cast<long double>(per_s);
  if (!(v < 18446744073709551616.0L)) return false;  // 2^64: the cast would be undefined
  *ns = static_cast<uint64_t>(v);
  return true;
}

}  // namespace

uint16_t PcapReader::u16(const uint8_t* p) const {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return swap_ ? static_cast<uint16_t>(__builtin_bswap16(v)) : v;
}
uint32_t PcapReader::u32(const uint8_t* p) const {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return swap_ ? bswap32(v) : v;
}

bool PcapReader::fail(const std::string& what) {
  error_ = path_ + ": " + what + " at byte " + std::to_string(offset_);
  return false;
}

bool PcapReader::open(const std::string& path, std::string* err) {
  close();
  path_ = path;
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) {
    *err = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  uint8_t head[24];
  if (std::fread(head, 1, 4, f_) != 4) {
    *err = path + " is empty or shorter than a pcap header";
    return false;
  }
  uint32_t magic;
  std::memcpy(&magic, head, 4);
  if (magic == kShb) {
    ng_ = true;
    return rewind() || (*err = error_, false);
  }
  ng_ = false;
  if (magic == kPcapMagicUs || magic == kPcapMagicNs) {
    swap_ = false;
  } else if (bswap32(magic) == kPcapMagicUs || bswap32(magic) == kPcapMagicNs) {
    swap_ = true;
    magic = bswap32(magic);
  } else {
    *err = path + " is neither pcap nor pcapng (first bytes " + std::to_string(magic) + ")";
    return false;
  }
  classic_ts_per_s_ = magic == kPcapMagicNs ? 1000000000 : 1000000;
  if (std::fread(head + 4, 1, 20, f_) != 20) {
    *err = path + ": truncated pcap header";
    return false;
  }
  ifs_.assign(1, PcapInterface{});
  ifs_[0].snaplen = u32(head + 16);
  ifs_[0].linktype = static_cast<uint16_t>(u32(head + 20) & 0xFFFF);
  ifs_[0].ts_per_s = classic_ts_per_s_;
  sections_ = 1;
  offset_ = 24;
  return true;
}

bool PcapReader::rewind() {
  error_.clear();
  if (!f_ || std::fseek(f_, ng_ ? 0 : 24, SEEK_SET) != 0) return fail("cannot rewind");
  offset_ = ng_ ? 0 : 24;
  if (ng_) {
    ifs_.clear();
    sections_ = 0;
  }
  return true;
}

void PcapReader::close() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
}

bool PcapReader::next(PcapRecord* r) {
  if (!f_ || !error_.empty()) return false;
  if (!ng_) return read_classic(r);
  for (;;) {
    bool packet = false;
    if (!read_block(r, &packet)) return false;
    if (packet) return true;
  }
}

bool PcapReader::read_classic(PcapRecord* r) {
  uint8_t h[16];
  const size_t got = std::fread(h, 1, 16, f_);
  if (got == 0) return false;
  if (got != 16) return fail("truncated record header");
  const uint32_t sec = u32(h), frac = u32(h + 4), cap = u32(h + 8);
  if (cap > kMaxBlock) return fail("record of " + std::to_string(cap) + " bytes");
  r->iface = 0;
  r->ts_ns = uint64_t(sec) * 1000000000ull + (classic_ts_per_s_ == 1000000 ? uint64_t(frac) * 1000 : frac);
  r->orig_len = u32(h + 12);
  r->flags = 0;
  r->data.resize(cap);
  if (std::fread(r->data.data(), 1, cap, f_) != cap) return fail("truncated record");
  offset_ += 16 + cap;
  return true;
}

bool PcapReader::read_block(PcapRecord* r, bool* is_packet) {
  uint8_t h[8];
  const size_t got = std::fread(h, 1, 8, f_);
  if (got == 0) return false;
  if (got != 8) return fail("truncated block header");
  uint32_t type;
  std::memcpy(&type, h, 4);
  if (type == kShb) {
    // The byte order of this section follows its byte-order magic.
    uint8_t bom[4];
    if (std::fread(bom, 1, 4, f_) != 4) return fail("truncated section header");
    uint32_t m;
    std::memcpy(&m, bom, 4);
    if (m == kByteOrderMagic) swap_ = false;
    else if (bswap32(m) == kByteOrderMagic) swap_ = true;
    else return fail("section header without its byte-order magic");
    if (std::fseek(f_, -4, SEEK_CUR) != 0) return fail("cannot seek");
    ifs_.clear();
    sections_++;
  }
  const uint32_t len = u32(h + 4);
  if (len < 12 || len % 4 || len > kMaxBlock) return fail("block of length " + std::to_string(len));
  block_.resize(len - 8);
  if (std::fread(block_.data(), 1, block_.size(), f_) != block_.size()) return fail("truncated block");
  if (u32(&block_[block_.size() - 4]) != len) return fail("block lengths differ");
  const uint8_t* b = block_.data();
  const size_t body = block_.size() - 4;  // without the trailing length
  // Options from `o` to the end of the body: code, length, value padded to 4.
  const auto options = [&](size_t o, auto&& each) {
    while (o + 4 <= body) {
      const uint16_t code = u16(b + o), n = u16(b + o + 2);
      if (code == 0 || o + 4 + n > body) break;
      each(code, b + o + 4, n);
      o += 4 + (n + 3u) / 4 * 4;
    }
  };
  *is_packet = false;
  if (type == kIdb) {
    if (body < 8) return fail("short interface block");
    PcapInterface i;
    i.linktype = u16(b);
    i.snaplen = u32(b + 4);
    i.ts_per_s = 1000000;
    unsigned tsresol = 6;
    options(8, [&](uint16_t code, const uint8_t* v, uint16_t n) {
      if (code == 2) i.name.assign(reinterpret_cast<const char*>(v), n);
      if (code == 3) i.description.assign(reinterpret_cast<const char*>(v), n);
      if (code == 9 && n >= 1) {
        tsresol = v[0];
        i.ts_per_s = tsresol_units(v[0]);
      }
    });
    if (i.ts_per_s == 0)
      return fail("interface " + std::to_string(ifs_.size()) + " has if_tsresol " +
                  std::to_string(tsresol) + ": more timestamp units per second than 64 bits hold");
    ifs_.push_back(i);
  } else if (type == kEpb) {
    if (body < 20) return fail("short packet block");
    r->iface = u32(b);
    if (r->iface >= ifs_.size()) return fail("packet on undeclared interface " + std::to_string(r->iface));
    const uint64_t ts = uint64_t(u32(b + 4)) << 32 | u32(b + 8);
    if (!to_ns(ts, ifs_[r->iface].ts_per_s, &r->ts_ns))
      return fail("timestamp " + std::to_string(ts) + " of interface " + std::to_string(r->iface) +
                  " is beyond the year 2554 in nanoseconds");
    const uint32_t cap = u32(b + 12);
    r->orig_len = u32(b + 16);
    if (20 + size_t(cap) > body) return fail("packet longer than its block");
    r->data.assign(b + 20, b + 20 + cap);
    r->flags = 0;
    options(20 + (cap + 3u) / 4 * 4, [&](uint16_t code, const uint8_t* v, uint16_t n) {
      if (code == 2 && n == 4) r->flags = u32(v);
    });
    *is_packet = true;
  } else if (type == kSpb) {
    if (ifs_.empty()) return fail("simple packet before any interface");
    if (body < 4) return fail("simple packet block of " + std::to_string(len) + " bytes, without its length");
    r->iface = 0;
    r->ts_ns = 0;
    r->orig_len = u32(b);
    const uint32_t cap = std::min<uint32_t>(r->orig_len, static_cast<uint32_t>(body - 4));
    r->data.assign(b + 4, b + 4 + cap);
    r->flags = 0;
    *is_packet = true;
  }
  offset_ += len;
  return true;
}

}  // namespace fabemu
