// What a capture tap names (spec `capture.taps`, `fabemu run --capture`):
//   all               every fabric link and every port
//   link=rR:pP        both directions of the link at router R's port P
//   link=rR:pP:out    the direction leaving router R by port P (":in": arriving)
//   link=NAME         one direction by its name, e.g. r3.p2>r7.p5, ep4>r1.p0
//   router=R          every link into and out of router R
//   endpoint=E        endpoint E's injection and ejection links
//   port=NAME         the Ethernet frames of port binding NAME, both ways
// Parsed here for the spec's syntax check; resolved against the fabric by
// control/run/capture_plan.h.
#pragma once
#include <string>

namespace fabemu {

struct CaptureTap {
  enum class Kind { all, link_at, link_named, router, endpoint, port } kind = Kind::all;
  int router = -1, port = -1, endpoint = -1;
  bool in = true, out = true;  // link_at: which directions
  std::string name;            // link_named, port
};

// False with *why saying what is wrong and what is accepted.
bool parse_capture_tap(const std::string& text, CaptureTap* tap, std::string* why);

// The grammar, for help texts and messages.
inline constexpr const char* kCaptureTapForms =
    "all, link=rR:pP[:in|:out], link=NAME (r3.p2>r7.p5, ep4>r1.p0, r1.p0>ep4), router=R, "
    "endpoint=E or port=NAME";

}  // namespace fabemu
