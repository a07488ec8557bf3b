// One rule for a bit-error rate however it is given (link.ber, a fault in
// the spec's `faults`, a fault on the control socket, a link or a lane):
// 0 to 0.01, where above it nearly every packet is damaged and a link with
// retry never drains; and one grammar of numbers (control/spec/numbers.h):
// decimal only, so a hex float such as 0x1p-3 is refused everywhere.
#include <gtest/gtest.h>

#include <string>

#include "control/spec/faults.h"
#include "control/spec/numbers.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

const std::string kFile = std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml";

// The spec error of the t3e torus with retry on and these overrides.
std::string spec_error(const std::vector<std::string>& extra) {
  std::vector<std::string> sets{"link.retry=true"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  try {
    load_spec(kFile, sets);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "accepted";
}

// What the control socket says of a fault request ("" when it parses).
std::string socket_error(const std::string& request) {
  FaultSpec f;
  std::string why;
  return parse_fault(request, false, &f, &why) ? std::string() : why;
}

TEST(BerRule, EveryWayOfGivingABerHasTheSameLimit) {
  const std::string limit = "from 0 to 0.01";
  // link.ber, a fault on a link and on a lane in the spec, and the socket.
  EXPECT_NE(spec_error({"link.ber=0.02"}).find(limit), std::string::npos);
  for (const char* fault :
       {"0ns link=r0:p0 ber=0.02", "0ns link=r0:p0 lane=0 ber=0.02", "0ns link=r0:p0 ber=0.49"}) {
    const std::string e = spec_error({std::string("faults=['") + fault + "']"});
    EXPECT_NE(e.find("field 'faults[0]'"), std::string::npos) << e;
    EXPECT_NE(e.find(limit), std::string::npos) << e;
  }
  EXPECT_NE(socket_error("link=r0:p0 ber=0.02").find(limit), std::string::npos);
  EXPECT_NE(socket_error("link=r0:p0 lane=1 ber=0.3").find(limit), std::string::npos);
  EXPECT_NE(socket_error("link=r0:p0 ber=-1e-5").find(limit), std::string::npos);
  // The limit itself is a BER every way.
  EXPECT_EQ(spec_error({"link.ber=0.01"}), "accepted");
  EXPECT_EQ(spec_error({"faults=['0ns link=r0:p0 ber=0.01', '0ns link=r0:p1 lane=0 ber=1e-5']"}),
            "accepted");
  EXPECT_EQ(socket_error("link=r0:p0 ber=0.01"), "");
  EXPECT_EQ(socket_error("link=r0:p0 ber=0"), "");
}

TEST(BerRule, HexFloatsAndOtherOddNumbersAreRefusedEverywhere) {
  // 0x1p-3 is 0.125; 0x1p-10 (0.00098) would be within the limit.
  for (const char* ber : {"0x1p-3", "0x1p-10", "0X1P-10", "inf", "nan", "1e", ".", "1_0"}) {
    EXPECT_NE(socket_error(std::string("link=r0:p0 ber=") + ber).find("is not a fault"),
              std::string::npos)
        << ber;
    const std::string e = spec_error({std::string("faults=['0ns link=r0:p0 ber=") + ber + "']"});
    EXPECT_NE(e.find("field 'faults[0]'"), std::string::npos) << e;
  }
  EXPECT_NE(spec_error({"link.ber=0x1p-10"})
                .find("expected a number, got '0x1p-10'; write it in decimal: 0.000976562"),
            std::string::npos);
  EXPECT_NE(socket_error("link=r0:p0 ber=0x1p-3")
                .find("the bit error rate is a decimal number, e.g. ber=1e-5; write it in "
                      "decimal: 0.125"),
            std::string::npos);
  // Not only bit-error rates: any number of the spec, and a fault's time.
  EXPECT_NE(spec_error({"traffic.load=0x1p-2"}).find("expected a number"), std::string::npos);
  EXPECT_NE(spec_error({"link.wire_ns=0x10"}).find("expected a number"), std::string::npos);
  EXPECT_NE(spec_error({"faults=['0x10us link=r0:p0 down']"}).find("is not a time"),
            std::string::npos);
  ps_t at = 0;
  EXPECT_FALSE(parse_emulated_time("0x1p4ns", &at));
  EXPECT_TRUE(parse_emulated_time("1.5e3ns", &at));
  EXPECT_EQ(at, 1'500'000u);
}

TEST(BerRule, DecimalNumbers) {
  double v = 0;
  for (const auto& [text, want] : std::vector<std::pair<const char*, double>>{{"1", 1},
                                                                              {"-0.5", -0.5},
                                                                              {"+.5", 0.5},
                                                                              {"5.", 5},
                                                                              {"1e-5", 1e-5},
                                                                              {"2E+3", 2000},
                                                                              {"0", 0}}) {
    EXPECT_TRUE(decimal_number(text, &v)) << text;
    EXPECT_DOUBLE_EQ(v, want) << text;
  }
  for (const char* text : {"", "0x10", "0x1p-3", "inf", "-infinity", "nan", " 1", "1 ", "1e", "e5",
                           ".", "+", "1.2.3", "1_000", "1e999", "--1", "1e+", "0b1"})
    EXPECT_FALSE(decimal_number(text, &v)) << text;
}

}  // namespace
}  // namespace fabemu
