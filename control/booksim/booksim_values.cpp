// BooksimConfig's typed getters (booksim_config.h): a key's value as an
// integer, a number, a name, a list or a call, each wrong kind an error at
// the key's FILE:LINE.
#include <limits>
#include <stdexcept>

#include "control/booksim/booksim_config.h"
#include "control/booksim/booksim_numbers.h"

namespace fabemu {

using namespace booksim_numbers;

namespace {

// "element 'x': " when a list's element is at fault, to point at it.
std::string element_prefix(const BooksimEntry& e, std::string_view text) {
  return text == e.raw ? "" : "element " + quoted(text) + ": ";
}

int entry_int(const BooksimEntry& e, std::string_view text) {
  if (!is_integer_text(text))
    throw BooksimConfig::error_at(
        e, element_prefix(e, text) + e.key + " takes an integer" +
               (is_float_text(text) ? ", without a point or exponent" : "") + ", as " + e.key +
               " = 8;");
  int value = 0;
  if (!parse_int(text, &value))
    throw BooksimConfig::error_at(e, quoted(text) + " is too large: BookSim's integers run from " +
                                         std::to_string(std::numeric_limits<int>::min()) + " to " +
                                         std::to_string(std::numeric_limits<int>::max()));
  return value;
}

double entry_double(const BooksimEntry& e, std::string_view text) {
  double value = 0;
  if (!(is_integer_text(text) || is_float_text(text)))
    throw BooksimConfig::error_at(
        e, element_prefix(e, text) + e.key + " takes a number, as " + e.key + " = 0.5;");
  if (!parse_double(text, &value))
    throw BooksimConfig::error_at(e, quoted(text) + " is too large for a number");
  return value;
}

void refuse_list(const BooksimEntry& e, const char* what) {
  if (e.kind == BooksimValueKind::kList)
    throw BooksimConfig::error_at(
        e, e.key + " takes a single " + std::string(what) + " here, not a list");
}

void refuse_number(const BooksimEntry& e) {
  if (e.kind == BooksimValueKind::kInteger || e.kind == BooksimValueKind::kFloat)
    throw BooksimConfig::error_at(e, e.key + " takes a name (such as uniform), not a number");
}

// A list's elements, or the single value as one.
std::vector<std::string> elements_of(const BooksimEntry& e) {
  return e.kind == BooksimValueKind::kList ? e.elements : std::vector<std::string>{e.raw};
}

// Each element of e read by read(e, text).
template <class T, class Read>
std::vector<T> each_element(const BooksimEntry& e, Read read) {
  std::vector<T> values;
  for (const std::string& element : elements_of(e)) values.push_back(read(e, element));
  return values;
}

}  // namespace

int BooksimConfig::get_int(std::string_view key, int fallback) const {
  const BooksimEntry* e = find(key);
  if (!e) return fallback;
  refuse_list(*e, "integer");
  return entry_int(*e, e->raw);
}

double BooksimConfig::get_double(std::string_view key, double fallback) const {
  const BooksimEntry* e = find(key);
  if (!e) return fallback;
  refuse_list(*e, "number");
  return entry_double(*e, e->raw);
}

std::string BooksimConfig::get_string(std::string_view key, const std::string& fallback) const {
  const BooksimEntry* e = find(key);
  if (!e) return fallback;
  refuse_number(*e);
  return e->raw;
}

std::vector<int> BooksimConfig::get_int_list(std::string_view key,
                                             const std::vector<int>& fallback) const {
  const BooksimEntry* e = find(key);
  if (!e) return fallback;
  return each_element<int>(*e, entry_int);
}

std::vector<double> BooksimConfig::get_double_list(std::string_view key,
                                                   const std::vector<double>& fallback) const {
  const BooksimEntry* e = find(key);
  if (!e) return fallback;
  return each_element<double>(*e, entry_double);
}

std::vector<std::string> BooksimConfig::get_string_list(
    std::string_view key, const std::vector<std::string>& fallback) const {
  const BooksimEntry* e = find(key);
  if (!e) return fallback;
  refuse_number(*e);
  return elements_of(*e);
}

BooksimCall BooksimConfig::get_call(std::string_view key, std::string_view fallback) const {
  const BooksimEntry* e = find(key);
  if (!e) return parse_booksim_call(fallback);
  refuse_list(*e, "name");
  refuse_number(*e);
  try {
    return parse_booksim_call(e->raw);
  } catch (const std::invalid_argument& err) {
    throw error_at(*e, err.what());
  }
}

}  // namespace fabemu
