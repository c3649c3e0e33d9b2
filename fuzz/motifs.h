// Chains of ops in the shapes ONNX exporters write a model's layers (fuzz/motifs.cc), mixed into
// generated programs by GeneratorOptions::motif_percent.
#pragma once

namespace difftest::fuzz {

class Builder;

// Emits one motif chosen by weight among those whose ops all have a non-zero weight; returns
// whether its core op was emitted (the matmul, conv, norm or softmax; a link after it that the
// builder refuses ends the chain early).
bool emit_motif(Builder& g);

}  // namespace difftest::fuzz
