// Fuzz test of the spec loader: mutations of the ready topologies (lines
// deleted, duplicated, re-indented; keys renamed or moved; values replaced by
// huge, tiny, negative, mistyped, tagged or other keys' values; files cut
// short, with raw bytes, a second document or a stray ',' ']' '}'; a --set
// of any key to such a value) must each either
//   - be refused like `fabemu check` refuses (exit 2) with FILE:LINE:COL, or
//     for a --set, FILE: --set 'KEY=VALUE', or
//   - be accepted, and then a short `fabemu run` of it completes.
// The check part runs in-process against the loader and the memory check
// (what `check` calls), each mutation held to 4 GB of address space and 20 s
// (a parse without bound fails here instead of exhausting the machine); the
// runs use the fabemu binary, on a sample of the accepted mutations, each
// bounded in time.
//
//   fabemu_spec_fuzz FABEMU_BINARY SOURCE_DIR [--seed N] [--count N] [--runs N]
//
// Deterministic for a seed; a failure prints the seed, the mutation's index
// and the input, so it can be replayed (--seed N --count INDEX+1).
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "control/cli/commands.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"

namespace {

using fabemu::SpecError;

// The input being checked, for the crash handler.
std::string g_current;
uint64_t g_seed = 1;
long g_index = -1;

extern "C" void on_crash(int sig) {
  const std::string head =
      fmt::format("\nspec_fuzz: {} (signal {}) at seed {} mutation {}; the input was:\n",
                  sig == SIGALRM ? "NO END (20 s)" : "CRASH", sig, g_seed, g_index);
  (void)!write(STDERR_FILENO, head.data(), head.size());
  (void)!write(STDERR_FILENO, g_current.data(), g_current.size());
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

class Rand {
 public:
  explicit Rand(uint64_t seed) : g_(seed) {}
  // Uniform in [0, n): modulo of the raw 64-bit output, the same on every
  // standard library (std::uniform_int_distribution is not).
  size_t below(size_t n) { return n ? static_cast<size_t>(g_() % n) : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  std::mt19937_64 g_;
};

const std::vector<std::string> kValues = {
    // Huge, tiny, signed, special.
    "1e308",
    "1e15",
    "1e10",
    "99999999999999999999",
    "4294967296",
    "2147483648",
    "65536",
    "16777216",
    "1025",
    "1024",
    "255",
    "256",
    "64",
    "33",
    "32",
    "17",
    "11",
    "10",
    "9",
    "8",
    "7",
    "5",
    "4",
    "3",
    "2",
    "1",
    "0",
    "-1",
    "-0",
    "0.5",
    "1.5",
    "0.001",
    "1e-9",
    "1e-300",
    "-1e308",
    ".inf",
    "-.inf",
    ".nan",
    "0x10",
    "0o17",
    "1_000",
    "+5",
    // Other types.
    "true",
    "no",
    "null",
    "~",
    "",
    "[]",
    "{}",
    "[1, 2]",
    "[4, 4]",
    "[4, 4, 4, 4]",
    "[0, 4, 4]",
    "[255, 255, 255]",
    "[32, 32, 32]",
    "[2, 2, 2]",
    "[8, 8, 8]",
    "{a: 1}",
    "[{bytes: 8}]",
    "[{bytes: 0}]",
    "[{bytes: 8, weight: 0}]",
    "[65536]",
    "[70000]",
    "\"0.5\"",
    "'x'",
    "text",
    "torus",
    "clos",
    "mesh",
    "yarc",
    "t3e",
    "custom",
    "updown",
    "direction_order",
    "uniform",
    "transpose",
    "tornado",
    "bitcomp",
    "neighbor",
    "permutation",
    "hotspot",
    "batch",
    "realtime",
    "virtual",
    // Tags, anchors, aliases, broken syntax.
    "!!str 0.5",
    "!!int 5",
    "!custom 5",
    "!!float x",
    "&a 5",
    "*a",
    "&b [*b]",
    "[",
    "{",
    "]",
    "\"unterminated",
    "a: b: c",
    "- 1",
    "? x",
    "|\n  block",
    ">-\n  folded",
    "%YAML 1.2",
    // Flow indicators no bracket opened (yaml-cpp 0.7 once read a leading
    // ',' as empty documents without end).
    ",",
    ", a",
    ",,",
    ", ,",
    "]",
    "}",
    "]]",
    "[a]]",
    "{a: 1}}",
};

// What a stray-token mutation puts at the start of a line or of the file.
const std::vector<std::string> kStray = {",", ", a", ",,", ", ,", "]", "}", "]]", "} ,", ",]"};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// "  key: value  # comment" -> the position of ':' after a key, or npos.
size_t key_colon(const std::string& line) {
  const size_t c = line.find(": ");
  if (c == std::string::npos && !line.empty() && line.back() == ':') return line.size() - 1;
  return c;
}

class Mutator {
 public:
  Mutator(Rand& r, std::vector<std::string> keys) : r_(r), keys_(std::move(keys)) {}

  // Whether the last mutate() put a new value in (what a run can trip on,
  // rather than a key or the layout check refuses anyway).
  bool valued() const { return valued_; }

  std::string mutate(const std::string& base) {
    valued_ = false;
    std::string text = base;
    const int n = 1 + static_cast<int>(r_.below(3));
    for (int i = 0; i < n; i++) text = once(text);
    return text;
  }

 private:
  std::string once(const std::string& text) {
    std::vector<std::string> lines = split_lines(text);
    if (lines.empty()) lines.push_back("");
    const size_t at = r_.below(lines.size());
    std::string& line = lines[at];
    const size_t colon = key_colon(line);
    switch (r_.below(13)) {
      case 0:  // delete a line
        lines.erase(lines.begin() + static_cast<long>(at));
        break;
      case 1:  // duplicate a line
        lines.insert(lines.begin() + static_cast<long>(at), line);
        break;
      case 2:
      case 3:
      case 4:  // replace a value
        if (colon != std::string::npos) line = line.substr(0, colon) + ": " + r_.pick(kValues);
        valued_ = true;
        break;
      case 5: {  // a value from another line
        const std::string& other = r_.pick(lines);
        const size_t oc = key_colon(other);
        if (colon != std::string::npos && oc != std::string::npos)
          line = line.substr(0, colon) + other.substr(oc);
        break;
      }
      case 6: {  // rename a key: a misspelling or any key of the spec
        if (colon == std::string::npos) break;
        const size_t indent = line.find_first_not_of(' ');
        if (indent == std::string::npos || indent >= colon) break;
        std::string key = r_.pick(keys_);
        if (r_.chance(50)) key = key.substr(key.rfind('.') + 1);
        if (r_.chance(20) && key.size() > 2) key.erase(r_.below(key.size()), 1);
        line = line.substr(0, indent) + key + line.substr(colon);
        break;
      }
      case 7: {  // insert a key of the spec, with a value, at some indentation
        std::string key = r_.pick(keys_);
        key = key.substr(key.rfind('.') + 1);
        const std::string indent(r_.chance(60) ? 2 : 0, ' ');
        lines.insert(lines.begin() + static_cast<long>(at), indent + key + ": " + r_.pick(kValues));
        break;
      }
      case 8:  // re-indent
        if (r_.chance(50) && line.rfind("  ", 0) == 0)
          line.erase(0, 2);
        else
          line.insert(0, r_.chance(50) ? "  " : " ");
        break;
      case 9: {  // cut the file short
        std::string s = join_lines(lines);
        return s.substr(0, r_.below(s.size() + 1));
      }
      case 10: {  // raw bytes
        static const std::vector<std::string> raw = {
            std::string(1, '\0'), "\t", "\r", "\xff", "\xc3", "\x1b[31m", "\xef\xbb\xbf", "\\"};
        line.insert(r_.below(line.size() + 1), r_.pick(raw));
        break;
      }
      case 11:  // a second document, or a tag on a section
        if (r_.chance(50))
          lines.insert(lines.begin() + static_cast<long>(at), "---");
        else if (colon != std::string::npos)
          line.insert(colon + 1, " !!map");
        break;
      case 12: {  // a stray flow indicator: first in the file, or first on a line
        const std::string& stray = r_.pick(kStray);
        if (r_.chance(40)) return stray + (r_.chance(50) ? "\n" : "") + join_lines(lines);
        const size_t indent = line.find_first_not_of(' ');
        line.insert(indent == std::string::npos ? line.size() : indent, stray);
        break;
      }
    }
    return join_lines(lines);
  }

  Rand& r_;
  std::vector<std::string> keys_;
  bool valued_ = false;
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a command; returns its exit status (128 + signal when killed) and
// its stderr in *err.
int run(const std::string& cmd, std::string* err) {
  const std::string errfile = fmt::format("/tmp/spec_fuzz_err_{}.txt", getpid());
  const int rc = std::system((cmd + " >/dev/null 2>" + errfile).c_str());
  *err = read(errfile);
  std::remove(errfile.c_str());
  if (rc == -1) return -1;
  if (WIFEXITED(rc)) return WEXITSTATUS(rc);
  return 128 + WTERMSIG(rc);
}

// `s` as one shell word.
std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;  // reserves far more address space than any limit
#else
constexpr bool kAddressSanitizer = false;
#endif

// Holds this process to `bytes` of address space (the soft limit; the hard
// one stays, so restore() lifts it again for the runs, whose DPDK reserves
// more).
class AddressSpaceLimit {
 public:
  explicit AddressSpaceLimit(rlim_t bytes) {
    if (kAddressSanitizer || getrlimit(RLIMIT_AS, &old_) != 0) return;
    rlimit l = old_;
    l.rlim_cur = std::min(bytes, old_.rlim_max);
    set_ = setrlimit(RLIMIT_AS, &l) == 0;
  }
  void restore() {
    if (set_) setrlimit(RLIMIT_AS, &old_);
    set_ = false;
  }
  ~AddressSpaceLimit() { restore(); }

 private:
  rlimit old_{};
  bool set_ = false;
};

struct Accepted {
  long index;
  std::string text;
  std::vector<std::string> sets;
  size_t endpoints;
  bool valued;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fabemu_spec_fuzz FABEMU_BINARY SOURCE_DIR [--seed N] [--count N] "
                 "[--runs N]\n";
    return 2;
  }
  const std::string binary = argv[1];
  const std::string src = argv[2];
  long count = 3000, runs = 12;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--seed") g_seed = std::strtoull(argv[i + 1], nullptr, 10);
    if (opt == "--count") count = std::strtol(argv[i + 1], nullptr, 10);
    if (opt == "--runs") runs = std::strtol(argv[i + 1], nullptr, 10);
  }
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, SIGALRM}) std::signal(sig, on_crash);

