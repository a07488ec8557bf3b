// Numbers as a spec, a fault and the control socket give them: one grammar
// for all, and one rule for a bit-error rate however it is set (link.ber, a
// fault on a link or a lane, in the spec or on the control socket).
#pragma once
#include <string>

namespace fabemu {

// A finite decimal number: an optional sign, digits with an optional point
// (1, 0.5, .5, 5.) and an optional exponent (1e-5, 2E+3). Not the other
// forms strtod takes (hex such as 0x10 or 0x1p-3, inf, nan, white space),
// nor one too large for a double.
bool decimal_number(const std::string& text, double* out);

// For a message when decimal_number refused `text`: how to write it when it
// is a number in another form ("; write it in decimal: 0.125" for 0x1p-3),
// else empty.
std::string decimal_hint(const std::string& text);

// The highest bit-error rate of a link or a lane: above it nearly every
// packet is damaged, and a link with retry resends without end (the run
// cannot drain).
inline constexpr double kMaxBer = 0.01;

// Empty when `ber` is a bit-error rate a link can take (0 to kMaxBer); else
// what is wrong, for a message.
std::string ber_problem(double ber);

}  // namespace fabemu
