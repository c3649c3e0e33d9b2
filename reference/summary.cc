#include "reference/summary.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/npy.h"

namespace difftest::reference {

std::string summarize(const Tensor& t, DType declared) {
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.get(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  const double mean = t.numel() ? sum / static_cast<double>(t.numel()) : 0;
  return fmt::format("{}{} min={:.6g} max={:.6g} mean={:.6g} hash={:016x}", dtype_name(declared), shape_str(t.shape()),
                     lo, hi, mean, t.hash());
}

std::string binding_str(const sym::Env& env) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : env) parts.push_back(fmt::format("{}={}", k, v));
  return parts.empty() ? "(no dim variables)" : fmt::format("{}", fmt::join(parts, ","));
}

void dump_tensors(const std::string& dir, const std::map<std::string, Tensor>& inputs,
                  const std::vector<Tensor>& outputs, const std::string& note) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UserError(ErrorKind::Io, fmt::format("cannot create directory '{}': {}", dir, ec.message()));
  namespace fs = std::filesystem;
  for (const auto& [name, t] : inputs) write_npy((fs::path(dir) / fmt::format("in_{}.npy", name)).string(), t);
  for (size_t i = 0; i < outputs.size(); ++i) write_npy((fs::path(dir) / fmt::format("out_{}.npy", i)).string(), outputs[i]);
  write_file_atomic((fs::path(dir) / "README.txt").string(),
                    note + "\nbf16 tensors are stored as their raw 16-bit patterns with NumPy dtype <u2;\n"
                           "in NumPy: (a.astype(np.uint32) << 16).view(np.float32).\n");
}

}  // namespace difftest::reference
