// BookSim2 configuration syntax: see booksim_config.h. The token rules
// follow BookSim's lexer (src/config.l) so that a value is an integer, a
// float or a string exactly when BookSim would class it so.
#include "control/booksim/booksim_config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "control/booksim/booksim_numbers.h"
#include "control/spec/spec_error.h"  // printable()

namespace fabemu {

using namespace booksim_numbers;

namespace {

// --- Characters ------------------------------------------------------------

// BookSim skips exactly these between tokens.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A key is a name; BookSim's lexer would take a few more characters, but no
// key it knows has them.
bool is_key_start(char c) { return is_letter(c) || c == '_'; }
bool is_key_char(char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '-' || c == '.'; }

// A bare name value starts as BookSim's string token does.
bool is_name_start(char c) { return is_letter(c) || c == '_' || c == '-' || c == '/' || c == '.'; }

// The characters BookSim's string and list tokens are made of.
bool is_value_char(char c) {
  return is_letter(c) || is_digit(c) || std::strchr("_-/.+(){},", c) != nullptr;
}

bool is_open(char c) { return c == '(' || c == '{'; }
bool is_close(char c) { return c == ')' || c == '}'; }
char closer_of(char open) { return open == '(' ? ')' : '}'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// --- Brackets --------------------------------------------------------------

// Index of the bracket closing the one at text[open]; throws when it is
// never closed or closed by the wrong kind.
size_t matching_close(std::string_view text, size_t open) {
  std::string stack;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (is_open(c)) {
      stack += c;
    } else if (is_close(c)) {
      if (stack.empty() || c != closer_of(stack.back()))
        throw std::invalid_argument(quoted(c) + " does not match an opening bracket in " +
                                    quoted(text));
      stack.pop_back();
      if (stack.empty()) return i;
    }
  }
  throw std::invalid_argument(quoted(text[open]) + " is never closed in " + quoted(text) +
                              "; add " + quoted(closer_of(text[open])));
}

// Splits at the commas outside any bracket.
std::vector<std::string_view> split_top_level(std::string_view inner) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (is_open(c)) ++depth;
    if (is_close(c)) --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(inner.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(inner.substr(start));
  return parts;
}

// --- Values ----------------------------------------------------------------

struct Classified {
  BooksimValueKind kind;
  std::vector<std::string> elements;
};

// Which of BookSim's tables a value lands in; throws for one BookSim's
// lexer would not read as a single token.
Classified classify(std::string_view raw) {
  if (raw.front() == '{') return {BooksimValueKind::kList, split_booksim_list(raw)};
  if (is_integer_text(raw)) return {BooksimValueKind::kInteger, {}};
  if (is_float_text(raw)) return {BooksimValueKind::kFloat, {}};
  if (looks_numeric(raw)) throw std::invalid_argument(not_a_number_message(raw));
  if (!is_name_start(raw.front()))
    throw std::invalid_argument("a value starts with a letter, '_', '-', '/', '.', a digit or '{'");
  return {BooksimValueKind::kString, {}};
}

// What to tell the user about a character where a key should start.
std::string unexpected_at_key(char c) {
  switch (c) {
    case ';':
      return "a ';' with no assignment before it; remove it";
    case '=':
      return "'=' with no key before it; write KEY = VALUE;";
    case '"':
    case '\'':
      return "BookSim takes no quotes; write KEY = VALUE; with the words bare";
    case '#':
      return "'#' does not start a comment in BookSim; use //";
    default:
      return "expected a key (a name such as num_vcs), found " + quoted(c);
  }
}

std::string bad_value_char(char c) {
  std::string msg = "character " + quoted(c) + " cannot appear in a BookSim value";
  if (c == '#') msg += " ('#' does not start a comment in BookSim: use //)";
  if (c == '"' || c == '\'') msg += " (BookSim takes no quotes: write the value bare)";
  return msg;
}

// --- The scanner -----------------------------------------------------------

// Reads `key = value;` assignments one at a time, counting lines.
class Scanner {
 public:
  // `where` names the text in messages; lines are counted unless the text
  // is an override (a command-line argument has no lines).
  Scanner(std::string_view text, std::string where, bool count_lines)
      : text_(text), where_(std::move(where)), count_lines_(count_lines) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // an editor's UTF-8 mark
  }

  // The next assignment, or false at the end of the text.
  bool next(BooksimEntry* out) {
    skip_blanks();
    if (at_end()) return false;
    const int line = line_;
    if (!is_key_start(peek())) fail(line, unexpected_at_key(peek()));
    std::string key = read_key();
    skip_blanks();
    if (peek() != '=')
      fail(line, "missing '=' after " + quoted(key) + "; write " + key + " = VALUE;");
    advance();
    skip_blanks();
    if (at_end() || peek() == ';')
      fail(line, "no value for " + quoted(key) + "; write " + key + " = VALUE;");
    std::string_view raw = read_value();
    skip_blanks();
    if (at_end() || peek() != ';') {
      std::string found = at_end() ? "" : " (found " + quoted(peek()) + " next)";
      fail(line, "missing ';' after '" + key + " = " + printable(raw) + "'" + found +
                     "; BookSim ends every assignment with ';'");
    }
    advance();
    fill(out, std::move(key), raw, line);
    return true;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw BooksimConfigError(where_, count_lines_ ? line : 0, message);
  }

