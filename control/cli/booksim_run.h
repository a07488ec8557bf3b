// fabemu check|run --booksim FILE (control/booksim/booksim_import.h): the
// spec a BookSim2 configuration stands for, and a run that ends with
// BookSim's result lines.
#pragma once
#include <ostream>

#include "control/booksim/booksim_import.h"
#include "control/cli/commands.h"
#include "control/run/runner.h"
#include "control/spec/spec.h"

namespace fabemu {

// Reads args.booksim and its --booksim-set overrides, translates them, and
// loads the spec with args.sets on top; the translation's notes go to err.
// Throws BooksimConfigError (FILE:LINE) or SpecError.
Spec load_booksim_spec(const SpecArgs& args, BooksimSpec* booksim, std::ostream& err);

// A run from a BookSim2 configuration: the run, then BookSim's result lines
// from its JSON report (--json's file, or a temporary one), on standard
// output (standard error when the report itself goes there, --json -).
int run_booksim(const Spec& spec, const RunOptions& opts, const BooksimSpec& booksim,
                std::ostream& out, std::ostream& err);

}  // namespace fabemu
