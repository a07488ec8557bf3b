// BookSim2 config text imported in a test: a fixed head of keys plus the
// case's own (the importer's view of "t.cfg"), its refusal, and the spec
// it translates to.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "control/booksim/booksim_config.h"
#include "control/booksim/booksim_import.h"
#include "control/spec/spec_loader.h"

namespace fabemu {

class BooksimText {
 public:
  explicit BooksimText(std::string head) : head_(std::move(head)) {}

  BooksimSpec imported(const std::string& more) const {
    BooksimConfig c;
    c.read_string(head_ + more, "t.cfg");
    return booksim_to_spec(c);
  }
  // The import's error for head + more ("" and a test failure if none).
  std::string refusal(const std::string& more) const {
    try {
      imported(more);
    } catch (const BooksimConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "not refused: " << more;
    return "";
  }
  // The translated spec, with `sets` (progress line off).
  Spec spec(const std::string& more, std::vector<std::string> sets = {}) const {
    sets.push_back("run.progress_s=0");
    return load_spec_text(imported(more).yaml, sets, "t.yaml");
  }

 private:
  std::string head_;
};

}  // namespace fabemu