  // White space, // comments to the end of the line, /* */ comments.
  void skip_blanks() {
    for (;;) {
      if (!at_end() && is_space(peek())) {
        advance();
      } else if (peek() == '/' && peek(1) == '/') {
        while (!at_end() && peek() != '\n') advance();
      } else if (peek() == '/' && peek(1) == '*') {
        skip_block_comment();
      } else {
        return;
      }
    }
  }

  void skip_block_comment() {
    const int start = line_;
    advance();
    advance();
    while (!at_end() && !(peek() == '*' && peek(1) == '/')) advance();
    if (at_end()) fail(start, "a '/*' comment is never closed; end it with '*/'");
    advance();
    advance();
  }

  std::string read_key() {
    size_t start = pos_;
    while (!at_end() && is_key_char(peek())) advance();
    return std::string(text_.substr(start, pos_ - start));
  }

  // A value runs to white space, ';' or a comment outside any bracket;
  // inside brackets white space is allowed and ';' or '=' means the
  // bracket was never closed.
  std::string_view read_value() {
    size_t start = pos_;
    std::vector<std::pair<char, int>> open;  // bracket, line it opened on
    while (!at_end()) {
      char c = peek();
      if (open.empty()) {
        if (is_space(c) || c == ';') break;
        if (c == '/' && (peek(1) == '/' || peek(1) == '*')) break;
      } else if (is_space(c)) {
        advance();
        continue;
      } else if (c == ';' || c == '=') {
        fail_unclosed(open.back());
      }
      if (is_open(c)) {
        open.emplace_back(c, line_);
      } else if (is_close(c)) {
        check_close(c, open);
        open.pop_back();
      } else if (!is_value_char(c)) {
        fail(line_, bad_value_char(c));
      }
      advance();
    }
    if (!open.empty()) fail_unclosed(open.back());
    return text_.substr(start, pos_ - start);
  }

  void check_close(char c, const std::vector<std::pair<char, int>>& open) const {
    if (open.empty())
      fail(line_, quoted(c) + " closes nothing; remove it or add the opening bracket");
    if (c != closer_of(open.back().first))
      fail(line_, quoted(c) + " does not match the " + quoted(open.back().first) +
                      " opened on line " + std::to_string(open.back().second) +
                      "; close that one with " + quoted(closer_of(open.back().first)) + " first");
  }

  [[noreturn]] void fail_unclosed(const std::pair<char, int>& bracket) const {
    fail(bracket.second, quoted(bracket.first) + " is never closed; add " +
                             quoted(closer_of(bracket.first)) + " before the ';'");
  }

  void fill(BooksimEntry* out, std::string key, std::string_view raw, int line) const {
    Classified c = classify_at(key, raw, line);
    *out = BooksimEntry{};
    out->key = std::move(key);
    out->raw = std::string(raw);
    out->kind = c.kind;
    out->elements = std::move(c.elements);
    out->line = count_lines_ ? line : 0;
  }

  Classified classify_at(const std::string& key, std::string_view raw, int line) const {
    try {
      return classify(raw);
    } catch (const std::invalid_argument& e) {
      fail(line, "'" + key + " = " + printable(raw) + "': " + e.what());
    }
  }

  std::string_view text_;
  std::string where_;
  bool count_lines_;
  size_t pos_ = 0;
  int line_ = 1;
};

std::string override_where(std::string_view arg) {
  return "override '" + printable(arg, 120) + "'";
}

// --- Calls -----------------------------------------------------------------

BooksimArg parse_arg(std::string_view text, const std::string& name) {
  BooksimArg arg;
  arg.text = std::string(text);
  if (!text.empty() && text.front() == '{') {
    for (const std::string& item : split_booksim_list(text))
      arg.items.push_back(parse_arg(item, name));
    return arg;
  }
  if (!(is_integer_text(text) || is_float_text(text)) || !parse_double(text, &arg.number))
    throw std::invalid_argument("argument " + quoted(text) + " of " + name + " is not a number");
  return arg;
}

std::string call_example(const std::string& name) { return name + "({4,2,1})"; }

}  // namespace

// --- Public functions --------------------------------------------------------

BooksimConfigError::BooksimConfigError(std::string file, int line, std::string message)
    : std::runtime_error(printable(file, 300) + (line > 0 ? ":" + std::to_string(line) : "") +
                         ": " + message),
      file_(std::move(file)),
      line_(line),
      message_(std::move(message)) {}

