// The BookSim2 configuration reader (control/booksim/booksim_config.h).
#include "control/booksim/booksim_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace fabemu {
namespace {

const char* kTorusConfig =
    "topology = torus; k = 4; n = 3;\n"
    "routing_function = dim_order; use_noc_latency = 0;\n"
    "router = iq; num_vcs = 2; vc_buf_size = 16; wait_for_tail_credit = 0;\n"
    "vc_allocator = islip; sw_allocator = islip; alloc_iters = 1;\n"
    "credit_delay = 1; routing_delay = 0; vc_alloc_delay = 1; sw_alloc_delay = 1;\n"
    "st_final_delay = 1; input_speedup = 1; output_speedup = 1;\n"
    "internal_speedup = 1.0; packet_size = 1; injection_process = bernoulli;\n"
    "warmup_periods = 3; sample_period = 1000; max_samples = 10; seed = 1;\n"
    "traffic = uniform; injection_rate = 0.3; sim_type = latency;\n";

const char* kFlatflyConfig =
    "topology = flatfly; k = 32; n = 1; c = 32; x = 1; y = 1; xr = 32; yr = 1;\n"
    "routing_function = ran_min; traffic = neighbor({32,2,1});\n";

BooksimConfig parse(const std::string& text, const std::string& file = "cfg") {
  BooksimConfig config;
  config.read_string(text, file);
  return config;
}

// The message of the BooksimConfigError that `f` throws ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const BooksimConfigError& e) {
    return e.what();
  }
  return "";
}

std::string parse_error(const std::string& text) {
  return error_of([&] { parse(text); });
}

TEST(BooksimConfig, TorusReferenceParsesToItsEntries) {
  BooksimConfig config = parse(kTorusConfig, "torus.cfg");
  ASSERT_EQ(config.entries().size(), 29u);

  const BooksimEntry& first = config.entries().front();
  EXPECT_EQ(first.key, "topology");
  EXPECT_EQ(first.raw, "torus");
  EXPECT_EQ(first.kind, BooksimValueKind::kString);
  EXPECT_EQ(first.line, 1);
  EXPECT_EQ(first.file, "torus.cfg");

  const BooksimEntry& last = config.entries().back();
  EXPECT_EQ(last.key, "sim_type");
  EXPECT_EQ(last.raw, "latency");
  EXPECT_EQ(last.line, 9);

  EXPECT_EQ(config.get_int("k", 8), 4);
  EXPECT_EQ(config.get_int("n", 2), 3);
  EXPECT_EQ(config.get_int("num_vcs", 16), 2);
  EXPECT_EQ(config.get_int("vc_buf_size", 8), 16);
  EXPECT_EQ(config.get_int("routing_delay", 1), 0);
  EXPECT_EQ(config.get_int("sample_period", 0), 1000);
  EXPECT_EQ(config.get_int("seed", 0), 1);
  EXPECT_EQ(config.find("internal_speedup")->kind, BooksimValueKind::kFloat);
  EXPECT_EQ(config.find("internal_speedup")->line, 7);
  EXPECT_DOUBLE_EQ(config.get_double("internal_speedup", 0), 1.0);
  EXPECT_DOUBLE_EQ(config.get_double("injection_rate", 0.1), 0.3);
  EXPECT_EQ(config.find("injection_rate")->line, 9);
  EXPECT_EQ(config.get_string("routing_function", "none"), "dim_order");
  EXPECT_EQ(config.get_string("injection_process", ""), "bernoulli");
  EXPECT_EQ(config.get_call("traffic", "uniform").name, "uniform");
  EXPECT_TRUE(config.get_call("traffic", "uniform").args.empty());
  EXPECT_EQ(config.get_int("not_set", 42), 42);
}

