// SpecError: a fabric spec the emulator refuses, with where it went wrong.
//
// A spec comes from three places (profile defaults, the YAML file, --set
// arguments); the error names whichever of them supplied the offending value,
// so the user can go straight to it: "FILE:LINE:COL: field 'a.b': message" for
// the file, "FILE: --set 'a.b=V': field 'a.b': message" for an override.
#pragma once
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fabemu {

// User text as an error message may show it: bytes that are not printable
// UTF-8 (control characters, raw binary) as \xNN, and at most `max` bytes of
// it followed by "... (N bytes)", so a message never carries a 120 kB
// argument or the bytes of a binary file. max = npos: escape only.
inline std::string printable(std::string_view s, size_t max = 60) {
  std::string out;
  size_t i = 0;
  for (; i < s.size() && out.size() < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    bool ok = len > 0 && i + len <= s.size() && (len > 1 || (c >= 0x20 && c != 0x7F));
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok) {
      out.append(s.substr(i, len));
      i += len - 1;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02X", c);
      out += hex;
    }
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

class SpecError : public std::runtime_error {
 public:
  // line and column are 1-based; 0 when the error has no position (file not
  // found, a value from a --set argument or a profile default).
  SpecError(std::string file, int line, int column, std::string field, std::string message,
            std::string set_arg = {})
      : std::runtime_error(format(file, line, column, field, message, set_arg)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        field_(std::move(field)),
        message_(std::move(message)),
        set_arg_(std::move(set_arg)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  // Dotted path of the offending field ("traffic.sizes[1].bytes"); empty
  // when the error is about the file as a whole (syntax, not found).
  const std::string& field() const { return field_; }
  // What was wrong and what to do, without the location prefix.
  const std::string& message() const { return message_; }
  // The --set argument that supplied the value, verbatim; empty otherwise.
  const std::string& set_arg() const { return set_arg_; }

 private:
  static std::string format(const std::string& file, int line, int column, const std::string& field,
                            const std::string& message, const std::string& set_arg) {
    constexpr size_t kAll = std::string_view::npos;
    std::string s = file.empty() ? std::string("<spec>") : printable(file, 300);
    if (!set_arg.empty()) {
      s += ": --set '" + printable(set_arg, 80) + "'";
    } else if (line > 0) {
      s += ":" + std::to_string(line) + ":" + std::to_string(column);
    }
    s += ": ";
    if (!field.empty()) s += "field '" + printable(field, 80) + "': ";
    s += printable(message, kAll);
    return s;
  }

  std::string file_;
  int line_ = 0;
  int column_ = 0;
  std::string field_;
  std::string message_;
  std::string set_arg_;
};

// What a stage after the loader (a topology builder, the link timing) throws
// when the spec asks for something it cannot build: the field to blame and
// what to do. build_spec_fabric (spec_refuse.h) turns it into a SpecError
// at the line or --set that gave the field its value.
class FieldError : public std::invalid_argument {
 public:
  FieldError(std::string field, const std::string& message)
      : std::invalid_argument(field + ": " + message),
        field_(std::move(field)),
        message_(message) {}
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string field_;
  std::string message_;
};

}  // namespace fabemu
