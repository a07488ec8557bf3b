#include "dataplane/ethernet/ether.h"

#include <cstdio>

namespace fabemu {

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}
}  // namespace

bool parse_mac(std::string_view text, uint64_t* mac) {
  if (text.size() != 17) return false;
  uint64_t v = 0;
  for (int i = 0; i < 6; i++) {
    const int hi = hex_digit(text[3 * i]), lo = hex_digit(text[3 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    if (i < 5 && text[3 * i + 2] != ':') return false;
    v = (v << 8) | static_cast<uint64_t>(hi * 16 + lo);
  }
  *mac = v;
  return true;
}

std::string format_mac(uint64_t mac) {
  char buf[18];
  std::snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x",
                static_cast<unsigned>((mac >> 40) & 0xff), static_cast<unsigned>((mac >> 32) & 0xff),
                static_cast<unsigned>((mac >> 24) & 0xff), static_cast<unsigned>((mac >> 16) & 0xff),
                static_cast<unsigned>((mac >> 8) & 0xff), static_cast<unsigned>(mac & 0xff));
  return buf;
}

uint16_t flow_hash(const uint8_t* f, uint32_t len) {
  if (len < kEthHeaderBytes) return 0;
  uint64_t h = mix(mac_at(f), mac_at(f + 6));
  const uint16_t type = be16_at(f + 12);
  const uint8_t* ip = f + kEthHeaderBytes;
  const uint32_t iplen = len - kEthHeaderBytes;
  uint8_t proto = 0;
  const uint8_t* l4 = nullptr;
  if (type == kEtherTypeIpv4 && iplen >= 20) {
    const uint32_t ihl = (ip[0] & 0x0f) * 4u;
    proto = ip[9];
    h = mix(h, (uint64_t{be16_at(ip + 12)} << 48) | (uint64_t{be16_at(ip + 14)} << 32) |
                   (uint64_t{be16_at(ip + 16)} << 16) | be16_at(ip + 18));
    const bool first_fragment = (be16_at(ip + 6) & 0x1fff) == 0;
    if (first_fragment && ihl >= 20 && iplen >= ihl + 4) l4 = ip + ihl;
  } else if (type == kEtherTypeIpv6 && iplen >= 40) {
    proto = ip[6];
    for (int i = 8; i < 40; i += 8) h = mix(h, mac_at(ip + i) ^ (uint64_t{ip[i + 6]} << 56));
    if (iplen >= 44) l4 = ip + 40;
  }
  if (l4 && (proto == 6 || proto == 17)) h = mix(h, (uint64_t{be16_at(l4)} << 16) | be16_at(l4 + 2));
  h = mix(h, (uint64_t{type} << 8) | proto);
  return static_cast<uint16_t>((h ^ (h >> 15) ^ (h >> 30) ^ (h >> 45)) & 0x7fff);
}

}  // namespace fabemu