TEST(BooksimConfig, FlatflyReferenceParsesNeighborArguments) {
  BooksimConfig config = parse(kFlatflyConfig);
  ASSERT_EQ(config.entries().size(), 10u);
  EXPECT_EQ(config.get_string("topology", ""), "flatfly");
  EXPECT_EQ(config.get_int("c", 1), 32);
  EXPECT_EQ(config.get_int("xr", 1), 32);
  EXPECT_EQ(config.get_int("yr", 0), 1);
  EXPECT_EQ(config.get_string("routing_function", ""), "ran_min");

  const BooksimEntry* traffic = config.find("traffic");
  ASSERT_NE(traffic, nullptr);
  EXPECT_EQ(traffic->raw, "neighbor({32,2,1})");
  EXPECT_EQ(traffic->kind, BooksimValueKind::kString);
  EXPECT_EQ(traffic->line, 2);

  BooksimCall call = config.get_call("traffic", "uniform");
  EXPECT_EQ(call.name, "neighbor");
  ASSERT_EQ(call.args.size(), 3u);
  EXPECT_EQ(call.args[0].number, 32);
  EXPECT_EQ(call.args[1].number, 2);
  EXPECT_EQ(call.args[2].number, 1);
  EXPECT_FALSE(call.args[0].is_list());
}

TEST(BooksimConfig, CommentsAreSkippedAndLinesStillCount) {
  BooksimConfig config = parse(
      "// Topology\n"
      "topology = torus; // a torus\n"
      "/* two lines\n"
      "   of comment */ k = 4;\n"
      "n = /* inline */ 3 // before the semicolon\n"
      ";\n"
      "//k = 99;\n");
  ASSERT_EQ(config.entries().size(), 3u);
  EXPECT_EQ(config.find("topology")->line, 2);
  EXPECT_EQ(config.find("k")->line, 4);
  EXPECT_EQ(config.get_int("k", 0), 4);
  EXPECT_EQ(config.find("n")->line, 5);
  EXPECT_EQ(config.get_int("n", 0), 3);
}

TEST(BooksimConfig, UnclosedBlockCommentNamesItsLine) {
  EXPECT_EQ(parse_error("k = 4;\n/* never\nclosed\n"),
            "cfg:2: a '/*' comment is never closed; end it with '*/'");
}

TEST(BooksimConfig, EmptyAndCommentOnlyTextHaveNoEntries) {
  EXPECT_TRUE(parse("").entries().empty());
  EXPECT_TRUE(parse("// nothing\n\n  \t\r\n").entries().empty());
}

TEST(BooksimConfig, WhiteSpaceAndNewlinesMayFallBetweenTokens) {
  BooksimConfig config = parse("k\n=\n4\n;num_vcs=2;");
  EXPECT_EQ(config.get_int("k", 0), 4);
  EXPECT_EQ(config.find("k")->line, 1);
  EXPECT_EQ(config.get_int("num_vcs", 0), 2);
  EXPECT_EQ(config.find("num_vcs")->line, 4);
}

