// BooksimConfig: a BookSim2 configuration file (`key = value;` lines) read
// into an ordered list of assignments, for `fabemu run --booksim FILE`.
//
// The grammar is BookSim's own (its src/config.l and src/config.y):
// `key = value;` with `//` comments, a value being an integer, a float, a
// bare name such as `neighbor({32,2,1})`, or a braced list such as
// `{32,2,1}`; white space (newlines too) may fall anywhere
// between tokens and every assignment ends with ';'. The reader is a little
// more lenient than BookSim, to no harm: it also takes `/* */` comments and
// white space inside braces and parentheses, which BookSim refuses. It is
// stricter where BookSim would silently misread: `{1,,2}` (BookSim drops the
// empty element), `neighbor(32,2,1)` (BookSim reads only the 32).
//
// This layer knows the syntax, not the keys: which keys exist, their
// defaults and their meaning belong to the caller.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fabemu {

// What a BookSim configuration rejects: what() is "FILE:LINE: message" (or
// "FILE: message" when there is no line, "override 'k=8': message" for a
// command-line override), message() the part after the location.
class BooksimConfigError : public std::runtime_error {
 public:
  BooksimConfigError(std::string file, int line, std::string message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }  // 1-based; 0 when there is none
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string message_;
};

// How BookSim's lexer classes a value: it decides which of BookSim's three
// tables (int, float, string) the assignment lands in.
enum class BooksimValueKind {
  kInteger,  // -?[0-9]+
  kFloat,    // 0.3, -.5, 1e-3, 2.5E+2 (a point or an exponent)
  kString,   // a bare name: uniform, ran_min, neighbor({32,2,1}), ../file
  kList,     // a braced list: {32,2,1}, {{0,1},{3,1}}, {uniform,transpose}
};

const char* to_string(BooksimValueKind kind);

// One `key = value;` as written.
struct BooksimEntry {
  std::string key;
  std::string raw;  // the value's text as written, without comments
  BooksimValueKind kind = BooksimValueKind::kString;
  std::vector<std::string> elements;  // a list's top-level elements (a nested list stays text)
  std::string file;                   // the file name given to the reader; empty for an override
  int line = 0;                       // the key's line, 1-based; 0 for an override
  std::string override_arg;           // the command-line argument, for an override

  bool from_override() const { return !override_arg.empty(); }
};

// A value that names a traffic pattern or injection process with arguments,
// as BookSim writes them: neighbor({32,2,1}), randperm(7), on_off({0.1,0.2}),
// hotspot({{0,5},{3,1}}). An argument is a number or a braced list of them.
struct BooksimArg {
  std::string text;               // the argument as written: "32", "{0,5}"
  std::vector<BooksimArg> items;  // a list's elements; empty for a number
  double number = 0;              // the value of a number argument

  bool is_list() const { return !text.empty() && text.front() == '{'; }
};

struct BooksimCall {
  std::string name;              // neighbor
  std::vector<BooksimArg> args;  // 32, 2, 1; empty when written without ()
};

// Parses a call value. Arguments are as BookSim reads them: name(X) has one
// argument X, name({X,Y}) has the arguments X and Y. Throws
// std::invalid_argument with what was wrong and what to do, without a
// location (BooksimConfig::get_call adds FILE:LINE), notably for name(32,2,1),
// of which BookSim would silently read only the 32.
BooksimCall parse_booksim_call(std::string_view text);

// The top-level elements of a braced list "{a,{b,c},d}" -> a, {b,c}, d,
// trimmed; a text without braces is a single element. Throws
// std::invalid_argument for an empty element or unbalanced braces.
std::vector<std::string> split_booksim_list(std::string_view text);

// True when a command-line argument is an override rather than a file name:
// BookSim's rule, it holds a '='.
bool is_booksim_override(std::string_view arg);

class BooksimConfig {
 public:
  // Appends the assignments of a file, or of text standing for one (`file`
  // names it in messages). Several files may be read, later ones winning as
  // in BookSim. Throws BooksimConfigError.
  void read_file(const std::string& path);
  void read_string(std::string_view text, const std::string& file);

  // Applies one `key=value` argument as BookSim's command line does (after
  // the file, so it wins). The final ';' is optional; "k=4;n=2" sets both.
  void apply_override(std::string_view arg);

  // Every assignment in the order read, duplicates included.
  const std::vector<BooksimEntry>& entries() const { return entries_; }

  // The assignment that wins for a key (the last one), or nullptr.
  const BooksimEntry* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  // Every assignment of a key, in order: the last one wins, the others are
  // overridden (for a warning naming their lines).
  std::vector<const BooksimEntry*> all(std::string_view key) const;

  // A key's value, or `fallback` when the key is not set. A value of the
  // wrong kind throws BooksimConfigError at its line. get_double takes an
  // integer too; get_string takes a name or a list, not a number.
  int get_int(std::string_view key, int fallback) const;
  double get_double(std::string_view key, double fallback) const;
  std::string get_string(std::string_view key, const std::string& fallback) const;

  // A per-class value, as BookSim's GetIntArray and friends: a list's
  // elements, or a single value as a list of one; `fallback` when unset.
  std::vector<int> get_int_list(std::string_view key, const std::vector<int>& fallback) const;
  std::vector<double> get_double_list(std::string_view key,
                                      const std::vector<double>& fallback) const;
  std::vector<std::string> get_string_list(std::string_view key,
                                           const std::vector<std::string>& fallback) const;

  // A key whose value is a call (traffic = neighbor({32,2,1});), parsed;
  // `fallback` parsed when unset. Errors name the line.
  BooksimCall get_call(std::string_view key, std::string_view fallback) const;

  // An error about an entry's value at its line, for the caller's checks
  // ("neighbor needs k"): "FILE:LINE: key = value: message".
  static BooksimConfigError error_at(const BooksimEntry& entry, const std::string& message);

 private:
  std::vector<BooksimEntry> entries_;
};

}  // namespace fabemu
