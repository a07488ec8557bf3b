// SpecError: a fabric spec the emulator refuses, with where it went wrong.
//
// A spec comes from three places (profile defaults, the YAML file, --set
// arguments); the error names whichever of them supplied the offending value,
// so the user can go straight to it: "FILE:LINE:COL: field 'a.b': message" for
// the file, "FILE: --set 'a.b=V': field 'a.b': message" for an override.
#pragma once
#include <stdexcept>
#include <string>

namespace fabemu {

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
    std::string s = file.empty() ? std::string("<spec>") : file;
    if (!set_arg.empty()) {
      s += ": --set '" + set_arg + "'";
    } else if (line > 0) {
      s += ":" + std::to_string(line) + ":" + std::to_string(column);
    }
    s += ": ";
    if (!field.empty()) s += "field '" + field + "': ";
    s += message;
    return s;
  }

  std::string file_;
  int line_ = 0;
  int column_ = 0;
  std::string field_;
  std::string message_;
  std::string set_arg_;
};

}  // namespace fabemu
