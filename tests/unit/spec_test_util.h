// Helpers shared by the spec tests (spec_*_test.cpp): load a spec from text
// named t.yaml, catch the SpecError it raises, and check the field, line,
// column and message the error names.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"

namespace fabemu::spec_test {

inline Spec load(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return load_spec_text(yaml, sets, "t.yaml");
}

// The SpecError a spec raises; fails the test if it loads.
inline SpecError error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load(yaml, sets);
  } catch (const SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a SpecError for:\n" << yaml;
  return SpecError("", 0, 0, "", "");
}

// Field, 1-based line and column of an error from the file.
inline void expect_at(const SpecError& e, const std::string& field, int line, int column) {
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.column(), column) << e.what();
  EXPECT_EQ(e.file(), "t.yaml");
  EXPECT_TRUE(e.set_arg().empty()) << e.what();
}

// The error's message contains `text`.
inline void expect_says(const SpecError& e, const std::string& text) {
  EXPECT_NE(e.message().find(text), std::string::npos) << e.what();
}

}  // namespace fabemu::spec_test
