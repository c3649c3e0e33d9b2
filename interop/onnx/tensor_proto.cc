#include "interop/onnx/tensor_proto.h"

#include <fmt/format.h>

#include <cstring>

#include "compiler/support/diagnostics.h"
#include "compiler/support/file_io.h"

namespace difftest::interop {

namespace {

using ::onnx::TensorProto;

// protobuf's own limit for one message.
constexpr size_t kMaxModelBytes = size_t{2} << 30;

}  // namespace

std::optional<DType> dtype_from_onnx(int32_t onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT:
      return DType::f32;
    case TensorProto::DOUBLE:
      return DType::f64;
    case TensorProto::FLOAT16:
      return DType::f16;
    case TensorProto::BFLOAT16:
      return DType::bf16;
    case TensorProto::INT64:
      return DType::i64;
    case TensorProto::INT32:
      return DType::i32;
    case TensorProto::INT8:
      return DType::i8;
    case TensorProto::UINT8:
      return DType::u8;
    case TensorProto::UINT32:
      return DType::u32;
    case TensorProto::BOOL:
      return DType::boolean;
    default:
      return std::nullopt;
  }
}

int32_t onnx_dtype(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return TensorProto::FLOAT;
    case DType::f64:
      return TensorProto::DOUBLE;
    case DType::f16:
      return TensorProto::FLOAT16;
    case DType::bf16:
      return TensorProto::BFLOAT16;
    case DType::i64:
      return TensorProto::INT64;
    case DType::i32:
      return TensorProto::INT32;
    case DType::i8:
      return TensorProto::INT8;
    case DType::u8:
      return TensorProto::UINT8;
    case DType::u32:
      return TensorProto::UINT32;
    case DType::boolean:
      return TensorProto::BOOL;
  }
  return TensorProto::UNDEFINED;
}

std::string onnx_dtype_name(int32_t onnx_type) {
  if (!TensorProto::DataType_IsValid(onnx_type)) return fmt::format("data type {}", onnx_type);
  return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnx_type));
}

::onnx::ModelProto read_model(const std::string& path) {
  ::onnx::ModelProto m;
  if (!m.ParseFromString(read_text_file(path, kMaxModelBytes))) {
    throw UserError(ErrorKind::Syntax, fmt::format("'{}' is not an ONNX model (a serialized ModelProto)", path));
  }
  return m;
}

TensorProto read_tensor_proto(const std::string& path) {
  TensorProto t;
  if (!t.ParseFromString(read_text_file(path, kMaxModelBytes))) {
    throw UserError(ErrorKind::Syntax, fmt::format("'{}' is not a serialized ONNX TensorProto", path));
  }
  return t;
}

Tensor tensor_from_proto(const TensorProto& t, const std::string& where) {
  const std::optional<DType> dtype = dtype_from_onnx(t.data_type());
  if (!dtype) {
    throw Unsupported(fmt::format("dtype {}", onnx_dtype_name(t.data_type())),
                      fmt::format("{}: tensor '{}' has dtype {}, which difftest lacks", where, t.name(),
                                  onnx_dtype_name(t.data_type())));
  }
  if (t.data_location() == TensorProto::EXTERNAL) {
    throw UserError(ErrorKind::Io, fmt::format("{}: tensor '{}' keeps its data in an external file", where, t.name()));
  }
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  for (const int64_t d : shape) {
    if (d < 0) throw UserError(ErrorKind::Shape, fmt::format("{}: tensor '{}' has a negative dim", where, t.name()));
  }
  Tensor out(*dtype, shape);
  const auto mismatch = [&](size_t got) {
    return UserError(ErrorKind::Literal, fmt::format("{}: tensor '{}' of {} holds {} values for {} elements", where,
                                                     t.name(), out.type_str(), got, out.numel()));
  };
  if (t.has_raw_data()) {
    if (t.raw_data().size() != out.nbytes()) {
      throw UserError(ErrorKind::Literal, fmt::format("{}: tensor '{}' of {} has {} bytes of raw data, not {}", where,
                                                      t.name(), out.type_str(), t.raw_data().size(), out.nbytes()));
    }
    if (out.nbytes() > 0) std::memcpy(out.data(), t.raw_data().data(), out.nbytes());  // an empty tensor has no buffer
    return out;
  }
  const auto n = static_cast<size_t>(out.numel());
  switch (*dtype) {
    case DType::f32:
      if (static_cast<size_t>(t.float_data_size()) != n) throw mismatch(t.float_data_size());
      for (size_t i = 0; i < n; ++i) out.set(static_cast<int64_t>(i), t.float_data(static_cast<int>(i)));
      break;
    case DType::f64:
      if (static_cast<size_t>(t.double_data_size()) != n) throw mismatch(t.double_data_size());
      for (size_t i = 0; i < n; ++i) out.set(static_cast<int64_t>(i), t.double_data(static_cast<int>(i)));
      break;
    case DType::i64:
      if (static_cast<size_t>(t.int64_data_size()) != n) throw mismatch(t.int64_data_size());
      for (size_t i = 0; i < n; ++i) out.set_int(static_cast<int64_t>(i), t.int64_data(static_cast<int>(i)));
      break;
    case DType::u32:
      if (static_cast<size_t>(t.uint64_data_size()) != n) throw mismatch(t.uint64_data_size());
      for (size_t i = 0; i < n; ++i) {
        out.set_int(static_cast<int64_t>(i), static_cast<int64_t>(t.uint64_data(static_cast<int>(i))));
      }
      break;
    case DType::f16:
    case DType::bf16: {
      // int32_data holds the 16 bits of each element.
      if (static_cast<size_t>(t.int32_data_size()) != n) throw mismatch(t.int32_data_size());
      for (size_t i = 0; i < n; ++i) {
        const auto bits = static_cast<uint16_t>(t.int32_data(static_cast<int>(i)));
        std::memcpy(out.data() + 2 * i, &bits, 2);
      }
      break;
    }
    case DType::i32:
    case DType::i8:
    case DType::u8:
    case DType::boolean:
      if (static_cast<size_t>(t.int32_data_size()) != n) throw mismatch(t.int32_data_size());
      for (size_t i = 0; i < n; ++i) out.set_int(static_cast<int64_t>(i), t.int32_data(static_cast<int>(i)));
      break;
  }
  return out;
}

TensorProto tensor_to_proto(const Tensor& t, const std::string& name) {
  TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx_dtype(t.dtype()));
  for (const int64_t d : t.shape()) p.add_dims(d);
  // An empty tensor has no buffer to point into.
  p.set_raw_data(t.nbytes() > 0 ? std::string(reinterpret_cast<const char*>(t.data()), t.nbytes()) : std::string());
  return p;
}

}  // namespace difftest::interop
