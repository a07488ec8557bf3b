// `fabemu analyze table4|table2`: the paper's value beside fabemu's with the
// difference, the assumptions, JSON, and clear refusals of bad options
// (control/cli/analyze_command.h).
#include "control/cli/analyze_command.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "control/cli/cli.h"

namespace fabemu {
namespace {

TEST(AnalyzeCommand, Table4PrintsThePapersFiguresAndItsAssumptions) {
  Table4Options opts;
  opts.sizes = {64};
  opts.permutations = 20;
  opts.diversities = {1, 32};
  std::ostringstream out, err;
  ASSERT_EQ(analyze_table4_command(opts, {"-", 1}, out, err), kExitOk) << err.str();
  const std::string text = err.str();  // the JSON takes standard output
  for (const char* s :
       {"paper k/8", "4x4x4", "0.500", "degrade", "Assumptions:", "derangements", "dimension_order",
        "body of Table 4 is missing", "clos builder", "on 1 thread "})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["analysis"], "table4");
  EXPECT_EQ(j["permutations"], 20);
  EXPECT_EQ(j["threads"], 1);
  const auto& row = j["rows"][0];
  EXPECT_EQ(row["endpoints"], 64);
  EXPECT_EQ(row["torus"]["dims"], (std::vector<int>{4, 4, 4}));
  EXPECT_DOUBLE_EQ(row["torus"]["paper_avg_link"].get<double>(), 0.5);
  // k/8 x N/(N-1): a derangement leaves out the transfer to itself.
  EXPECT_NEAR(row["torus"]["avg_link"].get<double>(), 0.5 * 64 / 63, 0.02);
  EXPECT_EQ(row["torus"]["unroutable"], 0);
  EXPECT_EQ(row["fat_tree"]["by_diversity"].size(), 2u);
  EXPECT_EQ(row["fat_tree"]["by_diversity"][1]["paths"], 32);
  EXPECT_TRUE(row["fat_tree"]["by_diversity"][1]["paper_avg_worst"].is_null());
  EXPECT_FALSE(row["fat_tree"]["analysis_model"].get<bool>());
}

TEST(AnalyzeCommand, Table2PrintsThePaperAndTheDifference) {
  Table2Options opts;
  opts.sizes = {576};
  std::ostringstream out, err;
  ASSERT_EQ(analyze_table2_command(opts, {"-", 0}, out, err), kExitOk) << err.str();
  const std::string text = err.str();  // the JSON takes standard output
  for (const char* s :
       {"0.078", "0.144", "-4.5%", "+1.7%", "8x8x9", "tr = 20 ns", "312 bits", "171.4 Gb/s", "XT3"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_DOUBLE_EQ(j["rows"][0]["clos"]["paper_latency_us"].get<double>(), 0.078);
  EXPECT_DOUBLE_EQ(j["rows"][0]["torus"]["paper_latency_us"].get<double>(), 0.144);
  EXPECT_TRUE(j["rows"][0]["torus"]["exact"].get<bool>());
  EXPECT_NEAR(j["rows"][0]["clos"]["latency_us"].get<double>(), 0.078, 0.05 * 0.078);
  EXPECT_NEAR(j["rows"][0]["torus"]["latency_us"].get<double>(), 0.144, 0.05 * 0.144);
}

TEST(AnalyzeCommand, Table2SaysWhichFiguresAreSampled) {
  // Fewer routes allowed than 576 endpoints have: a sample of source rows,
  // marked, with its interval (0 on the torus, whose rows are all alike).
  Table2Options opts;
  opts.sizes = {576};
  opts.max_routes = 100000;
  opts.sample_routes = 50000;
  std::ostringstream out, err;
  ASSERT_EQ(analyze_table2_command(opts, {"-", 0}, out, err), kExitOk) << err.str();
  const std::string text = err.str();  // the JSON takes standard output
  EXPECT_NE(text.find("* the mean over a sample of sources"), std::string::npos) << text;
  EXPECT_NE(text.find("torus 576 ±0.0 ps"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_FALSE(j["rows"][0]["clos"]["exact"].get<bool>());
  EXPECT_NEAR(j["rows"][0]["torus"]["latency_us"].get<double>(), 0.1465, 0.0005);
}

TEST(AnalyzeCommand, BadOptionsSayWhatToDoAndStartNothing) {
  std::ostringstream out, err;
  Table4Options t4;
  t4.sizes = {100000};
  EXPECT_EQ(analyze_table4_command(t4, {}, out, err), kExitUsage);
  EXPECT_NE(err.str().find("give 64 to 32768 endpoints"), std::string::npos) << err.str();
  Table2Options t2;
  t2.torus_dims[576] = {2, 2, 2};
  EXPECT_EQ(analyze_table2_command(t2, {}, out, err), kExitUsage);
  EXPECT_NE(err.str().find("not 576"), std::string::npos) << err.str();
  EXPECT_EQ(analyze_table2_command(Table2Options{}, {"", -3}, out, err), kExitUsage);
  EXPECT_NE(err.str().find("--threads -3 is out of range"), std::string::npos) << err.str();
  EXPECT_EQ(analyze_table4_command(Table4Options{}, {"/nonexistent/t4.json", 0}, out, err),
            kExitUsage);
  EXPECT_NE(err.str().find("the directory /nonexistent does not exist"), std::string::npos)
      << err.str();
  EXPECT_TRUE(out.str().empty());

  std::vector<int> sizes;
  std::string why;
  EXPECT_TRUE(parse_sizes({"512", "4K", "32k"}, &sizes, &why));
  EXPECT_EQ(sizes, (std::vector<int>{512, 4096, 32768}));
  EXPECT_FALSE(parse_sizes({"4KB"}, &sizes, &why));
  EXPECT_NE(why.find("'4KB' is not a size"), std::string::npos);
  std::map<int, std::array<int, 3>> dims;
  EXPECT_TRUE(parse_torus_dims({"576=4x12x12", "2K=8x16x16"}, &dims, &why));
  EXPECT_EQ(dims[576], (std::array<int, 3>{4, 12, 12}));
  EXPECT_EQ(dims[2048], (std::array<int, 3>{8, 16, 16}));
  EXPECT_FALSE(parse_torus_dims({"576=4x12"}, &dims, &why));
  EXPECT_NE(why.find("SIZE=KXxKYxKZ"), std::string::npos);
}

}  // namespace
}  // namespace fabemu
