#include "compiler/tensor/npy.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"

namespace difftest {

namespace {

const char kMagic[] = "\x93NUMPY";

const char* descr_of(DType t) {
  switch (t) {
    case DType::f64: return "<f8";
    case DType::f32: return "<f4";
    case DType::f16: return "<f2";
    case DType::bf16: return "<u2";
    case DType::i64: return "<i8";
    case DType::i32: return "<i4";
    case DType::i8: return "|i1";
    case DType::u8: return "|u1";
    case DType::u32: return "<u4";
    case DType::boolean: return "|b1";
  }
  return "?";
}

std::optional<DType> dtype_of(const std::string& descr) {
  static const std::pair<const char*, DType> kTable[] = {
      {"<f8", DType::f64}, {"<f4", DType::f32}, {"<f2", DType::f16}, {"<i8", DType::i64}, {"<i4", DType::i32},
      {"|i1", DType::i8},  {"<i1", DType::i8},  {"|u1", DType::u8},  {"<u1", DType::u8},  {"<u4", DType::u32},
      {"|b1", DType::boolean}, {"<u2", DType::bf16}};
  for (const auto& [d, t] : kTable) {
    if (descr == d) return t;
  }
  return std::nullopt;
}

// A strict reader for the header dictionary NumPy writes:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& name) : s_(text), name_(name) {}

  void parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    expect('{');
    bool have_descr = false, have_order = false, have_shape = false;
    while (true) {
      skip();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran = boolean();
        have_order = true;
      } else if (key == "shape") {
        shape = tuple();
        have_shape = true;
      } else {
        bad(fmt::format("unexpected key '{}'", key));
      }
      skip();
      if (peek() == ',') ++i_;
    }
    if (!have_descr || !have_order || !have_shape) bad("the header needs 'descr', 'fortran_order' and 'shape'");
  }

 private:
  [[noreturn]] void bad(const std::string& why) {
    throw UserError(ErrorKind::Io, fmt::format("{}: malformed .npy header: {}", name_, why));
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    skip();
    if (peek() != c) bad(fmt::format("expected '{}' at offset {}", c, i_));
    ++i_;
  }
  std::string quoted() {
    skip();
    const char q = peek();
    if (q != '\'' && q != '"') bad(fmt::format("expected a quoted string at offset {}", i_));
    const size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos) bad("unterminated string");
    std::string out = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skip();
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    bad("fortran_order must be True or False");
  }
  std::vector<int64_t> tuple() {
    expect('(');
    std::vector<int64_t> out;
    while (true) {
      skip();
      if (peek() == ')') {
        ++i_;
        return out;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("shape entries must be non-negative integers");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (v > (int64_t{1} << 40)) bad("shape entry too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (out.size() == 16) bad("rank above 16");
      out.push_back(v);
      skip();
      if (peek() == ',') ++i_;
    }
  }

  const std::string& s_;
  const std::string& name_;
  size_t i_ = 0;
};

}  // namespace

std::string npy_bytes(const Tensor& t) {
  std::string shape;
  for (int64_t d : t.shape()) shape += fmt::format("{}, ", d);
  if (t.rank() > 1) shape.resize(shape.size() - 2);
  if (t.rank() == 1) shape.resize(shape.size() - 1);
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr_of(t.dtype()), shape);
  const size_t unpadded = 6 + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(t.data()), t.nbytes());
  return out;
}

Tensor parse_npy(const std::string& bytes, const std::string& name) {
  auto bad = [&](const std::string& why) { return UserError(ErrorKind::Io, fmt::format("{}: {}", name, why)); };
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) throw bad("not a .npy file (bad magic)");
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw bad("truncated header");
    header_len = 0;
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(bytes[8 + i]);
    offset = 12;
  } else {
    throw bad(fmt::format("unsupported .npy format version {}", major));
  }
  if (bytes.size() < offset + header_len) throw bad("truncated header");
  const std::string header = bytes.substr(offset, header_len);
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser(header, name).parse(descr, fortran, shape);
  if (fortran) throw bad("Fortran-order arrays are not supported; save with np.ascontiguousarray");
  if (!descr.empty() && descr[0] == '>') throw bad(fmt::format("big-endian dtype '{}' is not supported", descr));
  auto dtype = dtype_of(descr);
  if (!dtype) throw bad(fmt::format("unsupported dtype '{}'", descr));
  Tensor t(*dtype, shape);
  const size_t data = offset + header_len;
  if (bytes.size() - data != t.nbytes()) {
    throw bad(fmt::format("holds {} data bytes, shape {} of {} needs {}", bytes.size() - data, shape_str(shape),
                          dtype_name(*dtype), t.nbytes()));
  }
  std::memcpy(t.data(), bytes.data() + data, t.nbytes());
  if (*dtype == DType::boolean) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (t.data()[i] > 1) throw bad("bool data must be 0 or 1");
    }
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  return parse_npy(read_text_file(path, size_t{16} << 30), path);
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UserError(ErrorKind::Io, fmt::format("cannot write '{}'", tmp));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) throw UserError(ErrorKind::Io, fmt::format("error while writing '{}'", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw UserError(ErrorKind::Io, fmt::format("cannot rename '{}' to '{}'", tmp, path));
  }
}

void write_npy(const std::string& path, const Tensor& t) { write_file_atomic(path, npy_bytes(t)); }

}  // namespace difftest
