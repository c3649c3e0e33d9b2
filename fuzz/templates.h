// Model templates: programs shaped like the layers difftest exists to test, built in C++ from
// a ChoiceSource so that the generator can start from one (and RapidCheck can shrink it).
//
//   gemma3-layer  a Gemma-3-270m decoder layer: (1 + w) RMS norms before and after attention
//                 and the MLP, per-head q/k norms, RoPE, GQA 4:1 with a 512-token sliding
//                 window on local layers and none on every sixth (global) layer, GeGLU MLP,
//                 every projection in q4f16_1.
//   mistral-swa   Mistral-style sliding-window attention with attention sinks, through the
//                 attention op's window/sink attributes or an explicit sliding_window_mask.
//   kokoro-conv   a Kokoro (StyleTTS2 / iSTFTNet) upsampling residual conv block with AdaIN
//                 and a magnitude/phase head (atan2, clip, where).
//
// Every choice (layer kind, dtype, dims' ranges, optional parts) comes from the ChoiceSource,
// so a choice stream determines the program byte for byte. Value names are descriptive (never
// the generator's p<digits>, c<digits> or <digits>) and dim variables are n, t and kv (never
// the generator's m, k, s), so a generator can keep adding ops to a template. Values stay
// finite under reference::generate_inputs at every binding within the dims' ranges.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/support/rng.h"

namespace difftest {

struct TemplateOptions {
  int size_shift = 4;  // model widths are divided by 2^size_shift (0 = the real model's sizes)
};

// "gemma3-layer", "mistral-swa", "kokoro-conv", in that order.
const std::vector<std::string>& template_names();

// Builds the named template; every choice is drawn from `choices`, so the result is
// deterministic for a given choice stream. UserError(ErrorKind::Usage) naming the known
// templates for an unknown name, or for a size_shift outside [0, 12].
Program make_template(const std::string& name, ChoiceSource& choices, const TemplateOptions& options = {});

}  // namespace difftest