TEST(BooksimConfig, BracedListsGiveTheirElements) {
  BooksimConfig config = parse(
      "injection_rate = {0.1,0.2};\n"
      "traffic = {uniform, transpose};\n"
      "use_read_write = {0,1};\n");
  const BooksimEntry* rate = config.find("injection_rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->kind, BooksimValueKind::kList);
  EXPECT_EQ(rate->raw, "{0.1,0.2}");
  EXPECT_EQ(rate->elements, (std::vector<std::string>{"0.1", "0.2"}));
  EXPECT_EQ(config.get_double_list("injection_rate", {}), (std::vector<double>{0.1, 0.2}));
  EXPECT_EQ(config.get_string_list("traffic", {}),
            (std::vector<std::string>{"uniform", "transpose"}));
  EXPECT_EQ(config.get_int_list("use_read_write", {}), (std::vector<int>{0, 1}));
  // A single value reads as a list of one, as BookSim's GetIntArray.
  EXPECT_EQ(parse("packet_size = 4;").get_int_list("packet_size", {}), (std::vector<int>{4}));
  EXPECT_EQ(config.get_int_list("packet_size", {1}), (std::vector<int>{1}));
}

TEST(BooksimConfig, NestedBracesStayWholeElements) {
  BooksimConfig config = parse(
      "packet_size = {{1,4},{2}};\n"
      "traffic = hotspot({{0,5},{3,1}});\n");
  EXPECT_EQ(config.find("packet_size")->elements, (std::vector<std::string>{"{1,4}", "{2}"}));
  EXPECT_EQ(split_booksim_list("{1,4}"), (std::vector<std::string>{"1", "4"}));

  BooksimCall hotspot = config.get_call("traffic", "uniform");
  EXPECT_EQ(hotspot.name, "hotspot");
  ASSERT_EQ(hotspot.args.size(), 2u);
  ASSERT_TRUE(hotspot.args[0].is_list());
  ASSERT_EQ(hotspot.args[0].items.size(), 2u);
  EXPECT_EQ(hotspot.args[0].items[0].number, 0);
  EXPECT_EQ(hotspot.args[0].items[1].number, 5);
  ASSERT_EQ(hotspot.args[1].items.size(), 2u);
  EXPECT_EQ(hotspot.args[1].items[0].number, 3);
  EXPECT_EQ(hotspot.args[1].items[1].number, 1);
}

TEST(BooksimConfig, CallsTakeArgumentsAsBooksimReadsThem) {
  EXPECT_EQ(parse_booksim_call("randperm(7)").args.at(0).number, 7);
  EXPECT_EQ(parse_booksim_call("hotspot({7})").args.size(), 1u);
  BooksimCall on_off = parse_booksim_call("on_off({0.1,0.2,-1})");
  ASSERT_EQ(on_off.args.size(), 3u);
  EXPECT_DOUBLE_EQ(on_off.args[0].number, 0.1);
  EXPECT_DOUBLE_EQ(on_off.args[2].number, -1);
  EXPECT_TRUE(parse_booksim_call("neighbor()").args.empty());
  EXPECT_EQ(parse_booksim_call("neighbor({32, 2, 1})").args.size(), 3u);
}

TEST(BooksimConfig, CallWithoutBracesIsRefusedWithTheFix) {
  try {
    parse_booksim_call("neighbor(32,2,1)");
    FAIL() << "neighbor(32,2,1) was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "write neighbor({32,2,1}): BookSim reads neighbor(32,2,1) as neighbor(32) alone");
  }
  EXPECT_THROW(parse_booksim_call("neighbor({a,2})"), std::invalid_argument);
  EXPECT_THROW(parse_booksim_call("neighbor({32,2,1})x"), std::invalid_argument);
  EXPECT_THROW(parse_booksim_call("{uniform}"), std::invalid_argument);
  EXPECT_THROW(parse_booksim_call("neighbor({,2})"), std::invalid_argument);
}

TEST(BooksimConfig, BadCallValueNamesTheLine) {
  BooksimConfig config = parse("k = 4;\ntraffic = neighbor(32,2,1);\n");
  EXPECT_EQ(error_of([&] { config.get_call("traffic", "uniform"); }),
            "cfg:2: 'traffic = neighbor(32,2,1)': write neighbor({32,2,1}): BookSim reads "
            "neighbor(32,2,1) as neighbor(32) alone");
}

TEST(BooksimConfig, MissingEqualsNamesFileAndLine) {
  EXPECT_EQ(parse_error("k = 4;\ntopology torus;\n"),
            "cfg:2: missing '=' after 'topology'; write topology = VALUE;");
}

TEST(BooksimConfig, MissingSemicolonNamesFileAndLine) {
  EXPECT_EQ(parse_error("k = 4\nn = 3;\n"),
            "cfg:1: missing ';' after 'k = 4' (found 'n' next); BookSim ends every assignment "
            "with ';'");
  EXPECT_EQ(parse_error("k = 4;\nn = 3"),
            "cfg:2: missing ';' after 'n = 3'; BookSim ends every assignment with ';'");
}

TEST(BooksimConfig, UnterminatedBraceNamesTheLineItOpened) {
  EXPECT_EQ(parse_error("k = 4;\n\ntraffic = neighbor({32,2,1;\n"),
            "cfg:3: '{' is never closed; add '}' before the ';'");
  EXPECT_EQ(parse_error("injection_rate = {0.1,0.2\nk = 4;\n"),
            "cfg:1: '{' is never closed; add '}' before the ';'");
  EXPECT_EQ(parse_error("k = 4;\ninjection_rate = {0.1,"),
            "cfg:2: '{' is never closed; add '}' before the ';'");
  EXPECT_EQ(parse_error("traffic = neighbor({32,2,1)};"),
            "cfg:1: ')' does not match the '{' opened on line 1; close that one with '}' first");
}

TEST(BooksimConfig, OtherSyntaxErrorsSayWhatToDo) {
  EXPECT_EQ(parse_error("k = ;"), "cfg:1: no value for 'k'; write k = VALUE;");
  EXPECT_EQ(parse_error("traffic = \"uniform\";"),
            "cfg:1: character '\"' cannot appear in a BookSim value (BookSim takes no quotes: "
            "write the value bare)");
  EXPECT_EQ(parse_error("\"k\" = 4;"),
            "cfg:1: BookSim takes no quotes; write KEY = VALUE; with the words bare");
  EXPECT_EQ(parse_error("k = 4 # four\n;"),
            "cfg:1: missing ';' after 'k = 4' (found '#' next); BookSim ends every assignment "
            "with ';'");
  EXPECT_EQ(parse_error("k = 4;\n  = 3;"), "cfg:2: '=' with no key before it; write KEY = VALUE;");
  EXPECT_EQ(parse_error("# comment\n"), "cfg:1: '#' does not start a comment in BookSim; use //");
  EXPECT_EQ(parse_error("k = 4;;"), "cfg:1: a ';' with no assignment before it; remove it");
  EXPECT_EQ(parse_error("k = 5.;"),
            "cfg:1: 'k = 5.': '5.' is not a number to BookSim; write 5.0 or 5");
  EXPECT_NE(parse_error("k = 4x4;").find("cfg:1: 'k = 4x4': '4x4' is neither a number"),
            std::string::npos);
  EXPECT_EQ(parse_error("x = {};"),
            "cfg:1: 'x = {}': an empty list '{}', which BookSim cannot read; leave the key out");
  EXPECT_EQ(parse_error("x = {1,,2};"),
            "cfg:1: 'x = {1,,2}': an empty element in '{1,,2}'; remove the extra ','");
  EXPECT_EQ(parse_error("traffic = uniform random;"),
            "cfg:1: missing ';' after 'traffic = uniform' (found 'r' next); BookSim ends every "
            "assignment with ';'");
}

TEST(BooksimConfig, ValuesAreClassedAsBooksimsLexerDoes) {
  BooksimConfig config = parse(
      "a = -1; b = .5; c = 1e-3; d = 2.5E+2; e = -x; f = ../runs/anynet_file;\n"
      "g = 0.3; h = 007;\n");
  EXPECT_EQ(config.find("a")->kind, BooksimValueKind::kInteger);
  EXPECT_EQ(config.get_int("a", 0), -1);
  EXPECT_EQ(config.find("b")->kind, BooksimValueKind::kFloat);
  EXPECT_DOUBLE_EQ(config.get_double("b", 0), 0.5);
  EXPECT_EQ(config.find("c")->kind, BooksimValueKind::kFloat);
  EXPECT_DOUBLE_EQ(config.get_double("c", 0), 0.001);
  EXPECT_DOUBLE_EQ(config.get_double("d", 0), 250);
  EXPECT_EQ(config.find("e")->kind, BooksimValueKind::kString);
  EXPECT_EQ(config.get_string("f", ""), "../runs/anynet_file");
  EXPECT_DOUBLE_EQ(config.get_double("a", 0), -1);  // an integer reads as a number too
  EXPECT_EQ(config.get_int("h", 0), 7);
  EXPECT_STREQ(to_string(config.find("g")->kind), "float");
}

TEST(BooksimConfig, TypeErrorsNameTheLine) {
  BooksimConfig config = parse(
      "topology = torus;\n"
      "k = 4.0;\n"
      "n = uniform;\n"
      "injection_rate = high;\n"
      "router = 5;\n"
      "num_vcs = {2,4};\n"
      "seed = 99999999999;\n"
      "packet_size = {1,x};\n");
  EXPECT_EQ(error_of([&] { config.get_int("k", 0); }),
            "cfg:2: 'k = 4.0': k takes an integer, without a point or exponent, as k = 8;");
  EXPECT_EQ(error_of([&] { config.get_int("n", 0); }),
            "cfg:3: 'n = uniform': n takes an integer, as n = 8;");
  EXPECT_EQ(
      error_of([&] { config.get_double("injection_rate", 0); }),
      "cfg:4: 'injection_rate = high': injection_rate takes a number, as injection_rate = 0.5;");
  EXPECT_EQ(error_of([&] { config.get_string("router", ""); }),
            "cfg:5: 'router = 5': router takes a name (such as uniform), not a number");
  EXPECT_EQ(error_of([&] { config.get_int("num_vcs", 0); }),
            "cfg:6: 'num_vcs = {2,4}': num_vcs takes a single integer here, not a list");
  EXPECT_EQ(error_of([&] { config.get_int("seed", 0); }),
            "cfg:7: 'seed = 99999999999': '99999999999' is too large: BookSim's integers run from "
            "-2147483648 to 2147483647");
  EXPECT_EQ(error_of([&] { config.get_int_list("packet_size", {}); }),
            "cfg:8: 'packet_size = {1,x}': element 'x': packet_size takes an integer, as "
            "packet_size = 8;");
  EXPECT_EQ(error_of([&] { config.get_call("topology", ""); }), "");
}

TEST(BooksimConfig, DuplicateKeysLaterWinsBothKept) {
  BooksimConfig config = parse("k = 4;\nn = 2;\nk = 8;\n");
  EXPECT_EQ(config.get_int("k", 0), 8);
  std::vector<const BooksimEntry*> all = config.all("k");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->line, 1);
  EXPECT_EQ(all[1]->line, 3);
  EXPECT_EQ(config.find("k"), all[1]);
  EXPECT_EQ(config.entries().size(), 3u);
}

