# Sourced by the system tests that compare `fabemu run --booksim` result
# lines with BookSim2's figures: a failure count, BookSim's line values and
# the 5% rule of issue 30's fidelity targets.
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# value FILE NAME: the value of BookSim's result line NAME ("NAME = X (1 samples)").
value() { sed -n "s/^$2 = \([-0-9.e+]*\).*/\1/p" "$1" | head -1; }

# within WHAT GOT WANT: GOT within 5% of BookSim2's WANT.
within() {
  if python3 -c "import sys; g, w = float('$2'), float('$3'); sys.exit(0 if abs(g / w - 1) <= 0.05 else 1)"; then
    echo "OK   $1: $2 (BookSim2 $3)"
  else
    fail "$1: $2, BookSim2 $3"
  fi
}
