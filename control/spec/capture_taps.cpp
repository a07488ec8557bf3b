#include "control/spec/capture_taps.h"

#include <charconv>

#include "control/spec/spec_error.h"

namespace fabemu {
namespace {

// A decimal number at s[i...] up to a non-digit; i moves past it.
bool number_at(const std::string& s, size_t* i, int* out) {
  const char* b = s.data() + *i;
  const char* e = s.data() + s.size();
  const auto r = std::from_chars(b, e, *out);
  if (r.ec != std::errc() || *out < 0) return false;
  *i = static_cast<size_t>(r.ptr - s.data());
  return true;
}

// "rR:pP[:in|:out]"
bool link_at(const std::string& v, CaptureTap* t) {
  size_t i = 0;
  if (v.size() < 5 || v[i++] != 'r' || !number_at(v, &i, &t->router)) return false;
  if (i + 2 > v.size() || v[i] != ':' || v[i + 1] != 'p') return false;
  i += 2;
  if (!number_at(v, &i, &t->port)) return false;
  const std::string rest = v.substr(i);
  if (rest.empty()) return true;
  if (rest == ":in") return t->out = false, true;
  if (rest == ":out") return t->in = false, true;
  return false;
}

// "rR.pP" or "epE"
bool link_end(const std::string& v) {
  size_t i = 0;
  int n = 0;
  if (v.rfind("ep", 0) == 0) {
    i = 2;
    return number_at(v, &i, &n) && i == v.size();
  }
  if (v.empty() || v[i++] != 'r' || !number_at(v, &i, &n)) return false;
  if (i + 2 > v.size() || v[i] != '.' || v[i + 1] != 'p') return false;
  i += 2;
  return number_at(v, &i, &n) && i == v.size();
}

}  // namespace

bool parse_capture_tap(const std::string& text, CaptureTap* tap, std::string* why) {
  *tap = CaptureTap{};
  const auto bad = [&](const std::string& what) {
    *why = "'" + printable(text) + "' is not a capture tap: " + what + "; a tap is " +
           kCaptureTapForms;
    return false;
  };
  if (text == "all") return true;
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return bad("no '='");
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  if (value.empty()) return bad("nothing after '='");
  size_t i = 0;
  if (key == "link") {
    if (value.find('>') != std::string::npos) {
      const size_t gt = value.find('>');
      if (!link_end(value.substr(0, gt)) || !link_end(value.substr(gt + 1)))
        return bad("a link name is FROM>TO with ends rR.pP or epE");
      tap->kind = CaptureTap::Kind::link_named;
      tap->name = value;
      return true;
    }
    tap->kind = CaptureTap::Kind::link_at;
    if (!link_at(value, tap)) return bad("write the link as rR:pP, rR:pP:in or rR:pP:out");
    return true;
  }
  if (key == "router") {
    tap->kind = CaptureTap::Kind::router;
    if (!number_at(value, &i, &tap->router) || i != value.size()) return bad("R is a router number");
    return true;
  }
  if (key == "endpoint") {
    tap->kind = CaptureTap::Kind::endpoint;
    if (!number_at(value, &i, &tap->endpoint) || i != value.size())
      return bad("E is an endpoint number");
    return true;
  }
  if (key == "port") {
    tap->kind = CaptureTap::Kind::port;
    tap->name = value;
    return true;
  }
  return bad("unknown kind '" + printable(key) + "'");
}

}  // namespace fabemu
