// Numbers as BookSim2's lexer tells them: see booksim_numbers.h.
#include "control/booksim/booksim_numbers.h"

#include <charconv>

#include "control/spec/spec_error.h"  // printable()

namespace fabemu::booksim_numbers {

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

std::string quoted(std::string_view s) { return "'" + printable(s) + "'"; }
std::string quoted(char c) { return quoted(std::string_view(&c, 1)); }

// -?[0-9]+
bool is_integer_text(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

size_t count_digits(std::string_view s, size_t from) {
  size_t n = 0;
  while (from + n < s.size() && is_digit(s[from + n])) ++n;
  return n;
}

// -?([0-9]*\.)?[0-9]+([eE][+-]?[0-9]+)? with a point or an exponent: a
// point needs digits after it ("5." is not a number to BookSim).
bool is_float_text(std::string_view s) {
  size_t i = (!s.empty() && s.front() == '-') ? 1 : 0;
  size_t whole = count_digits(s, i);
  i += whole;
  bool point = i < s.size() && s[i] == '.';
  if (point) {
    size_t frac = count_digits(s, i + 1);
    if (frac == 0) return false;
    i += 1 + frac;
  } else if (whole == 0) {
    return false;
  }
  bool exponent = i < s.size() && (s[i] == 'e' || s[i] == 'E');
  if (exponent) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t digits = count_digits(s, i);
    if (digits == 0) return false;
    i += digits;
  }
  return i == s.size() && (point || exponent);
}

// Starts the way a number does, so that a name it cannot be (BookSim would
// split "5x" into 5 and x, a syntax error).
bool looks_numeric(std::string_view s) {
  size_t i = (!s.empty() && s.front() == '-') ? 1 : 0;
  if (i >= s.size()) return false;
  return is_digit(s[i]) || (s[i] == '.' && i + 1 < s.size() && is_digit(s[i + 1]));
}

std::string not_a_number_message(std::string_view s) {
  if (s.size() > 1 && s.back() == '.' && is_integer_text(s.substr(0, s.size() - 1))) {
    std::string whole(s.substr(0, s.size() - 1));
    return quoted(s) + " is not a number to BookSim; write " + whole + ".0 or " + whole;
  }
  return quoted(s) +
         " is neither a number (BookSim reads integers such as 8 and decimals such as 0.5 or "
         "1e-3) nor a name (a name starts with a letter)";
}

bool parse_int(std::string_view s, int* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_double(std::string_view s, double* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace fabemu::booksim_numbers
