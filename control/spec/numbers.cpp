#include "control/spec/numbers.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace fabemu {
namespace {

// Digits from s[*i] on; *i moves past them. How many.
size_t digits(const std::string& s, size_t* i) {
  const size_t from = *i;
  while (*i < s.size() && std::isdigit(static_cast<unsigned char>(s[*i]))) ++*i;
  return *i - from;
}

}  // namespace

bool decimal_number(const std::string& s, double* out) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mantissa = digits(s, &i);
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits(s, &i);
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits(s, &i) == 0) return false;
  }
  if (i != s.size()) return false;
  // The grammar above is a subset of strtod's: it reads the same number.
  const double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string decimal_hint(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return {};
  return fmt::format("; write it in decimal: {:g}", v);
}

std::string ber_problem(double ber) {
  if (ber >= 0 && ber <= kMaxBer) return {};
  return fmt::format(
      "a bit error rate is from 0 to {:g}, got {:g}: above 1e-2 nearly every "
      "packet is damaged and a link with retry resends without end",
      kMaxBer, ber);
}

}  // namespace fabemu