const char* to_string(BooksimValueKind kind) {
  switch (kind) {
    case BooksimValueKind::kInteger:
      return "integer";
    case BooksimValueKind::kFloat:
      return "float";
    case BooksimValueKind::kString:
      return "string";
    case BooksimValueKind::kList:
      return "list";
  }
  return "?";
}

std::vector<std::string> split_booksim_list(std::string_view text) {
  text = trim(text);
  if (text.empty()) throw std::invalid_argument("an empty value");
  if (text.front() != '{') return {std::string(text)};  // one element, as BookSim's tokenizer
  size_t close = matching_close(text, 0);
  if (close + 1 != text.size())
    throw std::invalid_argument("text after the closing '}' of " +
                                quoted(text.substr(0, close + 1)) + "; a list is a single {...}");
  std::string_view inner = text.substr(1, close - 1);
  if (trim(inner).empty())
    throw std::invalid_argument("an empty list '{}', which BookSim cannot read; leave the key out");
  std::vector<std::string> elements;
  for (std::string_view part : split_top_level(inner)) {
    part = trim(part);
    if (part.empty())
      throw std::invalid_argument("an empty element in " + quoted(text) + "; remove the extra ','");
    elements.emplace_back(part);
  }
  return elements;
}

BooksimCall parse_booksim_call(std::string_view text) {
  text = trim(text);
  if (text.empty()) throw std::invalid_argument("an empty value where a name is expected");
  if (text.front() == '{')
    throw std::invalid_argument("a list where one name is expected, such as uniform or " +
                                call_example("neighbor"));
  size_t left = text.find('(');
  BooksimCall call;
  call.name = std::string(trim(text.substr(0, left)));
  if (call.name.empty() || !is_name_start(call.name.front()) || looks_numeric(call.name))
    throw std::invalid_argument(quoted(text) + " does not start with a name, such as uniform or " +
                                call_example("neighbor"));
  for (char c : call.name)
    if (!is_key_char(c))
      throw std::invalid_argument("character " + quoted(c) + " in the name " + quoted(call.name) +
                                  "; arguments go in (), as " + call_example(call.name));
  if (left == std::string_view::npos) return call;

  size_t right = matching_close(text, left);
  if (right + 1 != text.size())
    throw std::invalid_argument("text after the closing ')' of " + quoted(text) +
                                "; write the arguments inside (), as " + call_example(call.name));
  std::string_view inner = trim(text.substr(left + 1, right - left - 1));
  if (inner.empty()) return call;
  if (inner.front() != '{') {
    // BookSim reads name(a,b,c) as name(a): it splits only a braced list.
    if (split_top_level(inner).size() > 1)
      throw std::invalid_argument("write " + call.name + "({" + std::string(inner) +
                                  "}): BookSim reads " + call.name + "(" + std::string(inner) +
                                  ") as " + call.name + "(" +
                                  std::string(trim(split_top_level(inner).front())) + ") alone");
    call.args.push_back(parse_arg(inner, call.name));
    return call;
  }
  for (const std::string& element : split_booksim_list(inner))
    call.args.push_back(parse_arg(element, call.name));
  return call;
}

bool is_booksim_override(std::string_view arg) { return arg.find('=') != std::string_view::npos; }

// --- BooksimConfig -----------------------------------------------------------

void BooksimConfig::read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw BooksimConfigError(
        path, 0, std::string("cannot open the file: ") + std::strerror(errno) + "; check the path");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw BooksimConfigError(path, 0, "cannot read the file");
  read_string(text.str(), path);
}

void BooksimConfig::read_string(std::string_view text, const std::string& file) {
  Scanner scanner(text, file, true);
  BooksimEntry entry;
  while (scanner.next(&entry)) {
    entry.file = file;
    entries_.push_back(std::move(entry));
  }
}

void BooksimConfig::apply_override(std::string_view arg) {
  const std::string where = override_where(arg);
  if (!is_booksim_override(arg))
    throw BooksimConfigError(where, 0, "an override is KEY=VALUE, as k=8");
  // BookSim appends the ';' itself; take one written too.
  std::string text(arg);
  if (trim(text).empty() || trim(text).back() != ';') text += ';';
  Scanner scanner(text, where, false);
  BooksimEntry entry;
  while (scanner.next(&entry)) {
    entry.override_arg = std::string(arg);
    entries_.push_back(std::move(entry));
  }
}

const BooksimEntry* BooksimConfig::find(std::string_view key) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

std::vector<const BooksimEntry*> BooksimConfig::all(std::string_view key) const {
  std::vector<const BooksimEntry*> found;
  for (const BooksimEntry& e : entries_)
    if (e.key == key) found.push_back(&e);
  return found;
}

BooksimConfigError BooksimConfig::error_at(const BooksimEntry& entry, const std::string& message) {
  std::string where = entry.from_override() ? override_where(entry.override_arg) : entry.file;
  return BooksimConfigError(where, entry.line,
                            "'" + entry.key + " = " + printable(entry.raw) + "': " + message);
}

}  // namespace fabemu