  std::vector<std::pair<std::string, std::string>> bases;  // name, text
  for (const auto& e : std::filesystem::directory_iterator(src + "/topologies"))
    if (e.path().extension() == ".yaml") bases.push_back({e.path().filename(), read(e.path())});
  std::sort(bases.begin(), bases.end());
  std::vector<std::string> keys;
  for (const auto& f : fabemu::spec_field_docs())
    if (f.path.find('[') == std::string::npos) keys.push_back(f.path);

  std::cout << fmt::format("spec_fuzz: seed {}, {} mutations of {} topologies, {} runs\n", g_seed,
                           count, bases.size(), runs);
  Rand rand(g_seed);
  Mutator mutator(rand, keys);
  const std::string name = "fuzz.yaml";
  const std::regex located("^fuzz\\.yaml:[0-9]+:[0-9]+: ");
  const std::regex located_set("^fuzz\\.yaml: --set '");
  long refused = 0, failures = 0;
  std::vector<Accepted> accepted;
  auto fail = [&](long index, const std::string& input, const std::string& why) {
    failures++;
    std::cout << fmt::format(
        "FAIL: seed {} mutation {}: {}\n--- input ({} bytes, as a C string) ---\n{}\n--- end "
        "---\n",
        g_seed, index, why, input.size(), fabemu::printable(input, 4000));
  };
  AddressSpaceLimit limit(rlim_t{4} << 30);
  for (long i = 0; i < count; i++) {
    const auto& base = bases[rand.below(bases.size())];
    const std::string text = mutator.mutate(base.second);
    std::vector<std::string> sets;
    if (rand.chance(15)) sets.push_back(rand.pick(keys) + "=" + rand.pick(kValues));
    g_index = i;
    g_current = text;
    for (const std::string& set : sets) g_current += "\n# --set " + set;
    alarm(20);
    try {
      const fabemu::Spec spec = fabemu::load_spec_text(text, sets, name);
      const fabemu::Fabric f = fabemu::runnable_fabric(spec);
      accepted.push_back({i, text, sets, f.endpoints.size(), mutator.valued() || !sets.empty()});
    } catch (const SpecError& e) {
      refused++;
      if (!std::regex_search(e.what(), e.set_arg().empty() ? located : located_set))
        fail(i, g_current, fmt::format("refused without FILE:LINE:COL: {}", e.what()));
    } catch (const std::exception& e) {
      fail(i, g_current, fmt::format("not a SpecError ({}): {}", typeid(e).name(), e.what()));
    }
    alarm(0);
    if (failures >= 10) break;
  }
  limit.restore();
  std::cout << fmt::format("check: {} refused with FILE:LINE:COL, {} accepted, {} failures\n",
                           refused, accepted.size(), failures);

