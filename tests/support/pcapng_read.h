// A small pcapng reader for tests: the interfaces (name, description,
// snaplen) and every enhanced packet block (interface, timestamp, flags,
// bytes), from files in this machine's byte order (as fabemu writes them).
#pragma once
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fabemu::test {

struct PcapngFile {
  struct Interface {
    uint16_t linktype = 0;
    uint32_t snaplen = 0;
    std::string name, description;
    uint8_t tsresol = 6;
  };
  struct Packet {
    uint32_t iface = 0;
    uint64_t ts = 0;
    uint32_t orig_len = 0;
    uint32_t flags = 0;
    std::vector<uint8_t> data;
  };
  std::vector<Interface> interfaces;
  std::vector<Packet> packets;
  int sections = 0;
  std::string error;  // empty: the whole file parsed
};

inline uint32_t pcapng_u32(const std::vector<uint8_t>& d, size_t o) {
  uint32_t v;
  std::memcpy(&v, &d[o], 4);
  return v;
}
inline uint16_t pcapng_u16(const std::vector<uint8_t>& d, size_t o) {
  uint16_t v;
  std::memcpy(&v, &d[o], 2);
  return v;
}

inline PcapngFile read_pcapng(const std::string& path) {
  PcapngFile f;
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> d((std::istreambuf_iterator<char>(in)), {});
  size_t off = 0;
  while (off + 12 <= d.size()) {
    const uint32_t type = pcapng_u32(d, off), len = pcapng_u32(d, off + 4);
    if (len < 12 || len % 4 || off + len > d.size() || pcapng_u32(d, off + len - 4) != len) {
      f.error = "bad block at offset " + std::to_string(off);
      return f;
    }
    // Options from `o` to the trailing length: code, length, padded value.
    auto options = [&](size_t o, auto&& each) {
      while (o + 4 <= off + len - 4) {
        const uint16_t code = pcapng_u16(d, o), n = pcapng_u16(d, o + 2);
        if (code == 0) break;
        each(code, &d[o + 4], n);
        o += 4 + (n + 3u) / 4 * 4;
      }
    };
    if (type == 0x0A0D0D0A) {
      f.sections++;
    } else if (type == 1) {
      PcapngFile::Interface i;
      i.linktype = pcapng_u16(d, off + 8);
      i.snaplen = pcapng_u32(d, off + 12);
      options(off + 16, [&](uint16_t code, const uint8_t* v, uint16_t n) {
        if (code == 2) i.name.assign(reinterpret_cast<const char*>(v), n);
        if (code == 3) i.description.assign(reinterpret_cast<const char*>(v), n);
        if (code == 9) i.tsresol = v[0];
      });
      f.interfaces.push_back(i);
    } else if (type == 6) {
      PcapngFile::Packet p;
      p.iface = pcapng_u32(d, off + 8);
      p.ts = uint64_t(pcapng_u32(d, off + 12)) << 32 | pcapng_u32(d, off + 16);
      const uint32_t cap = pcapng_u32(d, off + 20);
      p.orig_len = pcapng_u32(d, off + 24);
      p.data.assign(d.begin() + long(off + 28), d.begin() + long(off + 28 + cap));
      options(off + 28 + (cap + 3u) / 4 * 4, [&](uint16_t code, const uint8_t* v, uint16_t n) {
        if (code == 2 && n == 4) std::memcpy(&p.flags, v, 4);
      });
      f.packets.push_back(std::move(p));
    }
    off += len;
  }
  if (off != d.size()) f.error = "trailing bytes at offset " + std::to_string(off);
  return f;
}

// Big-endian fields of a fabemu capture frame (pcap-tools/FORMAT.md).
inline uint64_t capture_be(const std::vector<uint8_t>& d, size_t o, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = v << 8 | d[o + i];
  return v;
}

}  // namespace fabemu::test
