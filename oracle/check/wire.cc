#include "oracle/check/wire.h"

#include <cstring>

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {

namespace {

template <typename T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
T take(const std::string& s, size_t& at) {
  DT_CHECK(at + sizeof(T) <= s.size(), "stream truncated");
  T v;
  std::memcpy(&v, s.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

void put_text(std::string& s, const std::string& text) {
  put<uint32_t>(s, static_cast<uint32_t>(text.size()));
  s += text;
}

std::string take_text(const std::string& s, size_t& at) {
  const auto n = take<uint32_t>(s, at);
  DT_CHECK(at + n <= s.size(), "stream truncated");
  std::string text = s.substr(at, n);
  at += n;
  return text;
}

}  // namespace

// Layout: compile_ms (f64), kernels (u64), unsupported (text), the exercised count (u32) and
// texts, the run count (u32), then per run: run_ms (f64), nondeterminism (text), the byte length
// of its tensors (u64), its tensors.
std::string encode_compiled_runs(const CompiledRuns& runs) {
  std::string s;
  put<double>(s, runs.compile_ms);
  put<uint64_t>(s, runs.kernels);
  put_text(s, runs.unsupported);
  put<uint32_t>(s, static_cast<uint32_t>(runs.exercised.size()));
  for (const auto& e : runs.exercised) put_text(s, e);
  put<uint32_t>(s, static_cast<uint32_t>(runs.runs.size()));
  for (const auto& run : runs.runs) {
    put<double>(s, run.run_ms);
    put_text(s, run.nondeterminism);
    const std::string tensors = encode_tensors(run.outputs);
    put<uint64_t>(s, tensors.size());
    s += tensors;
  }
  return s;
}

CompiledRuns decode_compiled_runs(const std::string& bytes) {
  size_t at = 0;
  CompiledRuns runs;
  runs.compile_ms = take<double>(bytes, at);
  runs.kernels = take<uint64_t>(bytes, at);
  runs.unsupported = take_text(bytes, at);
  const auto exercised = take<uint32_t>(bytes, at);
  for (uint32_t i = 0; i < exercised; ++i) runs.exercised.push_back(take_text(bytes, at));
  const auto count = take<uint32_t>(bytes, at);
  for (uint32_t i = 0; i < count; ++i) {
    CompiledRuns::Run run;
    run.run_ms = take<double>(bytes, at);
    run.nondeterminism = take_text(bytes, at);
    const auto n = take<uint64_t>(bytes, at);
    DT_CHECK(n <= bytes.size() - at, "compiled runs stream truncated");
    run.outputs = decode_tensors(bytes.substr(at, n));
    at += n;
    runs.runs.push_back(std::move(run));
  }
  DT_CHECK(at == bytes.size(), "compiled runs stream has trailing bytes");
  return runs;
}

// Layout: kind (u8), pass, then the binding's count (u32) and (name, value) pairs.
std::string encode_stage(const Stage& stage) {
  std::string s;
  put<uint8_t>(s, static_cast<uint8_t>(stage.kind));
  put_text(s, stage.pass);
  put<uint32_t>(s, static_cast<uint32_t>(stage.binding.size()));
  for (const auto& [name, value] : stage.binding) {
    put_text(s, name);
    put<int64_t>(s, value);
  }
  return s;
}

Stage decode_stage(const std::string& bytes) {
  if (bytes.empty()) return Stage::compile();
  size_t at = 0;
  Stage stage;
  const auto kind = take<uint8_t>(bytes, at);
  DT_CHECK(kind <= static_cast<uint8_t>(Stage::Kind::Compare), "stage stream: bad kind");
  stage.kind = static_cast<Stage::Kind>(kind);
  stage.pass = take_text(bytes, at);
  const auto count = take<uint32_t>(bytes, at);
  for (uint32_t i = 0; i < count; ++i) {
    std::string name = take_text(bytes, at);
    stage.binding[name] = take<int64_t>(bytes, at);
  }
  DT_CHECK(at == bytes.size(), "stage stream has trailing bytes");
  return stage;
}

// Layout: count, then per tensor: dtype (u8), rank (u32), extents (i64 each), raw bytes.
std::string encode_tensors(const std::vector<Tensor>& ts) {
  std::string s;
  put<uint32_t>(s, static_cast<uint32_t>(ts.size()));
  for (const auto& t : ts) {
    put<uint8_t>(s, static_cast<uint8_t>(t.dtype()));
    put<uint32_t>(s, static_cast<uint32_t>(t.shape().size()));
    for (int64_t d : t.shape()) put<int64_t>(s, d);
    s.append(reinterpret_cast<const char*>(t.data()), t.nbytes());
  }
  return s;
}

std::vector<Tensor> decode_tensors(const std::string& bytes) {
  size_t at = 0;
  const auto count = take<uint32_t>(bytes, at);
  std::vector<Tensor> out;
  for (uint32_t i = 0; i < count; ++i) {
    const auto dtype = take<uint8_t>(bytes, at);
    DT_CHECK(dtype < kAllDTypes.size(), "tensor stream: bad dtype");
    const auto rank = take<uint32_t>(bytes, at);
    DT_CHECK(rank <= 64, "tensor stream: bad rank");
    std::vector<int64_t> shape;
    for (uint32_t d = 0; d < rank; ++d) shape.push_back(take<int64_t>(bytes, at));
    Tensor t(static_cast<DType>(dtype), shape);
    DT_CHECK(at + t.nbytes() <= bytes.size(), "tensor stream truncated");
    if (t.nbytes() > 0) std::memcpy(t.data(), bytes.data() + at, t.nbytes());
    at += t.nbytes();
    out.push_back(std::move(t));
  }
  DT_CHECK(at == bytes.size(), "tensor stream has trailing bytes");
  return out;
}

}  // namespace difftest::oracle
