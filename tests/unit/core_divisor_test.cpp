// Divisor (dataplane/core/divisor.h) gives the quotients and remainders of
// the CPU's divide for every 32-bit numerator: exhaustively over small
// numerators and the extremes, randomly over the rest.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "dataplane/core/divisor.h"

namespace fabemu {
namespace {

void expect_exact(const Divisor& d, uint32_t n) {
  ASSERT_EQ(d.div(n), n / d.value()) << n << " / " << d.value();
  ASSERT_EQ(d.mod(n), n % d.value()) << n << " % " << d.value();
}

TEST(Divisor, SmallDivisorsEveryNumeratorBelow65536AndTheExtremes) {
  for (uint32_t v = 1; v <= 64; v++) {  // VCs per port, ports per router
    const Divisor d(v);
    for (uint32_t n = 0; n < 65536; n++) expect_exact(d, n);
    for (uint32_t n = UINT32_MAX - 1024; n != 0; n++) expect_exact(d, n);
  }
}

TEST(Divisor, RandomDivisorsAndNumerators) {
  std::mt19937_64 g(2019);
  for (int k = 0; k < 1000000; k++) {
    const uint32_t v = static_cast<uint32_t>(g() >> (g() % 32)) | 1u;
    expect_exact(Divisor(v), static_cast<uint32_t>(g()));
    if (v != UINT32_MAX) expect_exact(Divisor(v + 1), static_cast<uint32_t>(g()));  // even ones
  }
  expect_exact(Divisor(UINT32_MAX), UINT32_MAX);
  expect_exact(Divisor(UINT32_MAX), UINT32_MAX - 1);
}

TEST(Divisor, DefaultIsOne) {
  const Divisor d;
  EXPECT_EQ(d.value(), 1u);
  expect_exact(d, 0);
  expect_exact(d, UINT32_MAX);
}

}  // namespace
}  // namespace fabemu