TEST(BooksimConfig, KeysAreCaseSensitive) {
  BooksimConfig config = parse("K = 4;");
  EXPECT_FALSE(config.has("k"));
  EXPECT_TRUE(config.has("K"));
}

TEST(BooksimConfig, OverridesWinOverTheFile) {
  BooksimConfig config = parse(kTorusConfig, "torus.cfg");
  config.apply_override("k=8");
  config.apply_override("injection_rate = 0.5");
  config.apply_override("traffic=neighbor({4,3,1})");
  config.apply_override("n=2;num_vcs=4;");
  EXPECT_EQ(config.get_int("k", 0), 8);
  EXPECT_DOUBLE_EQ(config.get_double("injection_rate", 0), 0.5);
  EXPECT_EQ(config.get_call("traffic", "uniform").name, "neighbor");
  EXPECT_EQ(config.get_int("n", 0), 2);
  EXPECT_EQ(config.get_int("num_vcs", 0), 4);

  const BooksimEntry* k = config.find("k");
  EXPECT_TRUE(k->from_override());
  EXPECT_EQ(k->override_arg, "k=8");
  EXPECT_EQ(k->line, 0);
  ASSERT_EQ(config.all("k").size(), 2u);
  EXPECT_EQ(config.all("k")[0]->line, 1);
  EXPECT_EQ(config.all("k")[0]->file, "torus.cfg");
}

