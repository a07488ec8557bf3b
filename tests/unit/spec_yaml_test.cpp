// Spec loading, the YAML itself: what YAML allows but a spec cannot mean
// (a directory, a second document, explicit tags, self-containing aliases)
// is refused with file, line and column, and an error never echoes more than
// a short, printable piece of what the user gave.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

TEST(SpecYaml, ExplicitTagsAreRefused) {
  SpecError e = error_of("traffic:\n  load: !!str 0.5\n");
  expect_at(e, "traffic.load", 2, 9);
  expect_says(e, "explicit YAML tag '!!str'");
  expect_says(e, "remove the tag");

  e = error_of("run:\n  workers: !custom 5\n");
  expect_at(e, "run.workers", 2, 12);
  expect_says(e, "tag '!custom'");

  // On a key, a section, a list item and a whole file.
  expect_at(error_of("traffic:\n  !!str load: 0.5\n"), "traffic.load", 2, 3);
  expect_at(error_of("traffic: !!map {load: 0.5}\n"), "traffic", 1, 10);
  expect_at(error_of("traffic:\n  sizes: [8, !!int 64]\n"), "traffic.sizes[1]", 2, 14);
  expect_at(error_of("!!map {traffic: {load: 0.5}}\n"), "", 1, 1);

  // In a --set value too.
  e = error_of("", {"traffic.load=!!float 0.5"});
  EXPECT_EQ(e.set_arg(), "traffic.load=!!float 0.5");
  expect_says(e, "explicit YAML tag '!!float'");

  // Quotes are not tags: a quoted string where a number belongs is told so.
  expect_says(error_of("traffic:\n  load: \"0.5\"\n"), "remove the quotes");
}

TEST(SpecYaml, OneDocumentOnly) {
  SpecError e = error_of("traffic:\n  load: 0.2\n---\ntraffic:\n  load: 0.9\n");
  expect_at(e, "", 3, 1);
  expect_says(e, "a second YAML document starts here");

  // An empty second document, and a first one opened by its own '---'.
  expect_at(error_of("traffic: {load: 0.2}\n---\n"), "", 2, 1);
  expect_at(error_of("---\ntraffic: {load: 0.2}\n# note\n---\n# nothing\n"), "", 4, 1);

  // One document with its markers is fine.
  EXPECT_DOUBLE_EQ(load("---\ntraffic: {load: 0.2}\n...\n").traffic.load, 0.2);
  EXPECT_EQ(load("").profile, "t3e");
}

TEST(SpecYaml, SelfContainingAliasIsRefused) {
  const SpecError e = error_of("endpoints: &x [*x]\n");
  EXPECT_EQ(e.line(), 1);
  expect_says(e, "nested more than 16 levels");
  // Ordinary aliases still work.
  const Spec s = load("traffic:\n  sizes: &s [8, 64]\n", {});
  EXPECT_EQ(s.traffic.sizes.size(), 2u);
}

TEST(SpecYaml, DirectoryIsNotASpec) {
  const std::string dir = std::string(FABEMU_SOURCE_DIR) + "/topologies";
  try {
    load_spec(dir, {});
    FAIL() << "loaded a directory";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file(), dir);
    expect_says(e, "is a directory, not a spec file: give one of its");
    expect_says(e, "YAML files, e.g. " + dir + "/");
  }
}

TEST(SpecYaml, MessagesShowShortPrintableValues) {
  // A 120 kB --set value: the message carries its start and its size.
  const std::string huge(120000, '7');
  SpecError e = error_of("", {"traffic.load=" + huge});
  EXPECT_LT(std::string(e.what()).size(), 600u) << std::string(e.what()).substr(0, 600);
  EXPECT_NE(std::string(e.what()).find("... (120013 bytes)"), std::string::npos);
  expect_says(e, "... (120000 bytes)");

  // Raw bytes in a value or a key come out as \xNN.
  e = error_of("traffic:\n  pattern: \"\\x01\\x7f\"\n");
  expect_says(e, "unknown value '\\x01\\x7F'");
  e = error_of(std::string("traffic:\n  lo\xff\xfe: 1\n"));
  expect_says(e, "unknown key 'lo\\xFF\\xFE'");
  EXPECT_EQ(std::string(e.what()).find('\xff'), std::string::npos);

  // UTF-8 text is kept as it is.
  expect_says(error_of("traffic:\n  pattern: \"été\"\n"), "unknown value 'été'");
  EXPECT_EQ(printable("abc"), "abc");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable(std::string(100, 'x'), 10), "xxxxxxxxxx... (100 bytes)");
}

}  // namespace
}  // namespace fabemu
