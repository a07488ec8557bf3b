// Spec loading, the YAML itself: what YAML allows but a spec cannot mean
// (a directory, a second document, explicit tags, self-containing aliases)
// is refused with file, line and column, and an error never echoes more than
// a short, printable piece of what the user gave.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
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

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;  // reserves far more address space than any limit
#else
constexpr bool kAddressSanitizer = false;
#endif

// Loads the spec in a child process held to 1 GB of memory and 20 s, and
// prints the error it raises: a parse that allocates without bound fails the
// test instead of taking the machine down.
[[noreturn]] void load_bounded(const std::string& yaml, const std::vector<std::string>& sets) {
  if (!kAddressSanitizer) {
    const rlimit limit{rlim_t{1} << 30, rlim_t{1} << 30};
    setrlimit(RLIMIT_AS, &limit);
  }
  alarm(20);
  try {
    load(yaml, sets);
  } catch (const SpecError& e) {
    std::fprintf(stderr, "refused: %s\n", e.what());
    std::exit(0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a SpecError: %s\n", e.what());
    std::exit(1);
  }
  std::fprintf(stderr, "loaded\n");
  std::exit(1);
}

TEST(SpecYaml, StrayCommaIsRefusedInBoundedMemory) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // yaml-cpp 0.7 leaves a ',' that no bracket opened unread, and
  // YAML::LoadAll took it for empty documents without end (20 GB in a minute).
  const char* outside = "refused: t\\.yaml:1:1: YAML syntax error: a ',' outside brackets";
  EXPECT_EXIT(load_bounded(",", {}), testing::ExitedWithCode(0), outside);
  EXPECT_EXIT(load_bounded(", a", {}), testing::ExitedWithCode(0), outside);
  EXPECT_EXIT(load_bounded(",,", {}), testing::ExitedWithCode(0), outside);
  EXPECT_EXIT(load_bounded("\n  ,\n", {}), testing::ExitedWithCode(0),
              "refused: t\\.yaml:2:3: YAML syntax error: a ','");
  // After a whole value: a list, a map.
  EXPECT_EXIT(load_bounded("[a]\n,\n", {}), testing::ExitedWithCode(0),
              "refused: t\\.yaml:2:1: YAML syntax error: a ','");
  EXPECT_EXIT(load_bounded("{traffic: {load: 0.2}}\n, x\n", {}), testing::ExitedWithCode(0),
              "refused: t\\.yaml:2:1: YAML syntax error: a ','");
  // A --set value.
  EXPECT_EXIT(load_bounded("", {"traffic.load=,"}), testing::ExitedWithCode(0),
              "refused: t\\.yaml: --set 'traffic\\.load=,': field 'traffic\\.load': the value "
              "is not valid YAML \\(YAML syntax error: a ','");
  // The other stray flow indicators were refused already; they stay so.
  EXPECT_EXIT(load_bounded("]", {}), testing::ExitedWithCode(0),
              "refused: t\\.yaml:1:1: YAML syntax error");
  EXPECT_EXIT(load_bounded("}\n", {}), testing::ExitedWithCode(0),
              "refused: t\\.yaml:1:1: YAML syntax error");
  // Commas inside brackets and inside text are fine.
  EXPECT_EQ(load("traffic: {sizes: [8, 64,]}\n").traffic.sizes.size(), 2u);
}

TEST(SpecYaml, ValuesAreCountedBeforeTheTreeIsBuilt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // 3 M list items (12 MB of text): refused at the value past the limit,
  // before yaml-cpp builds a tree of them (about 500 bytes a value: 1.5 GB).
  std::string yaml = "endpoints:\n";
  for (int i = 0; i < 3'000'000; i++) yaml += "- 1\n";
  EXPECT_EXIT(load_bounded(yaml, {}), testing::ExitedWithCode(0),
              "refused: t\\.yaml:999999:3: the file holds more than 1000000 values: no spec is "
              "that large");
}

TEST(SpecYaml, LargeFilesAreNotRead) {
  const std::string path = testing::TempDir() + "/fabemu_spec_17mib.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string line = "# " + std::string(1022, 'x') + "\n";
    for (int i = 0; i < 17 * 1024; i++) out << line;
  }
  try {
    load_spec(path, {});
    ADD_FAILURE() << "loaded a 17 MiB file";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.line(), 0);
    expect_says(e, "is larger than 16 MiB, which no spec is");
  }
  std::filesystem::remove(path);
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
