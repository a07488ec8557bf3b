// How BookSim2's lexer tells numbers from names (its src/config.l), shared
// by the configuration reader (booksim_config.cpp) and the typed getters
// (booksim_values.cpp). Internal to control/booksim/.
#pragma once
#include <string>
#include <string_view>

namespace fabemu::booksim_numbers {

// 'text', printable, for messages.
std::string quoted(std::string_view s);
std::string quoted(char c);

// -?[0-9]+
bool is_integer_text(std::string_view s);
// -?([0-9]*\.)?[0-9]+([eE][+-]?[0-9]+)? with a point or an exponent ("5."
// is not a number to BookSim).
bool is_float_text(std::string_view s);
// Starts the way a number does (BookSim would split "5x" into 5 and x).
bool looks_numeric(std::string_view s);
// Why s is neither a number nor a name, and what to write.
std::string not_a_number_message(std::string_view s);
// The whole of s as an int or a double; false when it does not fit.
bool parse_int(std::string_view s, int* out);
bool parse_double(std::string_view s, double* out);

}  // namespace fabemu::booksim_numbers
