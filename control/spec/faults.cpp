#include "control/spec/faults.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

#include "control/spec/numbers.h"
#include "control/spec/spec_error.h"

namespace fabemu {
namespace {

bool whole_number(const std::string& s, size_t* i, int* out) {
  const char* b = s.data() + *i;
  const char* e = s.data() + s.size();
  const auto r = std::from_chars(b, e, *out);
  if (r.ec != std::errc() || *out < 0) return false;
  *i = static_cast<size_t>(r.ptr - s.data());
  return true;
}

}  // namespace

bool parse_emulated_time(const std::string& s, ps_t* at) {
  struct Unit {
    const char* suffix;
    double ps;
  };
  static const Unit units[] = {{"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}};
  if (s == "0") return *at = 0, true;
  for (const Unit& u : units) {
    const size_t n = std::string(u.suffix).size();
    if (s.size() <= n || s.compare(s.size() - n, n, u.suffix) != 0) continue;
    double v = 0;
    // (llround's range: 2^63 ps, 106 days.)
    if (!decimal_number(s.substr(0, s.size() - n), &v) || v < 0 || v * u.ps >= 9.2e18) return false;
    *at = static_cast<ps_t>(std::llround(v * u.ps));
    return true;
  }
  return false;
}

bool parse_fault(const std::string& text, bool with_time, FaultSpec* f, std::string* why) {
  *f = FaultSpec{};
  f->text = text;
  const auto bad = [&](const std::string& what) {
    *why = "'" + printable(text) + "' is not a fault: " + what + "; a fault is " +
           (with_time ? std::string(kFaultForms)
                      : std::string("TARGET [lane=L] WHAT, e.g. \"link=r0:p33 down\", "
                                    "\"link=r0:p33 lane=2 down\" or \"router=5 up\""));
    return false;
  };
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  // A lane is named between the link and what happens to it.
  const size_t base = with_time ? 3 : 2;
  const bool lane = words.size() == base + 1 && words[base - 1].rfind("lane=", 0) == 0;
  const size_t want = base + (lane ? 1 : 0);
  if (words.size() != want)
    return bad("it has " + std::to_string(words.size()) + " words, not " + std::to_string(want));
  size_t k = 0;
  if (with_time && !parse_emulated_time(words[k++], &f->at))
    return bad("'" + printable(words[0]) + "' is not a time such as 20us, 1500ns or 2ms");
  const std::string& target = words[k++];
  size_t i = 0;
  if (target.rfind("link=r", 0) == 0) {
    f->target = FaultSpec::Target::link;
    i = 6;
    if (!whole_number(target, &i, &f->router) || target.compare(i, 2, ":p") != 0)
      return bad("write the link as link=rR:pP");
    i += 2;
    if (!whole_number(target, &i, &f->port) || i != target.size())
      return bad("write the link as link=rR:pP");
  } else if (target.rfind("router=", 0) == 0) {
    f->target = FaultSpec::Target::router;
    i = 7;
    if (!whole_number(target, &i, &f->router) || i != target.size())
      return bad("write the router as router=R");
  } else if (target.rfind("endpoint=", 0) == 0) {
    f->target = FaultSpec::Target::endpoint;
    i = 9;
    if (!whole_number(target, &i, &f->endpoint) || i != target.size())
      return bad("write the endpoint as endpoint=E");
  } else {
    return bad("the target '" + printable(target) +
               "' is neither link=rR:pP, router=R nor endpoint=E");
  }
  if (lane) {
    const std::string& word = words[k++];
    if (f->target != FaultSpec::Target::link)
      return bad("a lane belongs to a link: link=rR:pP lane=L");
    i = 5;
    if (!whole_number(word, &i, &f->lane) || i != word.size())
      return bad("write the lane as lane=L, L a lane number from 0");
  }
  const std::string& what = words[k];
  if (f->target == FaultSpec::Target::endpoint) {
    if (what != "stop" && what != "start")
      return bad("an endpoint stops or starts accepting packets: endpoint=E stop|start");
    f->kind = what == "stop" ? FaultSpec::Kind::stop : FaultSpec::Kind::start;
    return true;
  }
  if (what == "down") {
    f->kind = FaultSpec::Kind::down;
  } else if (what == "up") {
    f->kind = FaultSpec::Kind::up;
  } else if (what.rfind("ber=", 0) == 0) {
    f->kind = FaultSpec::Kind::ber;
    if (f->target != FaultSpec::Target::link) return bad("bit errors are set on a link");
    if (!decimal_number(what.substr(4), &f->ber))
      return bad("the bit error rate is a decimal number, e.g. ber=1e-5" +
                 decimal_hint(what.substr(4, 400)));
    if (const std::string problem = ber_problem(f->ber); !problem.empty()) return bad(problem);
  } else {
    return bad("'" + printable(what) + "' is neither down, up nor ber=X");
  }
  return true;
}

}  // namespace fabemu
