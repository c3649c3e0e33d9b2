#include "fuzz/generator.h"

#include "compiler/support/hash.h"

#include <fmt/format.h>

#include <charconv>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"
#include "fuzz/builder.h"
#include "fuzz/motifs.h"
#include "fuzz/templates.h"

namespace difftest {

const std::map<std::string, uint32_t>& default_op_weights() {
  static const std::map<std::string, uint32_t> weights = [] {
    std::map<std::string, uint32_t> w;
    for (const auto& name : fuzz::recipes().ops()) w[name] = 10;
    // The ops LLM and TTS deployments lean on most get picked twice as often.
    for (const char* n : {"matmul", "linear", "attention", "rope", "rms_norm", "softmax", "dequantize",
                          "sliding_window_mask", "conv1d"}) {
      w[n] = 20;
    }
    return w;
  }();
  return weights;
}

// Large enough for any ratio between ops; small enough that the weights of every op sum
// without overflow.
constexpr uint32_t kMaxOpWeight = 1'000'000;

std::map<std::string, uint32_t> parse_op_weights(const std::string& text, const std::string& flag) {
  std::map<std::string, uint32_t> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(at, comma - at);
    const size_t eq = item.find('=');
    const std::string name = item.substr(0, eq);
    uint32_t w = 0;
    const char* end = item.data() + item.size();
    const auto parsed = eq == std::string::npos ? std::from_chars_result{item.data(), std::errc::invalid_argument}
                                                : std::from_chars(item.data() + eq + 1, end, w);
    if (eq == std::string::npos || parsed.ptr != end || eq + 1 == item.size()) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is not op=weight (a non-negative integer)", flag, item));
    }
    if (parsed.ec == std::errc::result_out_of_range || w > kMaxOpWeight) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: '{}': a weight is at most {}", flag, item, kMaxOpWeight));
    }
    if (!default_op_weights().count(name)) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: unknown op '{}' (see difftest list-ops)", flag, name));
    }
    out[name] = w;
    at = comma + 1;
  }
  return out;
}

Program generate_program(ChoiceSource& choices, const GeneratorOptions& options) {
  fuzz::Builder b(choices, options);
  std::vector<std::string> names;
  std::vector<uint32_t> weights;
  for (const auto& [name, w] : default_op_weights()) {
    const auto given = options.weights.find(name);
    const uint32_t weight = given == options.weights.end() ? w : given->second;
    if (weight == 0) continue;
    names.push_back(name);
    weights.push_back(weight);
  }
  int target = static_cast<int>(choices.range(options.min_ops, std::max(options.min_ops, options.max_ops)));
  if (choices.chance(options.template_percent, 100)) {
    TemplateOptions t;
    t.size_shift = options.template_size_shift;
    b.adopt(make_template(choices.pick(template_names()), choices, t));
    target /= 2;  // a template is already a dozen ops or more
  } else {
    b.declare_dims();
  }
  int made = 0;
  for (int attempt = 0; !names.empty() && made < target && attempt < target * 8; ++attempt) {
    if (options.motif_percent > 0 && choices.chance(options.motif_percent, 100)) {
      if (fuzz::emit_motif(b)) ++made;
      continue;
    }
    const std::string& name = names[choices.weighted(weights)];
    if ((*fuzz::recipes().find(name))(b, name)) {
      ++made;
    } else if (options.drops) {
      ++options.drops->by_op[name];
    }
  }
  // Drawn last, so that the program before them is the one the seed made without them.
  if (choices.chance(options.twin_percent, 100)) b.twin();
  if (choices.chance(options.constant_percent, 100)) b.constant_subexpression();
  return b.finish("gen");
}

bool uses_only_dtypes(const Program& p, const std::vector<DType>& dtypes) {
  if (dtypes.empty()) return true;
  for (DType t : p.dtypes_computed()) {
    if (std::find(dtypes.begin(), dtypes.end(), t) == dtypes.end()) return false;
  }
  return true;
}

Program generate_program(uint64_t seed, const GeneratorOptions& options) {
  for (int draw = 0;; ++draw) {
    // The first draw is the seed's own stream: without declared dtypes nothing changes.
    PcgChoices choices(draw == 0 ? seed : hash_mix(seed, static_cast<size_t>(draw)));
    Program p = generate_program(choices, options);
    const bool takes = uses_only_dtypes(p, options.dtypes) && (!options.can_take || options.can_take(p));
    if (draw + 1 == kMaxDraws || takes) return p;
  }
}

}  // namespace difftest