TEST(BooksimConfig, BadOverridesNameTheArgument) {
  BooksimConfig config;
  EXPECT_EQ(error_of([&] { config.apply_override("k"); }),
            "override 'k': an override is KEY=VALUE, as k=8");
  EXPECT_EQ(error_of([&] { config.apply_override("k="); }),
            "override 'k=': no value for 'k'; write k = VALUE;");
  EXPECT_EQ(error_of([&] { config.apply_override("traffic=neighbor({4,3"); }),
            "override 'traffic=neighbor({4,3': '{' is never closed; add '}' before the ';'");
  config.apply_override("k=4.5");
  EXPECT_EQ(
      error_of([&] { config.get_int("k", 0); }),
      "override 'k=4.5': 'k = 4.5': k takes an integer, without a point or exponent, as k = 8;");
  EXPECT_TRUE(is_booksim_override("k=8"));
  EXPECT_FALSE(is_booksim_override("torus.cfg"));
}

TEST(BooksimConfig, ReadsAFileAndNamesItInErrors) {
  std::string path = testing::TempDir() + "booksim_config_test.cfg";
  {
    std::ofstream out(path);
    out << "// a test file\ntopology = mesh;\nk = 8\n";
  }
  BooksimConfig config;
  EXPECT_EQ(error_of([&] { config.read_file(path); }),
            path + ":3: missing ';' after 'k = 8'; BookSim ends every assignment with ';'");
  {
    std::ofstream out(path);
    out << "// a test file\ntopology = mesh;\nk = 8;\n";
  }
  BooksimConfig good;
  good.read_file(path);
  EXPECT_EQ(good.find("k")->line, 3);
  EXPECT_EQ(good.find("k")->file, path);
  std::remove(path.c_str());

  std::string missing = error_of([&] { good.read_file("/nonexistent/booksim.cfg"); });
  EXPECT_EQ(missing.rfind("/nonexistent/booksim.cfg: cannot open the file: ", 0), 0u) << missing;
}

}  // namespace
}  // namespace fabemu
