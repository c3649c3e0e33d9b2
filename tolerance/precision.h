// A level that computes a program's float arithmetic in a narrower dtype than the program
// declares: OpenVINO's CPU plugin under an inference precision of bf16 (native with AVX512_BF16
// or AMX) or f16 (AMX-FP16) converts the f32 and f16 parts of a model to that precision, keeping
// the model's inputs and outputs as declared. Its legitimate results are not those of the
// program but of the program as such a level runs it, which computed_in writes out: every f32,
// f16 and bf16 value of `p` becomes `precision` (constants rounded to it, each float param cast
// to it where it enters, each output cast back to its declared dtype where it leaves), integer
// and bool values and f64 stay as they are, and a call's declared accumulator (`acc=f32`) stays:
// the plugin accumulates products and sums in f32, and a wider accumulator only narrows the
// error the bound allows for. The reference, the bounds and the ensemble of that program are the
// level's allowance.
#pragma once

#include "compiler/ir/ir.h"

namespace difftest::tolerance {

// UserError(TypeMismatch) naming the op when an op of `p` does not take `precision` (then the
// level has no legitimate form for the program: it is `unsupported` there).
Program computed_in(const Program& p, DType precision);

// Whether computed_in(p, precision) differs from p (some value of p is a narrower float).
bool narrows(const Program& p, DType precision);

}  // namespace difftest::tolerance