  // Runs: a sample of the accepted mutations small enough to run in a
  // second or two, spread over the whole list; those with a new value first.
  std::vector<Accepted> sample;
  for (bool valued : {true, false})
    for (const auto& a : accepted)
      if (a.endpoints <= 1024 && a.valued == valued && sample.size() < size_t(runs) * 20)
        sample.push_back(a);
  long done = 0;
  const std::string file = fmt::format("/tmp/spec_fuzz_{}.yaml", getpid());
  for (long k = 0; k < runs && !sample.empty() && failures < 10; k++) {
    const Accepted& a = sample[(k * sample.size()) / runs];
    if (k > 0 && a.index == sample[((k - 1) * sample.size()) / runs].index) continue;
    std::ofstream(file, std::ios::binary) << a.text;
    g_index = a.index;
    g_current = a.text;
    std::string sets;
    for (const std::string& set : a.sets) {
      sets += " --set " + shell_quoted(set);
      g_current += "\n# --set " + set;
    }
    std::string err;
    const std::string cmd = fmt::format(
        "timeout -k 5 60 {} run {} -q{} --set run.warmup_ns=0 --set run.measure_ns=1000 "
        "--set run.drain_ns=20000 --set run.duration_s=0.3 --set run.progress_s=0",
        binary, file, sets);
    const int rc = run(cmd, &err);
    const bool saturated = rc == 1 && err.find("did not drain") != std::string::npos &&
                           err.find("broke down") == std::string::npos;
    if (rc == 0 || saturated)
      done++;
    else
      fail(a.index, g_current,
           fmt::format("accepted by check, but `fabemu run` exited {}{}: {}", rc,
                       rc == 124 ? " (did not finish in 60 s)" : "", fabemu::printable(err, 600)));
  }
  std::remove(file.c_str());
  std::cout << fmt::format("run: {} of the accepted completed\n", done);
  if (failures) {
    std::cout << fmt::format("spec_fuzz: {} failures with seed {}\n", failures, g_seed);
    return 1;
  }
  if (refused == 0 || accepted.empty() || done == 0) {
    std::cout << "spec_fuzz: the mutations did not exercise both outcomes\n";
    return 1;
  }
  return 0;
}
