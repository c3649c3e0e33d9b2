// A failure's expected results, for reproducers that judge by themselves (TVM's
// repro_tvmscript.py, ONNX Runtime's repro.py and repro.js): the case's inputs, the reference
// values and the difference allowed per element by the tier that flagged the failure.
#pragma once

#include "exporters/expected_results.h"
#include "oracle/check/case.h"
#include "oracle/check/check.h"

namespace difftest::oracle {

// An `outlier` is judged by the statistical tier's allowance (the ensemble's spread), anything
// else by the sound bound times the safety factor; an element neither tier compares is -1.
exporters::ExpectedResults expected_results(const Program& p, const Case& c, VerdictKind failing_kind,
                                            const CheckOptions& options);

// For a finding about values (mismatch, outlier) at f's element: "The nearest legitimate result
// the ensemble computes there: ... gives V; the result is D from it (R times its allowance)."
// A maintainer judges a report by the closest correct implementation, not by the reference
// alone. "" for other failures, or where the element is not a float output's.
std::string nearest_form_sentence(const Program& p, const Case& c, const VariantVerdict& f,
                                  const CheckOptions& options);

}  // namespace difftest::oracle
