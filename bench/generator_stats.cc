// Generation statistics: what the seeded generator produces over a range of seeds: ops, the
// breadth classes docs/fuzzing.md tracks (two-sided broadcasting, batched matmul operands,
// negative and empty axes, attention variants, conv attributes, same-rank reshapes, output
// dtypes), value classes of constants and inputs, and the picks the generator dropped. A
// measurement: it prints markdown (and writes every count as JSON), it asserts nothing.
//   build/bench/generator_stats [--first 0] [--count 2000] [--no-inputs] [--json FILE]
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "fuzz/coverage.h"
#include "fuzz/generator.h"
#include "reference/inputs.h"

namespace {

using difftest::coverage::Counts;

int64_t count_of(const std::map<std::string, int64_t>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

// Calls of `ops` with a shape (or attribute) class, over all their calls.
std::string share(const Counts& c, const std::vector<std::string>& ops, const std::string& cls, bool attribute) {
  int64_t with = 0, all = 0;
  for (const auto& op : ops) {
    with += count_of(attribute ? c.attribute_classes : c.shape_classes, op + "|" + cls);
    all += count_of(c.ops, op);
  }
  return fmt::format("{} of {}", with, all);
}

std::string classes(const std::map<std::string, int64_t>& m, const std::string& prefix) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : m) {
    if (k.rfind(prefix, 0) == 0) parts.push_back(fmt::format("{} {}", k.substr(prefix.size()), v));
  }
  return parts.empty() ? "–" : fmt::format("{}", fmt::join(parts, ", "));
}

nlohmann::json to_json(const Counts& c, const difftest::GenerationDrops& drops) {
  return {{"programs", c.programs},          {"calls", c.calls},
          {"ops", c.ops},                    {"cells", c.cells},
          {"attribute_classes", c.attribute_classes}, {"shape_classes", c.shape_classes},
          {"constant_values", c.constant_values},     {"input_values", c.input_values},
          {"result_dtypes", c.result_dtypes},         {"drops_by_op", drops.by_op},
          {"drops_by_reason", drops.by_reason}};
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t first = 0;
  int64_t count = 2000;
  bool no_inputs = false;
  std::string json_path;
  CLI::App app{"difftest generation statistics"};
  app.add_option("--first", first, "first seed");
  app.add_option("--count", count, "number of seeds")->check(CLI::PositiveNumber);
  app.add_flag("--no-inputs", no_inputs, "skip the inputs' value classes (they are generated per program)");
  app.add_option("--json", json_path, "also write every count as JSON");
  CLI11_PARSE(app, argc, argv);

  Counts c;
  difftest::GenerationDrops drops;
  difftest::GeneratorOptions options;
  options.drops = &drops;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t seed = first + static_cast<uint64_t>(i);
    const difftest::Program p = difftest::generate_program(seed, options);
    c.add_program(p);
    if (!no_inputs) {
      const auto env = difftest::reference::resolve_binding(p, {}, nullptr);
      c.add_inputs(difftest::reference::generate_inputs(p, env, seed));
    }
  }
  const std::vector<std::string> binaries = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "floor_divide",
                                             "floor_mod", "atan2", "equal", "not_equal", "less", "less_equal",
                                             "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
                                             "where"};
  const std::vector<std::string> reductions = {"sum", "mean", "prod", "max", "min"};
  int64_t dropped = 0;
  for (const auto& [op, n] : drops.by_op) dropped += n;
  fmt::print("Seeds {}..{}: {} programs, {} calls, {} distinct cells (op x dtype x attribute class x shape "
             "class), {} ops of {} drawn at least once; {} picks made nothing.\n\n",
             first, first + static_cast<uint64_t>(count) - 1, c.programs, c.calls, c.cells.size(), c.ops.size(),
             difftest::default_op_weights().size(), dropped);
  fmt::print("| breadth class | calls |\n|---|---|\n");
  const auto row = [](const std::string& what, const std::string& n) { fmt::print("| {} | {} |\n", what, n); };
  row("binary/where: both operands broadcast", share(c, binaries, "broadcast-both", false));
  row("binary/where: operands of different rank", share(c, binaries, "rank-differs", false));
  row("matmul: batched right operand only", share(c, {"matmul"}, "batch:rhs", false));
  row("matmul: both batched, equal batches", share(c, {"matmul"}, "batch:both", false));
  row("matmul: both batched, broadcast batches", share(c, {"matmul"}, "batch:broadcast", false));
  row("matmul: transpose_a", share(c, {"matmul"}, "transpose_a=true", true));
  row("matmul: transpose_b", share(c, {"matmul"}, "transpose_b=true", true));
  row("reductions: negative axes", share(c, reductions, "axes:negative", true));
  row("reductions: empty axes", share(c, reductions, "axes:empty", true));
  row("reductions: keepdims", share(c, reductions, "keepdims=true", true));
  row("attention: window > 1", share(c, {"attention"}, "window>1", true));
  row("attention: sink > 0", share(c, {"attention"}, "sink>1", true) + " (>1), " + share(c, {"attention"}, "sink=1", true) + " (=1)");
  row("attention: softcap", share(c, {"attention"}, "softcap>1", true));
  row("attention: grouped-query heads", share(c, {"attention"}, "heads:gqa", false));
  row("attention: offset symbolic or derived", share(c, {"attention"}, "offset:symbolic", true) + ", " +
                                                   share(c, {"attention"}, "offset:derived", true));
  row("group_norm: groups > 1", share(c, {"group_norm"}, "num_groups>1", true));
  row("reshape: same rank", share(c, {"reshape"}, "same-rank", false));
  row("permute_dims ranks", classes(c.shape_classes, "permute_dims|rank="));
  row("cast result dtypes", classes(c.result_dtypes, "cast|"));
  row("dequantize result dtypes", classes(c.result_dtypes, "dequantize|"));
  row("conv1d/conv2d strides", classes(c.attribute_classes, "conv1d|stride") + "; " + classes(c.attribute_classes, "conv2d|stride"));
  row("conv1d/conv2d dilations", classes(c.attribute_classes, "conv1d|dilation") + "; " + classes(c.attribute_classes, "conv2d|dilation"));
  row("conv1d/conv2d groups", classes(c.attribute_classes, "conv1d|groups") + "; " + classes(c.attribute_classes, "conv2d|groups"));
  fmt::print("\nValue classes of literal constants: {}\n\n", classes(c.constant_values, ""));
  if (!no_inputs) fmt::print("Value classes of the inputs (lowest binding): {}\n\n", classes(c.input_values, ""));
  fmt::print("Picks that made nothing, by the builder's reason: {}\n\n", classes(drops.by_reason, ""));
  fmt::print("| op | calls | dropped picks |\n|---|---:|---:|\n");
  for (const auto& [name, w] : difftest::default_op_weights()) {
    fmt::print("| {} | {} | {} |\n", name, count_of(c.ops, name), count_of(drops.by_op, name));
  }
  if (!json_path.empty()) std::ofstream(json_path) << to_json(c, drops).dump(1) << "\n";
  return 0;
}
